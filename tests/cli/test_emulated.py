#!/usr/bin/env python3
"""plerig run --connect emulated without Bochs: a fake Bochs (PLERIG_BOCHS)
started as plerig starts bochs-bin reads its bochsrc and plays L1 on the
console files it names. In the healthy case L1 is this plerig's own
`l1-serve`, running the variants on host threads (--backend native), so
the protocol, the results' way back and the outputs are the real ones; in
the others it breaks the way a real L1 can: Bochs missing, a kernel without
kvm_intel, a stall, L1 dying mid-run, results cut short. Each ends in an
error naming the emulated host, never a hang. The L1 medium is built by a
fake build-medium (PLERIG_L1_DIR), which counts its builds.

usage: test_emulated.py PLERIG
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

PLERIG = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# $1..$4 = -q -f BOCHSRC -rc ...: the console files from the bochsrc, then the mode's L1
FAKE_BOCHS = r"""#!/bin/bash
here=${FAKE_BOCHS_DIR:-$(dirname "$0")}
if [ "$1" = --help ]; then echo "Bochs x86 Emulator $(cat "$here/version" 2>/dev/null || echo 2.7)"; exit 0; fi
cp "$3" "$here/bochsrc.seen"
# two emulated hosts in one run (emulated,emulated:amd): each CPU model may have a mode, a
# sysfs (its L1's KVM module and PLE parameters) and a bochsrc of its own
model=$(sed -n 's/^cpu: model=\([^,]*\).*/\1/p' "$3")
cp "$3" "$here/bochsrc.$model.seen"
mode=$(cat "$here/mode.$model" 2> /dev/null || cat "$here/mode")
[ -d "$here/sys.$model" ] && export PLERIG_SYSFS_ROOT="$here/sys.$model"
# L1 here is this machine, which may have a /dev/kvm or not: the fake's L1 has none (its
# runs are native), so what it says of itself is the same on every machine
export PLERIG_KVM_DEVICE=${PLERIG_KVM_DEVICE:-$here/no-kvm-device}
# the other models' Bochs as this one starts (ps state: T while held), then this one's pid
for f in "$here"/pid.*; do
	[ -f "$f" ] && echo "${f##*/pid.} $(ps -o stat= -p "$(cat "$f")" || echo gone)" >> "$here/others.$model"
done
echo $$ > "$here/pid.$model"
# Bochs' clock preload is for Bochs alone: the plerig of the real L1 never sees it
# (and under ASan a preloaded library before the runtime stops it, exit 86)
unset LD_PRELOAD
# restoring (-r DIR): the devices of the saved config, as Bochs ignores the bochsrc then
config=$3
[ "$4" = -r ] && config=$5/config
# restoring, Bochs opens every file of the state (its memory through the staged link)
if [ "$4" = -r ] && ! [ -e "$5/memory" ]; then
	echo "00000000000e[SIM   ] restore_bochs_param(): error in file open" >> "$(sed -n 's/^log: //p' "$3")"
	exit 1
fi
com1=$(sed -n 's/^com1:.*dev=\([^,]*\).*/\1/p' "$config")
com2=$(sed -n 's/^com2:.*dev=\([^,]*\).*/\1/p' "$config")
# the parallel port's file: L1's answers come through it as they do in Bochs (l1_side.h)
lpt=$(sed -n 's/^parport1:.*file=\([^,]*\).*/\1/p' "$config")
[ -n "$lpt" ] || exit 1
[ -n "$com1" ] || exit 1
boot() {
	printf 'Linux version 6.1.0-fake (nobody) #1 SMP\r\n@@ple step modules begin uptime=1.0\r\n' >> "$com1"
}
modules() {
	printf 'param_ple_gap=128\r\n@@ple step modules end rc=0 uptime=2.0\r\n' >> "$com1"
}
# a Bochs whose mode cannot save says so (save-state.so writes "failed")
trap ': > "$PLERIG_BOCHS_SAVE/failed"' USR2
# Bochs 2.7 starts its devices in the order it loads their plugins: booting, its defaults
# then the machine's (its log says so); restoring, as the saved config's plugin_ctrl lists
# them, which it saves in another order. Its timers are restored by number: restored in
# another order than it booted, every serial timer runs another's state, and the real L1
# echoed a NUL a millisecond on its console ("^@"), with no heartbeat and no answer.
[ "$4" = -r ] || printf "00000000000i[PLUGIN] init_dev of '%s' plugin device by virtual method\n" \
	pci biosdev serial unmapped usb_uhci >> "$(sed -n 's/^log: //p' "$3")"
timers_swapped() {
	local order
	order=$(sed -n 's/^plugin_ctrl: //p' "$config" | tr -d ' ' | tr , '\n' | sed -n 's/=true$//p' | xargs)
	[ "$order" != "biosdev serial unmapped usb_uhci" ]
}
deaf() {
	stty -F "$com2" raw -echo  # as Bochs sets it
	while :; do printf '^@' >> "$com1"; for i in {1..2000}; do :; done; done
}
case $mode in
serve|deaf-restore)
	# save-state.so's part: SIGUSR2 saves the state (the devices' config as Bochs writes it)
	trap '{ echo "plugin_ctrl: voodoo=false, biosdev=true, usb_uhci=true, busmouse=false, serial=true, unmapped=true"
		grep "^com\|^parport" "$3"; } > "$PLERIG_BOCHS_SAVE/config"; : > "$PLERIG_BOCHS_SAVE/memory"
		: > "$PLERIG_BOCHS_SAVE/saved"' USR2
	if [ "$4" = -r ]; then
		{ timers_swapped || [ "$mode" = deaf-restore ]; } && deaf
	else
		boot; modules
	fi
	"$PLERIG" l1-serve "$com1" "$com2" "$lpt" &
	while kill -0 $! 2> /dev/null; do wait $!; done ;;
no-kvm-intel)
	boot
	printf 'modprobe: FATAL: Module kvm_intel not found\r\n' >> "$com1"
	printf "@@ple fatal no kvm_intel in L1's kernel 6.1.0-fake: modprobe kvm_intel says: not found\r\n" >> "$com1"
	printf '@@ple done uptime=3.0\r\n' >> "$com1"
	sleep 300 ;;
stall)
	boot; modules
	while [ $SECONDS -lt 300 ]; do :; done ;;
dies)
	# L1 answers its first run request (and the warm-up before the save), then Bochs is gone
	boot; modules
	stty -F "$com2" raw -echo  # as Bochs sets it
	sed -u '/^@@ple req run-/q' "$com2" | "$PLERIG" l1-serve /dev/stdout /dev/stdin | sed -u '/^@@ple done/d' >> "$com1" &
	while kill -0 $! 2> /dev/null; do wait $!; done
	exit 3 ;;
cut)
	# a line of the first answer's frame is lost on the way
	boot; modules
	"$PLERIG" l1-serve /dev/stdout "$com2" | sed -u '/^@@ple file run-1\.result /{n;d}' >> "$com1" &
	while kill -0 $! 2> /dev/null; do wait $!; done ;;
esac
"""

# Its medium: no kernel, no ISO; what the real one reports (medium.txt)
FAKE_BUILD_MEDIUM = r"""#!/bin/bash
here=$(dirname "$0")
case $1 in
kernel) echo "$here/linux-image-6.1.0-fake.deb" ;;
build)
	echo "build ${10}" >> "$here/builds"
	echo "${10}" > "$here/vendor"
	mkdir -p "$2"
	echo "not an ISO" > "$2/l1.iso"
	# the kernel L1 (this machine) says it runs: a restored state's is checked against it
	printf 'kernel_version=%s (nobody) #1 SMP\nkernel_release=%s\n' "$(uname -r)" "$(uname -r)" > "$2/medium.txt" ;;
esac
"""

# a suite the fake L1 (this machine, no KVM needed) can run
NATIVE_SUITE = """[defaults]
options = --duration 0.05 --warmup 0.01 --repeat 2

[native-pause]
options = --backend native --vcpus 2 --pcpus 0 --relax pause
expect = progress
"""

# a short run on one host CPU: 2 variants
RUN = ["run", "--connect", "emulated", "--backend", "native", "--vcpus", "2", "--pcpus", "0",
       "--relax", "pause,nop", "--duration", "0.05", "--warmup", "0.01"]

# the same on the emulated AMD host
AMD_RUN = [a if a != "emulated" else "emulated:amd" for a in RUN]


class Emulated(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        d = self.dir = self.tmp.name
        self.fake = os.path.join(d, "fake")
        self.l1 = os.path.join(d, "l1")
        os.makedirs(self.fake)
        os.makedirs(self.l1)
        self.write(os.path.join(self.fake, "bochs-bin"), FAKE_BOCHS, 0o755)
        self.write(os.path.join(self.l1, "build-medium"), FAKE_BUILD_MEDIUM, 0o755)
        for f in ("init", "unpack-kernel", "boot-shim.S", "linux-image-6.1.0-fake.deb"):
            self.write(os.path.join(self.l1, f), f + "\n", 0o644)
        # the vendors are the real ones: what the emulated host reads of them is under test
        for f in ("vendors.cfg", "read-vendor", "vendor-fit", "add-modules"):
            shutil.copy(os.path.join(ROOT, "images", "l1", f), self.l1)
        self.cache = os.path.join(d, "cache")
        # the fake L1's temporary files (l1-serve's command directories): the test's own, so
        # that an L1 killed mid-command (modes dies, stall) leaves nothing in this host's /tmp
        self.tmpdir = os.path.join(d, "tmp")
        os.makedirs(self.tmpdir)

    @staticmethod
    def write(path, text, mode):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)

    def plerig(self, mode, *args, limits=None, timeout=120, bochs=True, cache=None, cwd=None):
        """plerig with the fake Bochs as PLERIG_BOCHS (bochs=False: the one it finds itself)."""
        self.write(os.path.join(self.fake, "mode"), mode, 0o644)
        # L1's state directory: the test's own (/var/lib/plerig is root's; a real L1's is)
        env = dict(os.environ, PLERIG=PLERIG, PLERIG_L1_DIR=self.l1, FAKE_BOCHS_DIR=self.fake,
                   TMPDIR=self.tmpdir, PLERIG_STATE_DIR=os.path.join(self.dir, "state"))
        env.update(limits or {})
        env.pop("PLERIG_BOCHS", None)
        if bochs:
            env["PLERIG_BOCHS"] = os.path.join(self.fake, "bochs-bin")
        t0 = time.monotonic()
        # the cache first: a sweep's options end at --
        p = subprocess.run([PLERIG, args[0], "--cache-dir", cache or self.cache, *args[1:]],
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
        p.seconds = time.monotonic() - t0
        return p

    def builds(self):
        try:
            with open(os.path.join(self.l1, "builds")) as f:
                return len(f.readlines())
        except FileNotFoundError:
            return 0

    def runs_left(self):
        runs = os.path.join(self.cache, "emulated", "runs")
        return sorted(os.listdir(runs)) if os.path.isdir(runs) else []

    def test_a_run_on_the_emulated_host_shows_its_rows(self):
        out = os.path.join(self.dir, "r.json")
        p = self.plerig("serve", *RUN, "--json", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        # the table: that host's rows, by the code that makes every table
        rows = [l for l in p.stdout.splitlines() if l.startswith("native")]
        self.assertEqual(len(rows), 2, p.stdout)
        # progress while L1 boots, its identity, and what its seconds are
        self.assertIn("emulated host: building L1's medium", p.stderr)
        self.assertRegex(p.stderr, r"emulated host \[\d+ s, Bochs \d+ s CPU\]: L1 is ready")
        self.assertRegex(p.stderr, r"plerig run: emulated Intel Core i7-4770 \(Haswell\) "
                                   r"\(Bochs 2\.7\), kernel \S+, .*times in emulated seconds")
        self.assertRegex(p.stderr, r"seconds +on host emulated every time and rate .* is in "
                                   r"emulated seconds: Bochs' instruction clock")
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["host"]["name"], "emulated")
        self.assertIn("emulated seconds", doc["host"]["clock"])
        self.assertIn("Bochs 2.7", doc["host"]["hypervisor"])
        self.assertEqual([v["host"] for v in doc["variants"]], ["emulated", "emulated"])
        self.assertTrue(all(v["runs"][0]["ok"] for v in doc["variants"]))
        self.assertEqual(len(doc["variants"][0]["runs"][0]["vm_results"][0]["vcpus"]), 2)
        self.assertEqual(self.runs_left(), [], "a run that went well leaves nothing behind")
        # the medium is kept by its key: built once
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("building L1's medium", p.stderr)
        self.assertEqual(self.builds(), 1)

    def test_connect_auto_falls_back_to_the_emulated_host_without_kvm(self):
        # make run's --connect auto: no KVM device here (a path that does not exist) and a
        # kvm variant planned: the emulated host, after one line that says why
        auto = ["run", "--connect", "auto", "--backend", "kvm,native", "--vcpus", "2",
                "--pcpus", "0", "--relax", "pause", "--duration", "0.05", "--warmup", "0.01"]
        out = os.path.join(self.dir, "r.json")
        missing = os.path.join(self.dir, "no-kvm")
        p = self.plerig("serve", *auto, "--json", out, limits={"PLERIG_KVM_DEVICE": missing})
        why = [l for l in p.stderr.splitlines() if "--connect auto" in l]
        self.assertEqual(why, [f"plerig run: --connect auto: no usable {missing} here (No such "
                               f"file or directory), so the kvm variants run on the emulated "
                               f"host: Bochs' emulated Intel CPU with the real kvm_intel, times "
                               f"in emulated seconds; its first start boots L1 (minutes)"],
                         p.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["host"]["name"], "emulated")
        self.assertEqual([v["host"] for v in doc["variants"]], ["emulated", "emulated"])
        # where the device opens (here a file of the test's: nothing opens a real device),
        # this machine's is used: this one is refused there, and Bochs is not started
        device = os.path.join(self.dir, "kvm")
        self.write(device, "", 0o600)
        args = list(auto)
        p = self.plerig("stall", *args, limits={"PLERIG_KVM_DEVICE": device}, timeout=60)
        self.assertIn(f"{device} is not a KVM device", p.stderr)
        self.assertNotIn("--connect auto", p.stderr)
        self.assertNotIn("emulated host", p.stderr)
        # where no kvm variant needs it: this machine too
        args[args.index("kvm,native")] = "native"
        p = self.plerig("stall", *args, "--json", out, limits={"PLERIG_KVM_DEVICE": missing},
                        timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("--connect auto", p.stderr)
        self.assertNotIn("emulated host", p.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertNotEqual(doc["host"]["name"], "emulated")
        self.assertTrue(doc["variants"][0]["runs"][0]["ok"], p.stderr)

    def states(self):
        d = os.path.join(self.cache, "emulated", "states")
        return [os.path.join(d, n) for n in os.listdir(d) if not n.startswith(".")]

    def test_a_booted_l1_is_saved_and_restored(self):
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"emulated host: L1's state saved in [\d.]+ s: later runs "
                                   r"restore it")
        (state,) = self.states()
        # its devices listed in the order Bochs started them booting, as it restores them
        with open(os.path.join(state, "config")) as f:
            config = f.read()
        self.assertIn("plugin_ctrl: biosdev=true, serial=true, unmapped=true, usb_uhci=true, "
                      "voodoo=false, busmouse=false\n", config)
        # L1's answers through the parallel port's file of the run (l1_side.h)
        self.assertRegex(config, r"parport1: enabled=1, file=\S+/runs/run-\w+/lpt1\.out\n")
        # warm: restored, asked who it is, the same rows; no boot, no build
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("from its saved state", p.stderr)
        self.assertRegex(p.stderr, r"emulated host: L1 restored in [\d.]+ s")
        self.assertNotIn("booting L1", p.stderr)
        self.assertEqual(len([l for l in p.stdout.splitlines() if l.startswith("native")]), 2)
        self.assertEqual(self.builds(), 1)
        # a state of another kernel than the medium's is never used: removed, L1 booted
        (medium,) = os.listdir(os.path.join(self.cache, "emulated", "media"))
        txt = os.path.join(self.cache, "emulated", "media", medium, "medium.txt")
        with open(txt) as f:
            kernel = f.read().split("kernel_release=")[1].strip()
        self.write(txt, "kernel_release=6.2.0-other\n", 0o644)
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"emulated host: the saved state {state} is unusable (it runs kernel "
                      f"{kernel}, the medium holds 6.2.0-other): removed, booting L1", p.stderr)
        self.assertIn("L1's state saved", p.stderr)  # anew
        # one Bochs cannot restore (another plerig's, damaged): the same
        (state,) = self.states()
        os.unlink(os.path.join(state, "config"))
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"the saved state \S+ is unusable \(Bochs exited with "
                                   r"status 1 before L1 was done")

    def test_the_newest_three_states_of_a_cpu_are_kept(self):
        # keys that differ by the Bochs version (in the key, as the kernel, plerig and the
        # CPU are): a user alternating two kernels or builds restores each, the oldest goes
        version = os.path.join(self.fake, "version")
        saved = []
        for v in ("2.7.1", "2.7.2", "2.7.3", "2.7.4"):
            self.write(version, v + "\n", 0o644)
            p = self.plerig("serve", *RUN)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("booting L1", p.stderr)
            (new,) = set(self.states()) - set(saved)
            saved.append(new)
            time.sleep(0.02)  # mtimes apart
        self.assertEqual(sorted(self.states()), sorted(saved[1:]), "the oldest of 4 went")
        # the second is restored (warm), so a fifth key's save keeps it and drops the third
        self.write(version, "2.7.2\n", 0o644)
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("from its saved state", p.stderr)
        time.sleep(0.02)
        self.write(version, "2.7.5\n", 0o644)
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("booting L1", p.stderr)
        left = self.states()
        self.assertEqual(len(left), 3, left)
        self.assertIn(saved[1], left, "the state restored last is kept")
        self.assertIn(saved[3], left)
        self.assertNotIn(saved[2], left, "the least recently used went")

    def test_a_relative_cache_dir_restores_its_state(self):
        # a staged state links to the saved one: a relative --cache-dir made those links
        # dangle, so every restore failed, the good state was removed and L1 booted cold
        for _ in range(2):
            p = self.plerig("serve", *RUN, cache="cache", cwd=self.dir)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"emulated host: L1 restored in [\d.]+ s")
        self.assertNotIn("unusable", p.stderr)
        self.assertNotIn("booting L1", p.stderr)
        self.assertEqual(len(self.states()), 1)

    def test_a_restored_l1_that_does_not_answer_is_booted_cold(self):
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        (state,) = self.states()
        # restored, it writes its console on and on but never answers (as Bochs 2.7 restored
        # with its devices in another order did): given up after its Bochs CPU, booted cold
        p = self.plerig("deaf-restore", *RUN, limits={"PLERIG_L1_ANSWER": "1"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"emulated host: the saved state {state} is unusable (no answer to "
                      f"hello-1.hello after 1 s of Bochs CPU, though L1's console goes on",
                      p.stderr)
        self.assertIn("booting L1", p.stderr)
        self.assertEqual(len([l for l in p.stdout.splitlines() if l.startswith("native")]), 2)
        self.assertEqual(len(self.states()), 1, "saved anew")
        self.assertEqual(subprocess.run(["pgrep", "-f", self.fake], capture_output=True).stdout,
                         b"", "Bochs left running")

    def test_no_bochs_is_said_with_the_fix(self):
        env_bochs = os.path.join(self.dir, "no-such-bochs")
        self.write(os.path.join(self.fake, "mode"), "serve", 0o644)
        p = subprocess.run([PLERIG, *RUN, "--cache-dir", self.cache], capture_output=True,
                           text=True, timeout=60,
                           env=dict(os.environ, PLERIG_BOCHS=env_bochs, PLERIG_L1_DIR=self.l1))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"plerig run: emulated host: no Bochs here ({env_bochs}", p.stderr)
        self.assertIn("scripts/setup ple-test", p.stderr)
        self.assertEqual(self.builds(), 0, "nothing built for a host that cannot run")

    def test_emulated_amd_boots_its_vendors_cpu_and_medium(self):
        """--connect emulated:amd: Bochs' Ryzen (images/l1/vendors.cfg), a medium of its own
        (L1 loads kvm_amd), and the rows and identity of that host."""
        self.write(os.path.join(self.fake, "version"), "3.1\n", 0o644)
        out = os.path.join(self.dir, "r.json")
        p = self.plerig("serve", *AMD_RUN, "--json", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.fake, "bochsrc.seen")) as f:
            rc = f.read()
        self.assertRegex(rc, r"(?m)^cpu: model=ryzen, count=2, ips=100000000,")
        with open(os.path.join(self.l1, "vendor")) as f:
            self.assertEqual(f.read(), "amd\n", "the medium is built for kvm_amd")
        self.assertRegex(p.stderr, r"plerig run: emulated AMD Ryzen 7 1700 \(Zen\) "
                                   r"\(Bochs 3\.1\), kernel \S+, .*times in emulated seconds")
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["host"]["name"], "emulated:amd")
        self.assertIn("Bochs 3.1: an emulated AMD Ryzen 7 1700 (Zen), 2 CPUs, SVM with "
                      "the pause filter and its threshold", doc["host"]["hypervisor"])
        self.assertEqual([v["host"] for v in doc["variants"]], ["emulated:amd"] * 2)
        # Intel's is another medium (its key holds the vendor), on Intel's CPU
        p = self.plerig("serve", *RUN)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.builds(), 2)
        with open(os.path.join(self.l1, "vendor")) as f:
            self.assertEqual(f.read(), "intel\n")
        with open(os.path.join(self.fake, "bochsrc.seen")) as f:
            self.assertRegex(f.read(), r"(?m)^cpu: model=corei7_haswell_4770, ")

    def test_emulated_amd_needs_bochs_3_1_and_says_how_to_get_it(self):
        # a Bochs of the user's that is too old: 2.7 has no pause filter threshold
        p = self.plerig("serve", *AMD_RUN, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"emulated host (amd): PLERIG_BOCHS={self.fake}/bochs-bin is Bochs 2.7; it "
                      f"needs 3.1 or later (SVM with the pause filter and its threshold): "
                      f"scripts/setup ple-test-amd CACHE puts one in CACHE", p.stderr)
        # none named: the cache holds none (a 2.7 there does not count)
        os.makedirs(os.path.join(self.cache, "bochs-2.7", "bin"))
        shutil.copy(os.path.join(self.fake, "bochs-bin"),
                    os.path.join(self.cache, "bochs-2.7", "bin", "bochs"))
        p = self.plerig("serve", *AMD_RUN, timeout=60, bochs=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"emulated host (amd): it needs Bochs 3.1 or later (SVM with the pause filter "
                      f"and its threshold; Debian 12's 2.7 lacks what it needs) and {self.cache} has "
                      f"none: scripts/setup ple-test-amd {self.cache} puts one there", p.stderr)
        self.assertEqual(self.builds(), 0, "nothing built for a host that cannot run")
        # an emulated vendor that does not exist: bad input
        p = self.plerig("serve", "check", "--connect", "emulated:arm", timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("emulated:arm: no such emulated vendor; there are: intel amd", p.stderr)
        # the one scripts/setup ple-test-amd put in the cache, with its own BIOS
        if not os.path.exists("/usr/share/vgabios/vgabios.bin"):
            self.skipTest("no /usr/share/vgabios/vgabios.bin (package vgabios): a Bochs found "
                          "in the cache is checked for it")
        top = os.path.join(self.cache, "bochs-3.1+dfsg-1")
        os.makedirs(os.path.join(top, "bin"))
        os.makedirs(os.path.join(top, "share"))
        shutil.copy(os.path.join(self.fake, "bochs-bin"), os.path.join(top, "bin", "bochs"))
        self.write(os.path.join(top, "share", "BIOS-bochs-latest"), "bios", 0o644)
        self.write(os.path.join(self.fake, "version"), "3.1\n", 0o644)
        p = self.plerig("serve", *AMD_RUN, bochs=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.fake, "bochsrc.seen")) as f:
            self.assertIn(f"romimage: file={top}/share/BIOS-bochs-latest\n", f.read())

    def failed(self, p):
        """The one error line of a run whose only host failed to come up."""
        self.assertEqual(p.returncode, 1, p.stderr)
        m = re.search(r"^plerig run: emulated host: L1 did not come up: (.*)$", p.stderr, re.M)
        self.assertIsNotNone(m, p.stderr)
        return m.group(1)

    def test_a_kernel_without_kvm_intel_stops_at_once(self):
        p = self.plerig("no-kvm-intel", *RUN, timeout=60)
        why = self.failed(p)
        self.assertTrue(why.startswith("no kvm_intel in L1's kernel 6.1.0-fake: modprobe "
                                       "kvm_intel says: not found (last step begun: modules; "),
                        why)
        self.assertIn("'modprobe: FATAL: Module kvm_intel not found'", why)
        self.assertLess(p.seconds, 30, "stopped at the fatal line, not by a limit")
        # the run's files stay where the message points
        (run,) = self.runs_left()
        self.assertIn(f"all of it: {self.cache}/emulated/runs/{run}/serial.log", why)

    def test_a_stall_is_found_in_bochs_cpu_time(self):
        p = self.plerig("stall", *RUN, limits={"PLERIG_L1_STALL": "1"}, timeout=120)
        why = self.failed(p)
        self.assertTrue(why.startswith("no console line for 1 s of Bochs CPU (L1 prints one "
                                       "every 10 emulated s"), why)
        self.assertIn("last step begun: modules", why)
        self.assertEqual(subprocess.run(["pgrep", "-f", self.fake], capture_output=True).stdout,
                         b"", "Bochs left running")

    def failed_runs(self, mode):
        """The first run of each variant of a run that failed (exit 1) in L1's @mode."""
        out = os.path.join(self.dir, "r.json")
        p = self.plerig(mode, *RUN, "--json", out, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        with open(out) as f:
            return [v["runs"][0] for v in json.load(f)["variants"]]

    def test_l1_dying_mid_run_fails_the_rest_and_keeps_what_came(self):
        runs = self.failed_runs("dies")
        self.assertTrue(runs[0]["ok"], runs[0].get("error"))
        self.assertFalse(runs[1]["ok"])
        # L1 died before it began the second (the step it had begun last is the first's)
        self.assertRegex(runs[1]["error"], r"^emulated host: Bochs exited with status 3 before "
                                           r"L1 was done .*\(last step begun: run-1; ")

    def test_results_cut_short_are_refused(self):
        runs = self.failed_runs("cut")
        self.assertFalse(runs[0]["ok"])
        self.assertRegex(runs[0]["error"], r"^emulated host: a file from L1 came damaged: "
                                           r"run-1\.result: \d+ bytes, sha256 [0-9a-f]{12}, where "
                                           r"L1 sent \d+ bytes")
        # and L1 is not asked again: Bochs was stopped with the reason
        self.assertRegex(runs[1]["error"], r"^emulated host: L1 is gone: a file from L1 came "
                                           r"damaged")

    def test_check_runs_inside_l1_with_its_files_in_and_out(self):
        suite = os.path.join(self.dir, "native.cfg")
        self.write(suite, NATIVE_SUITE, 0o644)
        store, tap = os.path.join(self.dir, "store"), os.path.join(self.dir, "c.tap")
        os.makedirs(store)
        check = ["check", "--connect", "emulated", "--suite", suite, "--baselines", store]
        p = self.plerig("serve", *check, "--record")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("native-pause", p.stdout)
        self.assertRegex(p.stderr, r"check: native-pause +[\d.]+ s")  # L1's progress, relayed
        (recorded,) = os.listdir(store)
        self.assertIn(f"plerig check: baseline of the emulated host written to {store}/{recorded}",
                      p.stderr)
        # judged against it: the baseline went in, the TAP came out (host threads' throughput
        # follows this machine's load: a threshold no drop can pass, so no timing is asserted)
        p = self.plerig("serve", *check, "--threshold", "1000", "--tap", tap)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(tap) as f:
            text = f.read()
        self.assertTrue(text.startswith("TAP version 13\n"), text)
        self.assertIn("ok 1 - native-pause: progress", text)
        self.assertIn("baseline", p.stdout)
        # each command L1 ran had a directory of its own under TMPDIR, removed when it ended
        self.assertEqual([f for f in os.listdir(self.tmpdir) if f.startswith("plerig-l1-")], [])
        # a kernel that cannot be tested: 125, as git bisect run reads it; a stall: 77
        p = self.plerig("no-kvm-intel", *check, timeout=60)
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("plerig check: emulated host: L1 did not come up: no kvm_intel", p.stderr)
        p = self.plerig("stall", *check, limits={"PLERIG_L1_STALL": "1"})
        self.assertEqual(p.returncode, 77, p.stderr)

    def test_doctor_runs_inside_l1(self):
        """plerig doctor --connect emulated: the doctor of L1 (here this machine, whose
        l1-serve is the fake L1), its JSON on stdout and its status, as L1's doctor gave
        them; a kernel that cannot be tested is 125, as for check."""
        # this machine as the fake L1 sees it: without a /dev/kvm (FAKE_BOCHS)
        here = subprocess.run([PLERIG, "doctor", "--json"], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "PLERIG_KVM_DEVICE":
                                               os.path.join(self.fake, "no-kvm-device")})
        p = self.plerig("serve", "doctor", "--connect", "emulated", "--json")
        self.assertEqual(p.returncode, here.returncode, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(sorted(f["finding"] for f in doc["findings"]),
                         sorted(f["finding"] for f in json.loads(here.stdout)["findings"]))
        p = self.plerig("serve", "doctor", "--connect", "emulated")
        self.assertEqual(p.returncode, here.returncode, p.stderr)
        self.assertNotIn("{", p.stdout.split("\n")[0])  # the text, not JSON
        p = self.plerig("no-kvm-intel", "doctor", "--connect", "emulated", timeout=60)
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("plerig doctor: emulated host: L1 did not come up: no kvm_intel", p.stderr)
        for bad, why in ((["--connect", "qemu:///system"], "doctor probes this host, or the emulated one"),
                         (["--kernel", "k.deb"], "--kernel: only for --connect emulated")):
            p = subprocess.run([PLERIG, "doctor", *bad], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(why, p.stderr)

    def test_sweep_runs_inside_l1(self):
        p = self.plerig("serve", "sweep", "--connect", "emulated", "--param",
                        "halt_poll_ns=0,1000", "--", "--backend", "native", "--vcpus", "2")
        # L1 here is this machine, whose kvm parameters plerig may not change: L1's sweep
        # says so on its stderr, relayed, and its status comes back
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"(?m)^plerig sweep: (cannot change halt_poll_ns|.*halt_poll)")
        p = subprocess.run([PLERIG, "sweep", "--connect", "qemu:///system", "--param",
                            "ple_window=1"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("only the emulated host runs one for this plerig", p.stderr)

    def fake_modules(self):
        """L1's kvm_intel and kvm as a sysfs tree (the fake Bochs exports it to L1's plerig)
        and modprobe and rmmod that log their calls and set what they are given there, as
        the real ones do: an unknown parameter fails modprobe."""
        sysfs = os.path.join(self.fake, "sys.corei7_haswell_4770", "module")
        for module, params in (("kvm_intel", {"ple_gap": "128", "ple_window": "4096",
                                              "ple_window_grow": "2", "ple_window_shrink": "0",
                                              "ple_window_max": "4294967295",
                                              "enable_apicv": "Y"}),
                               ("kvm", {"halt_poll_ns": "200000", "halt_poll_ns_grow": "2"})):
            os.makedirs(os.path.join(sysfs, module, "parameters"))
            for k, v in params.items():
                self.write(os.path.join(sysfs, module, "parameters", k), v + "\n", 0o644)
        log = os.path.join(self.fake, "modprobe.log")
        self.write(os.path.join(self.fake, "rmmod"),
                   f'#!/bin/sh\necho "rmmod $*" >> {log}\n', 0o755)
        self.write(os.path.join(self.fake, "modprobe"), f"""#!/bin/bash
echo "modprobe $*" >> {log}
d=$PLERIG_SYSFS_ROOT/module/$1/parameters
shift
for p in "$@"; do
	[ -e "$d/${{p%%=*}}" ] || {{ echo "modprobe: ERROR: unknown parameter ${{p%%=*}}"; exit 1; }}
	v=${{p#*=}}
	case $(cat "$d/${{p%%=*}}"):$v in Y:0 | N:0) v=N ;; Y:1 | N:1) v=Y ;; esac
	echo "$v" > "$d/${{p%%=*}}"
done
""", 0o755)
        return {"PLERIG_MODPROBE": os.path.join(self.fake, "modprobe"),
                "PLERIG_RMMOD": os.path.join(self.fake, "rmmod")}, log

    def test_module_params_reload_l1s_modules_and_are_recorded(self):
        """--module-params: L1's kvm_intel (and kvm, for kvm.NAME) reloaded with them after
        the stock ones, once L1 is up, warm or cold; the baseline and results record them,
        and check's summary says when they changed since the baseline."""
        env, log = self.fake_modules()
        suite = os.path.join(self.dir, "native.cfg")
        self.write(suite, NATIVE_SUITE, 0o644)
        store = os.path.join(self.dir, "store")
        os.makedirs(store)
        check = ["check", "--connect", "emulated", "--suite", suite, "--baselines", store]
        given = ["--module-params", "ple_window=16384 kvm.halt_poll_ns=0 enable_apicv=0"]
        p = self.plerig("serve", *check, "--record", *given, limits=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(log) as f:
            calls = f.read().splitlines()
        # the stock parameters first (images/l1/vendors.cfg), then the ones given
        self.assertEqual(calls, ["rmmod kvm_intel", "rmmod kvm", "modprobe kvm halt_poll_ns=0",
                                 "modprobe kvm_intel ple_gap=128 ple_window=4096 "
                                 "ple_window=16384 enable_apicv=0"])
        self.assertIn("emulated host: L1's kvm_intel reloaded with the parameters given, now "
                      "ple_window=16384 enable_apicv=N kvm.halt_poll_ns=0", p.stderr)
        # (L1's module as this machine names it: the fake L1 is this machine)
        self.assertRegex(p.stderr, r", \S+ \(ple_gap=128 ple_window=16384 .*; given "
                                   r"ple_window=16384 enable_apicv=N kvm\.halt_poll_ns=0\)")
        (recorded,) = os.listdir(store)
        with open(os.path.join(store, recorded)) as f:
            host = json.load(f)["host"]
        self.assertEqual(host["module_params"], {"ple_window": 16384, "enable_apicv": "N",
                                                 "kvm.halt_poll_ns": 0})
        self.assertEqual(host["ple_params"]["ple_window"], 16384)
        # warm: the saved state is the stock one (the key unchanged), reloaded again; a
        # change of the given parameters since the baseline is said
        p = self.plerig("serve", *check, "--threshold", "1000", "--module-params",
                        "ple_window=8192", limits=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("restoring L1", p.stderr)
        self.assertEqual(self.builds(), 1)
        self.assertIn("module parameters given: 'ple_window=16384 enable_apicv=N "
                      "kvm.halt_poll_ns=0' then, 'ple_window=8192' now (CHANGED)", p.stdout)
        with open(log) as f:
            self.assertEqual(f.read().splitlines()[4:], [
                "rmmod kvm_intel", "modprobe kvm_intel ple_gap=128 ple_window=4096 "
                "ple_window=8192"])
        # a run's results name them too
        out = os.path.join(self.dir, "r.json")
        p = self.plerig("serve", *RUN, "--json", out, "--module-params", "ple_gap=0", limits=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            self.assertEqual(json.load(f)["host"]["module_params"], {"ple_gap": 0})
        # without them: stock, nothing reloaded, nothing recorded
        p = self.plerig("serve", *RUN, "--json", out, limits=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            self.assertNotIn("module_params", json.load(f)["host"])
        with open(log) as f:
            self.assertEqual(len(f.read().splitlines()), 8)
        # a sweep point of the check in L1 (make ple-test's gate): expect = module-params
        # holds it to L1's modules, and kvm's halt_poll_ns given by --module-params survives
        self.write(suite, NATIVE_SUITE.replace("--repeat 2", "--repeat 1") +
                   "\n[window-1024]\noptions = --backend native --vcpus 2 --pcpus 0 --relax pause\n"
                   "params = ple_window=1024\nexpect = progress, module-params\n", 0o644)
        tap = os.path.join(self.dir, "gate.tap")
        p = self.plerig("serve", "check", "--connect", "emulated", "--suite", suite, "--tap", tap,
                        "--module-params", "kvm.halt_poll_ns=0", limits=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(tap) as f:
            self.assertRegex(f.read(), r"ok \d+ - window-1024: module-params\n  ---\n  message: "
                             r"'ple_window=1024 written at run time to kvm_intel, read back once "
                             r"set and after the runs; then ple_window=\d+ again \(all 6 parameters "
                             r"of kvm_intel as before\); kvm.ko never reloaded \(all 2 of its "
                             r"parameters as before, halt_poll_ns=0\)'")

    def test_module_params_that_are_not_the_modules_are_refused(self):
        env, log = self.fake_modules()
        check = ["check", "--connect", "emulated", "--suite", os.path.join(self.dir, "s.cfg")]
        self.write(check[-1], NATIVE_SUITE, 0o644)
        # not NAME=VALUE: refused before anything boots
        for bad in ("ple_window", "ple_window=1;reboot", "Ple_window=1", "kvm.=1", ""):
            p = self.plerig("serve", *check, "--module-params", bad, limits=env)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))
            self.assertIn("--module-params: ", p.stderr)
        self.assertIn("'ple_window' is not NAME=VALUE", self.plerig(
            "serve", *check, "--module-params", "ple_window", limits=env).stderr)
        self.assertEqual(self.builds(), 0)
        # a name the module does not have: refused in L1, before any module is unloaded
        p = self.plerig("serve", *check, "--module-params", "ple_windo=1", limits=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("emulated host: --module-params 'ple_windo=1': L1's plerig refused it: "
                      "L1's kvm_intel has no parameter 'ple_windo'; it has: enable_apicv "
                      "ple_gap ple_window ple_window_grow ple_window_max ple_window_shrink",
                      p.stderr)
        p = self.plerig("serve", *RUN, "--module-params", "halt_poll_ns=0", limits=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("L1's kvm_intel has no parameter 'halt_poll_ns' (kvm.ko's are named "
                      "kvm.NAME: kvm.halt_poll_ns)", p.stderr)
        p = self.plerig("serve", *check, "--module-params", "kvm.halt_pol=0", limits=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("kvm.ko has no parameter 'halt_pol'; it has: halt_poll_ns "
                      "halt_poll_ns_grow", p.stderr)
        self.assertFalse(os.path.exists(log), "nothing was unloaded")
        # a value the module does not take: its modprobe's word, then it is loaded back stock
        fussy = os.path.join(self.fake, "fussy-modprobe")
        self.write(fussy, f"""#!/bin/sh
case " $* " in *" ple_gap=1 "*) echo "modprobe: ERROR: could not insert 'kvm_intel': Invalid argument"; exit 1 ;; esac
exec {env["PLERIG_MODPROBE"]} "$@"
""", 0o755)
        p = self.plerig("serve", *check, "--module-params", "ple_gap=1",
                        limits=dict(env, PLERIG_MODPROBE=fussy))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"emulated host: --module-params 'ple_gap=1': L1's plerig "
                                   r"refused it: \S+ kvm_intel ple_gap=128 ple_window=4096 "
                                   r"ple_gap=1 failed \(exit status 1\): modprobe: ERROR: "
                                   r"could not insert 'kvm_intel': Invalid argument; kvm_intel "
                                   r"was loaded again as it was booted")
        with open(log) as f:
            self.assertEqual(f.read().splitlines(), [
                "rmmod kvm_intel", "modprobe kvm_intel ple_gap=128 ple_window=4096"])
        # only with the emulated host
        for cmd in (["check"], ["run"], ["sweep", "--param", "ple_window=1"]):
            p = subprocess.run([PLERIG, *cmd, "--module-params", "ple_window=1"],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--module-params: only", p.stderr)

    def test_kernel_options_belong_to_the_emulated_host(self):
        p = subprocess.run([PLERIG, "run", "--kernel", "/nonexistent"], capture_output=True,
                           text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--kernel: only the emulated host boots a kernel of its own", p.stderr)
        p = subprocess.run([PLERIG, "run", "--connect", "emulated", "--modules", "/tmp"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--modules: the modules of which kernel?", p.stderr)
        p = subprocess.run([PLERIG, "run", "--connect", "emulated", "--backend", "libvirt"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("the emulated host runs kvm and native variants, and --backend names "
                      "neither", p.stderr)
        p = subprocess.run([PLERIG, "run", "--connect", "emulated", "--backend", "kvm,libvirt"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--backend libvirt: the emulated host runs plerig's kvm and native "
                      "backends inside L1", p.stderr)


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

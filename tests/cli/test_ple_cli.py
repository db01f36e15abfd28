#!/usr/bin/env python3
"""`plerig doctor` and `plerig sweep` as users see them. The sweep runs real
VMs against a fake sysfs tree (PLERIG_SYSFS_ROOT) whose kvm_intel
parameters it changes, so that the original values are checked to come
back after success, Ctrl-C, SIGTERM and kill -9 (+ `sweep --restore`), for
runtime writes and for module reloads through a fake modprobe. plerig
check's params = on the same fake tree, with scenarios on host threads (no
VM): in place while each scenario runs, back after it passed or failed,
refused with the reason, and a killed run's values failing 'host ple-params'.

usage: test_ple_cli.py PLERIG GUEST_ELF [unittest's arguments: a class or case]
"""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

PLERIG = GUEST = None
# --timeout 60: with the load average at 28 a short run's stop took over the default 10 s
RUN = ["--vcpus", "2", "--relax", "pause", "--duration", "0.2", "--warmup", "0.05", "--timeout", "60",
       "-q"]
ORIGINAL = {"ple_gap": "128", "ple_window": "4096", "ple_window_grow": "2",
            "ple_window_shrink": "0", "ple_window_max": "4294967295"}

FAKE_RMMOD = """#!/bin/sh
echo "rmmod $*" >> "$FAKE_LOG"
"""
FAKE_MODPROBE = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
mod=$1; shift
d="$PLERIG_SYSFS_ROOT/module/$mod"
[ -d "$d" ] || { mkdir -p "$d/parameters" "$d/holders"; echo 0 > "$d/refcnt"; }
for a in "$@"; do
  f="$PLERIG_SYSFS_ROOT/module/$mod/parameters/${a%%=*}"
  chmod u+w "$f"; echo "${a#*=}" > "$f"; chmod a-w "$f"
done
"""


# rmmod that unloads, then has its caller killed before modprobe runs (kill -9)
KILLING_RMMOD = """#!/bin/sh
echo "rmmod $*" >> "$FAKE_LOG"
rm -rf "$PLERIG_SYSFS_ROOT/module/$1"
kill -9 $PPID
"""


def kvm_usable():
    return os.access(os.environ.get("PLERIG_KVM_DEVICE") or "/dev/kvm", os.R_OK | os.W_OK)


class FakeHost:
    """A sysfs tree with kvm_intel, a state dir and a fake modprobe and rmmod."""

    def __init__(self, mode=0o644, refcnt="0"):
        self.dir = tempfile.mkdtemp(prefix="plerig-ple-cli-")
        self.sys = os.path.join(self.dir, "sys")
        self.params = os.path.join(self.sys, "module", "kvm_intel", "parameters")
        os.makedirs(self.params)
        os.makedirs(os.path.join(self.sys, "module", "kvm_intel", "holders"))
        with open(os.path.join(self.sys, "module", "kvm_intel", "refcnt"), "w") as f:
            f.write(refcnt + "\n")
        for k, v in ORIGINAL.items():
            p = os.path.join(self.params, k)
            with open(p, "w") as f:
                f.write(v + "\n")
            os.chmod(p, mode)
        self.log = os.path.join(self.dir, "modprobe.log")
        modprobe, rmmod = os.path.join(self.dir, "modprobe"), os.path.join(self.dir, "rmmod")
        for path, text in ((modprobe, FAKE_MODPROBE), (rmmod, FAKE_RMMOD)):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.state = os.path.join(self.dir, "state", "ple-params.state")
        self.env = {**os.environ, "PLERIG_SYSFS_ROOT": self.sys,
                    "PLERIG_STATE_DIR": os.path.join(self.dir, "state"),
                    "PLERIG_MODPROBE": modprobe, "PLERIG_RMMOD": rmmod, "FAKE_LOG": self.log,
                    "PLERIG_GUEST": GUEST,
                    # a sweep killed with -9 cannot remove its temporary directory
                    "TMPDIR": self.dir}

    def value(self, name):
        with open(os.path.join(self.params, name)) as f:
            return f.read().strip()

    def values(self):
        return {k: self.value(k) for k in ORIGINAL}

    def modprobe_calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def hold_lock(self):
        """Be the other sweep: take the lock a sweep takes (F_SETLK, as plerig does)."""
        os.makedirs(os.path.dirname(self.state), exist_ok=True)
        f = open(os.path.join(os.path.dirname(self.state), "ple-params.lock"), "w")
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return f

    def outputs(self):
        """--json and --csv files that hold an earlier sweep's results."""
        paths = [os.path.join(self.dir, "old.json"), os.path.join(self.dir, "old.csv")]
        for p in paths:
            with open(p, "w") as f:
                f.write("earlier results\n")
        return paths



def sweep(host, *args, timeout=120):
    return subprocess.run([PLERIG, "sweep", *args], capture_output=True, text=True,
                          timeout=timeout, env=host.env)


class Doctor(unittest.TestCase):
    def test_text(self):
        r = subprocess.run([PLERIG, "doctor"], capture_output=True, text=True, timeout=60)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("plerig doctor"))
        for line in lines[1:]:
            # every line a verdict, or the fix under the one before
            verdict = line.split()[0]
            self.assertTrue(verdict in ("ok", "info", "warn", "no") or
                            line.strip().startswith("fix:"), line)
        for title in ("KVM device", "KVM module", "tracefs", "CPUs", "SMT siblings",
                      "libvirt", "QEMU"):
            self.assertIn(title, r.stdout)

    def test_json(self):
        r = subprocess.run([PLERIG, "doctor", "--json"], capture_output=True, text=True,
                           timeout=60)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["schema"], "plerig-doctor")
        # schema_version 2: findings with a status (1 called them checks with a verdict)
        self.assertEqual(doc["schema_version"], 2)
        self.assertNotIn("checks", doc)
        keys = {c["finding"] for c in doc["findings"]}
        self.assertTrue({"kvm_device", "kvm_module", "tracefs", "cpus", "smt"} <= keys, keys)
        for c in doc["findings"]:
            self.assertIn(c["status"], ("ok", "info", "warn", "no"))
            if c["status"] == "no" and c["finding"] not in ("libvirt", "qemu"):
                self.assertTrue(c["fix"] or "PLE" in c["detail"], c)
        if doc["kvm_module"]["name"] == "kvm_pvm":
            by = {c["finding"]: c for c in doc["findings"]}
            self.assertEqual(by["pause_intercept"]["status"], "no")
            self.assertIn("no hardware PLE on this host (kvm_pvm)",
                          by["pause_intercept"]["detail"])

    def test_without_a_kvm_device(self):
        """A machine without /dev/kvm (here: the device path pointed at nothing,
        as a machine with no VMX/SVM has it): no module line claims to drive a
        device, the probe VM is not attempted, the routes that need no KVM are
        named, and the exit status is --help's 1. Runs on any machine."""
        d = tempfile.mkdtemp(prefix="plerig-nokvm-")
        self.addCleanup(shutil.rmtree, d, True)
        env = dict(os.environ, PLERIG_KVM_DEVICE=os.path.join(d, "kvm"))
        r = subprocess.run([PLERIG, "doctor", "--json"], capture_output=True, text=True,
                           timeout=60, env=env)
        self.assertEqual(r.returncode, 1, r.stderr)
        doc = json.loads(r.stdout)
        by = {c["finding"]: c for c in doc["findings"]}
        self.assertEqual(by["kvm_device"]["status"], "no")
        self.assertTrue(by["kvm_device"]["fix"], by["kvm_device"])
        hw = [m for m in ("kvm_intel", "kvm_amd") if os.path.isdir("/sys/module/" + m)]
        if hw:  # loaded, its node missing: its parameters still shown, no VM claimed
            self.assertEqual(by["kvm_module"]["status"], "warn", by["kvm_module"])
            self.assertIn("but there is no", by["kvm_module"]["detail"])
            self.assertEqual(doc["kvm_module"]["name"], hw[0])
        else:  # kvm_pvm listed (built in) or nothing: no module drives a device
            self.assertEqual(by["kvm_module"]["status"], "info", by["kvm_module"])
            self.assertTrue(by["kvm_module"]["detail"].startswith("none"), by["kvm_module"])
            self.assertIsNone(doc["kvm_module"]["name"])
            self.assertNotIn("pause_intercept", by)
        if "kvm_exit_fires" in by:  # absent where tracefs cannot be read (unprivileged)
            self.assertEqual(by["kvm_exit_fires"]["status"], "info", by["kvm_exit_fires"])
            self.assertIn("not probed", by["kvm_exit_fires"]["detail"])
        routes = by["routes_without_kvm"]["detail"]
        for route in ("make ple-test", "--backend native", "--backend libvirt --accel tcg"):
            self.assertIn(route, routes)
        text = subprocess.run([PLERIG, "doctor"], capture_output=True, text=True,
                              timeout=60, env=env)
        self.assertEqual(text.returncode, 1)
        self.assertNotRegex(text.stdout, r"(?m)^ok +KVM module")
        self.assertIn("without KVM", text.stdout)

    def test_fake_vmx_params(self):
        host = FakeHost(mode=0o444, refcnt="0")
        try:
            r = subprocess.run([PLERIG, "doctor", "--json"], capture_output=True, text=True,
                               timeout=60, env=host.env)
            doc = json.loads(r.stdout)
            params = {p["name"]: p for p in doc["kvm_module"]["ple_params"]}
            self.assertEqual(params["ple_window"]["value"], "4096")
            self.assertEqual(params["ple_window"]["mode"], "0444")
            self.assertFalse(params["ple_window"]["writable"])
            self.assertEqual(params["ple_window"]["change"], "reload")
        finally:
            host.cleanup()

    def test_pvm_halt_polling_sweepable_by_its_mode(self):
        """Without PLE parameters only halt polling can be swept: doctor says so where
        halt_poll_ns is writable, and not where it is read-only (PVM here: 0444)."""
        if not os.path.exists("/dev/kvm"):
            self.skipTest("no /dev/kvm: without a KVM device doctor names no module, so a "
                          "fake kvm_pvm's parameters are not shown (test_without_a_kvm_device)")
        d = tempfile.mkdtemp(prefix="plerig-ple-cli-")
        try:
            os.makedirs(os.path.join(d, "sys", "module", "kvm_pvm", "parameters"))
            kvm = os.path.join(d, "sys", "module", "kvm", "parameters")
            os.makedirs(kvm)
            hp = os.path.join(kvm, "halt_poll_ns")
            with open(hp, "w") as f:
                f.write("200000\n")
            env = {**os.environ, "PLERIG_SYSFS_ROOT": os.path.join(d, "sys")}
            for mode, said in ((0o644, "only kvm's halt polling"),
                               (0o444, "halt_poll_ns is read-only here")):
                os.chmod(hp, mode)
                r = subprocess.run([PLERIG, "doctor", "--json"], capture_output=True,
                                   text=True, timeout=60, env=env)
                by = {c["finding"]: c for c in json.loads(r.stdout)["findings"]}
                self.assertIn(said, by["ple_params"]["detail"], oct(mode))
        finally:
            shutil.rmtree(d)

    def test_bad_option(self):
        r = subprocess.run([PLERIG, "doctor", "--frob"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)


class SweepRefused(unittest.TestCase):
    def assert_kept(self, paths):
        for p in paths:
            with open(p) as f:
                self.assertEqual(f.read(), "earlier results\n", p)

    def test_no_such_param_here(self):
        """PVM (this development host): a clear error naming parameter and module."""
        d = tempfile.mkdtemp(prefix="plerig-ple-cli-")
        try:
            os.makedirs(os.path.join(d, "sys", "module", "kvm_pvm", "parameters"))
            env = {**os.environ, "PLERIG_SYSFS_ROOT": os.path.join(d, "sys"),
                   "PLERIG_STATE_DIR": os.path.join(d, "state")}
            json_out, csv_out = os.path.join(d, "s.json"), os.path.join(d, "s.csv")
            for p in (json_out, csv_out):
                with open(p, "w") as f:
                    f.write("earlier results\n")
            r = subprocess.run([PLERIG, "sweep", "--param", "ple_window=1024,4096", "--json",
                                json_out, "--csv", csv_out, "--", *RUN],
                               capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assert_kept((json_out, csv_out))  # a refused sweep measured nothing
            self.assertIn("ple_window", r.stderr)
            self.assertIn("kvm_pvm", r.stderr)
            self.assertIn("kvm_intel", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "state")))
        finally:
            shutil.rmtree(d)

    def test_module_in_use(self):
        host = FakeHost(mode=0o444, refcnt="3")
        try:
            r = sweep(host, "--param", "ple_window=1024", "--", *RUN)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("in use (refcnt 3)", r.stderr)
            self.assertEqual(host.modprobe_calls(), [])
            self.assertEqual(host.values(), ORIGINAL)
        finally:
            host.cleanup()

    def test_second_sweep_refused_while_one_runs(self):
        """The test holds the sweep lock: that is another sweep running, deterministically."""
        host = FakeHost(mode=0o444)
        try:
            outs = host.outputs()
            lock = host.hold_lock()
            r = sweep(host, "--param", "ple_window=1024", "--json", outs[0], "--csv", outs[1],
                      "--", *RUN)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(f"another plerig sweep (pid {os.getpid()})", r.stderr)
            self.assert_kept(outs)
            self.assertFalse(os.path.exists(host.state))  # the running sweep's to write
            self.assertEqual(host.modprobe_calls(), [])
            # with its originals saved and a value changed, --restore waits for it too
            with open(host.state, "w") as f:
                f.write(f"plerig-ple-state 1\npid {os.getpid()}\nroot {host.sys}\n"
                        "module kvm_intel\nparam ple_window 4096\n")
            p = os.path.join(host.params, "ple_window")
            os.chmod(p, 0o644)
            with open(p, "w") as f:
                f.write("8192\n")
            os.chmod(p, 0o444)
            for args in (["--param", "ple_window=1024", "--", *RUN], ["--restore"]):
                r = sweep(host, *args)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(f"(pid {os.getpid()})", r.stderr)
            self.assertEqual(host.value("ple_window"), "8192")
            with open(host.state) as f:
                self.assertIn("param ple_window 4096", f.read())
            # it "dies" without restoring: a new sweep still refuses, --restore restores
            lock.close()
            r = sweep(host, "--param", "ple_window=1024", "--json", outs[0], "--", *RUN)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("plerig sweep --restore", r.stderr)
            self.assert_kept(outs)
            r = sweep(host, "--restore")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ple_window 8192 -> 4096", r.stdout)
            self.assertEqual(host.values(), ORIGINAL)
        finally:
            host.cleanup()

    def test_killed_between_rmmod_and_modprobe(self):
        """sweep, tune and check alike: killed with the module unloaded, the state file
        they leave loads it as it was, PLE's values and the others it was loaded with
        (enable_apicv=N: a load without it would turn APICv back on)."""
        suite = ("[defaults]\noptions = --backend native --vcpus 2 --relax nop --duration 0.05"
                 " --warmup 0.01 --repeat 1 --timeout 60\nmetrics = acq_per_s\n\n"
                 "[window-1024]\nparams = ple_window=1024\nexpect = progress\n")
        native = ["--backend", "native", "--vcpus", "2", "--relax", "pause", "--duration",
                  "0.03", "--warmup", "0.01", "--timeout", "60"]
        for cmd in (["sweep", "--param", "ple_window=1024", "--", *RUN],
                    ["tune", "--", *native],
                    ["check", "-q", "--suite", "SUITE"]):
            with self.subTest(cmd[0]):
                host = FakeHost(mode=0o444)
                try:
                    apicv = os.path.join(host.params, "enable_apicv")
                    with open(apicv, "w") as f:
                        f.write("N\n")
                    os.chmod(apicv, 0o444)
                    with open(host.env["PLERIG_RMMOD"], "w") as f:
                        f.write(KILLING_RMMOD)
                    with open(os.path.join(host.dir, "suite.cfg"), "w") as f:
                        f.write(suite)
                    args = [os.path.join(host.dir, "suite.cfg") if a == "SUITE" else a
                            for a in cmd]
                    env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm"),
                           "PLERIG_BASELINES": ""}
                    r = subprocess.run([PLERIG, *args], capture_output=True, text=True,
                                       timeout=300, env=env)
                    self.assertEqual(r.returncode, -signal.SIGKILL, r.stderr)
                    self.assertFalse(os.path.exists(os.path.join(host.sys, "module",
                                                                 "kvm_intel")))
                    with open(host.state) as f:
                        self.assertIn("\nkeep enable_apicv N\n", f.read())
                    r = sweep(host, "--restore")
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertIn("loaded it with the saved values (with the others it had: "
                                  "enable_apicv=N)", r.stdout)
                    self.assertEqual(host.values(), ORIGINAL)
                    self.assertEqual(host.value("enable_apicv"), "N")
                    self.assertFalse(os.path.exists(host.state))
                    self.assertEqual(host.modprobe_calls()[-1],
                                     "kvm_intel ple_gap=128 ple_window=4096 ple_window_grow=2 "
                                     "ple_window_shrink=0 ple_window_max=4294967295 "
                                     "enable_apicv=N")
                finally:
                    host.cleanup()

    def test_usage(self):
        host = FakeHost()
        try:
            for args in (["--param", "ple_window=x"], ["--param", "ple_window=1", "--",
                                                       "--json", "x"],
                         ["--param", "ple_window=1", "--", "--vcpus", "0"]):
                r = sweep(host, *args)
                self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertEqual(host.values(), ORIGINAL)
            r = sweep(host, "--help")
            self.assertEqual(r.returncode, 0)
            self.assertIn("--restore", r.stdout)
        finally:
            host.cleanup()


class FakeHosts(unittest.TestCase):
    """Cases that make fake hosts: each removed after the case, however it ended."""

    def host(self, **kw):
        h = FakeHost(**kw)
        self.addCleanup(h.cleanup)
        return h


@unittest.skipUnless(kvm_usable(), "no usable /dev/kvm")
class SweepRuns(FakeHosts):

    def check_curve(self, host, out, values):
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-sweep")
        self.assertEqual(doc["params"], ["ple_window"])
        got = [p["values"]["ple_window"] for p in doc["points"]]
        self.assertEqual(got, values)
        for p in doc["points"]:
            self.assertTrue(p["ok"], p)
            # a figure, not asked to be > 0: on a busy host a 0.2 s interval can pass
            # with both vCPUs preempted (seen with the load average at 10)
            self.assertGreaterEqual(p["acq_per_s"], 0)
            # never a silent zero: a figure, or the reason there is none
            self.assertTrue(p["pause_loop_exits"] is not None or
                            p["pause_loop_exits_unavailable"], p)

    def test_runtime_write(self):
        host = self.host(mode=0o644)
        out = os.path.join(host.dir, "curve.json")
        r = sweep(host, "--param", "ple_window=1024,65536", "--json", out, "--", *RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_curve(host, out, [1024, 65536])
        self.assertIn("ple_window", r.stdout.splitlines()[0])
        self.assertEqual(host.values(), ORIGINAL)
        self.assertFalse(os.path.exists(host.state))
        self.assertEqual(host.modprobe_calls(), [])

    def test_halt_poll_ns_written_and_restored(self):
        # kvm's halt polling beside a read-only kvm_intel: written at run time, never a reload
        host = self.host(mode=0o444)
        kvm = os.path.join(host.sys, "module", "kvm", "parameters")
        os.makedirs(kvm)
        with open(os.path.join(kvm, "halt_poll_ns"), "w") as f:
            f.write("200000\n")
        out = os.path.join(host.dir, "curve.json")
        r = sweep(host, "--param", "halt_poll_ns=0,50000", "--json", out, "--", *RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["params"], ["halt_poll_ns"])
        self.assertEqual([p["values"]["halt_poll_ns"] for p in doc["points"]], [0, 50000])
        with open(os.path.join(kvm, "halt_poll_ns")) as f:
            self.assertEqual(f.read().strip(), "200000")
        self.assertFalse(os.path.exists(host.state))
        self.assertEqual(host.modprobe_calls(), [])

    def test_reload(self):
        host = self.host(mode=0o444)
        out = os.path.join(host.dir, "curve.json")
        r = sweep(host, "--param", "ple_window=1024", "--json", out, "--", *RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_curve(host, out, [1024])
        self.assertEqual(host.values(), ORIGINAL)
        self.assertEqual(host.modprobe_calls(), [
            "rmmod kvm_intel",
            "kvm_intel ple_gap=128 ple_window=1024 ple_window_grow=2 ple_window_shrink=0 "
            "ple_window_max=4294967295",
            "rmmod kvm_intel",
            "kvm_intel ple_gap=128 ple_window=4096 ple_window_grow=2 ple_window_shrink=0 "
            "ple_window_max=4294967295"])

    def start(self, host, values):
        p = subprocess.Popen([PLERIG, "sweep", "--param", "ple_window=" + values, "--",
                              "--vcpus", "2", "--duration", "3", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=host.env)
        # wait until the first value is in and its run has started
        deadline = time.monotonic() + 30
        while host.value("ple_window") == ORIGINAL["ple_window"]:
            self.assertLess(time.monotonic(), deadline, "the sweep never changed the value")
            self.assertIsNone(p.poll(), p.stderr.read() if p.poll() is not None else "")
            time.sleep(0.02)
        time.sleep(0.5)
        return p

    def test_signals_restore(self):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for mode in (0o644, 0o444):
                host = self.host(mode=mode)
                p = self.start(host, "1024,2048,8192")
                self.assertEqual(host.value("ple_window"), "1024")
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, status, err)
                self.assertIn("restored", err)
                self.assertEqual(host.values(), ORIGINAL, (sig, mode))
                self.assertFalse(os.path.exists(host.state))

    def test_kill9_then_restore(self):
        for mode in (0o644, 0o444):
            host = self.host(mode=mode)
            p = self.start(host, "1024,2048")
            p.kill()
            p.communicate(timeout=30)
            self.assertEqual(host.value("ple_window"), "1024")
            self.assertTrue(os.path.exists(host.state))
            # a new sweep refuses to start over the unrestored one
            r = sweep(host, "--param", "ple_window=1", "--", *RUN)
            self.assertEqual(r.returncode, 1)
            self.assertIn("plerig sweep --restore", r.stderr)
            r = sweep(host, "--restore")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ple_window 1024 -> 4096", r.stdout)
            # and the killed sweep left no temporary file behind (it writes none)
            self.assertEqual([n for n in os.listdir(host.dir) if n.startswith("plerig-sweep-")],
                             [])
            self.assertEqual(host.values(), ORIGINAL)
            self.assertFalse(os.path.exists(host.state))
            r = sweep(host, "--restore")
            self.assertEqual(r.returncode, 0)
            self.assertIn("nothing to restore", r.stdout)


# The quickest scenarios there are: host threads (--backend native), no VM, no
# KVM. A metric, so that --record has something to record; "fails" is refused
# by the native backend at run time, after its params were set (--inject
# applies to VMs only), so that the scenario fails.
CHECK_SUITE = """\
[defaults]
options = --backend native --vcpus 2 --relax nop --duration 0.05 --warmup 0.01 --repeat 1 \
 --timeout 60
metrics = acq_per_s

[plain]
expect = progress

[window-16384]
params = ple_window=16384
expect = progress

[fails]
params = ple_window=1024
options = --inject fault
expect = progress
"""
# params = with the scenario's own --connect (check without --connect): this machine's
# kvm_intel is not the one the VMs run under on another host, nor one host's alone
# where two hosts run here at once. Never run: each is skipped before its params are set.
OWN_CONNECT_SUITE = """\
[defaults]
options = --backend libvirt --accel tcg --vcpus 2 --relax nop --duration 0.05 --warmup 0.01 \
 --repeat 1 --timeout 60
metrics = acq_per_s

[remote]
params = ple_window=16384
options = --connect qemu+ssh://x.invalid/system?command=/bin/false
expect = progress

[two-here]
params = ple_window=1024
options = --connect embedded,test:///default
expect = progress
"""
RELOADED = ("kvm_intel ple_gap=128 ple_window={} ple_window_grow=2 ple_window_shrink=0 "
            "ple_window_max=4294967295")


class CheckParams(FakeHosts):
    """plerig check's params = (suites/ple.cfg's window-1024 and window-16384): set as
    plerig sweep sets them before the scenario runs, the originals back after it,
    passed or failed; refused with the reason where they cannot be changed; and a
    check under a killed run's values fails 'host ple-params' and records nothing.
    On a fake sysfs tree, with no VM: as root and as nobody alike."""

    def host(self, **kw):
        h = super().host(**kw)
        with open(os.path.join(h.dir, "suite.cfg"), "w") as f:
            f.write(CHECK_SUITE)
        return h

    def check(self, host, *args):
        # no KVM device: the native scenarios need none, and nothing real is opened
        env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm"),
               "PLERIG_BASELINES": ""}
        return subprocess.run([PLERIG, "check", "-q", "--suite",
                               os.path.join(host.dir, "suite.cfg"), *args],
                              capture_output=True, text=True, timeout=120, env=env)

    def ran_under(self, report):
        """Each scenario's PLE parameters as its results recorded them (read from the
        fake sysfs while the scenario ran), from the HTML page of check --report."""
        with open(report) as f:
            page = f.read()
        found = re.findall(r"<h2>Results: ([^<]*)</h2>.*?PLE parameters</td><td><code>"
                           r"([^<]*)</code>", page, re.S)
        return {name: dict(p.split("=", 1) for p in text.split()) for name, text in found}

    def test_set_before_and_restored_after(self):
        for mode in (0o644, 0o444):  # written at run time, or kvm_intel reloaded
            host = self.host(mode=mode)
            report = os.path.join(host.dir, "check.html")
            r = self.check(host, "--report", report)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            # in place while each ran; the scenario without params ran under the originals
            ran = self.ran_under(report)
            self.assertEqual(ran["plain"]["ple_window"], "4096", ran)
            self.assertEqual(ran["window-16384"]["ple_window"], "16384", ran)
            self.assertEqual(ran["fails"]["ple_window"], "1024", ran)
            self.assertEqual(ran["window-16384"]["ple_gap"], "128", ran)
            # the failed scenario too: its run failed, then the originals came back
            self.assertIn("FAIL  runs:", r.stdout)
            self.assertIn("--inject applies to VM backends", r.stdout)
            self.assertNotIn("could not be restored", r.stdout)
            self.assertEqual(host.values(), ORIGINAL, oct(mode))
            self.assertFalse(os.path.exists(host.state))
            if mode == 0o644:
                self.assertEqual(host.modprobe_calls(), [])
            else:
                self.assertEqual(host.modprobe_calls(), [
                    "rmmod kvm_intel", RELOADED.format(16384),
                    "rmmod kvm_intel", RELOADED.format(4096),
                    "rmmod kvm_intel", RELOADED.format(1024),
                    "rmmod kvm_intel", RELOADED.format(4096)])

    def test_unchangeable_refused_with_the_reason(self):
        in_use = self.host(mode=0o444, refcnt="3")
        builtin = self.host(mode=0o444)
        os.unlink(os.path.join(builtin.sys, "module", "kvm_intel", "refcnt"))
        pvm = self.host()
        shutil.rmtree(os.path.join(pvm.sys, "module", "kvm_intel"))
        os.makedirs(os.path.join(pvm.sys, "module", "kvm_pvm", "parameters"))
        for host, why in (
                (in_use, "ple_window is read-only (mode 0444) and kvm_intel is in use "
                         "(refcnt 3)"),
                (builtin, "ple_window is read-only (mode 0444) and kvm_intel is built in"),
                (pvm, "no parameter ple_window on this host: it belongs to kvm_intel, but "
                      "KVM here is kvm_pvm")):
            r = self.check(host)
            out = r.stdout + r.stderr
            # plain runs; both scenarios with params are skipped, each saying why
            self.assertEqual(r.returncode, 0, out)
            self.assertIn("1 scenario(s) run, 2 skipped", r.stdout)
            self.assertEqual(out.count("skip  all 1: cannot set its params here: cannot "
                                       "change ple_window: " + why), 2, out)
            self.assertEqual(host.modprobe_calls(), [])
            self.assertFalse(os.path.exists(host.state))
            if host is not pvm:
                self.assertEqual(host.values(), ORIGINAL)

    def test_a_scenarios_own_connect_keeps_them_off_this_machine(self):
        host = self.host(mode=0o444)  # set, they would be by a reload: modprobe says so
        with open(os.path.join(host.dir, "suite.cfg"), "w") as f:
            f.write(OWN_CONNECT_SUITE)
        r = self.check(host)
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 77, out)  # nothing ran: every case skipped
        self.assertIn("0 scenario(s) run, 2 skipped", r.stdout)
        self.assertIn("skip  all 1: its params are set on this host, and it runs on another",
                      out)
        self.assertIn("skip  all 1: its params are this machine's, and 2 hosts of --connect "
                      "run on it at once", out)
        self.assertEqual(host.modprobe_calls(), [])
        self.assertEqual(host.values(), ORIGINAL)
        self.assertFalse(os.path.exists(host.state))

    def test_a_killed_runs_values_are_refused(self):
        host = self.host()
        gone = subprocess.Popen(["true"])
        gone.wait()
        # a sweep or check killed with ple_window=16384 set: its state file, its value
        os.makedirs(os.path.dirname(host.state))
        with open(host.state, "w") as f:
            f.write(f"plerig-ple-state 1\npid {gone.pid}\nroot {host.sys}\n"
                    "module kvm_intel\nparam ple_window 4096\n")
        with open(os.path.join(host.params, "ple_window"), "w") as f:
            f.write("16384\n")
        store = os.path.join(host.dir, "baselines")
        r = self.check(host, "--record", "--baselines", store)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAIL  ple-params: the kvm_intel parameters were not the host's own "
                      f"while it ran: plerig {gone.pid} changed them and was ended before "
                      "it put them back", r.stdout)
        self.assertIn("plerig sweep --restore", r.stdout)
        self.assertIn("; no baseline recorded", r.stdout)
        self.assertEqual(os.listdir(store) if os.path.isdir(store) else [], [])
        # params are not set over them either: the values now are not the originals
        self.assertEqual(r.stdout.count(f"a previous sweep (pid {gone.pid}) ended without "
                                        "restoring the kvm_intel parameters"), 2, r.stdout)
        self.assertEqual(host.value("ple_window"), "16384")
        self.assertTrue(os.path.exists(host.state))
        # put back: the same check passes and records
        r = sweep(host, "--restore")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(host.values(), ORIGINAL)
        r = self.check(host, "--record", "--baselines", store, "--group", "plain")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("ple-params", r.stdout)
        self.assertEqual(len(os.listdir(store)), 1, os.listdir(store))


if __name__ == "__main__":
    PLERIG, GUEST = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[3:]])

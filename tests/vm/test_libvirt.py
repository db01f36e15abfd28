#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The libvirt backend on real VMs, through libvirt's embedded QEMU driver.

Usage: test_libvirt.py PLERIG

The cache directory (the embed root) is a new one in /tmp, removed at the
end: QEMU's monitor socket lies a few levels under it, and a UNIX socket
path has room for 107 characters, which a build tree can use up.

A 2-vCPU domain completes a storm and its results decode; an over-committed
pair of domains shows stalls; a guest fault, a hung guest and Ctrl-C fail as
they should. After each run no domain, no QEMU process and no run directory
is left: the test checks the process table, the embed root and TMPDIR.
Skipped (77) where KVM, root or QEMU is missing.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

PLERIG = os.path.abspath(sys.argv[1])
CACHE = ROOT = None  # set in main


def skip_reason():
    if os.geteuid() != 0:
        return "the embedded driver needs root"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "no usable /dev/kvm"
    if not shutil.which("qemu-system-x86_64"):
        return "no qemu-system-x86_64 (scripts/setup installs it)"
    return None


def qemu_processes(plerig_pid):
    """QEMU processes of domains that plerig process started (-name guest=plerig-PID-...)."""
    out = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if f"guest=plerig-{plerig_pid}-" in l]


class LibvirtBackend(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plerig-lvtest-")
        self.env = dict(os.environ, TMPDIR=self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, *args):
        cmd = [PLERIG, "run", "-q", "--backend", "libvirt", "--cache-dir", CACHE,
               "--relax", "pause", "--warmup", "0.05", *args]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)

    def run_plerig(self, *args, timeout=120):
        p = self.start(*args)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise
        self.assert_clean(p.pid)
        return p.returncode, out, err

    def wait_for_qemu(self, p):
        """Until plerig process @p has a QEMU (a minute at most), or fail."""
        deadline = time.monotonic() + 60
        while not qemu_processes(p.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not qemu_processes(p.pid):
            p.kill()
            p.communicate()
            self.fail("the domain never started")

    def assert_clean(self, pid):
        self.assertEqual(qemu_processes(pid), [], "a QEMU process outlived plerig's run")
        left = glob.glob(os.path.join(ROOT, "run", "qemu", f"plerig-{pid}-*"))
        left += glob.glob(os.path.join(ROOT, "lib", "qemu", f"domain-*-plerig-{pid}-*"))
        self.assertEqual(left, [], "the embed root still holds a domain")
        self.assertEqual(os.listdir(self.tmp), [], "a run directory was left in TMPDIR")

    def test_two_vcpus_complete_and_decode(self):
        js = os.path.join(self.tmp, "..", os.path.basename(self.tmp) + ".json")
        try:
            rc, out, err = self.run_plerig("--vcpus", "2", "--duration", "0.3", "--exit-times",
                                           "--json", js)
            self.assertEqual(rc, 0, err + out)
            with open(js) as f:
                doc = json.load(f)
        finally:
            if os.path.exists(js):
                os.unlink(js)
        run = doc["variants"][0]["runs"][0]
        self.assertTrue(run["ok"], run.get("error"))
        self.assertEqual(doc["variants"][0]["backend"], "libvirt")
        vcpus = run["vm_results"][0]["vcpus"]
        self.assertEqual(len(vcpus), 2)
        total = measured = 0
        for v in vcpus:
            # a busy host may give one vCPU no CPU in 0.3 s: the VM as a whole progresses
            self.assertGreaterEqual(v["acquisitions"], 0)
            self.assertGreater(v["tid"], 0)
            measured += v["acquisitions"]
            total += v["acquisitions"] + v["unmeasured_acquisitions"]
        self.assertGreater(measured, 0)
        self.assertEqual(run["vm_results"][0]["protected_counter"], total)
        # ring 0 ran (firmware and boot) and was counted through libvirt's vCPU stats
        self.assertGreater(run["timing"]["setup_insn_emulated"], 0)
        self.assertGreater(run["timing"]["first_acq_ns"], run["timing"]["created_ns"])
        # --exit-times on QEMU's vCPU threads: figures within the exits stat, or the reason
        summary = run["summary"]
        if summary["exit_times"] is None:
            # here (root, PVM): "kvm_pvm does not fire kvm:kvm_exit: ..."
            why = summary["exit_times_unavailable"]
            self.assertRegex(why, "does not fire|perf|tracefs|tracepoint", why)
        else:
            for v in vcpus:
                e = v["exit_times"]
                self.assertLessEqual(e["seen"], v["exits"] + 4)
                self.assertLessEqual(e["exits"], e["seen"])
                self.assertLessEqual(e["ns"], run["interval_s"] * 1e9)

    def test_overcommitted_pair_of_domains_stalls(self):
        rc, out, err = self.run_plerig("--vms", "2", "--vcpus", "2", "--pcpus", "0",
                                       "--duration", "1")
        self.assertEqual(rc, 0, err + out)
        row = out.splitlines()[-1].split()
        self.assertEqual(row[0], "libvirt")
        stalls = [c for c in out.splitlines()[0].split()].index("stalls")
        self.assertNotEqual(row[stalls], "0", out)

    def run_pvqspin(self, ple):
        """One pvqspin variant's run from the JSON, or skip where QEMU cannot turn exits off."""
        js = os.path.join(self.tmp, "..", os.path.basename(self.tmp) + ".json")
        try:
            rc, out, err = self.run_plerig("--lock", "pvqspin", "--vcpus", "2", "--ple", ple,
                                           "--duration", "0.3", "--json", js)
            with open(js) as f:
                doc = json.load(f)
        finally:
            if os.path.exists(js):
                os.unlink(js)
        if rc and "cpu-pm" in err + out:
            self.skipTest("this host's KVM cannot turn exits off for QEMU: " + err + out)
        self.assertEqual(rc, 0, err + out)
        run = doc["variants"][0]["runs"][0]
        self.assertTrue(run["ok"], run.get("error"))
        # steal time from the guest's CPUID (QEMU's KVM default): a figure, not null
        self.assertIsNotNone(run["summary"]["holder_preemptions_steal"], ple)
        return run

    def test_pvqspin_halts_and_its_halt_path_comes_through_the_frames(self):
        """<pvspinlock/> asks QEMU for kvm-pv-unhalt; the guest reads its CPUID (libvirt's
        domain capabilities list neither pv-unhalt nor steal time), halts where it is offered,
        and its VCPU frames carry the halt path with the kick-to-running histogram."""
        run = self.run_pvqspin("on")
        hp = run["summary"]["halt_path"]
        if hp["halts"] is None:
            # here (PVM): offered, but no kick reaches KVM (ring 0 is emulated)
            self.assertRegex(hp["unavailable"], "PVM|CPUID")
            self.skipTest("pvqspin " + hp["unavailable"])
        self.assertLessEqual(hp["kicks_received"], hp["kicks_sent"])
        timed = 0
        for v in run["vm_results"][0]["vcpus"]:
            h = v["kick_latency_histogram"]
            timed += sum(count for _, count in h["buckets"]) if h else 0
        self.assertEqual(timed, hp["kicks_timed"])

    def test_pvqspin_with_ple_off_says_why_it_cannot_halt(self):
        """cpu-pm=on (--ple off) stops HLT exits too, and KVM then withdraws PV_UNHALT."""
        hp = self.run_pvqspin("off")["summary"]["halt_path"]
        if hp["halts"] is None:
            self.assertRegex(hp["unavailable"], "cpu-pm=on|PVM", hp["unavailable"])

    def test_halt_poll_is_na_under_libvirt_with_the_reason(self):
        # no backend of the run can take it: refused before any domain, with the fix
        rc, out, err = self.run_plerig("--vcpus", "1", "--duration", "0.1", "--halt-poll", "0")
        self.assertEqual(rc, 2, err + out)
        self.assertIn("neither libvirt nor QEMU sets halt polling per domain", err)
        self.assertIn("use --halt-poll kept", err)

    def test_guest_fault_is_reported(self):
        rc, out, err = self.run_plerig("--vcpus", "2", "--duration", "0.3", "--inject", "fault")
        self.assertEqual(rc, 1, err + out)
        self.assertIn("guest exception #UD", out)

    def test_guest_garbage_fails_the_run(self):
        # the same impossible figures as on kvm, through the serial frames
        rc, out, err = self.run_plerig("--vcpus", "2", "--duration", "0.3", "--inject", "garbage")
        self.assertEqual(rc, 1, err + out)
        self.assertIn("guest reported impossible figures", out)

    def test_hung_guest_is_stopped_by_the_watchdog(self):
        rc, out, err = self.run_plerig("--vcpus", "2", "--duration", "0.2", "--timeout", "1",
                                       "--inject", "hang")
        self.assertEqual(rc, 1, err + out)
        self.assertIn("watchdog", out)

    def test_tcg_runs_and_says_emulated(self):
        rc, out, err = self.run_plerig("--accel", "tcg", "--vcpus", "2", "--duration", "0.3")
        self.assertEqual(rc, 0, err + out)
        self.assertEqual(out.splitlines()[-1].split()[0], "libvirt-emulated")

    def test_ctrl_c_tears_everything_down(self):
        p = self.start("--vcpus", "2", "--duration", "20")
        self.wait_for_qemu(p)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err + out)
        self.assert_clean(p.pid)

    def test_kill_9_leftovers_removed_by_the_next_plerig(self):
        # a real libvirt run killed with SIGKILL leaves QEMU (-no-shutdown), the
        # domain's state in the embed root and its run directory; the next plerig,
        # here a kvm run without any --cache-dir, removes all three and says so
        p = self.start("--vcpus", "2", "--duration", "30")
        self.wait_for_qemu(p)
        time.sleep(0.3)
        p.kill()
        p.communicate()
        self.assertNotEqual(qemu_processes(p.pid), [], "nothing left to test: QEMU ended")
        self.assertEqual(len(os.listdir(self.tmp)), 1, os.listdir(self.tmp))
        self.assertIn(f"plerig-libvirt-{p.pid}-", os.listdir(self.tmp)[0])
        # killed while libvirt rewrote the domain's status file: its temporary is left
        # too (seen once under load), which the clean-up must take as well
        status = glob.glob(os.path.join(ROOT, "run", "qemu", f"plerig-{p.pid}-*.xml"))
        self.assertTrue(status, "no status file of the killed run's domain")
        shutil.copy(status[0], status[0] + ".new")
        later = subprocess.run([PLERIG, "run", "-q", "--vcpus", "1", "--duration", "0.05",
                                "--relax", "pause"], capture_output=True, text=True,
                               timeout=120, env=self.env)
        self.assertEqual(later.returncode, 0, later.stderr)
        self.assertIn(f"killed QEMU", later.stderr)
        self.assertIn(f"removed run directory {self.tmp}/plerig-libvirt-{p.pid}-", later.stderr)
        self.assertIn(f"removed the state of domain plerig-{p.pid}-", later.stderr)
        self.assert_clean(p.pid)

    def test_orphaned_hung_guest_powers_off_by_itself(self):
        # --inject hang, plerig killed: nobody stops the guest, so it gives up
        # at twice the watchdog after its storm and its power-off ends QEMU
        # --timeout 3: the guest gives up about 6 s after its storm, time enough
        # for this test to kill plerig first on a busy host
        p = self.start("--vcpus", "2", "--duration", "0.2", "--timeout", "3",
                       "--inject", "hang")
        deadline = time.monotonic() + 60
        # resumed and storming: its hello frame is in the serial log (a domain killed
        # before it was resumed stays paused, without spinning, for the next plerig)
        logs = os.path.join(self.tmp, f"plerig-libvirt-{p.pid}-*", "serial-0.log")
        while time.monotonic() < deadline and not any(os.path.getsize(f) for f in glob.glob(logs)):
            time.sleep(0.05)
        p.kill()
        p.communicate()
        self.assertNotEqual(qemu_processes(p.pid), [], "nothing left to test: QEMU ended")
        deadline = time.monotonic() + 60
        while qemu_processes(p.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(qemu_processes(p.pid), [], "the orphaned guest still runs")
        later = subprocess.run([PLERIG, "run", "-q", "--vcpus", "1", "--duration", "0.05",
                                "--relax", "pause"], capture_output=True, text=True,
                               timeout=120, env=self.env)
        self.assertIn(f"removed run directory {self.tmp}/plerig-libvirt-{p.pid}-", later.stderr)
        self.assert_clean(p.pid)

    def test_guest_elsewhere_uses_the_shipped_template(self):
        # the domain template comes with plerig, not from next to --guest
        elsewhere = tempfile.mkdtemp(prefix="plerig-guest-")
        try:
            guest = os.path.join(elsewhere, "g.elf")
            shutil.copy(os.path.join(os.path.dirname(PLERIG), "images", "plerig-guest.elf"), guest)
            rc, out, err = self.run_plerig("--vcpus", "1", "--duration", "0.1", "--guest", guest)
            self.assertEqual(rc, 0, err + out)
        finally:
            shutil.rmtree(elsewhere)

    def test_relative_cache_dir(self):
        # libvirt wants an absolute embed root; plerig makes a relative one absolute
        r = subprocess.run([PLERIG, "run", "-q", "--backend", "libvirt", "--cache-dir",
                            os.path.basename(CACHE), "--relax", "pause", "--vcpus", "1",
                            "--duration", "0.1"], capture_output=True, text=True, timeout=120,
                           env=self.env, cwd=os.path.dirname(CACHE))
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)

    def test_probe_left_by_a_killed_plerig_is_stopped(self):
        # libvirt's capability probe daemonizes: a plerig killed while it probed leaves it
        # running in ROOT/lib/qemu/qmp-XXXXXX/ (qmp.pid, qmp.monitor) for ever
        probe = os.path.join(ROOT, "lib", "qemu", "qmp-plerigtest")
        os.makedirs(probe, exist_ok=True)
        pidfile = os.path.join(probe, "qmp.pid")
        subprocess.run(["qemu-system-x86_64", "-S", "-no-user-config", "-nodefaults",
                        "-display", "none", "-machine", "none",
                        "-qmp", f"unix:{probe}/qmp.monitor,server=on,wait=off",
                        "-pidfile", pidfile, "-daemonize"], check=True, timeout=60)
        with open(pidfile) as f:
            pid = int(f.read())
        # directories of probes that died: an old one goes, a new one may be in use
        dead_old, dead_new = (os.path.join(ROOT, "lib", "qemu", f"qmp-dead{age}") for age in
                              ("old", "new"))
        for d in (dead_old, dead_new):
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "qmp.pid"), "w") as f:
                f.write("4194305\n")  # above any pid_max: runs nowhere
        old = time.time() - 120
        os.utime(dead_old, (old, old))
        try:
            rc, out, err = self.run_plerig("--vcpus", "1", "--duration", "0.1")
            self.assertEqual(rc, 0, err + out)
            self.assertIn(f"killed QEMU capability probe {pid}", err)
            self.assertFalse(os.path.exists(f"/proc/{pid}"), "the probe still runs")
            self.assertFalse(os.path.exists(probe), "its directory is still there")
            self.assertFalse(os.path.exists(dead_old), "a dead probe's old directory stayed")
            self.assertTrue(os.path.exists(dead_new), "a directory maybe in use was removed")
        finally:
            if os.path.exists(f"/proc/{pid}"):
                os.kill(pid, signal.SIGKILL)
            for d in (probe, dead_old, dead_new):
                shutil.rmtree(d, ignore_errors=True)

    def test_cache_dir_too_deep_for_the_monitor_socket(self):
        deep = os.path.join(self.tmp, "d" * 60)
        r = subprocess.run([PLERIG, "run", "-q", "--backend", "libvirt", "--cache-dir", deep,
                            "--relax", "pause", "--vcpus", "1", "--duration", "0.1"],
                           capture_output=True, text=True, timeout=60, env=self.env)
        self.assertEqual(r.returncode, 1, r.stderr + r.stdout)
        self.assertIn("UNIX socket path; choose a --cache-dir of at most", r.stderr)
        self.assertFalse(os.path.exists(deep), "the refused cache directory was created")

    def test_qemu_logs_are_bounded(self):
        logs = os.path.join(ROOT, "log", "qemu")
        os.makedirs(logs, exist_ok=True)
        made = []
        for i in range(40):  # old logs of runs long gone
            path = os.path.join(logs, f"plerig-999999{i:02d}-1-0.log")
            with open(path, "w") as f:
                f.write("old\n")
            os.utime(path, (1000 + i, 1000 + i))
            made.append(path)
        try:
            rc, out, err = self.run_plerig("--vcpus", "1", "--duration", "0.1")
            self.assertEqual(rc, 0, err + out)
            kept = [n for n in os.listdir(logs) if n.startswith("plerig-")]
            self.assertLessEqual(len(kept), 33, kept)  # 32 kept, then this run's
            self.assertFalse(os.path.exists(made[0]), "the oldest log is still there")
        finally:
            for path in made:
                if os.path.exists(path):
                    os.unlink(path)


if __name__ == "__main__":
    why = skip_reason()
    if why:
        print(f"SKIP: {why}")
        sys.exit(77)
    CACHE = tempfile.mkdtemp(prefix="plerig-lv-", dir="/tmp")
    ROOT = os.path.join(CACHE, "libvirt")
    try:
        unittest.main(argv=sys.argv[:1], verbosity=2)
    finally:
        shutil.rmtree(CACHE, ignore_errors=True)

#!/usr/bin/env python3
"""`plerig tune` as users see it, on test_ple_cli's fake sysfs tree (kvm_intel
parameters, a fake modprobe and rmmod, a state directory of its own) with
the shapes on host threads (--backend native: no VM, no KVM), so it runs as
root and as nobody, on any machine. The parameter's original value comes
back after a normal end, Ctrl-C and SIGTERM, for runtime writes and for
module reloads; after kill -9 the next tune refuses until --restore. The
refusals (a parameter this module lacks, one that cannot be changed, PVM,
bad options) change nothing; a budget too small says so. The search itself
is tested against synthetic curves in tests/unit/test_tune.c.

usage: test_tune_cli.py PLERIG GUEST_ELF [unittest's arguments: a class or case]
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ple_cli  # noqa: E402  (its fake sysfs host, not its tests)
import test_emulated  # noqa: E402  (its fake Bochs and L1 medium, not its tests)
from test_ple_cli import ORIGINAL, FakeHost  # noqa: E402

PLERIG = GUEST = None
# the quickest shapes there are: host threads; --timeout 60 for a loaded machine
SHAPES = ["--backend", "native", "--vcpus", "2", "--relax", "pause", "--duration", "0.03",
          "--warmup", "0.01", "--timeout", "60"]


def tune(host, *args, timeout=300):
    env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm")}
    return subprocess.run([PLERIG, "tune", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def uptime():
    """Seconds since boot (CLOCK_BOOTTIME, what PLERIG_HOST_EPOCH is added to)."""
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class Hosts(unittest.TestCase):
    def host(self, **kw):
        h = FakeHost(**kw)
        self.addCleanup(h.cleanup)
        return h


class TuneRuns(Hosts):
    def test_answer_and_restore_runtime_write(self):
        self.answer_and_restore(0o644)

    def test_answer_and_restore_reload(self):
        self.answer_and_restore(0o444)  # kvm_intel reloaded for every value

    def answer_and_restore(self, mode):
        host = self.host(mode=mode)
        out = os.path.join(host.dir, "tune.json")
        # two rounds of the first grid: the least that resolves anything
        r = tune(host, "--max-visits", "14", "-q", "--json", out, "--", *SHAPES)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(host.values(), ORIGINAL, oct(mode))
        self.assertFalse(os.path.exists(host.state))
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-tune")
        self.assertEqual(doc["param"]["name"], "ple_window")
        self.assertEqual(doc["param"]["current"], 4096)
        self.assertEqual(doc["param"]["kernel_default"], 4096)
        self.assertEqual(doc["param"]["runtime_writable"], mode == 0o644)
        self.assertEqual(len(doc["visits"]), 14)
        # the first grid, 2^8..2^20 every 2, every value visited
        visited = {v["value"] for v in doc["visits"]}
        self.assertTrue({256, 1024, 4096, 16384, 65536, 262144, 1048576} <= visited,
                        visited)
        shape = doc["shapes"][0]
        self.assertTrue(shape["resolved"], shape)
        self.assertIn(shape["vs_default"]["claim"],
                      ("gain", "loss", "as good", "too noisy", "same", "unresolved"))
        self.assertEqual(doc["provenance"]["params_before"], doc["provenance"]["params_after"])
        self.assertIn("ple_window=4096", doc["provenance"]["params_after"])
        # PLE off per VM: not on host threads, and it says why
        self.assertIn("native", doc["ple_off_unavailable"])
        self.assertIn("best", r.stdout)
        self.assertIn("provenance:", r.stdout)
        if mode == 0o444:
            calls = host.modprobe_calls()
            self.assertEqual(calls[-1], test_ple_cli.RELOADED.format(4096))
            self.assertTrue(any("ple_window=256 " in c for c in calls), calls)
        else:
            self.assertEqual(host.modprobe_calls(), [])

    def test_dated_by_the_controlling_hosts_clock(self):
        """PLERIG_HOST_EPOCH, the controlling host's clock at this machine's boot (make
        ple-test's L1, whose own clock starts at 2000-01-01): the provenance's date is
        that plus the time since boot, not this machine's clock; malformed, it is said
        and this machine's clock dates it."""
        host = self.host()
        out = os.path.join(host.dir, "tune.json")
        epoch = 1000000000  # 2001-09-09T01:46:40Z
        host.env["PLERIG_HOST_EPOCH"] = str(epoch)
        up0 = uptime()
        r = tune(host, "--max-visits", "2", "-q", "--json", out, "--", *SHAPES)
        up1 = uptime()
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(out) as f:
            date = json.load(f)["provenance"]["date"]
        self.assertLessEqual(iso(epoch + int(up0)), date)
        self.assertLessEqual(date, iso(epoch + int(up1) + 1))
        self.assertIn(f", {date}, ", r.stdout)  # the table's provenance line
        host.env["PLERIG_HOST_EPOCH"] = "tomorrow"
        before = iso(time.time())
        r = tune(host, "--max-visits", "2", "-q", "--json", out, "--", *SHAPES)
        self.assertIn("PLERIG_HOST_EPOCH=tomorrow is not a number of seconds since 1970: the "
                      "dates recorded are this machine's clock", r.stderr)
        with open(out) as f:
            date = json.load(f)["provenance"]["date"]
        self.assertLessEqual(before, date)
        self.assertLessEqual(date, iso(time.time() + 1))

    def test_same_seed_same_first_grid(self):
        """The first stage's order depends on the seed alone: the same seed, the same visits
        (one round of it here; what follows depends on the figures as well)."""
        host = self.host()
        orders = []
        for seed in ("42", "42", "43"):
            out = os.path.join(host.dir, "tune.json")
            r = tune(host, "--max-visits", "7", "--seed", seed, "-q", "--json", out, "--",
                     *SHAPES)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            with open(out) as f:
                orders.append([v["value"] for v in json.load(f)["visits"]])
        self.assertEqual(orders[0], orders[1])
        self.assertEqual(len(orders[0]), 7)
        self.assertEqual(sorted(orders[0]), sorted(orders[2]))

    def test_budget_too_small(self):
        host = self.host()
        out = os.path.join(host.dir, "tune.json")
        r = tune(host, "--max-visits", "3", "-q", "--json", out, "--", *SHAPES)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("nothing resolvable in this budget", r.stdout)
        with open(out) as f:
            doc = json.load(f)
        self.assertFalse(doc["resolved"])
        self.assertEqual(len(doc["visits"]), 3)  # what was measured is kept
        self.assertIn("nothing resolvable", doc["shapes"][0]["unresolved_why"])
        self.assertIsNone(doc["mix"])
        self.assertEqual(host.values(), ORIGINAL)

    def test_suite_section(self):
        host = self.host()
        suite = os.path.join(host.dir, "shape.cfg")
        with open(suite, "w") as f:
            f.write("[defaults]\noptions = " + " ".join(SHAPES) + "\n\n[mine]\n"
                    "options = --lock tas\n\n[theirs]\noptions = --lock mcs\n")
        out = os.path.join(host.dir, "tune.json")
        r = tune(host, "--suite", suite, "--scenario", "mine", "--max-visits", "14", "-q",
                 "--json", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(out) as f:
            self.assertIn(" tas ", json.load(f)["shapes"][0]["label"])
        r = tune(host, "--suite", suite)  # two sections: which one?
        self.assertEqual(r.returncode, 2)
        self.assertIn("--scenario", r.stderr)
        self.assertIn("mine", r.stderr)

    def test_halt_polling_on_pvm(self):
        """No PLE (PVM): halt polling is what there is, written at run time and put back;
        where it is read-only, tune refuses and says why."""
        host = self.host()
        shutil.rmtree(os.path.join(host.sys, "module", "kvm_intel"))
        os.makedirs(os.path.join(host.sys, "module", "kvm_pvm", "parameters"))
        kvm = os.path.join(host.sys, "module", "kvm", "parameters")
        os.makedirs(kvm)
        hp = os.path.join(kvm, "halt_poll_ns")
        with open(hp, "w") as f:
            f.write("200000\n")
        out = os.path.join(host.dir, "tune.json")
        r = tune(host, "--max-visits", "14", "-q", "--json", out, "--", *SHAPES)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["param"]["name"], "halt_poll_ns")
        self.assertIn("kvm_pvm", doc["param"]["why"])
        self.assertIn(0, {v["value"] for v in doc["visits"]})  # polling off, a value of its own
        with open(hp) as f:
            self.assertEqual(f.read().strip(), "200000")
        self.assertFalse(os.path.exists(host.state))
        os.chmod(hp, 0o444)
        r = tune(host, "--json", out, "--", *SHAPES)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("nothing to tune: KVM here is kvm_pvm", r.stderr)
        self.assertIn("halt_poll_ns is read-only (mode 0444)", r.stderr)


class TuneRefused(Hosts):
    def test_cannot_change(self):
        in_use = self.host(mode=0o444, refcnt="3")
        builtin = self.host(mode=0o444)
        os.unlink(os.path.join(builtin.sys, "module", "kvm_intel", "refcnt"))
        for host, args, why in (
                (in_use, [], "in use (refcnt 3)"),
                (builtin, [], "kvm_intel is built into the kernel"),
                (self.host(), ["--param", "pause_filter_count"],
                 "no parameter pause_filter_count on this host: it belongs to kvm_amd, but "
                 "KVM here is kvm_intel")):
            out = os.path.join(host.dir, "tune.json")
            r = tune(host, *args, "--json", out, "--", *SHAPES)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertFalse(os.path.exists(out))  # measured nothing, wrote nothing
            self.assertEqual(host.modprobe_calls(), [])
            self.assertEqual(host.values(), ORIGINAL)
            self.assertFalse(os.path.exists(host.state))

    def test_shape_this_host_cannot_run(self):
        """VMs where there is no KVM device: the first visit stops the tune with the
        backend's reason, the value it had set goes back, what there is is printed."""
        host = self.host(mode=0o444)
        out = os.path.join(host.dir, "tune.json")
        r = tune(host, "--json", out, "--", "--vcpus", "2", "--duration", "0.05")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("stopped after 0 visit(s): ", r.stdout)
        self.assertIn("no-kvm", r.stderr)
        self.assertEqual(host.values(), ORIGINAL)
        self.assertFalse(os.path.exists(host.state))
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["stop"], "error")
        self.assertEqual(doc["visits"], [])

    def test_usage(self):
        host = self.host()
        for args, said in (
                (["--param", "nx_huge_pages"], "tune searches"),
                (["--param", "ple_window=4096..1024"], "LO must be below HI"),
                (["--param", "pause_filter_count=256..70000"], "65535"),
                (["--budget", "0"], "--budget"),
                (["--metric", "ple_exits_per_acq"], "no better direction"),
                (["--scenario", "x"], "--suite"),
                (["--restore", "--budget", "5"], "--restore takes nothing else"),
                (["--", "--json", "x.json"], "must not have --json"),
                (["--", "--ple", "on,off"], "tune measures per-VM PLE off"),
                (["--param", "halt_poll_ns", "--", "--halt-poll", "0"], "hides halt_poll_ns"),
                (["--", "--backend", "libvirt", "--connect", "qemu+ssh://root@h/system"],
                 "--connect names another host"),
                (["stray"], "after --")):
            r = tune(host, *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(said, r.stderr, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(host.values(), ORIGINAL)
        self.assertFalse(os.path.exists(host.state))
        r = tune(host, "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--budget", r.stdout)


class TuneSignals(Hosts):
    def start(self, host):
        env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm")}
        p = subprocess.Popen([PLERIG, "tune", "--budget", "3600", "--", *SHAPES],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
        # wait until a value other than the original is in (the first may be 4096 itself)
        deadline = time.monotonic() + 60
        while host.value("ple_window") == ORIGINAL["ple_window"]:
            self.assertLess(time.monotonic(), deadline, "the tune never changed the value")
            self.assertIsNone(p.poll(), p.stderr.read() if p.poll() is not None else "")
            time.sleep(0.01)
        return p

    def test_signals_restore(self):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for mode in (0o644, 0o444):
                host = self.host(mode=mode)
                p = self.start(host)
                p.send_signal(sig)
                out, err = p.communicate(timeout=120)
                self.assertEqual(p.returncode, status, err)
                self.assertIn("restored", err)
                self.assertEqual(host.values(), ORIGINAL, (sig, mode))
                self.assertFalse(os.path.exists(host.state))
                self.assertIn("plerig tune:", out)  # what was measured is still printed

    def test_kill9_then_restore(self):
        for mode in (0o644, 0o444):
            host = self.host(mode=mode)
            for _ in range(10):  # until it dies with another value than the original in
                p = self.start(host)
                p.kill()
                p.communicate(timeout=60)
                left = host.value("ple_window")
                if left != ORIGINAL["ple_window"]:
                    break
                # it had the original in again for a visit: put things back, once more
                self.assertEqual(tune(host, "--restore").returncode, 0)
            self.assertNotEqual(left, ORIGINAL["ple_window"])
            self.assertTrue(os.path.exists(host.state))
            # a new tune (or sweep) refuses to start over the unrestored one
            r = tune(host, "--", *SHAPES)
            self.assertEqual(r.returncode, 1)
            self.assertIn("--restore", r.stderr)
            r = tune(host, "--restore")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"ple_window {left} -> 4096", r.stdout)
            self.assertEqual(host.values(), ORIGINAL)
            self.assertFalse(os.path.exists(host.state))


class TuneEmulated(Hosts):
    """tune --connect emulated with test_emulated's fake Bochs: its L1 is this plerig's
    l1-serve, whose tune runs on the fake sysfs host (the environment reaches it, as
    the real L1's own sysfs would be its); the table, JSON and report come back."""

    write = staticmethod(test_emulated.Emulated.write)

    def setUp(self):
        # test_emulated's fake Bochs, L1 medium, vendors and TMPDIR, made as it makes them
        test_emulated.Emulated.setUp(self)
        self.write(os.path.join(self.fake, "mode"), "serve", 0o644)
        self.host_ = self.host(mode=0o444)  # kvm_intel reloaded for each value, as in L1
        self.env = {**self.host_.env, "PLERIG": PLERIG, "PLERIG_L1_DIR": self.l1,
                    "FAKE_BOCHS_DIR": self.fake, "TMPDIR": self.tmpdir,
                    "PLERIG_BOCHS": os.path.join(self.fake, "bochs-bin"),
                    "PLERIG_KVM_DEVICE": os.path.join(self.host_.dir, "no-kvm")}

    def tune(self, *args):
        return subprocess.run([PLERIG, "tune", "--connect", "emulated", "--cache-dir",
                               self.cache, *args], capture_output=True, text=True,
                              timeout=300, env=self.env)

    def test_answer_table_json_report_come_back(self):
        d = self.host_.dir
        out, report = os.path.join(d, "tune.json"), os.path.join(d, "tune.html")
        r = self.tune("--max-visits", "14", "--seed", "7", "--json", out, "--report", report,
                      "--", *SHAPES)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # who the emulated host is, and that its seconds are emulated ones
        self.assertRegex(r.stderr, r"plerig tune: emulated Intel Core i7-4770 \(Haswell\) "
                                   r"\(Bochs 2\.7\), kernel \S+, .*times in emulated seconds")
        # L1's progress relayed, its table on stdout, the parameter back there
        self.assertRegex(r.stderr, r"plerig tune: \[1\] stage \d+, round 1: ple_window=\d+: ")
        self.assertIn("best", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^provenance: host .*, kernel .*, CPU .*, plerig .*, "
                                   r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, \d+ s$")
        self.assertRegex(r.stdout, r"(?m)^  every time above is in emulated seconds: Bochs' "
                                   r"instruction clock, 100000000 instructions a second")
        self.assertEqual(self.host_.values(), ORIGINAL)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-tune")
        self.assertEqual(doc["seed"], 7)
        self.assertEqual(len(doc["visits"]), 14)
        self.assertFalse(doc["param"]["runtime_writable"])  # reloaded in "L1"
        prov = doc["provenance"]
        self.assertTrue(prov["clock"].startswith("emulated seconds: Bochs' instruction clock"))
        self.assertRegex(prov["date"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertIn("--json out/tune.json", prov["command_line"])  # L1's own command line
        self.assertEqual(prov["params_before"], prov["params_after"])
        with open(report) as f:
            page = f.read()
        self.assertIn("<html", page)
        self.assertIn("emulated seconds: Bochs&#39; instruction clock", page)
        self.assertIn("this tune&#39;s visits", page)
        # the suite section goes in with it, and --json - takes stdout (the table: stderr)
        suite = os.path.join(d, "shape.cfg")
        with open(suite, "w") as f:
            f.write("[defaults]\noptions = " + " ".join(SHAPES) + "\n\n[mine]\n"
                    "options = --lock tas\n")
        r = self.tune("--suite", suite, "--max-visits", "14", "-q", "--json", "-")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(" tas ", json.loads(r.stdout)["shapes"][0]["label"])
        self.assertIn("provenance:", r.stderr)

    def test_bad_input_here_before_bochs(self):
        r = self.tune("--json", "/nonexistent/dir/t.json", "--", *SHAPES)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertNotIn("emulated host", r.stderr)
        for args, msg in ((["--connect", "qemu:///system"], "only the emulated host runs one"),
                          (["--kernel", "/nonexistent"], "--kernel: only for --connect emulated"),
                          (["--connect", "emulated", "--restore"],
                           "L1 keeps nothing between boots")):
            r = subprocess.run([PLERIG, "tune", *args], capture_output=True, text=True,
                               timeout=60, env=self.env)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(msg, r.stderr)


if __name__ == "__main__":
    PLERIG, GUEST = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    test_ple_cli.PLERIG, test_ple_cli.GUEST = PLERIG, GUEST
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[3:]])

#!/usr/bin/env python3
"""Bad input and odd output paths: nothing lost, nothing damaged, nothing
left behind. Device nodes are private ones made with os.mknod in the test's
own directory (root only), never the real /dev/null.

usage: test_bad_input.py PLERIG GUEST_ELF
"""
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

PLERIG = GUEST = None
# --timeout 60: with the load average at 28 a short run's stop took over the default 10 s
SHORT = ["--vcpus", "2", "--duration", "0.2", "--warmup", "0.05", "--timeout", "60", "--quiet"]


def plerig(*args, env=None, timeout=120, **kw):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, **kw)


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        os.chmod(self.dir, 0o755)
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def full_device(self):
        """A private /dev/full: every write fails with ENOSPC."""
        if os.geteuid() != 0:
            self.skipTest("needs root to make a private character device with os.mknod")
        p = self.path("full")
        os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        return p

    def null_device(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to make a private character device with os.mknod")
        p = self.path("null")
        os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        return p

    def assert_usage(self, r, *needles):
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for n in needles:
            self.assertIn(n, lines[0])


class OutputPathsChecked(Base):
    """Item 2: an unwritable output is said before the first VM boots."""

    def test_run_refuses_unwritable_outputs_at_once(self):
        sock = self.path("sock")
        import socket
        s = socket.socket(socket.AF_UNIX)
        s.bind(sock)
        self.addCleanup(s.close)
        cases = [("--json", "/nonexistent/dir/x.json", "No such file"),
                 ("--json", self.dir, "directory"),
                 ("--csv", self.dir, "directory"),
                 ("--json", sock, "socket")]
        # no KVM to boot on, and no timing asserted: a run that got as far as
        # its first VM would end 1 ("/nonexistent/kvm not found"), not 2
        for opt, path, why in cases:
            r = plerig("run", "--duration", "5", opt, path,
                       env={"PLERIG_KVM_DEVICE": "/nonexistent/kvm"})
            self.assert_usage(r, opt, path, why)

    def test_sweep_and_compare_refuse_too(self):
        r = plerig("sweep", "--param", "ple_gap=0,128", "--json", "/nonexistent/d/s.json",
                   "--", *SHORT)
        self.assert_usage(r, "--json", "/nonexistent/d/s.json")
        r = plerig("sweep", "--param", "ple_gap=0,128", "--csv", self.dir, "--", *SHORT)
        self.assert_usage(r, "--csv", self.dir)
        r = plerig("compare", "--json", self.dir, "/nonexistent/a.json", "/nonexistent/b.json")
        self.assert_usage(r, "--json", self.dir)

    def test_connect_lists_are_checked_before_anything(self):
        # a sweep sets this machine's parameters: another host would not see them
        r = plerig("sweep", "--param", "ple_gap=0,128", "--", "--backend", "libvirt",
                   "--connect", "qemu+ssh://root@hostA/system")
        self.assert_usage(r, "--connect names another host", "each host")
        # several hosts run libvirt only; a list has no empty item, no host twice
        for connect, why in (("embedded,qemu:///system", "several hosts"),
                             ("qemu:///system,,embedded", "empty URI"),
                             ("embedded,embedded", "named twice")):
            r = plerig("run", "--backend", "kvm,libvirt", "--connect", connect)
            self.assert_usage(r, "--connect", why)
        r = plerig("check", "--connect", "a,,b")
        self.assert_usage(r, "--connect", "empty URI")

    def test_report_is_checked_before_running(self):
        """A sweep would change host parameters first, a run measure for nothing."""
        # no timing asserted: a run that got to its first VM would end 1 (no KVM
        # here), a sweep that got to its parameters 1 (no sysfs tree there), not 2
        env = {"PLERIG_KVM_DEVICE": "/nonexistent/kvm", "PLERIG_SYSFS_ROOT": "/nonexistent/sys",
               "PLERIG_STATE_DIR": self.path("state")}
        bad = "/nonexistent/d/r.html"
        for args in (["run", "--duration", "5", "--report", bad],
                     ["sweep", "--param", "ple_gap=0,128", "--report", bad, "--", *SHORT]):
            self.assert_usage(plerig(*args, env=env), "--report", bad, "No such file")
        self.assert_usage(plerig("run", "--report", self.dir, env=env), "--report", "directory")
        self.assertFalse(os.path.exists(self.path("state")))

    def test_a_cache_dir_others_may_change_is_bad_input(self):
        """Issue 25 item 2: a --cache-dir that another user could point elsewhere is
        refused as bad input (exit 2) by every command that takes it, before anything
        runs; it was a failed run (exit 1) found when the libvirt backend opened."""
        cache = self.path("cache")
        os.mkdir(cache)
        os.chmod(cache, 0o777)
        for args in (["run", "--backend", "libvirt", "--accel", "tcg"],
                     ["run", "--connect", "emulated"], ["check", "--connect", "emulated"],
                     ["tune", "--connect", "emulated"],
                     ["sweep", "--connect", "emulated", "--param", "ple_window=1024,4096"]):
            r = plerig(*args, "--cache-dir", cache, timeout=60)
            self.assert_usage(r, f"plerig {args[0]}: --cache-dir {cache}: the directory "
                              f"{cache} is writable by others (mode 0777)", "chmod go-w")
            self.assertEqual(os.listdir(cache), [], args)

    def test_both_on_stdout_is_refused(self):
        self.assert_usage(plerig("run", "--json", "-", "--csv", "-"), "--json -", "--csv -")

    @unittest.skipUnless(kvm_usable(), "/dev/kvm is not usable here")
    def test_results_kept_when_the_directory_goes_away(self):
        d = self.path("out")
        os.mkdir(d)
        fallback = self.path("fallback")
        os.mkdir(fallback)
        p = subprocess.Popen([PLERIG, "run", "--vcpus", "2", "--duration", "1", "--warmup",
                              "0.05", "-q", "--json", os.path.join(d, "r.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": fallback})
        time.sleep(0.3)
        os.rmdir(d)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("instead", err)
        saved = os.listdir(fallback)
        self.assertEqual(len(saved), 1, err)
        self.assertIn(os.path.join(fallback, saved[0]), err)
        with open(os.path.join(fallback, saved[0])) as f:
            self.assertEqual(json.load(f)["schema"], "plerig-results")


@unittest.skipUnless(kvm_usable(), "/dev/kvm is not usable here")
class OutputsNotDamaged(Base):
    """Item 1: devices and FIFOs are written through, symlinks followed."""

    def test_character_device_stays_a_device(self):
        null = self.null_device()
        for opt in ("--json", "--csv"):
            r = plerig("run", *SHORT, opt, null)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode), f"{opt} replaced the device")
        self.assertEqual(sorted(os.listdir(self.dir)), ["null"])  # no temp file left

    def test_sweep_and_compare_keep_the_device(self):
        null = self.null_device()
        # a compare of bad files still checks --json first, then fails on the input
        r = plerig("compare", "--json", null, "/nonexistent/a.json", "/nonexistent/b.json")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode))

    def test_fifo_gets_the_data(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([PLERIG, "run", *SHORT, "--json", fifo],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        with open(fifo) as f:
            doc = json.load(f)
        p.wait(timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr.read())
        self.assertEqual(doc["schema"], "plerig-results")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_symlink_is_followed(self):
        os.mkdir(self.path("real"))
        target = self.path("real/r.json")
        link = self.path("link.json")
        os.symlink("real/r.json", link)
        r = plerig("run", *SHORT, "--json", link)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertEqual(json.load(f)["schema"], "plerig-results")
        self.assertEqual(os.listdir(self.path("real")), ["r.json"])

    def test_dash_is_the_data_alone(self):
        r = plerig("run", *SHORT, "--json", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["schema"], "plerig-results")
        self.assertIn("acq/s", r.stderr)  # the table went to stderr
        r = plerig("run", *SHORT, "--csv", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("acq/s", r.stdout)
        self.assertIn("acq/s", r.stderr)


# one thread alone: no lock to starve on, however busy the host (two on a fair lock
# could fail a run with the load average at 30)
NATIVE = ["--backend", "native", "--vcpus", "1", "--pcpus", "0", "--duration", "0.1",
          "--warmup", "0.02", "--quiet"]


class StdoutLost(Base):
    """Item 14: the table is the result; a stdout that cannot take it fails the command."""

    def test_full_stdout_is_exit_1(self):
        full = self.full_device()
        native = [a for a in NATIVE if a != "--quiet"]
        suite = self.path("s.cfg")
        with open(suite, "w") as f:
            f.write("[a]\noptions = --vcpus 1\n")
        for args in (["run", *native], ["check", "--suite", suite, "--list"], ["--help"]):
            with open(full, "w") as out:
                r = subprocess.run([PLERIG, *args], stdout=out, stderr=subprocess.PIPE,
                                   text=True, timeout=120)
            self.assertEqual(r.returncode, 1, (args, r.stderr))
            self.assertIn("writing to stdout failed", r.stderr)
        # and where stdout takes it, nothing changes
        r = plerig("check", "--suite", suite, "--list")
        self.assertEqual(r.returncode, 0, r.stderr)


class FifoInputs(Base):
    """Item 10: a FIFO nobody writes to, as compare or report input: one line at once."""

    def results(self):
        good = self.path("good.json")
        r = plerig("run", *NATIVE, "--repeat", "3", "--json", good)
        self.assertEqual(r.returncode, 0, r.stderr)
        return good

    def test_fifo_without_writer_is_refused_at_once(self):
        good, fifo, html = self.results(), self.path("r.fifo"), self.path("r.html")
        os.mkfifo(fifo)
        for args in (["compare", fifo, good], ["compare", good, fifo],
                     ["report", fifo, "-o", html], ["report", good, fifo, "-o", html]):
            r = plerig(*args, timeout=20)
            self.assert_usage(r, fifo, "a FIFO with no writer")
        self.assertFalse(os.path.exists(html))

    def test_pipe_with_its_writer_is_read(self):
        """Process substitution keeps working: the writer is there before plerig opens it."""
        good, html = self.results(), self.path("r.html")
        for cmd in ('"$0" compare <(cat "$1") "$1"', '"$0" report <(cat "$1") -o "$2"'):
            r = subprocess.run(["bash", "-c", cmd, PLERIG, good, html], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, (cmd, r.stderr))
        self.assertTrue(os.path.getsize(html) > 0)


class GuestImage(Base):
    """Item 4: a FIFO as guest image is refused at once, with exit 2."""

    def test_fifo_guest_is_refused_at_once(self):
        fifo = self.path("guest.fifo")
        os.mkfifo(fifo)
        r = plerig("run", *SHORT, "--guest", fifo, timeout=10)
        self.assert_usage(r, fifo, "FIFO")
        r = plerig("run", *SHORT, env={"PLERIG_GUEST": fifo}, timeout=10)
        self.assert_usage(r, fifo, "FIFO")
        r = plerig("sweep", "--param", "ple_gap=0,128", "--", *SHORT, "--guest", fifo,
                   timeout=10)
        self.assert_usage(r, fifo, "FIFO")

    def test_directory_and_device_guest_are_refused(self):
        self.assert_usage(plerig("run", *SHORT, "--guest", self.dir, timeout=10), "directory")
        null = self.null_device()
        self.assert_usage(plerig("run", *SHORT, "--guest", null, timeout=10),
                          "character device")

    @unittest.skipUnless(kvm_usable(), "/dev/kvm is not usable here")
    def test_interrupt_is_128_plus_n(self):
        p = subprocess.Popen([PLERIG, "run", "--vcpus", "2", "--duration", "5", "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGINT)


class SuiteFile(Base):
    """Issue 20, items 1, 2, 10, 12: a suite file says what is wrong, with its line."""

    def suite(self, text):
        p = self.path("suite.cfg")
        with open(p, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        return p

    def check(self, suite, *args, **kw):
        return plerig("check", "-q", "--suite", suite, *args, timeout=kw.pop("timeout", 120),
                      **kw)

    @unittest.skipUnless(kvm_usable(), "/dev/kvm is not usable here")
    def test_guest_path_in_a_suite_is_the_one_given(self):
        # the plan's paths pointed into a buffer freed after parsing: "cannot open guest image "
        r = self.check(self.suite(f"[a]\noptions = --vcpus 1 --duration 0.1 --warmup 0.02 "
                                  f"--guest {GUEST}\n"))
        self.assertNotIn("cannot open guest image", r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_nul_byte_is_refused_with_its_line(self):
        p = self.suite(b"[a]\noptions=--vcpus 1\n\0\n[b]\noptions=--inject fault\n")
        self.assert_usage(self.check(p), "suite.cfg:3: a NUL byte")

    def test_a_key_twice_is_refused(self):
        p = self.suite("[a]\noptions = --vcpus 1\noptions = --vcpus 2\n")
        self.assert_usage(self.check(p), "suite.cfg:3: options again in this section",
                          "first at line 2")

    def test_help_in_a_scenario_is_an_error_not_a_usage_text(self):
        r = self.check(self.suite("[a]\noptions = --help\n"))
        self.assert_usage(r, "suite.cfg:1: [a]: --help is not an option of a scenario")
        self.assertEqual(r.stdout, "")

    def test_report_in_a_scenario_is_refused(self):
        r = self.check(self.suite(f"[a]\noptions = --report {self.path('a.html')}\n"))
        self.assert_usage(r, "[a]: --report belongs to `plerig check`")

    def test_fifo_suite_is_refused_at_once(self):
        fifo = self.path("suite.fifo")
        os.mkfifo(fifo)
        self.assert_usage(self.check(fifo, timeout=10), fifo, "FIFO")
        r = plerig("check", "-q", env={"PLERIG_SUITE": fifo}, timeout=10)
        self.assert_usage(r, fifo, "FIFO")

    def test_oversized_suite_is_refused(self):
        p = self.suite("# padding\n" * 30000)
        self.assert_usage(self.check(p), "larger than 256 KiB")


class BaselineStore(Base):
    """Issue 20, items 5, 6, 10, 13: the store's files are checked, never followed, never
    waited on; a store that cannot take a recording is said before anything runs."""

    SUITE = "[solo]\noptions = --vcpus 1 --duration 60\nmetrics = acq_per_cpu_s\n"
    NO_KVM = {"PLERIG_KVM_DEVICE": "/nonexistent/kvm", "PLERIG_BASELINES": ""}

    def setUp(self):
        super().setUp()
        self.suite = self.path("suite.cfg")
        with open(self.suite, "w") as f:
            f.write(self.SUITE)
        self.store = self.path("store")
        os.mkdir(self.store)

    def check(self, *args, env=None, timeout=20):
        # a state directory of the test's own: /var/lib/plerig is root's (as another user,
        # check's ple-params case failed: "cannot tell whether they are the host's own")
        state = {"PLERIG_STATE_DIR": self.path("state")}
        return plerig("check", "-q", "--suite", self.suite, "--baselines", self.store, *args,
                      env={**self.NO_KVM, **state, **(env or {})}, timeout=timeout)

    def key_file(self):
        """DIR/KEY.json of this machine, as check names it."""
        r = self.check()
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        key = r.stdout.split("no baseline for this machine (", 1)[1].split(")", 1)[0]
        return os.path.join(self.store, key + ".json"), key

    def test_record_into_a_missing_parent_is_refused_before_running(self):
        r = self.check("--record", "--baselines", "/nonexistent/a/b", env={"PLERIG_KVM_DEVICE": ""})
        self.assert_usage(r, "--record", "/nonexistent/a/b", "parent directory must exist")

    def test_fifo_baseline_is_refused_at_once(self):
        path, _ = self.key_file()
        os.mkfifo(path)
        self.assert_usage(self.check(timeout=10), path, "FIFO")
        self.assert_usage(self.check("--record", timeout=10), path, "FIFO")

    def test_dangling_symlink_is_not_followed(self):
        path, _ = self.key_file()
        target = self.path("planted.json")
        os.symlink(target, path)
        self.assert_usage(self.check("--record"), path, "symbolic link")
        self.assertFalse(os.path.exists(target))

    def baseline(self, machine, **changes):
        """A good baseline of @machine (the key), then @changes."""
        # the key is the slug of "CPU_MODEL Ncpu smtX MODULE", and a slug is its own slug
        model, cpus, smt, module = re.fullmatch(r"(.*)-(\d+)cpu-smt(0|1|unknown)-(.*)",
                                                machine).groups()
        doc = {"schema": "plerig-baseline", "schema_version": 1, "key": machine,
               "plerig_version": "0.1", "recorded_at": "2026-12-01T00:00:00Z",
               "suite": "s.cfg",
               "host": {"kernel": "6.1", "kvm_module": module, "cpu_model": model, "cpus": 1,
                        "cpus_online": int(cpus), "smt": {"0": False, "1": True}.get(smt),
                        "ple_params": ""},
               "entries": [{"scenario": "solo", "variant": "v", "metric": "acq_per_cpu_s",
                            "values": [1.0, 2.0]}]}
        doc.update(changes)
        return doc

    def test_an_imported_baseline_is_checked_as_a_stored_one_and_dated_here(self):
        """Issue 25, items 6 and 13: make ple-test RECORD=1 stores what an emulated L1 recorded
        (its key from the kernel under test, its clock fixed at 2000-01-01) through
        check --import-baseline: a key that would leave the store, or that is not its
        machine's, is refused and nothing is written; a good one lands dated by this host."""
        machine = "intel-core-i7-4770-2cpu-smt0-kvm_intel"
        src = self.path("l1-baseline.json")

        def imp(**changes):
            with open(src, "w") as f:
                json.dump(self.baseline(machine, recorded_at="2000-01-01T00:02:46Z", **changes), f)
            return plerig("check", "--import-baseline", src, "--baselines", self.store,
                          env=self.NO_KVM, timeout=20)
        for key, why in (("../../escaped", "'../../escaped' is not a machine's key"),
                         ("/tmp/escaped", "is not a machine's key"), ("", "is not a machine's key"),
                         ("another-machine", "make the key " + machine + ", not another-machine")):
            self.assert_usage(imp(key=key), "--import-baseline", src, why)
        self.assertEqual(os.listdir(self.store), [])
        self.assertFalse(os.path.exists(self.path("escaped.json")))
        self.assert_usage(plerig("check", "--import-baseline", src, env=self.NO_KVM),
                          "--import-baseline needs a baseline store")
        self.assert_usage(plerig("check", "--import-baseline", src, "--baselines", self.store,
                                 "--record", env=self.NO_KVM), "runs no scenario")
        before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        r = imp()
        after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(self.store), [machine + ".json"])
        with open(os.path.join(self.store, machine + ".json")) as f:
            stored = json.load(f)
        self.assertTrue(before <= stored["recorded_at"] <= after, stored["recorded_at"])
        self.assertEqual(stored["entries"], self.baseline(machine)["entries"])

    def test_bad_values_are_refused_with_their_path(self):
        path, key = self.key_file()
        entry = {"scenario": "solo", "variant": "v", "metric": "run_delay_share"}
        cases = [({"schema_version": "1"}, "schema_version: not 1"),
                 ({"schema_version": 1.9}, "schema_version: not 1"),
                 ({"key": "another-machine"}, "key: 'another-machine' is not this file's"),
                 ({"entries": [{**entry, "values": [0.1, float("nan")]}]},
                  "entries[0].values[1]: NaN out of range"),
                 ({"entries": [{**entry, "values": [-50, -50, -50]}]},
                  "entries[0].values[0]: -50 out of range (0 to 1 for run_delay_share)"),
                 ({"entries": [{**entry, "values": [1e308]}]},
                  "entries[0].values[0]: 1e+308 out of range")]
        with open(path, "w") as f:
            json.dump(self.baseline(key, recorded_at="\x1b[2J\x1b[31mred"), f)
        r = self.check()
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("recorded \\x1b[2J\\x1b[31mred (plerig 0.1)", r.stdout)
        self.assertNotIn("\x1b", r.stdout)
        for change, message in cases:
            with open(path, "w") as f:
                json.dump(self.baseline(key, **change), f)
            r = self.check()
            self.assert_usage(r, path, message)

    def test_oversized_baseline_is_refused(self):
        path, key = self.key_file()
        with open(path, "w") as f:
            f.write(" " * (4 << 20) + "{}")
        self.assert_usage(self.check(), path, "larger than 4 MiB")


class IgnoredOptions(Base):
    """Leftover (c) of issue 25: an option another one makes meaningless is
    refused (exit 2, one line naming both), never silently ignored."""

    def test_refused_with_the_reason(self):
        suite = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                             "suites", "default.cfg")
        cases = [
            (["run", "--seed", "3"], ["--seed", "--order shuffle"]),
            (["run", "--order", "interleave", "--seed", "3"], ["--seed", "--order shuffle"]),
            (["run", "--pv-yield-spins", "8"], ["--pv-yield-spins", "pv-yield"]),
            (["run", "--lock", "ticket", "--pv-spin-threshold", "8"],
             ["--pv-spin-threshold", "pvqspin"]),
            (["sweep", "--param", "ple_window=1,2", "--seed", "4"], ["--seed", "--rounds"]),
            (["sweep", "--restore", "--rounds", "3"], ["--restore", "--rounds"]),
            (["sweep", "--restore", "--json", self.path("x.json")], ["--restore"]),
            (["check", "--suite", suite, "--list", "--tap", self.path("x.tap")],
             ["--list", "--tap"]),
            (["check", "--suite", suite, "--list", "--record"], ["--list", "--record"]),
            (["check", "--suite", suite, "--list", "--budget", "10"], ["--list", "--budget"]),
        ]
        for args, needles in cases:
            with self.subTest(args=args):
                self.assert_usage(plerig(*args), *needles)
        self.assertFalse(os.path.exists(self.path("x.tap")))

    def test_meaningful_combinations_still_parse(self):
        """The same options where they mean something: --help shows they parse."""
        for args in (["run", "--order", "shuffle", "--seed", "3", "--help"],
                     ["run", "--relax", "pause,pv-yield", "--pv-yield-spins", "8", "--help"],
                     ["run", "--lock", "pvqspin", "--pv-spin-threshold", "8", "--help"],
                     ["sweep", "--param", "ple_window=1,2", "--rounds", "2", "--seed", "4",
                      "--help"]):
            r = plerig(*args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))


if __name__ == "__main__":
    PLERIG, GUEST = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

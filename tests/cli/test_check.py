#!/usr/bin/env python3
"""`plerig check` as a CI job sees it: exit statuses (0, 1, 2, 77), the
baseline store (record, a regression against it, an unknown machine), the
A/A test, TAP read back by `prove` and JUnit XML by xml.etree. Boots
real VMs; nothing here asserts a timing, and every verdict holds with both
CPUs busy (the scenarios judge acq/CPU-second of one vCPU alone).

usage: test_check.py PLERIG DEFAULT_SUITE
"""
import fcntl
import glob
import json
import os
import re
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import slow_cases  # noqa: E402

PLERIG = DEFAULT_SUITE = None

# One scenario, one metric: a regression is exactly one failure.
SUITE = """\
# test suite of plerig check
[defaults]
options = --duration 0.2 --warmup 0.05 --repeat 10 --timeout 60
metrics = acq_per_cpu_s

[solo]
groups = quick
options = --vcpus 1 --pcpus 0 --lock ticket --relax pause
expect = progress
"""


def plerig(*args, env=None):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


class Check(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="plerig-check-test-")
        self.suite = os.path.join(self.dir, "suite.cfg")
        with open(self.suite, "w") as f:
            f.write(SUITE)
        self.store = os.path.join(self.dir, "baselines")
        # a state directory of the test's own: /var/lib/plerig is root's, and as another user
        # the host's ple-params case failed ("cannot tell whether they are the host's own")
        self.env = {"PLERIG_BASELINES": "", "PLERIG_STATE_DIR": os.path.join(self.dir, "state")}

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self, *args, env=None):
        return plerig("check", "-q", "--suite", self.suite, *args, env={**self.env, **(env or {})})

    def junit(self, path):
        root = ET.parse(path).getroot()
        self.assertEqual(root.tag, "testsuites")
        return root, list(root.iter("testcase"))

    def need_kvm(self):
        if not kvm_usable():
            self.skipTest("no read-write /dev/kvm here")

    def record(self, *args):
        r = self.check("--baselines", self.store, "--record", *args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        files = glob.glob(os.path.join(self.store, "*.json"))
        self.assertEqual(len(files), 1, files)
        return files[0]

    def test_bad_suite_is_usage_error_with_line(self):
        with open(self.suite, "a") as f:
            f.write("colour = blue\n")
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("suite.cfg:10: unknown key 'colour'", r.stderr)
        with open(self.suite, "w") as f:
            f.write("[x]\noptions = --vcpus lots\n")
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("suite.cfg:1: [x]:", r.stderr)

    def test_unknown_group_is_usage_error(self):
        r = self.check("--group", "nosuch")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--group: no scenario", r.stderr)

    def test_record_needs_a_store(self):
        r = self.check("--record")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--record needs a baseline store", r.stderr)

    def test_no_kvm_is_77_with_reasons(self):
        junit = os.path.join(self.dir, "j.xml")
        r = self.check("--junit", junit, env={"PLERIG_KVM_DEVICE": "/nonexistent/kvm"})
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        root, cases = self.junit(junit)
        self.assertTrue(cases)
        for c in cases:
            skipped = c.find("skipped")
            self.assertIsNotNone(skipped)
            self.assertIn("/nonexistent/kvm", skipped.get("message"))

    def test_hostile_bytes_reach_neither_tap_nor_junit(self):
        """The issue's reproduction: a guest path with \\r, a stray byte and U+FFFE."""
        self.need_kvm()
        guest = os.path.join(os.fsencode(self.dir), b"x\rnot ok 97\xff\v\xef\xbf\xbe")
        with open(guest, "wb") as f:
            f.write(b"not an ELF file\n")
        junit = os.path.join(self.dir, "j.xml")
        env = os.environb.copy()
        env.update({b"PLERIG_BASELINES": b"", b"PLERIG_GUEST": guest})
        r = subprocess.run([PLERIG, "check", "-q", "--suite", self.suite, "--tap", "-",
                            "--junit", junit], capture_output=True, timeout=300, env=env)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        tap = r.stdout.decode("utf-8")  # strict: no stray byte left
        self.assertIn("x\\x0dnot ok 97\\xff\\x0b\\xef\\xbf\\xbe", tap)  # said, escaped
        for line in tap.splitlines():  # splitlines() breaks at \r, \v, U+2028 too
            self.assertFalse(line.startswith("not ok 97"), tap)
            self.assertTrue(line.startswith(("TAP version", "1..", "ok ", "not ok ", "  ")),
                            repr(line))
        root, cases = self.junit(junit)  # ElementTree takes it
        self.assertIn("x\\x0dnot ok 97\\xff", ET.tostring(root, encoding="unicode"))
        if shutil.which("xmllint"):
            x = subprocess.run(["xmllint", "--noout", junit], capture_output=True, text=True)
            self.assertEqual(x.returncode, 0, x.stderr)

    def test_default_suite_parses(self):
        r = plerig("check", "--suite", DEFAULT_SUITE, "--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("uncontended", "overcommit-ticket", "ple-exits", "ple-off", "pv-yield",
                     "pvqspin"):
            self.assertIn(name, r.stdout)

    def test_unknown_machine_has_no_baseline(self):
        self.need_kvm()
        os.makedirs(self.store)
        page = os.path.join(self.dir, "check.html")
        r = self.check("--baselines", self.store, "--report", page)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("no baseline for this machine", r.stdout)
        # --report: the scenario that ran has its section of charts
        with open(page) as f:
            html = f.read()
        self.assertIn("<h2>Results: solo</h2>", html)
        self.assertIn("Throughput per variant", html)

    def test_params_left_changed_fail_and_record_nothing(self):
        # a sweep or check killed with the host's PLE parameters changed left its state
        # file: what runs now runs under its values, which a failed case says
        with open(self.suite, "w") as f:
            f.write(SUITE.replace("--timeout 60", "--timeout 60 --backend native"))
        gone = subprocess.Popen(["true"])
        gone.wait()
        state = os.path.join(self.dir, "state")
        os.makedirs(state)
        with open(os.path.join(state, "ple-params.state"), "w") as f:
            f.write(f"plerig-ple-state 1\npid {gone.pid}\nroot /sys\nmodule kvm_intel\n"
                    "param ple_window 4096\n")
        r = self.check("--baselines", self.store, "--record",
                       env={"PLERIG_STATE_DIR": state})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAIL  ple-params: the kvm_intel parameters were not the host's own", r.stdout)
        self.assertIn(f"plerig {gone.pid} changed them and was ended", r.stdout)
        self.assertIn("plerig sweep --restore", r.stdout)
        self.assertIn("no baseline recorded", r.stdout)
        self.assertEqual(glob.glob(os.path.join(self.store, "*.json")), [])
        # without the file: no such case
        r = self.check(env={"PLERIG_STATE_DIR": os.path.join(self.dir, "none")})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("ple-params", r.stdout)

    def test_baseline_dated_by_the_controlling_hosts_clock(self):
        """PLERIG_HOST_EPOCH, the controlling host's clock at this machine's boot (make
        ple-test's L1, whose own clock starts at 2000-01-01): a baseline recorded here
        is dated by it, that plus the time since boot."""
        with open(self.suite, "w") as f:
            f.write(SUITE.replace("--timeout 60", "--timeout 60 --backend native")
                    .replace("--repeat 10", "--repeat 2"))
        epoch = 1000000000  # 2001-09-09T01:46:40Z
        with open("/proc/uptime") as f:
            up0 = float(f.read().split()[0])
        r = self.check("--baselines", self.store, "--record",
                       env={"PLERIG_HOST_EPOCH": str(epoch)})
        with open("/proc/uptime") as f:
            up1 = float(f.read().split()[0])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        (path,) = glob.glob(os.path.join(self.store, "*.json"))
        with open(path) as f:
            recorded = json.load(f)["recorded_at"]

        def iso(t):
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
        self.assertLessEqual(iso(epoch + int(up0)), recorded)
        self.assertLessEqual(recorded, iso(epoch + int(up1) + 1))

    def fake_host_params(self):
        """A sysfs tree with kvm_intel's ple_window (runtime-writable) and no ple_gap, and
        a state dir: the env a check needs to set a scenario's params there."""
        params = os.path.join(self.dir, "sys", "module", "kvm_intel", "parameters")
        os.makedirs(params)
        os.makedirs(os.path.join(self.dir, "sys", "module", "kvm_intel", "holders"))
        with open(os.path.join(self.dir, "sys", "module", "kvm_intel", "refcnt"), "w") as f:
            f.write("0\n")
        with open(os.path.join(params, "ple_window"), "w") as f:
            f.write("4096\n")
        with open(self.suite, "w") as f:
            f.write(SUITE + "params = ple_window=1024\n\n[gap]\n"
                    "options = --vcpus 1 --pcpus 0\nexpect = progress\nparams = ple_gap=64\n")
        # no domain template: every run fails at once, after the params were set
        return params, {"PLERIG_SYSFS_ROOT": os.path.join(self.dir, "sys"),
                        "PLERIG_STATE_DIR": os.path.join(self.dir, "state"),
                        "PLERIG_DOMAIN_TEMPLATE": os.path.join(self.dir, "none.xml")}

    def test_connect_to_this_machine_sets_params_here(self):
        # the embedded driver and a URI without a host part run their VMs on this
        # machine: a scenario's params are set there as without --connect, not
        # skipped as on another host (a fake sysfs: no real parameter is touched)
        params, env = self.fake_host_params()
        for uri in ("embedded", "qemu:///session"):
            r = self.check("--connect", uri, env=env)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertNotIn("runs on another", r.stdout + r.stderr)
            # set, then the run failed (no template), then put back
            self.assertIn("FAIL  runs: could not run", r.stdout)
            with open(os.path.join(params, "ple_window")) as f:
                self.assertEqual(f.read().strip(), "4096")
            self.assertFalse(os.path.exists(os.path.join(self.dir, "state",
                                                         "ple-params.state")))
            # the fake tree has no ple_gap: this machine's sysfs was where it looked
            self.assertIn("cannot set its params here", r.stdout)
            self.assertIn("ple_gap", r.stdout)
        # a killed sweep's values are this machine's, so the embedded driver's too
        gone = subprocess.Popen(["true"])
        gone.wait()
        with open(os.path.join(self.dir, "state", "ple-params.state"), "w") as f:
            f.write(f"plerig-ple-state 1\npid {gone.pid}\nroot /sys\nmodule kvm_intel\n"
                    "param ple_window 4096\n")
        r = self.check("--connect", "embedded", env=env)
        self.assertIn("FAIL  ple-params: the kvm_intel parameters were not the host's own",
                      r.stdout)
        os.unlink(os.path.join(self.dir, "state", "ple-params.state"))
        # two hosts of this machine at once: each would run under the other's params
        r = self.check("--connect", "embedded,qemu:///session", env=env)
        self.assertEqual(r.stdout.count("2 hosts of --connect run on it at once"), 4,
                         r.stdout + r.stderr)

    def fake_reloads(self, rmmod_extra=""):
        """kvm_intel's PLE parameters read-only (set by a reload) and kvm.ko's halt polling,
        in a sysfs tree, with modprobe and rmmod that load and unload there as the kernel
        does: a load makes the module's directory anew (its old one kept aside, so another
        inode), with its defaults and then the values given; halt_poll_ns written at run
        time (200001, kvm's + 1, as make ple-test's L1 did)."""
        sysfs = os.path.join(self.dir, "sys", "module")
        gone = os.path.join(self.dir, "gone")
        for d in (sysfs, gone):  # a tree of its own each time
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(gone)
        defaults = {"kvm_intel": "ple_gap=128 ple_window=4096 ple_window_grow=2 "
                                 "ple_window_shrink=0 ple_window_max=4294967295",
                    "kvm": "halt_poll_ns=200000 halt_poll_ns_grow=2"}
        for name, text in (("rmmod", f'mv "{sysfs}/$1" "$(mktemp -d -p {gone})/"\n'
                                     + rmmod_extra),
                           ("modprobe", f"""m=$1; shift
d={sysfs}/$m
[ -d "$d" ] && exit 0  # loaded: as modprobe, nothing to do
[ "$m" = kvm_intel ] && [ ! -d {sysfs}/kvm ] && {self.dir}/modprobe kvm
mkdir -p "$d/parameters" "$d/holders" && echo 0 > "$d/refcnt"
case $m in kvm_intel) set -- {defaults["kvm_intel"]} "$@" ;; *) set -- {defaults["kvm"]} "$@" ;; esac
for p in "$@"; do echo "${{p#*=}}" > "$d/parameters/${{p%%=*}}"; done
[ "$m" = kvm ] && chmod 644 "$d"/parameters/* || chmod 444 "$d"/parameters/*
""")):
            path = os.path.join(self.dir, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + text)
            os.chmod(path, 0o755)
        for m in ("kvm", "kvm_intel"):
            subprocess.run([os.path.join(self.dir, "modprobe"), m], check=True)
        with open(os.path.join(sysfs, "kvm", "parameters", "halt_poll_ns"), "w") as f:
            f.write("200001\n")
        with open(self.suite, "w") as f:
            f.write(SUITE.replace("--timeout 60", "--timeout 60 --backend native")
                    .replace("--repeat 10", "--repeat 1")
                    + "\n[window-1024]\noptions = --vcpus 1 --pcpus 0\nexpect = progress, "
                    "module-params\nparams = ple_window=1024\n")
        return {"PLERIG_SYSFS_ROOT": os.path.join(self.dir, "sys"),
                "PLERIG_STATE_DIR": os.path.join(self.dir, "state"),
                "PLERIG_MODPROBE": os.path.join(self.dir, "modprobe"),
                "PLERIG_RMMOD": os.path.join(self.dir, "rmmod")}

    def test_module_params_holds_a_sweep_point_to_the_modules(self):
        """expect = module-params (make ple-test's checks around its gate, as a case): the
        params = value read back, the originals back after, kvm.ko never reloaded."""
        env = self.fake_reloads()
        r = self.check("--tap", "-", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("message: 'ple_window=1024 set by a reload of kvm_intel, read "
                      "back once set and after the runs; then ple_window=4096 again (all 5 "
                      "parameters of kvm_intel as before); kvm.ko never reloaded (all 2 of its "
                      "parameters as before, halt_poll_ns=200001)", r.stdout)
        # an rmmod that takes kvm.ko with it (as modprobe -r does): kvm comes back with
        # its defaults when kvm_intel is loaded, halt_poll_ns written at run time lost
        env = self.fake_reloads(f'rmdir {self.dir}/sys/module/kvm/holders 2>/dev/null; '
                                f'mv "{self.dir}/sys/module/kvm" "{self.dir}/gone/kvm-$$"\n')
        r = self.check(env=env)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAIL  module-params: kvm.ko not as before once the params were set: kvm "
                      "was reloaded (its sysfs directory is another one now); halt_poll_ns "
                      "200001 -> 200000", r.stdout)
        # a kvm_intel that takes the value as another (the kernel clamps it): failed, not
        # skipped, and the scenario's other cases say why they were not judged
        env = self.fake_reloads()
        with open(env["PLERIG_MODPROBE"], "a") as f:
            f.write(f'[ -f "$d/parameters/ple_window" ] && chmod 644 "$d/parameters/ple_window" '
                    f'&& echo 2048 > "$d/parameters/ple_window" && chmod 444 '
                    f'"$d/parameters/ple_window"\n')
        r = self.check(env=env)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"FAIL  module-params: its params could not be set: setting "
                                   r"its params: .*ple_window reads back 2048 instead of 1024")
        self.assertIn("skip  progress: setting its params", r.stdout)
        # a scenario that expects it has params = to hold to it
        with open(self.suite, "a") as f:
            f.write("\n[none]\noptions = --vcpus 1 --pcpus 0\nexpect = module-params\n")
        r = self.check(env=env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("[none]: expect = module-params holds a scenario's params = to the "
                      "modules: this one has none", r.stderr)

    def test_two_hosts_of_one_baseline_key_are_refused(self):
        # embedded and qemu:///session are this machine twice: one name, one kind of
        # machine, so one baseline file that each would record over the other's;
        # refused before anything runs (issue 25 item 9)
        r = self.check("--connect", "embedded,qemu:///session", "--baselines", self.store,
                       "--record")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--connect: embedded and qemu:///session are one host by what plerig "
                      "reads of them", r.stderr)
        self.assertIn("--baselines naming a store each", r.stderr)
        self.assertEqual(glob.glob(os.path.join(self.store, "*.json")), [])

    def test_json_keeps_every_round_of_every_scenario(self):
        # --json: what the gate keeps of each round (issue 27: which round was in another
        # regime, and what its vCPUs did), each scenario's results as plerig run writes them
        with open(self.suite, "w") as f:
            f.write(SUITE.replace("--repeat 10", "--repeat 3 --backend native"))
        out = os.path.join(self.dir, "rounds.json")
        r = self.check("--json", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual([d["scenario"] for d in doc], ["solo"])
        runs = doc[0]["results"]["variants"][0]["runs"]
        self.assertEqual([run["repeat"] for run in runs], [0, 1, 2])
        self.assertTrue(all(run["vm_results"][0]["vcpus"][0]["acquisitions"] > 0 for run in runs))
        # refused before anything runs: nowhere to write it, or a second document on stdout
        r = self.check("--json", os.path.join(self.dir, "no", "such", "dir", "c.json"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--json", r.stderr)
        r = self.check("--json", "-", "--report", "-")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_unwritable_report_is_refused_before_running(self):
        r = self.check("--report", os.path.join(self.dir, "no", "such", "dir", "c.html"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--report", r.stderr)

    def test_aa_reports_no_regression(self):
        self.need_kvm()
        tap = os.path.join(self.dir, "aa.tap")
        r = self.check("--aa", "--tap", tap)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("A/A", r.stdout)
        p = subprocess.run(["prove", "-e", "cat", tap], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    @slow_cases.slow  # --budget 90, twice: about 100 s with both CPUs busy
    def test_regression_against_baseline(self):
        self.need_kvm()
        # --budget on both sides: the comparison's CI holds the baseline's spread too,
        # which more rounds now cannot narrow (seen with both CPUs busy: -10.0 %, CI
        # 12.4 % wide against a 10-run baseline)
        path = self.record("--budget", "90")
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-baseline")
        for key in ("cpu_model", "cpus_online", "smt", "kvm_module", "kernel", "ple_params"):
            self.assertIn(key, doc["host"])
        # the baseline as it would be had this machine been 10 % faster: now is 10 % worse
        # (the run-delay shares stay: a share past 1 is refused as damage)
        for e in doc["entries"]:
            if e["metric"] == "acq_per_cpu_s":
                e["values"] = [v / 0.9 for v in e["values"]]
        with open(path, "w") as f:
            json.dump(doc, f)
        tap, junit = os.path.join(self.dir, "r.tap"), os.path.join(self.dir, "r.xml")
        # --budget: on a loaded host, rounds until the CI is narrow enough to judge.
        # --threshold 2: the host itself drifts between recording and checking when
        # other jobs come and go (seen: the 10 % showed as -6.0 %, CI [-8.0, -4.0],
        # which the default 5 % passes); this test is about the verdict's plumbing
        r = self.check("--baselines", self.store, "--tap", tap, "--junit", junit, "--budget", "90",
                       "--threshold", "2")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("kernel:", r.stdout)  # what differs from the baseline is printed
        root, cases = self.junit(junit)
        failures = [(c, c.find("failure")) for c in cases if c.find("failure") is not None]
        self.assertEqual(len(failures), 1, r.stdout)
        case, failure = failures[0]
        self.assertEqual(case.get("classname"), "plerig.solo")
        self.assertIn("acq_per_cpu_s", case.get("name"))
        self.assertIn("regression", failure.get("message"))
        self.assertEqual(root.get("failures"), "1")
        # prove reads the same verdicts: one test point not ok
        p = subprocess.run(["prove", "-v", "-e", "cat", tap], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(len([l for l in p.stdout.splitlines() if l.startswith("not ok")]), 1,
                         p.stdout)
        # the same figures against the unscaled baseline: no regression
        for e in doc["entries"]:
            if e["metric"] == "acq_per_cpu_s":
                e["values"] = [v * 0.9 for v in e["values"]]
        with open(path, "w") as f:
            json.dump(doc, f)
        r = self.check("--baselines", self.store)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    @slow_cases.slow  # a baseline of 4 vCPUs on one CPU, then two checks: 10-11 s here
    def test_drop_on_a_busier_host_is_not_comparable(self):
        """4 vCPUs on CPU 0 with a spinning process of ours on it too: other work
        takes a share of CPU 0 (CFS gives the spinner about a fifth of it). Against
        a baseline recorded with no foreign load, a drop is "not comparable" (a
        busier host preempts holders while the waiters spin), not a regression;
        against a baseline whose CPUs were all taken by others (no host can be
        busier), the same drop is a regression. The vCPUs' own run delay, high
        in both (4 vCPUs share one CPU), decides nothing."""
        self.need_kvm()
        with open(self.suite, "w") as f:
            f.write(SUITE.replace("[solo]", "[crowd]").replace(
                "--vcpus 1 --pcpus 0 --lock ticket", "--vcpus 4 --pcpus 0 --lock tas"))
        path = self.record()
        with open(path) as f:
            recorded = json.load(f)
        metrics = {e["metric"] for e in recorded["entries"]}
        self.assertEqual(metrics, {"acq_per_cpu_s", "foreign_cpu_share"})
        foreign = [e for e in recorded["entries"]
                   if e["metric"] == "foreign_cpu_share"][0]["values"]
        self.assertTrue(all(0.0 <= v <= 1.0 for v in foreign), foreign)

        def judge(foreign_then):
            doc = json.loads(json.dumps(recorded))
            for e in doc["entries"]:
                if e["metric"] == "acq_per_cpu_s":  # now is 75 % worse than the baseline
                    e["values"] = [v * 4 for v in e["values"]]
                else:
                    e["values"] = [foreign_then for _ in e["values"]]
            with open(path, "w") as f:
                json.dump(doc, f)
            junit = os.path.join(self.dir, "busy.xml")
            spinner = subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c",
                                        "while True: pass"])
            try:
                r = self.check("--baselines", self.store, "--junit", junit)
            finally:
                spinner.kill()
                spinner.wait()
            _, cases = self.junit(junit)
            return r, [c for c in cases if "vs baseline" in c.get("name")]

        r, cases = judge(foreign_then=0.0)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("not comparable (foreign load", r.stdout)
        self.assertTrue(cases and all(c.find("failure") is None for c in cases), r.stdout)
        r, cases = judge(foreign_then=1.0)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("regression", r.stdout)
        self.assertNotIn("not comparable", r.stdout)

    def seed(self, suite_tail, made_up):
        """The suite plus @suite_tail; a store with solo recorded (group quick), solo's values
        replaced by a marker and the entries @made_up added: what a good earlier recording of
        the other scenarios left."""
        with open(self.suite, "a") as f:
            f.write(suite_tail)
        path = self.record("--group", "quick")
        with open(path) as f:
            doc = json.load(f)
        for e in doc["entries"]:
            e["values"] = [1.0, 2.0, 3.0] if e["metric"] == "acq_per_cpu_s" else [0.5]
        doc["entries"] += made_up
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    @staticmethod
    def entries(path, scenario):
        with open(path) as f:
            return [e for e in json.load(f)["entries"] if e["scenario"] == scenario]

    MADE_UP = {"variant": "kvm ticket pause user 1x1 ple=on pcpus=0", "metric": "acq_per_cpu_s",
               "values": [5.0, 6.0, 7.0]}

    def test_failed_scenario_keeps_its_baseline(self):
        """A scenario whose runs fail records nothing: its good entries stay (they became
        entries of zero runs); the scenario that completed is recorded."""
        self.need_kvm()
        made_up = [{"scenario": "broken", **self.MADE_UP}]
        path = self.seed("[broken]\noptions = --vcpus 1 --pcpus 0 --inject fault\n", made_up)
        r = self.check("--baselines", self.store, "--record")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.entries(path, "broken"), made_up)
        solo = [e for e in self.entries(path, "solo") if e["metric"] == "acq_per_cpu_s"]
        self.assertTrue(solo and all(e["values"] != [1.0, 2.0, 3.0] for e in solo), solo)

    def test_interrupted_recording_records_only_complete_scenarios(self):
        """SIGINT while the second scenario runs: the first, complete, is recorded; the
        second keeps its earlier entries, not a part of a recording."""
        self.need_kvm()
        made_up = [{"scenario": "long", **self.MADE_UP}]
        # 400 runs of 0.5 s: still running long after the signal, however busy the host
        path = self.seed("[long]\noptions = --vcpus 1 --pcpus 0 --duration 0.5 --repeat 400\n",
                         made_up)
        p = subprocess.Popen([PLERIG, "check", "--suite", self.suite, "--baselines", self.store,
                              "--record"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, **self.env})
        seen = []
        for line in p.stderr:  # solo's last line: its time; long starts then
            seen.append(line)
            if re.fullmatch(r"check: solo\s+[0-9.]+ s\n", line):
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 128 + signal.SIGINT, "".join(seen) + out + err)
        self.assertEqual(self.entries(path, "long"), made_up)
        solo = [e for e in self.entries(path, "solo") if e["metric"] == "acq_per_cpu_s"]
        self.assertTrue(solo and all(e["values"] != [1.0, 2.0, 3.0] for e in solo), solo)

    def test_two_recordings_into_one_store_both_land(self):
        """A recording that finds the store locked (here by the test, as another recording
        would hold it) waits, says so, and merges with what landed meanwhile."""
        self.need_kvm()
        path = self.record()
        with open(path) as f:
            other = json.load(f)
        made_up = [{"scenario": "other", **self.MADE_UP}]
        other["entries"] += made_up
        store = os.open(self.store, os.O_RDONLY | os.O_DIRECTORY)
        self.addCleanup(os.close, store)
        fcntl.flock(store, fcntl.LOCK_EX)
        p = subprocess.Popen([PLERIG, "check", "-q", "--suite", self.suite, "--baselines",
                              self.store, "--record"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, **self.env})
        seen = []
        for line in p.stderr:
            seen.append(line)
            if "waiting for another recording into" in line:
                break
        # the other recording lands while this one waits
        with open(path, "w") as f:
            json.dump(other, f)
        fcntl.flock(store, fcntl.LOCK_UN)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, "".join(seen) + out + err)
        self.assertIn("waiting for another recording", "".join(seen))
        self.assertEqual(self.entries(path, "other"), made_up)
        self.assertTrue(self.entries(path, "solo"))

    def test_junit_one_case_per_expectation_and_metric(self):
        self.need_kvm()
        junit = os.path.join(self.dir, "j.xml")
        tap = os.path.join(self.dir, "j.tap")
        r = self.check("--aa", "--junit", junit, "--tap", tap)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        root, cases = self.junit(junit)
        names = sorted(c.get("name") for c in cases)
        self.assertEqual(len(names), 2, names)
        self.assertEqual(names[1], "progress")
        self.assertTrue(names[0].startswith("acq_per_cpu_s A/A: kvm ticket pause"), names)
        with open(tap) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[:2], ["TAP version 13", "1..2"])


if __name__ == "__main__":
    PLERIG, DEFAULT_SUITE = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2, testLoader=slow_cases.Loader())

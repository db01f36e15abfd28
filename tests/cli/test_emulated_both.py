#!/usr/bin/env python3
"""plerig run --connect emulated,emulated:amd: Intel's and AMD's emulated hosts in one
run, with test_emulated's fake Bochs (no real Bochs here). Each CPU model Bochs is
given has a fake sysfs of its own, so each L1 (this plerig's l1-serve) says it has
that vendor's KVM module parameters, as the real ones do: kvm_intel's ple_gap and
ple_window beside kvm_amd's pause_filter_count and pause_filter_thresh. Both hosts'
rows come back in the table, the JSON, the CSV and the report's "Hosts side by side",
each with its vendor's identity and its emulated seconds; the two Bochs run one at a
time; one host failing (no Bochs 3.1 for AMD, or its L1 dying mid-run) keeps the
other's results, and the error names the host. check, sweep and tune run on both hosts one
after the other, each whole inside its L1, each file once per host; a sweep gives each
host the parameters its module has; the exit status is the worst over the hosts.

usage: test_emulated_both.py PLERIG
"""
import csv
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import browser  # noqa: E402
import test_emulated  # noqa: E402  (its fake Bochs and L1 medium, not its tests)

PLERIG = None
INTEL, AMD = "corei7_haswell_4770", "ryzen"
PARAMS = {INTEL: ("kvm_intel", {"ple_gap": "128", "ple_window": "4096", "ple_window_grow": "2",
                                "ple_window_shrink": "0", "ple_window_max": "4294967295"}),
          AMD: ("kvm_amd", {"pause_filter_count": "3000", "pause_filter_thresh": "128",
                            "pause_filter_count_grow": "2", "pause_filter_count_shrink": "0",
                            "pause_filter_count_max": "65535"})}
# the same short run as test_emulated's, on both emulated hosts
BOTH = [a if a != "emulated" else "emulated,emulated:amd" for a in test_emulated.RUN]


class Both(unittest.TestCase):
    write = staticmethod(test_emulated.Emulated.write)
    plerig = test_emulated.Emulated.plerig
    builds = test_emulated.Emulated.builds
    runs_left = test_emulated.Emulated.runs_left

    def setUp(self):
        # test_emulated's fake Bochs, L1 medium, vendors and TMPDIR, made as it makes them
        test_emulated.Emulated.setUp(self)
        # a Bochs both vendors can run on (AMD's needs 3.1, as Debian sid's serves both)
        self.write(os.path.join(self.fake, "version"), "3.1\n", 0o644)
        for model, (module, params) in PARAMS.items():
            d = os.path.join(self.fake, f"sys.{model}", "module", module, "parameters")
            os.makedirs(d)
            for k, v in params.items():
                self.write(os.path.join(d, k), v + "\n", 0o644)

    def run_both(self, mode="serve", *extra, **kw):
        out, table = os.path.join(self.dir, "r.json"), os.path.join(self.dir, "r.csv")
        p = self.plerig(mode, *BOTH, "--json", out, "--csv", table, *extra, **kw)
        with open(out) as f:
            doc = json.load(f)
        with open(table) as f:
            rows = list(csv.DictReader(f))
        return p, doc, rows

    def test_both_vendors_side_by_side(self):
        p, doc, rows = self.run_both()
        self.assertEqual(p.returncode, 0, p.stderr)
        # each Bochs was given its vendor's CPU, each L1 its own medium
        for model in PARAMS:
            with open(os.path.join(self.fake, f"bochsrc.{model}.seen")) as f:
                self.assertRegex(f.read(), rf"(?m)^cpu: model={model}, ")
        self.assertEqual(self.builds(), 2)
        # the two took turns: AMD's L1 booted once Intel's was up and held
        boots = [m.group(1) for m in re.finditer(r"^(emulated host(?: \(amd\))?): booting L1",
                                                 p.stderr, re.M)]
        self.assertEqual(boots, ["emulated host", "emulated host (amd)"], p.stderr)
        with open(os.path.join(self.fake, f"others.{AMD}")) as f:
            self.assertRegex(f.readline(), rf"^{INTEL} T", "Intel's Bochs held meanwhile")
        # the table: each host's rows, by the code that makes every table
        table = [l.split() for l in p.stdout.splitlines() if l.split()[1:2] == ["native"]]
        self.assertEqual([(r[0], r[3]) for r in table],
                         [("emulated", "pause"), ("emulated", "nop"),
                          ("emulated:amd", "pause"), ("emulated:amd", "nop")], p.stdout)
        # then side by side: who each is, that they are different hardware, each variant's
        # figures on both, and why a figure is n/a (host threads: no PLE), never a blank
        side = p.stdout[p.stdout.index("\nhosts side by side"):]
        self.assertRegex(side, r"(?m)^  emulated +Bochs 3\.1: an emulated Intel Core i7-4770 "
                               r"\(Haswell\), 2 CPUs, VMX with PAUSE-loop exiting; none: "
                               r"ple_gap=128 ple_window=4096 .*; times in emulated seconds$")
        self.assertRegex(side, r"(?m)^  emulated:amd +Bochs 3\.1: an emulated AMD Ryzen 7 1700 "
                               r"\(Zen\), 2 CPUs, SVM with the pause filter and its threshold; "
                               r"none: pause_filter_count=3000 pause_filter_thresh=128 .*; "
                               r"times in emulated seconds$")
        self.assertIn("different hardware: each host's figures are its own CPU's and KVM "
                      "module's", side)
        grid = [l.split() for l in side.splitlines() if re.match(r"  (native|  +emulated)", l)]
        self.assertEqual(len(grid), 4, side)
        self.assertEqual([g[-4] for g in grid], ["emulated", "emulated:amd"] * 2, side)
        self.assertEqual([g[-2:] for g in grid], [["n/a", "n/a"]] * 4, side)
        self.assertIn("ple/acq n/a on emulated:amd: no VM, so no PAUSE-loop exits", side)
        # the seconds of each, on stderr with the legend
        for host in ("emulated", "emulated:amd"):
            self.assertIn(f"seconds    on host {host} every time and rate (acq/s, waits) is in "
                          "emulated seconds", p.stderr)
        # the JSON: both hosts with their identities, each variant labelled with its host
        self.assertEqual([h["label"] for h in doc["hosts"]], ["emulated", "emulated:amd"])
        intel, amd = doc["hosts"]
        self.assertIn("Intel Core i7-4770", intel["hypervisor"])
        self.assertIn("AMD Ryzen 7 1700", amd["hypervisor"])
        self.assertEqual(intel["ple_params"]["ple_window"], 4096)
        self.assertEqual(amd["ple_params"]["pause_filter_count"], 3000)
        self.assertNotIn("ple_window", amd["ple_params"])
        for h in doc["hosts"]:
            self.assertIn("emulated seconds", h["clock"])
            self.assertIsNone(h["error"])
        self.assertEqual([v["host"] for v in doc["variants"]],
                         ["emulated", "emulated", "emulated:amd", "emulated:amd"])
        self.assertTrue(all(v["runs"][0]["ok"] for v in doc["variants"]))
        # the CSV: the rows of each host's runs, with its host
        self.assertEqual(sorted({(r["host"], r["relax"]) for r in rows}),
                         [("emulated", "nop"), ("emulated", "pause"),
                          ("emulated:amd", "nop"), ("emulated:amd", "pause")])
        self.assertEqual(self.runs_left(), [], "a run that went well leaves nothing behind")
        # warm: each vendor's saved state is its own; saving AMD's did not remove Intel's
        states = os.listdir(os.path.join(self.cache, "emulated", "states"))
        self.assertEqual(len([s for s in states if not s.startswith(".")]), 2, states)
        p, doc, _ = self.run_both()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(re.findall(r"restoring L1 .* from its saved state", p.stderr)), 2,
                         p.stderr)
        self.assertNotIn("booting L1", p.stderr)
        self.assertEqual(self.builds(), 2)

    def test_report_shows_the_hosts_side_by_side(self):
        p, doc, _ = self.run_both()
        self.assertEqual(p.returncode, 0, p.stderr)
        html = os.path.join(self.dir, "r.html")
        r = subprocess.run([PLERIG, "report", os.path.join(self.dir, "r.json"), "-o", html],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        section = text[text.index("Hosts side by side"):]
        section = section[:section.index("</table>")]
        self.assertIn("Different hardware: these hosts differ in CPU or KVM module", section)
        rows = section.split("<tr>")[1:]
        self.assertEqual(len(rows), 3, section)  # the header, Intel's, AMD's
        self.assertIn("<th>emulated<br><small>Bochs 3.1: an emulated Intel Core i7-4770 "
                      "(Haswell)", rows[1])
        self.assertIn("ple_gap=128 ple_window=4096", rows[1])
        self.assertIn("<th>emulated:amd<br><small>Bochs 3.1: an emulated AMD Ryzen 7 1700",
                      rows[2])
        self.assertIn("pause_filter_count=3000 pause_filter_thresh=128", rows[2])
        for row in rows[1:]:
            self.assertIn("times in emulated seconds", row)
            self.assertEqual(row.count(" acq/s"), 2, row)
            # no PLE on host threads: n/a with the reason, never a blank or 0
            self.assertEqual(row.count("PAUSE-loop exits/acq n/a (no VM, so no PAUSE-loop "
                                       "exits)"), 2, row)
            self.assertEqual(row.count("window/count updates/acq n/a ("), 2, row)
        # as a browser draws it (test_report's checks: the DOM, a screenshot not blank)
        if not browser.chromium():
            self.skipTest("no chromium (scripts/setup installs it): the page was checked as "
                          "text only")
        dom = browser.browse(html, self.dir, "--dump-dom")
        for text in ("Hosts side by side", "Different hardware", "emulated:amd",
                     "pause_filter_count=3000", "ple_window=4096",
                     "times in emulated seconds", "PAUSE-loop exits/acq n/a"):
            self.assertIn(text, dom, text)
        browser.assert_screenshot_not_blank(self, html, self.dir)

    def test_a_host_that_cannot_start_keeps_the_others_results(self):
        # Debian 12's Bochs 2.7 for both: Intel's runs on it, AMD's needs 3.1
        self.write(os.path.join(self.fake, "version"), "2.7\n", 0o644)
        p, doc, _ = self.run_both()
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("plerig run: host emulated:amd: emulated host (amd): PLERIG_BOCHS="
                      f"{self.fake}/bochs-bin is Bochs 2.7; it needs 3.1 or later", p.stderr)
        intel, amd = doc["hosts"]
        self.assertEqual((intel["label"], intel["error"]), ("emulated", None))
        self.assertEqual(amd["label"], "emulated:amd", "named as --connect names it")
        self.assertIn("it needs 3.1 or later", amd["error"])
        runs = {(v["host"], v["relax"]): v["runs"][0] for v in doc["variants"]}
        self.assertTrue(runs[("emulated", "pause")]["ok"])
        self.assertTrue(runs[("emulated", "nop")]["ok"])
        for relax in ("pause", "nop"):
            r = runs[("emulated:amd", relax)]
            self.assertFalse(r["ok"])
            self.assertTrue(r["error"].startswith("host emulated:amd: emulated host (amd): "),
                            r["error"])
        self.assertEqual(self.builds(), 1, "nothing built for the host that cannot run")

    def test_a_host_dying_mid_run_keeps_the_others_results(self):
        # AMD's L1 answers its first request, then its Bochs is gone; Intel's runs on
        self.write(os.path.join(self.fake, f"mode.{AMD}"), "dies", 0o644)
        p, doc, _ = self.run_both(timeout=180)
        self.assertEqual(p.returncode, 1, p.stderr)
        ok = [(v["host"], v["relax"], v["runs"][0]["ok"]) for v in doc["variants"]]
        self.assertEqual(ok, [("emulated", "pause", True), ("emulated", "nop", True),
                              ("emulated:amd", "pause", True), ("emulated:amd", "nop", False)])
        self.assertRegex(doc["variants"][3]["runs"][0]["error"],
                         r"^emulated host \(amd\): Bochs exited with status 3 before L1 was "
                         r"done")
        self.assertEqual(subprocess.run(["pgrep", "-f", self.fake], capture_output=True).stdout,
                         b"", "Bochs left running")

    def check_both(self, *extra, **kw):
        suite = os.path.join(self.dir, "native.cfg")
        self.write(suite, test_emulated.NATIVE_SUITE, 0o644)
        return self.plerig("serve", "check", "--connect", "emulated,emulated:amd", "--suite",
                           suite, *extra, **kw)

    def test_check_on_both_hosts_each_in_its_own_l1(self):
        tap = os.path.join(self.dir, "c.tap")
        p = self.check_both("--tap", tap)
        self.assertEqual(p.returncode, 0, p.stderr)
        # each host's summary under its name, in --connect order
        heads = re.findall(r"(?m)^host (\S+)$", p.stdout)
        self.assertEqual(heads, ["emulated", "emulated:amd"], p.stdout)
        self.assertEqual(len(re.findall(r"(?m)^  ok +progress\b", p.stdout)), 2, p.stdout)
        # in turn: AMD's Bochs started once Intel's was gone, each with its own CPU
        with open(os.path.join(self.fake, f"others.{AMD}")) as f:
            self.assertRegex(f.readline(), rf"^{INTEL} gone", "Intel's Bochs still there")
        for model in PARAMS:
            with open(os.path.join(self.fake, f"bochsrc.{model}.seen")) as f:
                self.assertRegex(f.read(), rf"(?m)^cpu: model={model}, ")
        self.assertEqual(self.builds(), 2)
        # a TAP each, beside the name given, and none under the name of both
        self.assertFalse(os.path.exists(tap), "one host's TAP under the name of both")
        for label in ("emulated", "emulated-amd"):
            path = os.path.join(self.dir, f"c.{label}.tap")
            with open(path) as f:
                text = f.read()
            self.assertTrue(text.startswith("TAP version 13\n"), text)
            self.assertIn("ok 1 - native-pause: progress", text)
            self.assertIn(f": TAP written to {path}\n", p.stderr)
        # two TAPs cannot share stdout: said before anything boots
        p = self.check_both("--tap", "-")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("plerig check: --tap -: 2 hosts write a TAP each", p.stderr)
        self.assertNotIn("booting", p.stderr)

    def test_check_records_a_baseline_per_host_and_never_one_for_two(self):
        # the real L1s differ (CPU model, KVM module), so each has a baseline of its own; the
        # fake ones are this same machine twice, whose recordings would share one file: the
        # second host is refused before its check runs, the first's baseline kept
        store = os.path.join(self.dir, "store")
        os.makedirs(store)
        p = self.check_both("--baselines", store, "--record")
        self.assertEqual(p.returncode, 2, p.stderr)
        (recorded,) = os.listdir(store)
        self.assertIn(f"plerig check: host emulated: baseline of the emulated host written to "
                      f"{store}/{recorded}", p.stderr)
        self.assertIn(f"plerig check: host emulated:amd: its L1 files its baseline under "
                      f"{recorded[:-5]}, as emulated's did", p.stderr)
        self.assertEqual(len(re.findall(r"(?m)^  ok +progress\b", p.stdout)), 1, p.stdout)

    def test_check_keeps_a_host_when_the_other_cannot_start(self):
        # Bochs 2.7: Intel's L1 checks; AMD's needs 3.1: the status is the worse (77)
        self.write(os.path.join(self.fake, "version"), "2.7\n", 0o644)
        tap = os.path.join(self.dir, "c.tap")
        p = self.check_both("--tap", tap)
        self.assertEqual(p.returncode, 77, p.stderr)
        self.assertIn("plerig check: host emulated:amd: emulated host (amd): PLERIG_BOCHS="
                      f"{self.fake}/bochs-bin is Bochs 2.7; it needs 3.1 or later", p.stderr)
        with open(os.path.join(self.dir, "c.emulated.tap")) as f:
            self.assertIn("ok 1 - native-pause: progress", f.read())
        self.assertFalse(os.path.exists(os.path.join(self.dir, "c.emulated-amd.tap")))
        # a kernel AMD's L1 cannot test: 125 (git bisect run skips it), Intel's results kept
        self.write(os.path.join(self.fake, "version"), "3.1\n", 0o644)
        self.write(os.path.join(self.fake, f"mode.{AMD}"), "no-kvm-intel", 0o644)
        os.unlink(os.path.join(self.dir, "c.emulated.tap"))
        p = self.check_both("--tap", tap, timeout=180)
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("plerig check: host emulated:amd: emulated host (amd): L1 did not come up",
                      p.stderr)
        with open(os.path.join(self.dir, "c.emulated.tap")) as f:
            self.assertIn("ok 1 - native-pause: progress", f.read())

    def sweep_both(self, *params, **kw):
        args = [a for v in params for a in ("--param", v)]
        return self.plerig("serve", "sweep", "--connect", "emulated,emulated:amd", *args,
                           "--json", os.path.join(self.dir, "s.json"), "--",
                           "--backend", "native", "--vcpus", "2", "--pcpus", "0",
                           "--duration", "0.05", "--warmup", "0.01", **kw)

    def test_sweep_on_both_hosts_each_its_own_parameter(self):
        p = self.sweep_both("ple_window=1024,4096", "pause_filter_count=1024,4096", timeout=240)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("plerig sweep: host emulated:amd: --param ple_window left out: ple_window "
                      "is kvm_intel's, and emulated:amd runs kvm_amd (its own: "
                      "pause_filter_count, ", p.stderr)
        self.assertIn("plerig sweep: host emulated: --param pause_filter_count left out: "
                      "pause_filter_count is kvm_amd's, and emulated runs kvm_intel", p.stderr)
        self.assertEqual(re.findall(r"(?m)^host (\S+)$", p.stdout), ["emulated", "emulated:amd"])
        for label, param in (("emulated", "ple_window"), ("emulated-amd", "pause_filter_count")):
            with open(os.path.join(self.dir, f"s.{label}.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["schema"], "plerig-sweep")
            self.assertEqual(doc["params"], [param], doc["params"])
            self.assertEqual({v for pt in doc["points"] for v in pt["values"]}, {param})
        self.assertFalse(os.path.exists(os.path.join(self.dir, "s.json")))

    def test_sweep_of_a_parameter_one_host_lacks_is_refused_before_any_boot(self):
        p = self.sweep_both("ple_window=1024,4096", timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("plerig sweep: --param: ple_window is kvm_intel's, and emulated:amd runs "
                      "kvm_amd (its own: pause_filter_count, ", p.stderr)
        self.assertIn("leave emulated:amd out of --connect", p.stderr)
        self.assertEqual(self.builds(), 0, "nothing built for a sweep refused")
        p = self.plerig("serve", "sweep", "--connect", "emulated,emulated:amd", "--param",
                        "halt_poll_ns=0,1000", "--csv", "-", timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("plerig sweep: --csv -: 2 hosts write a CSV each", p.stderr)

    def test_tune_on_both_hosts(self):
        p = self.plerig("serve", "tune", "--connect", "emulated,emulated:amd", "--param",
                        "pause_filter_count", timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("plerig tune: --param: pause_filter_count is kvm_amd's, and emulated runs "
                      "kvm_intel (its own: ple_gap, ple_window", p.stderr)
        self.assertEqual(self.builds(), 0)
        p = self.plerig("serve", "tune", "--connect", "emulated,emulated:amd", "--max-visits",
                        "2", "--json", os.path.join(self.dir, "t.json"), "--", "--backend",
                        "native", "--relax", "pause", "--vcpus", "2", "--pcpus", "0",
                        "--duration", "0.05", "--warmup", "0.01", timeout=240)
        self.assertEqual(re.findall(r"(?m)^host (\S+)$", p.stdout), ["emulated", "emulated:amd"])
        for label, param in (("emulated", "ple_window"), ("emulated-amd", "pause_filter_count")):
            with open(os.path.join(self.dir, f"t.{label}.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["param"]["name"], param, doc["param"])

    def test_each_vendor_once(self):
        for connect, said in (("emulated,emulated:intel", "emulated and emulated:intel are the "
                                                          "same emulated host"),
                              ("emulated:amd,emulated:amd", "emulated:amd is named twice")):
            p = subprocess.run([PLERIG, "run", "--connect", connect], capture_output=True,
                               text=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(said, p.stderr)


if __name__ == "__main__":
    PLERIG = test_emulated.PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

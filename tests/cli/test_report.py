#!/usr/bin/env python3
"""`plerig report` as a browser shows it: a real `plerig run` (kvm and native,
1x and 2x over-commit, PAUSE and NOP, 3 repeats: support/shared_results.py)
drawn to HTML, loaded by headless Chromium, screenshot not blank, the DOM
holding the expected charts and labels; `run --report`; a sweep file; broken
input refused with one line, exit 2 and no report.

usage: test_report.py PLERIG
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import shared_results  # noqa: E402
from browser import chromium  # noqa: E402
import browser  # noqa: E402

PLERIG = None
TMP = None
RESULTS = None


def plerig(*args, **kw):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=300, **kw)


def setUpModule():
    global TMP, RESULTS
    # unittest runs no tearDownModule after a skip or failure here: nothing made before it
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        raise unittest.SkipTest("no usable /dev/kvm: the known results file needs real VMs")
    RESULTS = shared_results.get(PLERIG)
    TMP = tempfile.mkdtemp(prefix="plerig-report-")


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.html = os.path.join(TMP, "report.html")
        r = plerig("report", RESULTS, "-o", cls.html)
        assert r.returncode == 0, r.stderr
        with open(cls.html) as f:
            cls.text = f.read()

    def test_self_contained(self):
        self.assertTrue(self.text.startswith("<!DOCTYPE html>"))
        for remote in ("http://", "https://", "<script", "<link", "src="):
            if remote == "http://":  # the SVG namespace is a name, not a fetch
                self.assertNotIn("http://", self.text.replace("http://www.w3.org/2000/svg", ""))
            else:
                self.assertNotIn(remote, self.text)

    def test_dom_holds_the_charts(self):
        if not chromium():
            self.skipTest("no chromium (scripts/setup installs it)")
        dom = browser.browse(self.html, TMP, "--dump-dom")
        ids = ["r0-acq_per_s", "r0-stalled_share", "r0-run_delay_share",
               "r0-overcommit-acq_per_s", "r0-overcommit-stalled_share", "r0-runs"]
        ids += [f"r0-wait-{i}" for i in range(8)] + [f"r0-vcpu-acq-{i}" for i in range(8)]
        ids += [f"r0-vcpu-delay-{i}" for i in range(8)]
        for i in ids:
            self.assertIn(f'id="{i}"', dom, i)
        for label in ("Throughput per variant", "over-commit (vCPUs per host CPU)",
                      "Jain's fairness index", "p50 ", "p99 ", "max ", "cumulative share",
                      "95 % confidence interval of the mean", "reference",
                      "kvm ticket/pause user ple=on 1x2 on 0-1",
                      "native ticket/nop user ple=on 1x4 on 0-1", "KVM module",
                      "PLE parameters", "command line", "acquisitions per second"):
            self.assertIn(label, dom, label)

    def test_screenshot_not_blank(self):
        if not chromium():
            self.skipTest("no chromium (scripts/setup installs it)")
        browser.assert_screenshot_not_blank(self, self.html, TMP)


class Inputs(unittest.TestCase):
    def out(self, name):
        return os.path.join(TMP, name)

    def test_truncated_input_is_one_line_and_no_report(self):
        with open(RESULTS) as f:
            text = f.read()
        bad = self.out("truncated.json")
        with open(bad, "w") as f:
            f.write(text[:len(text) // 2])
        html = self.out("never.html")
        r = plerig("report", RESULTS, bad, "-o", html)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("truncated", r.stderr)
        self.assertFalse(os.path.exists(html))
        self.assertEqual([n for n in os.listdir(TMP) if n.startswith("never")], [])

    def test_foreign_input_keeps_the_old_report(self):
        html = self.out("kept.html")
        with open(html, "w") as f:
            f.write("old")
        foreign = self.out("foreign.json")
        with open(foreign, "w") as f:
            json.dump({"schema": "something-else"}, f)
        r = plerig("report", foreign, "-o", html)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('schema "something-else" is not drawn', r.stderr)
        with open(html) as f:
            self.assertEqual(f.read(), "old")

    def test_unwritable_output(self):
        # the page then goes to a fallback file in $TMPDIR: this test's own directory
        r = plerig("report", RESULTS, "-o", os.path.join(TMP, "no", "such", "dir", "r.html"),
                   env={**os.environ, "TMPDIR": TMP})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        # named for what it holds, no spaces: plerig-report-PID-XXXXXX.html
        m = re.search(re.escape(TMP) + r"/(plerig-report-[0-9]+-\w{6}\.html) instead",
                      r.stderr)
        self.assertTrue(m, r.stderr)
        os.unlink(os.path.join(TMP, m.group(1)))

    def test_usage(self):
        self.assertEqual(plerig("report", RESULTS).returncode, 2)
        self.assertEqual(plerig("report", "-o", self.out("x.html")).returncode, 2)
        r = plerig("report", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("-o, --output FILE", r.stdout)

    def test_sweep_file(self):
        sweep = self.out("sweep.json")
        points = [{"values": {"ple_window": w}, "variant": v, "ok": True, "runs": 2,
                   "acq_per_s": a, "stalls": 3.0, "stalled_share": 0.1,
                   "pause_loop_exits": None, "acq_per_s_stddev": a / 10}
                  for v in ("kvm ticket pause user ple-on 1x4/0-1", "kvm ticket nop user ple-on 1x4/0-1")
                  for w, a in ((1024, 500.0), (4096, 900.0), (16384, 1500.0))]
        with open(sweep, "w") as f:
            json.dump({"schema": "plerig-sweep", "schema_version": 1, "plerig_version": "x",
                       "params": ["ple_window"], "points": points}, f)
        html = self.out("sweep.html")
        r = plerig("report", sweep, RESULTS, "-o", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        for i in ("s0-acq_per_s", "s0-stalled_share", "s0-pause_loop_exits", "r1-acq_per_s"):
            self.assertIn(f'id="{i}"', text)
        self.assertIn("ple_window (log)", text)

    def test_sweep_values_out_of_range_are_refused(self):
        """ple_window = 1e308 overflowed the log axis's decade count (UBSan)."""
        sweep, html = self.out("huge.json"), self.out("huge.html")
        for bad in (1e308, -1, 4294967296, 1.5, "4096"):
            points = [{"values": {"ple_window": w}, "variant": "v", "ok": True, "runs": 1,
                       "acq_per_s": 100.0, "stalled_share": 0.1}
                      for w in (1024, bad)]
            with open(sweep, "w") as f:
                json.dump({"schema": "plerig-sweep", "schema_version": 1,
                           "params": ["ple_window"], "points": points}, f)
            r = plerig("report", sweep, "-o", html)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn("points[1].values: ple_window is not a parameter value", r.stderr)
            self.assertFalse(os.path.exists(html))

    def test_run_report(self):
        html = self.out("run.html")
        r = plerig("run", "--backend", "native", "--vcpus", "2", "--pcpus", "0-1",
                   "--duration", "0.1", "--warmup", "0.02", "--quiet", "--report", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        self.assertIn('id="r0-acq_per_s"', text)
        self.assertIn('id="r0-wait-0"', text)

    def test_halt_path_table(self):
        # lock pvqspin on host threads halts (a futex) over-committed: its row has figures
        html = self.out("pv.html")
        r = plerig("run", "--backend", "native", "--lock", "pvqspin,ticket", "--relax", "pause",
                   "--vcpus", "3", "--pcpus", "0", "--duration", "0.2", "--warmup", "0.02",
                   "--quiet", "--report", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        self.assertIn("Halt path (lock pvqspin)", text)
        table = text[text.index("Halt path"):]
        table = table[:table.index("</table>")]
        row = table[table.index("native pvqspin/pause"):]
        row = row[:row.index("</tr>")]
        # not asked to be > 0: a figure or n/a per cell, never an empty one
        self.assertEqual(row.count("<td>"), 8, row)  # after the variant's own cell
        self.assertNotIn("<td></td>", row)
        self.assertNotIn("native ticket", table, "only pvqspin halts")

    def test_hosts_side_by_side(self):
        # a results file of --connect hostA,hostB (hostB unreachable) made from a real
        # one: a row per host, a column per file, each host's own figures or failure
        with open(RESULTS) as f:
            one = json.load(f)
        doc = copy.deepcopy(one)
        doc["hosts"] = [dict(one["host"], name="hostA", label="hostA", error=None,
                             kvm_module="kvm_intel", kvm_module_source=(
                                 "inferred from the host CPU's vmx flag; libvirt names no "
                                 "module")),
                        dict(one["host"], name="hostB", label="hostB",
                             error="connecting to qemu+ssh://***@hostB/system: refused")]
        doc["variants"] = []
        for i, v in enumerate(one["variants"]):
            mine = dict(copy.deepcopy(v), host="hostA")
            if i == 0:  # ok runs without a rate: n/a with the reason, never a blank
                mine["stats"]["acq_per_s"]["mean"] = None
                for run in mine["runs"]:
                    run["summary"]["acq_per_s"] = None
                    run["summary"]["rate_unavailable"] = "no measured interval"
            doc["variants"].append(mine)
            failed = dict(copy.deepcopy(v), host="hostB")
            failed["runs"] = [dict(v["runs"][0], ok=False,
                                   error="host hostB: connecting: refused")]
            doc["variants"].append(failed)
        path = self.out("hosts.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        html = self.out("hosts.html")
        r = plerig("report", path, RESULTS, "-o", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        self.assertIn("Hosts side by side", text)
        table = text[text.index("Hosts side by side"):]
        table = table[:table.index("</table>")]
        rows = table.split("<tr>")[1:]
        # the header, hostA, hostB and the machine the second file ran on
        self.assertEqual(len(rows), 4, table)
        self.assertEqual(rows[0].count("<th>"), 3, rows[0])  # host, two files
        self.assertIn("hostA", rows[1])
        self.assertIn("acq/s", rows[1])
        self.assertIn("acq/s n/a (no measured interval)", rows[1])
        self.assertIn("hostB", rows[2])
        self.assertIn("runs failed", rows[2])
        self.assertIn("refused", rows[2])
        self.assertIn("not run there", rows[2])  # hostB is not in the second file
        self.assertIn(one["host"]["name"], rows[3])
        # every host of the file in its host table, the failed one with its error
        self.assertIn("<th>reached by</th>", text)
        # a module inferred (a remote host through libvirt) is shown as inferred
        self.assertIn("<td>kvm_intel (inferred from the host CPU", text)
        # one host alone: no side-by-side section
        r = plerig("report", RESULTS, "-o", html)
        with open(html) as f:
            self.assertNotIn("Hosts side by side", f.read())


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

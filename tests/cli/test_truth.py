#!/usr/bin/env python3
"""What plerig prints must be so, on real native runs and on files made from them:
`run` judges its comparisons by the one rule `--help` states for every command,
with the threshold it prints (and the report shows the verdicts as judged); a
setting no backend of a run can take is refused with the reason and the fix, and
a column that names a setting the backend lacks is n/a with the reason; every
metric `compare --metric` lists works on plerig's own results files, or is n/a
with the reason the file gives. No VM is booted (the mixed-backend case skips
without /dev/kvm).

usage: test_truth.py PLERIG
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

PLERIG = None
# --timeout 60: a busy machine's stop can take long; nothing here is timed
NATIVE = ["run", "--backend", "native", "--vcpus", "2", "--relax", "pause,nop",
          "--duration", "0.1", "--warmup", "0.02", "--timeout", "60", "--repeat", "3"]


def member(obj, path):
    """A member of obj, or of an object inside it by a dotted path (model/metrics.h)."""
    for key in path.split("."):
        obj = obj[key]
    return obj


def plerig(*args, cwd=None):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def rule(c, threshold):
    """docs/comparing.md, Verdicts, written again here: the verdict @c must have."""
    if c["paired"]:
        lo, hi = c["paired"]["ci95_low_pct"], c["paired"]["ci95_high_pct"]
    elif c["ci95_low"] is not None and c["baseline_mean"]:
        lo = 100.0 * c["ci95_low"] / abs(c["baseline_mean"])
        hi = 100.0 * c["ci95_high"] / abs(c["baseline_mean"])
    else:
        lo = hi = None
    if lo is None or hi is None:
        return None  # no test (no spread, too few runs) or a base of 0: not this check
    significant = c["p_holm"] is not None and c["p_holm"] < 0.05
    down = significant and hi < 0 and -hi >= threshold
    up = significant and lo > 0 and lo >= threshold
    better = c["better"]
    if (down if better == "higher" else up if better == "lower" else down or up):
        return "worse"
    if (up if better == "higher" else down if better == "lower" else False):
        return "better"
    return "too noisy to judge" if hi - lo > threshold else "no significant change"


class Truth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="plerig-truth-")
        cls.files, cls.tables = [], []
        for name in ("A.json", "B.json"):
            path = os.path.join(cls.tmp, name)
            r = plerig(*NATIVE, "--json", path)
            assert r.returncode == 0, r.stdout + r.stderr
            cls.files.append(path)
            cls.tables.append(r)
        with open(cls.files[0]) as f:
            cls.doc = json.load(f)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.tmp], check=False)

    def write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    # -- item 10: one verdict rule --------------------------------------------------

    def test_run_judges_by_the_rule_it_prints(self):
        # the run said "no significant change" of a CI of [-173 %, +281 %]
        # with p 0.416: run judged with a threshold of 0, where --help's rule makes
        # such a non-finding too noisy to judge
        for path, r in zip(self.files, self.tables):
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["threshold_pct"], 2.0)
            judged = 0
            for c in doc["comparisons"]:
                want = rule(c, doc["threshold_pct"])
                if want:
                    judged += 1
                    self.assertEqual(c["verdict"], want, c)
            self.assertGreater(judged, 0)
            self.assertIn("too noisy to judge: neither, and the CI wider than 2% (--threshold)",
                          r.stdout)
        # another threshold: said, and judged by
        path = os.path.join(self.tmp, "wide.json")
        r = plerig(*NATIVE, "--threshold", "1000", "--json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("wider than 1000%", r.stdout)
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["threshold_pct"], 1000.0)
        for c in doc["comparisons"]:
            want = rule(c, 1000.0)
            if want:
                self.assertEqual(c["verdict"], want, c)

    def test_the_report_shows_the_verdict_as_judged(self):
        # the report said "no sig. change" for every non-finding, too noisy or not
        doc = copy.deepcopy(self.doc)
        c = doc["comparisons"][0]
        c.update(verdict="too noisy to judge", significant=False, p_holm=0.4)
        html = os.path.join(self.tmp, "r.html")
        r = plerig("report", self.write("noisy.json", doc), "-o", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            text = f.read()
        self.assertIn("too noisy to judge (p=0.4)", text)
        self.assertNotIn("no sig. change", text)

    # -- item 11: no silent no-ops ----------------------------------------------------

    def test_a_setting_no_backend_can_take_is_refused(self):
        # each printed an empty table (native) or failed every variant, and some exited 0
        cases = [
            (["--backend", "native", "--ple", "off"], "--ple off",
             "nothing intercepts PAUSE", "add --backend kvm"),
            (["--backend", "native", "--halt-poll", "0"], "--halt-poll 0",
             "no KVM halt polling", "use --halt-poll kept"),
            (["--backend", "native", "--ring", "kernel"], "--ring kernel",
             "host user space", "leave out --ring kernel"),
            (["--backend", "libvirt", "--accel", "tcg", "--ple", "on,off"], "--ple off",
             "QEMU's emulator (TCG): nothing intercepts PAUSE", "add --backend kvm"),
            (["--backend", "libvirt", "--accel", "tcg", "--halt-poll", "host,50000"],
             "--halt-poll 50000", "QEMU's emulator (TCG): no KVM halt polling",
             "use --halt-poll kept"),
            (["--backend", "libvirt", "--halt-poll", "0"], "--halt-poll 0",
             "neither libvirt nor QEMU sets halt polling per domain", "use --halt-poll kept"),
        ]
        for args, what, why, fix in cases:
            r = plerig("run", *args, "--duration", "0.1")
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
            self.assertEqual(r.stdout, "", args)
            line = r.stderr.strip()
            self.assertEqual(len(line.splitlines()), 1, r.stderr)
            for needle in ("plerig run: " + what, "no backend of this run can take it", why,
                           fix):
                self.assertIn(needle, line, args)

    def test_native_rows_say_ple_and_halt_poll_are_na_and_why(self):
        r = plerig("run", "--backend", "native", "--vcpus", "2", "--relax", "pause",
                   "--duration", "0.1", "--warmup", "0.02", "--timeout", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        head, row = r.stdout.splitlines()[:2]
        cells = dict(zip(head.split(), row.split()))
        self.assertEqual(cells["ple"], "n/a", r.stdout)
        self.assertEqual(cells["halt-poll"], "n/a", r.stdout)
        self.assertIn("ple n/a (native): host threads, no VM: nothing intercepts PAUSE",
                      r.stderr)
        self.assertIn("halt-poll n/a (native): host threads, no VM: no KVM halt polling",
                      r.stderr)
        v = self.doc["variants"][0]
        self.assertEqual(v["ple"], "on")  # the axis value: compare matches on it
        self.assertIn("nothing intercepts PAUSE", v["ple_unavailable"])
        self.assertIn("no KVM halt polling", v["halt_poll_unavailable"])
        # the statistics' titles too
        self.assertIn("native ticket/pause ring user PLE n/a 1x2", self.tables[0].stdout)

    def test_a_backend_that_cannot_is_left_out_and_said(self):
        if not os.access("/dev/kvm", os.R_OK | os.W_OK):
            self.skipTest("no usable /dev/kvm: the kvm half of a mixed run needs one "
                          "(tests/unit/test_run_options.c covers the matrix)")
        r = plerig("run", "--backend", "kvm,native", "--vcpus", "2", "--relax", "pause",
                   "--ple", "on,off", "--duration", "0.1", "--warmup", "0.02")
        self.assertIn("native runs no --ple off variant: host threads, no VM: nothing "
                      "intercepts PAUSE", r.stderr)
        rows = [l.split() for l in r.stdout.splitlines()[1:]]
        self.assertEqual(sorted((c[0], c[4]) for c in rows),
                         [("kvm", "off"), ("kvm", "on"), ("native", "n/a")], r.stdout)

    # -- item 12: every metric on plerig's own files ------------------------------------

    def metrics(self):
        r = plerig("compare", "--help")
        listed = r.stdout[r.stdout.index("Metrics:") + len("Metrics:"):]
        listed = listed[:listed.index("\n\n")]
        names = re.findall(r"[a-z_0-9]+", listed)
        self.assertIn("ple_exits_per_acq", names)
        return names

    def having(self, file, variant, metric):
        """How many ok runs of a variant of one of the two files have @metric."""
        with open(self.files[file]) as f:
            runs = json.load(f)["variants"][variant]["runs"]
        ok = [run["summary"] for run in runs if run.get("ok") and run.get("summary")]
        if ok and metric not in ok[0]:
            return len(ok)  # a ratio derived from counts (model/metrics.c)
        return sum(summary[metric] is not None for summary in ok)

    def compare(self, base, new, metric):
        r = plerig("compare", "--metric", metric, "--json", "-", base, new)
        self.assertNotIn("missing", r.stderr, (metric, r.stderr))
        self.assertIn(r.returncode, (0, 1, 2), r.stderr)
        return r, json.loads(r.stdout)

    def test_every_metric_works_on_real_files_or_is_na_with_the_files_reason(self):
        # compare --metric acq_per_s,ple_exits_per_acq exited 2 on two of plerig's own
        # files: "missing ple_exits_per_acq" (summaries hold the counts, not the ratio)
        summary = self.doc["variants"][0]["runs"][0]["summary"]
        for m in self.metrics():
            r, doc = self.compare(*self.files, m)
            rows = [row for v in doc["variants"] for row in v["metrics"]]
            self.assertEqual(len(rows), 2, m)
            for i, row in enumerate(rows):
                if row["base"]["n"]:
                    # every ok run that has the figure counts; on a busy machine a
                    # round can end with no acquisition, so no wait percentile
                    self.assertEqual((row["base"]["n"], row["new"]["n"]),
                                     (self.having(0, i, m), self.having(1, i, m)), row)
                    self.assertNotEqual(row["verdict"], "untestable", row)
                    continue
                # n/a on native: the reason the file gives, in the JSON and the table
                why = row["why"]
                self.assertEqual(row["base_unavailable"], why)
                self.assertIn(why, r.stderr)
                self.assertIn("untestable: n/a in both: " + why, r.stderr)
                key = {"exits": "exits_unavailable",
                       "ple_exits_per_acq": "pause_loop_exits_unavailable",
                       "ple_exits_per_s": "ple_exits_per_s_unavailable",
                       "ple_window_updates_per_acq": "ple_window_updates_unavailable",
                       "kick_latency_p50_ns": "halt_path.kick_latency_unavailable",
                       "kick_latency_p99_ns": "halt_path.kick_latency_unavailable",
                       "halts_per_acq": "halt_path.unavailable",
                       "halt_exits_per_acq": "halt_path.kvm_unavailable",
                       "halt_wakeups_per_acq": "halt_path.kvm_unavailable",
                       "halt_polls_per_acq": "halt_path.kvm_unavailable"}[m]
                self.assertEqual(why, member(summary, key), m)
            if all(not row["base"]["n"] for row in rows):
                # nothing to judge: said as what it is, not as "too few runs"
                self.assertEqual(r.returncode, 2)
                self.assertIn(f"n/a in these files ({m}: ", r.stderr)
                self.assertNotIn("--repeat", r.stderr.splitlines()[-1])
        # all of them at once: judged, the n/a ones said
        r = plerig("compare", "--metric", ",".join(self.metrics()), *self.files)
        self.assertIn(r.returncode, (0, 1), r.stderr)

    def test_the_halt_path_is_read_from_its_object_in_the_summary(self):
        # kick-to-running latency, halts, KVM's halt exits and wake-ups per
        # acquisition: members of summary.halt_path (and .kvm), not of the summary
        doc = copy.deepcopy(self.doc)
        want = {}
        for v in doc["variants"]:
            v["lock"] = "pvqspin"
            for k, run in enumerate(v["runs"]):
                s = run["summary"]
                s["acquisitions"] = 1000 + k  # a busy machine's round may have none
                h = s["halt_path"]
                h.pop("unavailable", None)
                h.pop("kick_latency_unavailable", None)
                h.pop("kvm_unavailable", None)
                h.update(halts=100 + k, kick_latency_p50_ns=1000.0 + k,
                         kick_latency_p99_ns=5000.0 + 10 * k)
                h["kvm"].update(halt_exits=90 + k, halt_wakeup=80 + k, halt_successful_poll=70 + k)
                for m, x in (("kick_latency_p50_ns", 1000.0 + k),
                             ("kick_latency_p99_ns", 5000.0 + 10 * k),
                             ("halts_per_acq", (100 + k) / s["acquisitions"]),
                             ("halt_exits_per_acq", (90 + k) / s["acquisitions"]),
                             ("halt_wakeups_per_acq", (80 + k) / s["acquisitions"]),
                             ("halt_polls_per_acq", (70 + k) / s["acquisitions"])):
                    want.setdefault((v["relax"], m), []).append(x)
        path = self.write("halting.json", doc)
        r, out = self.compare(path, path, ",".join(m for _, m in want))
        rows = {(v["relax"], m["metric"]): m for v in out["variants"] for m in v["metrics"]}
        for key, xs in want.items():
            self.assertEqual(rows[key]["base"]["n"], len(xs), key)
            self.assertAlmostEqual(rows[key]["base"]["mean"], sum(xs) / len(xs), places=9)
        self.assertEqual(rows[("pause", "kick_latency_p99_ns")]["better"], "lower")
        self.assertEqual(rows[("pause", "halts_per_acq")]["better"], "either")
        # a file without the halt path at all is damaged: refused with the place
        del doc["variants"][0]["runs"][1]["summary"]["halt_path"]["kvm"]
        r = plerig("compare", "--metric", "halt_exits_per_acq", path,
                   self.write("no-kvm.json", doc))
        self.assertEqual(r.returncode, 2)
        self.assertIn("variants[0].runs[1].summary: missing halt_path.kvm.halt_exits", r.stderr)

    def test_a_ratio_is_derived_from_the_counts_and_an_absent_figure_says_why(self):
        doc = copy.deepcopy(self.doc)
        pause, nop = doc["variants"]
        derived = []
        for k, run in enumerate(nop["runs"]):
            s = run["summary"]
            # a nop run starved to no acquisition (a loaded machine's) gets one: a ratio needs it
            s["acquisitions"] = s["acquisitions"] or 1
            s["pause_loop_exits"] = 2 * s["acquisitions"] + k
            s["ple_window_updates"] = k
            s.pop("pause_loop_exits_unavailable", None)
            s.pop("ple_window_updates_unavailable", None)
            derived.append(s["pause_loop_exits"] / s["acquisitions"])
        for run in pause["runs"]:
            s = run["summary"]
            s["acq_per_cpu_s"] = None
            s["acq_per_cpu_s_unavailable"] = "not measured in this test"
            s["wait_p99_ns"] = None
            s.pop("wait_unavailable", None)
            s["ple_window_updates"] = 5
            s["acquisitions"] = 0
        path = self.write("absent.json", doc)
        r, out = self.compare(path, path, "ple_exits_per_acq,ple_window_updates_per_acq,"
                                          "acq_per_cpu_s,wait_p99_ns")
        rows = {(v["relax"], m["metric"]): m for v in out["variants"] for m in v["metrics"]}
        got = rows[("nop", "ple_exits_per_acq")]
        self.assertAlmostEqual(got["base"]["mean"], sum(derived) / len(derived), places=9)
        self.assertEqual((got["base"]["n"], got["base_unavailable"]), (3, None))
        self.assertEqual(rows[("nop", "ple_window_updates_per_acq")]["base"]["n"], 3)
        for metric, why in (
                ("ple_exits_per_acq", self.doc["variants"][0]["runs"][0]["summary"]
                 ["pause_loop_exits_unavailable"]),
                ("ple_window_updates_per_acq",
                 "no acquisition in the measured interval: nothing to divide by"),
                ("acq_per_cpu_s", "not measured in this test"),
                ("wait_p99_ns", "null in the file, with no reason beside it")):
            row = rows[("pause", metric)]
            self.assertEqual((row["base"]["n"], row["verdict"], row["why"]),
                             (0, "untestable", why), metric)
            self.assertEqual(row["new_unavailable"], why)
        # a count that is not there at all is a damaged file, refused with the place
        del doc["variants"][1]["runs"][2]["summary"]["acquisitions"]
        r = plerig("compare", "--metric", "ple_exits_per_acq", path,
                   self.write("damaged.json", doc))
        self.assertEqual(r.returncode, 2)
        self.assertIn("variants[1].runs[2].summary: missing acquisitions", r.stderr)


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

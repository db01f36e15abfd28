#!/usr/bin/env python3
"""`plerig compare` as scripts see it: exit status 0 (nothing worse), 1 (worse),
2 (bad input) and the verdicts, on results files built here with a known spread,
and on the real output of `plerig run --backend native --repeat 3`, which must
also match docs/results.schema.json. No VM is booted.

usage: test_compare.py PLERIG SCHEMA_JSON
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

PLERIG = SCHEMA = None
METRICS = ["acq_per_s", "wait_p50_ns", "wait_p99_ns", "wait_max_ns", "stalls", "stalled_share",
           "holder_preemptions", "run_delay_share", "exits"]


def plerig(*args, cwd=None):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def validator():
    try:
        import jsonschema
    except ImportError:
        raise AssertionError("python3-jsonschema is missing: apt-get install python3-jsonschema "
                             "(scripts/setup installs it)")
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def assert_valid(test, doc):
    errors = sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    test.assertFalse(errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]))


# ---- a results file with chosen per-run values ------------------------------

def histogram():
    return {"unit": "tsc_cycles", "buckets": [[64, 10], [128, 2]]}


def vcpu(i, acq):
    return {"vcpu": i, "host_cpu": i, "tid": 1000 + i, "acquisitions": acq,
            "unmeasured_acquisitions": 3, "contended": acq // 2, "stalls": 1, "stalled_ns": 1e5,
            "wait_p50_ns": 50.0, "wait_p99_ns": 200.0, "wait_max_ns": 1e5, "wait_mean_ns": 60.0,
            "hold_p50_ns": 30.0, "hold_max_ns": 900.0, "holder_preemptions": 0,
            "run_delay_ns": 1e6, "run_time_ns": 2e8, "timeslices": 5, "exits": 12,
            "kvm_stats": {"exits": 12, "halt_exits": 0}, "wait_histogram": histogram(),
            "hold_histogram": histogram()}


def run(index, values, ok=True):
    r = {"repeat": index, "ok": ok, "interval_s": 0.2, "tsc_khz": 2000000,
         "timing": {k: 1 for k in ("created_ns", "ready_ns", "first_acq_ns", "stopped_ns",
                                   "torn_down_ns", "setup_insn_emulated")}}
    if not ok:
        r.update(error="vCPU 1: guest exception #UD (vector 6)", summary=None, vm_results=[])
        return r
    acq = int(values.get("acq_per_s", 1e6) * 0.2)
    s = {"acquisitions": acq, "acq_per_s": 1e6, "wait_p50_ns": 50.0, "wait_p99_ns": 200.0,
         "wait_max_ns": 1e5, "wait_mean_ns": 60.0, "hold_p50_ns": 30.0, "hold_max_ns": 900.0,
         "stalls": 2, "stalled_ns": 2e5, "stalled_share": 0.0005, "holder_preemptions": 0,
         "run_delay_ns": 2e6, "run_delay_share": 0.005, "run_time_ns": 4e8, "exits": 24,
         "exits_valid": True}
    s.update(values)
    r["summary"] = s
    r["vm_results"] = [{"vm": 0, "protected_counter": acq + 6,
                        "vcpus": [vcpu(0, acq // 2), vcpu(1, acq - acq // 2)]}]
    return r


def stats(values):
    n = len(values)
    mean = sum(values) / n if n else None
    sd = (sum((x - mean) ** 2 for x in values) / (n - 1)) ** 0.5 if n > 1 else 0.0
    return {"n": n, "mean": mean, "stddev": sd if n else None,
            "rel": sd / abs(mean) if n and mean else (0.0 if n else None),
            "min": min(values) if n else None, "max": max(values) if n else None,
            "median": sorted(values)[n // 2] if n else None, "mad": 0.0 if n else None,
            "outliers": 0}


# acq/s of 5 runs, spread ~0.08 %: a 95 % CI of the change well inside 2 %
TIGHT = [1.000e6, 1.001e6, 0.999e6, 1.0005e6, 0.9995e6]


def variant(relax="pause", backend="kvm", acq=None, failed=(), **per_metric):
    """A variant whose k-th run has acq_per_s acq[k] (and per_metric[m][k])."""
    acq = acq if acq is not None else [1.00e6, 1.01e6, 0.99e6, 1.005e6, 0.995e6]
    runs = []
    for k, a in enumerate(acq):
        values = {"acq_per_s": a, **{m: v[k] for m, v in per_metric.items()}}
        runs.append(run(k, values, ok=k not in failed))
    v = {"backend": backend, "lock": "ticket", "relax": relax, "ring": "user", "vms": 1,
         "vcpus": 2, "pcpus": "0-1", "pin": "each", "cs_cycles": 100, "think_cycles": 100,
         "stall_us": 50.0, "warmup_s": 0.2, "duration_s": 0.2, "runs": runs}
    refresh_stats(v)
    return v


def refresh_stats(v):
    ok = [r["summary"] for r in v["runs"] if r["ok"]]
    v["stats"] = {m: stats([s[m] for s in ok if s.get(m) is not None]) for m in METRICS}


def document(*variants):
    return {"schema": "plerig-results", "schema_version": 2, "plerig_version": "0.1.0",
            "command_line": "plerig run --repeat 5 --json x.json",
            "host": {"kernel": "6.1.0", "kvm_module": "kvm_intel", "cpu_model": "Test CPU",
                     "cpus": 2, "cpus_online": 2, "smt": False,
                     "ple_params": {"ple_gap": 128, "ple_window": 4096}},
            "repeat": max(len(v["runs"]) for v in variants) if variants else 1,
            "discard_rounds": 1, "order": "interleave", "seed": None, "baseline": None,
            "interrupted": False, "variants": list(variants), "comparisons": []}


def scaled(doc, metric, factor, variants=None):
    """Every ok run's metric moved by (factor - 1) x the variant's mean: same spread."""
    doc = copy.deepcopy(doc)
    for i, v in enumerate(doc["variants"]):
        if variants is not None and i not in variants:
            continue
        ok = [r for r in v["runs"] if r["ok"] and r["summary"][metric] is not None]
        mean = sum(r["summary"][metric] for r in ok) / len(ok)
        for r in ok:
            r["summary"][metric] += (factor - 1.0) * mean
        refresh_stats(v)
    return doc


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def compare(self, base, new, *options):
        b = self.write("BASE.json", base)
        n = self.write("NEW.json", new)
        return plerig("compare", *options, "BASE.json", "NEW.json", cwd=self.tmp.name)

    def assert_status(self, r, status):
        self.assertEqual(r.returncode, status, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")

    def assert_bad_input(self, r, *needles):
        self.assert_status(r, 2)
        last = r.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("plerig compare: "), r.stderr)
        for n in needles:
            self.assertIn(n, last)

    def verdicts(self, r, metric_label):
        rows = [l.rstrip() for l in r.stdout.splitlines() if l.startswith(f"  {metric_label} ")]
        return [next((v for v in ("no significant change", "too noisy to judge")
                      if l.endswith(v)), l.split()[-1]) for l in rows]

    # -- the generator writes what the schema describes --------------------------

    def test_generated_documents_match_the_schema(self):
        assert_valid(self, document(variant("pause"), variant("nop", failed=(2,))))

    # -- verdicts and exit status -----------------------------------------------

    def test_same_file_is_no_change(self):
        doc = document(variant("pause", acq=TIGHT), variant("nop", acq=TIGHT))
        r = self.compare(doc, doc)
        self.assert_status(r, 0)
        for label in ("acq/s", "wait-p99", "stalled", "run-delay"):
            self.assertEqual(self.verdicts(r, label), ["no significant change"] * 2, label)
        self.assertIn("0 worse, 0 better, 8 no significant change, 0 too noisy", r.stdout)

    def test_too_noisy_is_not_no_change(self):
        # spread ~0.8 % over 5 runs: the 95 % CI of the change is 2.3 % wide, wider than
        # the 2 % threshold, so "no change" would claim more than the runs can tell
        doc = document(variant("pause"))
        r = self.compare(doc, doc)
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "acq/s"), ["too noisy to judge"])
        self.assertIn("0 worse, 0 better, 3 no significant change, 1 too noisy to judge",
                      r.stdout)
        # a threshold the runs can resolve: no change
        r = self.compare(doc, doc, "--threshold", "3")
        self.assertEqual(self.verdicts(r, "acq/s"), ["no significant change"])

    def test_extreme_finite_values_are_refused_not_aborted(self):
        doc = document(variant("pause"))
        bad = copy.deepcopy(doc)
        bad["variants"][0]["runs"][1]["summary"]["acq_per_s"] = 1e308
        r = self.compare(doc, bad)
        self.assert_bad_input(r, "variants[0].runs[1].summary.acq_per_s", "out of range")
        for token in ("NaN", "Infinity", "-Infinity"):
            text = json.dumps(doc).replace('"acq_per_s": 1010000.0', f'"acq_per_s": {token}', 1)
            self.assertIn(token, text)
            r = self.compare(doc, text)
            self.assert_bad_input(r, "variants[0].runs[1].summary.acq_per_s", token)
            self.assertNotIn("nan%", r.stdout + r.stderr)

    def test_huge_delta_keeps_the_table_aligned(self):
        base = document(variant("pause", acq=[1e3, 1.01e3, 0.99e3]))
        new = document(variant("pause", acq=[3e7, 3.01e7, 2.99e7]))
        r = self.compare(base, new)
        self.assert_status(r, 0)  # more acquisitions: better
        self.assertNotIn("2999", r.stdout)
        row = [l for l in r.stdout.splitlines() if l.lstrip().startswith("acq/s")][0]
        header = [l for l in r.stdout.splitlines() if l.lstrip().startswith("metric")][0]
        self.assertIn(">+999%", row)
        self.assertEqual(row.index("better"), header.index("verdict"))

    def test_control_characters_are_escaped(self):
        doc = document(variant("pause"))
        doc["host"]["kernel"] = "6.1\x1b[2J\x07"
        doc["variants"][0]["runs"][2] = run(2, {}, ok=False)
        doc["variants"][0]["runs"][2]["error"] = "boom\x1b]0;owned\x07"
        refresh_stats(doc["variants"][0])
        r = self.compare(doc, doc)
        self.assertNotIn("\x1b", r.stdout + r.stderr)
        self.assertNotIn("\x07", r.stdout + r.stderr)
        self.assertIn("\\x1b", r.stdout)

    def test_results_file_over_the_cap_is_refused(self):
        # 64 MiB: reading one takes 5 to 14 times its size (scripts/bench-results-memory);
        # refused before a byte is parsed, by compare and report alike, with the way out
        path = os.path.join(self.tmp.name, "HUGE.json")
        with open(path, "wb") as f:
            f.truncate((64 << 20) + 1)  # sparse: no disk used
        good = self.write("GOOD.json", document(variant("pause")))
        said = ("HUGE.json: 67108865 bytes, more than the 64 MiB a results file may have here",
                "write the experiment into several files")
        self.assert_bad_input(plerig("compare", good, path, cwd=self.tmp.name), *said)
        r = plerig("report", path, "-o", "r.html", cwd=self.tmp.name)
        self.assert_status(r, 2)
        for n in said:
            self.assertIn(n, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "r.html")))
        # a pipe has no size beforehand: refused once more than 64 MiB came through it
        r = subprocess.run(f"head -c {(64 << 20) + 1} /dev/zero | {PLERIG} compare {good} "
                           "/dev/stdin", shell=True, capture_output=True, text=True,
                           cwd=self.tmp.name)
        self.assert_bad_input(r, "/dev/stdin: more than the 64 MiB")

    def test_ten_percent_fewer_acquisitions_is_worse(self):
        base = document(variant("pause"), variant("nop"))
        r = self.compare(base, scaled(base, "acq_per_s", 0.9))
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "acq/s"), ["worse", "worse"])
        self.assertIn("-10.0%", r.stdout)
        self.assertIn("2 worse", r.stdout)

    def test_ten_percent_more_acquisitions_is_better(self):
        base = document(variant("pause"))
        r = self.compare(base, scaled(base, "acq_per_s", 1.1))
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "acq/s"), ["better"])

    def test_worse_only_when_the_whole_ci_is_beyond_the_threshold(self):
        # -2.4 %, significant, its point estimate past the 2 % threshold, but its
        # 95 % CI (about [-2.9 %, -1.9 %]) not wholly beyond it: plerig check's rule
        # (and now compare's) does not call that worse; the old point-estimate rule did
        acq = [1.000e6, 1.004e6, 0.996e6, 1.002e6, 0.998e6]
        base = document(variant("pause", acq=acq))
        new = scaled(base, "acq_per_s", 0.976)
        out = os.path.join(self.tmp.name, "cmp.json")
        r = self.compare(base, new, "--json", out)
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "acq/s"), ["no significant change"])
        with open(out) as f:
            row = next(m for m in json.load(f)["variants"][0]["metrics"]
                       if m["metric"] == "acq_per_s")
        self.assertTrue(row["significant"])
        self.assertLess(row["delta_pct"], -2.0)
        self.assertLess(100 * row["ci95_low"] / 1e6, -2.0)
        self.assertGreater(100 * row["ci95_high"] / 1e6, -2.0)
        # a threshold the whole CI clears: worse
        r = self.compare(base, new, "--threshold", "1.5")
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "acq/s"), ["worse"])

    def test_holm_counts_the_comparisons_with_a_p_value(self):
        # a single-run variant and metrics without spread have no p-value: Holm's
        # correction is across the others, and the header says how many
        mixed = document(variant("pause"), variant("nop", acq=[1e6]))
        r = self.compare(mixed, scaled(mixed, "acq_per_s", 0.9, variants=[1]), "--json", "-")
        rows = [m for v in json.loads(r.stdout)["variants"] for m in v["metrics"]]
        tested = sum(m["p_value"] is not None for m in rows)
        self.assertLess(tested, len(rows))
        self.assertIn(f"across the {tested}\ncomparisons with a p-value", r.stderr)
        for m in rows:
            self.assertEqual(m["p_holm"] is None, m["p_value"] is None, m)

    def test_lower_is_better_for_waits(self):
        p99 = {"wait_p99_ns": [200.0, 202.0, 198.0, 201.0, 199.0]}
        base = document(variant("pause", **p99))
        r = self.compare(base, scaled(base, "wait_p99_ns", 1.1))
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "wait-p99"), ["worse"])
        r = self.compare(base, scaled(base, "wait_p99_ns", 0.9))
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "wait-p99"), ["better"])

    def test_threshold(self):
        # 1% lower, and significant (spread ~0.8%, 5 runs), but under the default 2%
        base = document(variant("pause", acq=TIGHT))
        new = scaled(base, "acq_per_s", 0.99)
        r = self.compare(base, new)
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "acq/s"), ["no significant change"])
        r = self.compare(base, new, "--threshold", "0.5")
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "acq/s"), ["worse"])
        self.assert_bad_input(self.compare(base, new, "--threshold", "-1"), "--threshold")
        self.assert_bad_input(self.compare(base, new, "--threshold", "x"), "--threshold")

    def test_metric_choice(self):
        base = document(variant("pause"))
        new = scaled(base, "acq_per_s", 0.9)
        r = self.compare(base, new, "--metric", "wait_p99_ns,stalls")
        self.assert_status(r, 0)
        self.assertFalse(self.verdicts(r, "acq/s"))
        self.assertTrue(self.verdicts(r, "stalls"))
        r = self.compare(base, new, "--metric", "holder_preemptions,acq_per_s")
        self.assert_status(r, 1)
        self.assert_bad_input(self.compare(base, new, "--metric", "speed"), "--metric",
                              "'speed'", "acq_per_s")

    def test_only_in_one_file(self):
        base = document(variant("pause"), variant("nop"))
        new = document(variant("pause"), variant("rep-pause"))
        r = self.compare(base, new)
        self.assert_status(r, 0)
        self.assertIn("only in BASE.json: kvm ticket nop", r.stdout)
        self.assertIn("only in NEW.json: kvm ticket rep-pause", r.stdout)

    # -- hosts as an axis (--connect LIST) ---------------------------------------

    @staticmethod
    def on_hosts(doc, *labels):
        """@doc's variants once per host of @labels, as --connect LIST writes them."""
        doc = copy.deepcopy(doc)
        one = doc["variants"]
        doc["variants"] = []
        doc["hosts"] = []
        for label in labels:
            doc["hosts"].append(dict(doc["host"], name=label, label=label, error=None))
            for v in one:
                doc["variants"].append(dict(copy.deepcopy(v), host=label))
        return doc

    def test_variants_are_matched_per_host(self):
        # hostB got 10 % slower, hostA did not: only hostB's variant is worse
        base = self.on_hosts(document(variant("pause")), "hostA", "hostB")
        new = scaled(base, "acq_per_s", 0.9, variants=[1])
        assert_valid(self, new)
        r = self.compare(base, new)
        self.assert_status(r, 1)
        verdicts = self.verdicts(r, "acq/s")
        self.assertEqual(len(verdicts), 2, r.stdout)
        self.assertNotEqual(verdicts[0], "worse", r.stdout)
        self.assertEqual(verdicts[1], "worse", r.stdout)
        self.assertIn("hostA: kvm ticket pause", r.stdout)
        self.assertIn("hostB: kvm ticket pause", r.stdout)
        # the hosts in the other order in NEW: still each against its own
        swapped = copy.deepcopy(new)
        swapped["variants"].reverse()
        swapped["hosts"].reverse()
        self.assertEqual(self.verdicts(self.compare(base, swapped), "acq/s"), verdicts)

    def test_a_host_only_in_one_file_is_not_compared_with_another(self):
        base = self.on_hosts(document(variant("pause")), "hostA", "hostB")
        new = self.on_hosts(scaled(document(variant("pause")), "acq_per_s", 0.9),
                            "hostA", "hostC")
        new = dict(new, variants=[dict(new["variants"][0],
                                       runs=base["variants"][0]["runs"],
                                       stats=base["variants"][0]["stats"]),
                                  new["variants"][1]])
        r = self.compare(base, new)
        self.assert_status(r, 0)
        self.assertEqual(len(self.verdicts(r, "acq/s")), 1, r.stdout)
        self.assertNotIn("worse", self.verdicts(r, "acq/s"))
        self.assertIn("only in BASE.json: hostB: kvm ticket pause", r.stdout)
        self.assertIn("only in NEW.json: hostC: kvm ticket pause", r.stdout)
        # asked: hostB's variant against hostC's, which is 10 % slower
        r = self.compare(base, new, "--any-host")
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "acq/s")[1:], ["worse"], r.stdout)

    def test_a_host_change_is_said_and_an_inferred_module_is_shown_as_inferred(self):
        base = document(variant("pause", acq=TIGHT))
        new = copy.deepcopy(base)
        new["host"]["kernel"] = "6.2.0"
        r = self.compare(base, new)
        self.assertIn("note: the files differ in kernel: a difference may come from the host",
                      r.stdout)
        # a remote host: its module was "unknown" before plerig inferred it, which is no
        # change of host; the inferred one says so wherever it is shown
        remote = {"name": "hostA", "connection": "qemu+ssh://***@hostA/system",
                  "kernel": "unknown", "kvm_module": "unknown"}
        base["host"].update(remote)
        new = copy.deepcopy(base)
        new["host"].update(kvm_module="kvm_intel", kvm_module_source=(
            "inferred from the host CPU's vmx flag; libvirt names no module"))
        assert_valid(self, new)
        out = os.path.join(self.tmp.name, "cmp.json")
        r = self.compare(base, new, "--json", out)
        self.assert_status(r, 0)
        self.assertNotIn("differ in", r.stderr + r.stdout)
        self.assertIn(", kvm_intel (inferred from the host CPU's vmx flag; libvirt names no "
                      "module), Test CPU", r.stderr + r.stdout)
        with open(out) as f:
            doc = json.load(f)
        self.assertNotIn("kvm_module_source", doc["base"])
        self.assertEqual(doc["new"]["kvm_module"], "kvm_intel")
        self.assertIn("vmx", doc["new"]["kvm_module_source"])

    def test_two_vendors_kvm_is_different_hardware_not_a_regression(self):
        # the same storm on Intel's and AMD's emulated hosts (emulated, emulated:amd): AMD's
        # stock pause filter count spins longer, fewer acquisitions; no regression of anything
        base = document(variant("pause"), variant("nop"))
        new = scaled(base, "acq_per_s", 0.2, variants=[0])
        new["host"].update(kvm_module="kvm_amd", cpu_model="AMD Ryzen 7 1700",
                           ple_params={"pause_filter_count": 3000, "pause_filter_thresh": 128})
        out = os.path.join(self.tmp.name, "cmp.json")
        r = self.compare(base, new, "--json", out)
        self.assert_status(r, 0)
        self.assertEqual(self.verdicts(r, "acq/s")[0], "worse")
        self.assertIn("note: different hardware: base ran kvm_intel, new kvm_amd: each verdict "
                      "says how the two differ", r.stdout)
        with open(out) as f:
            doc = json.load(f)
        self.assertTrue(doc["different_hardware"])
        self.assertEqual(doc["exit_status"], 0)
        # one vendor's module on both sides: a regression is one, as always
        r = self.compare(base, scaled(base, "acq_per_s", 0.2, variants=[0]), "--json", out)
        self.assert_status(r, 1)
        self.assertNotIn("different hardware", r.stdout)
        with open(out) as f:
            self.assertFalse(json.load(f)["different_hardware"])

    def test_nothing_in_common(self):
        r = self.compare(document(variant("pause")), document(variant("nop")))
        self.assert_bad_input(r, "no variant in common")

    def test_single_runs_are_untestable(self):
        one = document(variant("pause", acq=[1e6]))
        r = self.compare(one, one)
        self.assert_bad_input(r, "--repeat")
        self.assertIn("untestable", r.stdout)
        # untestable next to testable: shown, not counted
        mixed = document(variant("pause"), variant("nop", acq=[1e6]))
        r = self.compare(mixed, scaled(mixed, "acq_per_s", 0.9, variants=[1]))
        self.assert_status(r, 0)
        self.assertIn("untestable", r.stdout)

    def test_unmeasured_figures_are_missing_not_zero(self):
        # runs with no acquisition in their interval have no wait (null with the
        # reason, as plerig run writes them): compare leaves them out of the
        # wait metrics, so 0 ns never reads as 100 % better, and judges acq/s
        base = document(variant("pause", acq=TIGHT))
        new = copy.deepcopy(base)
        for r in new["variants"][0]["runs"]:
            for m in ("wait_p50_ns", "wait_p99_ns", "wait_max_ns", "wait_mean_ns"):
                r["summary"][m] = None
            r["summary"]["wait_unavailable"] = "no acquisition in the measured interval"
        refresh_stats(new["variants"][0])
        assert_valid(self, new)
        r = self.compare(base, new, "--json", "-", "--metric",
                         "acq_per_s,wait_p50_ns,wait_p99_ns,wait_max_ns")
        self.assert_status(r, 0)
        rows = {m["metric"]: m for v in json.loads(r.stdout)["variants"] for m in v["metrics"]}
        for m in ("wait_p50_ns", "wait_p99_ns", "wait_max_ns"):
            self.assertEqual(rows[m]["verdict"], "untestable", m)
            self.assertEqual(rows[m]["new"]["n"], 0, m)
        self.assertEqual(rows["acq_per_s"]["verdict"], "no significant change")

    def test_new_failures_are_a_regression(self):
        base = document(variant("pause"))
        new = document(variant("pause", failed=(1, 3)))
        r = self.compare(base, new)
        self.assert_status(r, 1)
        self.assertIn("2 of 5 runs failed", r.stdout)
        self.assertIn("guest exception", r.stdout)
        # the same failures on both sides are not news
        self.assert_status(self.compare(new, new), 0)

    # -- bad input ------------------------------------------------------------------

    def test_malformed_json(self):
        good = document(variant("pause"))
        r = self.compare(good, '{"schema": "plerig-results",\n "variants": [}')
        self.assert_bad_input(r, "NEW.json", "not JSON", "line 2")
        r = self.compare(json.dumps(good)[:200], good)
        self.assert_bad_input(r, "BASE.json", "not JSON")
        self.assert_bad_input(self.compare("", good), "BASE.json", "empty")
        self.assert_bad_input(self.compare(json.dumps(good) + "]", good), "BASE.json",
                              "not JSON")

    def test_wrong_schema(self):
        good = document(variant("pause"))
        r = self.compare(good, {"schema": "something-else", "variants": []})
        self.assert_bad_input(r, "NEW.json", "not a plerig results file")
        self.assert_bad_input(self.compare(good, [1, 2]), "NEW.json", "not a plerig results")
        old = copy.deepcopy(good)
        old["schema_version"] = 1
        self.assert_bad_input(self.compare(old, good), "BASE.json", "schema_version 1",
                              "--repeat")
        future = copy.deepcopy(good)
        future["schema_version"] = 3
        self.assert_bad_input(self.compare(good, future), "NEW.json", "schema_version 3")

    def test_structure_errors_say_where(self):
        good = document(variant("pause"), variant("nop"))
        bad = copy.deepcopy(good)
        del bad["variants"][1]["runs"][0]["summary"]["acq_per_s"]
        self.assert_bad_input(self.compare(bad, good),
                              "BASE.json: variants[1].runs[0].summary: missing acq_per_s")
        bad = copy.deepcopy(good)
        bad["variants"][0]["runs"][2]["summary"]["wait_p99_ns"] = "fast"
        self.assert_bad_input(self.compare(good, bad),
                              "NEW.json: variants[0].runs[2].summary: wait_p99_ns is a string")
        bad = copy.deepcopy(good)
        del bad["variants"][0]["relax"]
        self.assert_bad_input(self.compare(good, bad), "NEW.json: variants[0]: missing relax")
        bad = copy.deepcopy(good)
        bad["variants"][0]["vcpus"] = "2"
        self.assert_bad_input(self.compare(good, bad),
                              "variants[0]: vcpus is a string, not an integer")
        bad = copy.deepcopy(good)
        del bad["variants"]
        self.assert_bad_input(self.compare(good, bad), "NEW.json: missing variants")

    def test_command_line(self):
        r = plerig("compare", "--help")
        self.assert_status(r, 0)
        for opt in ("--threshold", "--metric", "--json", "Exit status"):
            self.assertIn(opt, r.stdout)
        self.assert_bad_input(plerig("compare"), "two results files")
        self.assert_bad_input(plerig("compare", "a.json"), "two results files")
        self.assert_bad_input(plerig("compare", "--frobnicate", "a", "b"), "--frobnicate")
        r = plerig("compare", "/nonexistent/a.json", "/nonexistent/b.json")
        self.assert_bad_input(r, "/nonexistent/a.json", "No such file")
        r = plerig("--help")
        self.assertIn("compare", r.stdout)

    # -- the JSON of the comparison ------------------------------------------------

    def test_json_output(self):
        base = document(variant("pause"), variant("nop"))
        new = scaled(base, "acq_per_s", 0.9, variants=[0])
        out = os.path.join(self.tmp.name, "cmp.json")
        r = self.compare(base, new, "--json", out)
        self.assert_status(r, 1)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-compare")
        self.assertEqual(doc["exit_status"], 1)
        self.assertEqual(doc["threshold_pct"], 2.0)
        self.assertEqual(len(doc["variants"]), 2)
        rows = {(v["relax"], m["metric"]): m for v in doc["variants"] for m in v["metrics"]}
        worse = rows[("pause", "acq_per_s")]
        self.assertEqual(worse["verdict"], "worse")
        self.assertTrue(worse["significant"])
        self.assertAlmostEqual(worse["delta_pct"], -10.0, places=6)
        self.assertLess(worse["ci95_low"], worse["delta"])
        self.assertLess(worse["delta"], worse["ci95_high"])
        self.assertLess(worse["ci95_high"], 0)
        self.assertEqual(worse["base"]["n"], 5)
        self.assertEqual(rows[("nop", "acq_per_s")]["verdict"], "too noisy to judge")
        self.assertEqual(doc["counts"]["too noisy to judge"], 1)
        self.assertEqual(doc["counts"]["worse"], 1)

        r = self.compare(base, new, "--json", "-")
        self.assert_status(r, 1)
        self.assertEqual(json.loads(r.stdout)["exit_status"], 1)
        self.assertIn("worse", r.stderr)  # the table, out of the way

    # -- real output of plerig run ---------------------------------------------------

    def test_real_results(self):
        path = os.path.join(self.tmp.name, "real.json")
        csv = os.path.join(self.tmp.name, "real.csv")
        r = plerig("run", "--backend", "native", "--vcpus", "2", "--relax", "pause,nop",
                   "--duration", "0.2", "--warmup", "0.05", "--repeat", "3", "--timeout", "60",
                   "--quiet", "--json", path, "--csv", csv)
        self.assert_status(r, 0)
        with open(path) as f:
            doc = json.load(f)
        assert_valid(self, doc)
        self.assertEqual(doc["repeat"], 3)
        self.assertEqual([len(v["runs"]) for v in doc["variants"]], [3, 3])
        with open(csv) as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 2 * 3 * 2 + 1)

        r = plerig("compare", path, path)
        self.assert_status(r, 0)
        self.assertIn("no significant change", r.stdout)

        # the real structure with values of a known spread: 10% fewer is worse
        for v in doc["variants"]:
            for k, run_ in enumerate(v["runs"]):
                run_["summary"]["acq_per_s"] = 1e6 * (1 + 0.01 * (k - 1))
        base = self.write("base.json", doc)
        new = self.write("new.json", scaled(doc, "acq_per_s", 0.9))
        r = plerig("compare", base, new)
        self.assert_status(r, 1)
        self.assertEqual(self.verdicts(r, "acq/s"), ["worse", "worse"])


if __name__ == "__main__":
    PLERIG, SCHEMA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)

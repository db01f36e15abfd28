#!/usr/bin/env python3
"""Every JSON plerig writes against its schema in docs/: `plerig compare
--json` (compare.schema.json, on the shared results file), `plerig sweep
--json` (sweep.schema.json, a real sweep against test_ple_cli's fake sysfs,
with --report drawn too), `plerig tune --json` (tune.schema.json, on the same
fake sysfs with shapes on host threads: an answer, and a budget too small)
and `plerig doctor --json` (doctor.schema.json).
Results files are checked by test_cli and test_compare against
results.schema.json.

usage: test_schemas.py PLERIG GUEST_ELF DOCS_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ple_cli  # noqa: E402  (its fake sysfs host, not its tests)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import shared_results  # noqa: E402

PLERIG = GUEST = DOCS = None


def validate(test, doc, schema_name):
    try:
        import jsonschema
    except ImportError:
        test.fail("python3-jsonschema is missing (scripts/setup installs it)")
    with open(os.path.join(DOCS, schema_name)) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(doc))
    test.assertFalse(errors, "\n".join(f"{list(e.absolute_path)}: {e.message}"
                                       for e in errors[:5]))


def plerig(*args, **kw):
    return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=300, **kw)


class Schemas(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plerig-schemas-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_compare(self):
        # the shared results file against its own 2-vCPU variants: the 4-vCPU
        # ones only in the base
        base = shared_results.get(PLERIG)
        with open(base) as f:
            doc = json.load(f)
        only_in_base = [v for v in doc["variants"] if v["vcpus"] == 4]
        doc["variants"] = [v for v in doc["variants"] if v["vcpus"] == 2]
        new = os.path.join(self.tmp, "new.json")
        with open(new, "w") as f:
            json.dump(doc, f)
        out = os.path.join(self.tmp, "cmp.json")
        r = plerig("compare", base, new, "--json", out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(out) as f:
            doc = json.load(f)
        validate(self, doc, "compare.schema.json")
        self.assertEqual(len(doc["only_in_base"]), len(only_in_base))

    def test_significant_is_what_the_schemas_say(self):
        """significant is p_holm < 0.05 in run's comparisons and compare's rows, and both
        schemas say so (results.schema.json once said p_value; compare's had no p_holm)."""
        path = os.path.join(self.tmp, "r.json")
        r = plerig("run", "--backend", "native", "--vcpus", "2", "--relax", "pause,nop",
                   "--repeat", "3", "--duration", "0.05", "--warmup", "0.01", "--quiet",
                   "--json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = plerig("compare", path, path, "--json", "-")
        self.assertIn(r.returncode, (0, 1, 2), r.stderr)
        with open(path) as f:
            rows = json.load(f)["comparisons"]
        rows += [m for v in json.loads(r.stdout)["variants"] for m in v["metrics"]]
        self.assertTrue(rows)
        for row in rows:
            self.assertEqual(row["significant"],
                             row["p_holm"] is not None and row["p_holm"] < 0.05, row)
        with open(os.path.join(DOCS, "results.schema.json")) as f:
            results = json.load(f)["definitions"]["comparison"]["properties"]
        self.assertIn("p_holm < 0.05", results["significant"]["description"])
        with open(os.path.join(DOCS, "compare.schema.json")) as f:
            row = json.load(f)["definitions"]["row"]
        self.assertIn("p_holm", row["required"])
        self.assertIn("p_holm < 0.05", row["properties"]["significant"]["description"])

    def test_histogram_buckets_are_what_the_schema_says(self):
        """A bucket [low, count] holds low .. low + width - 1 (8 sub-buckets per power of
        two); only non-empty buckets are listed, so the next listed low is no bound where
        a bucket between was empty (the schema once said it was the bound)."""
        path = os.path.join(self.tmp, "h.json")
        r = plerig("run", "--backend", "native", "--vcpus", "2", "--duration", "0.05",
                   "--warmup", "0.01", "--quiet", "--json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            doc = json.load(f)
        for v in doc["variants"]:
            for run in v["runs"]:
                for vm in run["vm_results"]:
                    for c in vm["vcpus"]:
                        lows = [low for low, _ in c["wait_histogram"]["buckets"]]
                        for low, nxt in zip(lows, lows[1:] + [None]):
                            width = 1 if low < 8 else 2 ** (low.bit_length() - 1 - 3)
                            self.assertEqual(low % width, 0, low)  # a bucket's low
                            if nxt is not None:
                                self.assertLessEqual(low + width, nxt)
        with open(os.path.join(DOCS, "results.schema.json")) as f:
            buckets = json.load(f)["definitions"]["histogram"]["properties"]["buckets"]
        self.assertIn("low .. low + width - 1", buckets["description"])

    def test_doctor(self):
        r = plerig("doctor", "--json")
        self.assertIn(r.returncode, (0, 1), r.stderr)
        validate(self, json.loads(r.stdout), "doctor.schema.json")

    @unittest.skipUnless(os.access("/dev/kvm", os.R_OK | os.W_OK), "no usable /dev/kvm")
    def test_sweep_and_its_report(self):
        host = test_ple_cli.FakeHost(mode=0o644)
        try:
            out = os.path.join(host.dir, "curve.json")
            html = os.path.join(host.dir, "curve.html")
            r = subprocess.run([PLERIG, "sweep", "--param", "ple_window=1024,65536", "--json",
                                out, "--report", html, "--", *test_ple_cli.RUN, "--repeat",
                                "2"], capture_output=True, text=True, timeout=300,
                               env=host.env)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                doc = json.load(f)
            validate(self, doc, "sweep.schema.json")
            for p in doc["points"]:
                self.assertIsNotNone(p["acq_per_s_stddev"], p)  # two runs: a spread
            with open(html) as f:
                text = f.read()
            self.assertIn('id="s0-acq_per_s"', text)
            self.assertIn("ple_window (log)", text)
            # what the sweep wrote, read back by plerig report
            again = os.path.join(host.dir, "again.html")
            r = plerig("report", out, "-o", again)
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            host.cleanup()


    def test_tune(self):
        host = test_ple_cli.FakeHost(mode=0o644)
        try:
            env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm")}
            shapes = ["--backend", "native", "--vcpus", "2", "--relax", "pause,nop",
                      "--duration", "0.03", "--warmup", "0.01", "--timeout", "60"]
            for visits, status in (("20", 0), ("2", 1)):  # an answer; nothing resolvable
                out = os.path.join(host.dir, "tune.json")
                r = subprocess.run([PLERIG, "tune", "--max-visits", visits, "-q", "--json", out,
                                    "--", *shapes], capture_output=True, text=True,
                                   timeout=300, env=env)
                self.assertEqual(r.returncode, status, r.stdout + r.stderr)
                with open(out) as f:
                    doc = json.load(f)
                validate(self, doc, "tune.schema.json")
                self.assertEqual(len(doc["shapes"]), 2)
                self.assertEqual(doc["resolved"], status == 0)
                self.assertEqual(len(doc["visits"]), int(visits))
        finally:
            host.cleanup()


if __name__ == "__main__":
    PLERIG, GUEST, DOCS = (os.path.abspath(a) for a in sys.argv[1:4])
    test_ple_cli.PLERIG, test_ple_cli.GUEST = PLERIG, GUEST
    unittest.main(argv=sys.argv[:1], verbosity=2)

#!/usr/bin/env python3
"""Text from outside as every human-readable writer shows it. A results file, a
host name, a URI or a kernel string is not plerig's: in the HTML report a
string must stay text (no tag, attribute or CDATA of its own), and on a
terminal, in CSV, TAP and JUnit a control character (ESC, BEL, C1's CSI
U+009B) must be shown, never sent (util/printable.h: \\xHH).

- report: a results file of two hosts with comparisons, every string in it
  hostile (<script>, <img onerror>, quotes, ]]>, control bytes), each marked so
  that the test sees it was shown, and shown as text;
- run (table, stderr, CSV), check (summary, TAP, JUnit): a --connect URI whose
  host has ESC, BEL and U+009B (libvirt's test driver and an unreachable host:
  no VM, no KVM);
- compare: two results files whose kernel, CPU model and errors have them;
- doctor: a PLE parameter's value with them (a fake sysfs).

usage: test_hostile_text.py PLERIG
"""
import copy
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from hostile import (CONTROLS, CONTROLS_SHOWN, RAW, SHORT_CONTROLS,  # noqa: E402
                     SHORT_SHOWN, poison, shown)

PLERIG = None
TMP = None
RESULTS = None

def plerig(*args, **kw):
    return subprocess.run([PLERIG, *args], capture_output=True, timeout=300, **kw)


def setUpModule():
    global TMP, RESULTS
    TMP = tempfile.mkdtemp(prefix="plerig-hostile-")
    # a cleanup, not tearDownModule: unittest skips that when setUpModule fails
    unittest.addModuleCleanup(shutil.rmtree, TMP, ignore_errors=True)
    RESULTS = os.path.join(TMP, "native.json")
    r = plerig("run", "--backend", "native", "--vcpus", "2", "--pcpus", "0-1", "--relax",
               "pause,nop", "--duration", "0.1", "--warmup", "0.02", "--repeat", "2", "--quiet",
               "--json", RESULTS)
    assert r.returncode == 0, r.stderr.decode(errors="replace")


def load():
    with open(RESULTS) as f:
        return json.load(f)


class Markup(html.parser.HTMLParser):
    """Every tag and attribute of a page, as a browser's tokenizer splits it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = set(), set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.text.append(data)

    def unknown_decl(self, data):  # <![CDATA[ ... ]]> in foreign content
        raise AssertionError(f"a declaration in the page: {data[:80]}")


def markup(text):
    p = Markup()
    p.feed(text)
    p.close()
    return p


class Report(unittest.TestCase):
    """Item 1 of issue 25: comparisons[].verdict went into the page as markup."""

    @classmethod
    def setUpClass(cls):
        one = load()
        cls.marks = {}
        doc = cls.two_hosts(one)
        poison(doc, cls.marks, cls.KEEP, cls.IDENTITY, {"ple_params"})
        cls.path = os.path.join(TMP, "hostile.json")
        with open(cls.path, "w") as f:
            json.dump(doc, f)
        cls.html = os.path.join(TMP, "hostile.html")
        cls.result = plerig("report", cls.path, RESULTS, "-o", cls.html)
        with open(cls.html, "rb") as f:
            cls.raw = f.read()
        cls.text = cls.raw.decode("utf-8")
        # the same hosts and comparisons with plerig's own strings: the markup to expect
        benign = os.path.join(TMP, "benign.json")
        with open(benign, "w") as f:
            json.dump(cls.two_hosts(one), f)
        clean = os.path.join(TMP, "clean.html")
        r = plerig("report", benign, RESULTS, "-o", clean)
        assert r.returncode == 0, r.stderr
        with open(clean) as f:
            cls.clean = markup(f.read())

    @staticmethod
    def two_hosts(one):
        """@one's variants and comparisons once per host of --connect A,B, with a
        failed run and an unavailable rate: every string the report can show."""
        doc = copy.deepcopy(one)
        doc["hosts"] = [dict(one["host"], name="A", label="A", connection="qemu+ssh://a/system",
                             kvm_module_source="inferred", hypervisor="QEMU 7.2",
                             error=None),
                        dict(one["host"], name="B", label="B", connection="qemu+ssh://b/system",
                             hypervisor="QEMU 7.2", error="connecting to b: refused")]
        doc["variants"], doc["comparisons"] = [], []
        n = len(one["variants"])
        for h, name in enumerate(("A", "B")):
            for v in one["variants"]:
                mine = dict(copy.deepcopy(v), host=name)
                if h == 1:  # a failed run, and ok runs without a rate
                    mine["runs"][0] = dict(mine["runs"][0], ok=False, error="run failed")
                    mine["runs"][1]["summary"]["acq_per_s"] = None
                    mine["runs"][1]["summary"]["rate_unavailable"] = "no interval"
                    mine["stats"]["acq_per_s"]["mean"] = None
                doc["variants"].append(mine)
            for c in one["comparisons"]:
                doc["comparisons"].append(dict(copy.deepcopy(c), baseline=c["baseline"] + h * n,
                                               candidate=c["candidate"] + h * n,
                                               verdict="worse" if h else "better"))
        doc["host"]["ple_params"] = {"ple_window": "4096"}
        return doc

    # structure the reader checks, or that chooses what is drawn: kept as it is
    KEEP = {"schema", "metric", "better", "test", "unit"}
    IDENTITY = {"backend", "lock", "relax", "ring", "pcpus", "pin", "ple"}

    def test_report_written(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertGreater(len(self.marks), 50)

    def test_no_markup_from_the_file(self):
        for raw in ("<script", "<img", "onerror=alert(1)>", "onmouseover=\"", "]]>", "' on"):
            self.assertNotIn(raw, self.text, raw)
        page = markup(self.text)
        # the same elements and attributes as the report of a file plerig wrote
        self.assertEqual(page.tags - self.clean.tags, set())
        self.assertEqual(page.attrs - self.clean.attrs, set())
        self.assertFalse([a for a in page.attrs if a.startswith("on")])

    def test_no_control_bytes(self):
        for raw in RAW:
            self.assertNotIn(raw, self.raw, raw)
        for b in self.raw:
            self.assertTrue(b >= 0x20 or b == 0x0a, hex(b))

    def test_fields_shown_as_text(self):
        """What each part of the page shows of the file, escaped: the verdicts of
        Hosts side by side, the host tables, the labels and marks of the charts."""
        by_path = {where: mark for mark, where in self.marks.items()}
        wanted = ["comparisons.0.verdict", "command_line", "plerig_version", "hosts.0.name", "hosts.0.connection", "hosts.0.cpu_model",
                  "hosts.0.kernel", "hosts.0.kvm_module", "hosts.0.hypervisor", "hosts.1.error",
                  "variants.0.host", "variants.0.backend", "variants.0.lock",
                  "variants.0.relax",
                  "variants.2.runs.0.error", "variants.2.runs.1.summary.rate_unavailable"]
        for where in wanted:
            with self.subTest(where):
                self.assertIn(where, by_path, sorted(by_path)[:40])
                short = where.split(".")[-1] in self.IDENTITY
                self.assertTrue(shown(by_path[where], short) in self.text, where)

    def test_verdict_in_hosts_side_by_side(self):
        section = self.text[self.text.index("Hosts side by side"):]
        section = section[:section.index("</table>")]
        mark = {w: m for m, w in self.marks.items()}["comparisons.0.verdict"]
        self.assertTrue(f"<i>{shown(mark)}</i>" in section, section[:2000])


def assert_shown_not_sent(test, data, what):
    for raw in RAW:
        test.assertNotIn(raw, data, f"{what}: {raw!r} sent")


class Terminal(unittest.TestCase):
    """Item 8 of issue 25: control bytes reached the terminal and CSV."""

    HOST = "x" + CONTROLS + "y"
    ESCAPED = ("x" + CONTROLS_SHOWN + "y").encode()
    URI = f"qemu+ssh://{HOST}/system?command=/bin/false"

    def test_run_table_stderr_and_csv(self):
        csv = os.path.join(TMP, "run.csv")
        r = plerig("run", "--connect", "test:///default," + self.URI, "--backend", "libvirt",
                   "--accel", "tcg", "--relax", "pause", "--vcpus", "2", "--duration", "0.1",
                   "--warmup", "0.02", "--csv", csv)
        if b"test" in r.stderr and b"no connection driver" in r.stderr:
            self.skipTest("libvirt without its test driver")
        with open(csv, "rb") as f:
            data = f.read()
        for what, out in (("table", r.stdout), ("stderr", r.stderr), ("CSV", data)):
            assert_shown_not_sent(self, out, what)
            self.assertIn(self.ESCAPED, out, what)
        # one row per line: the host's name breaks no row of the CSV
        rows = data.decode().splitlines()
        self.assertTrue(all(row.count(",") >= rows[0].count(",") for row in rows), data)

    def test_check_summary_tap_and_junit(self):
        tap, junit = os.path.join(TMP, "c.tap"), os.path.join(TMP, "c.xml")
        r = plerig("check", "--connect", self.URI, "--tap", tap, "--junit", junit)
        self.assertEqual(r.returncode, 1, r.stderr)
        for what, path in (("TAP", tap), ("JUnit", junit)):
            with open(path, "rb") as f:
                data = f.read()
            assert_shown_not_sent(self, data, what)
            self.assertIn(self.ESCAPED, data, what)
        for what, out in (("summary", r.stdout), ("stderr", r.stderr)):
            assert_shown_not_sent(self, out, what)
        self.assertIn(b"; host " + self.ESCAPED + b" (qemu+ssh://" + self.ESCAPED, r.stdout)

    def test_compare(self):
        paths = []
        for name in ("a", "b"):
            doc = load()
            doc["host"]["kernel"] = "6.1" + CONTROLS
            doc["host"]["cpu_model"] = "EPYC" + CONTROLS
            doc["variants"][0]["runs"][0] = dict(doc["variants"][0]["runs"][0], ok=False,
                                                 error="failed" + CONTROLS)
            paths.append(os.path.join(TMP, name + CONTROLS.replace("/", "") + ".json"))
            with open(paths[-1], "w") as f:
                json.dump(doc, f)
        r = plerig("compare", *paths)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        for what, out in (("table", r.stdout), ("stderr", r.stderr)):
            assert_shown_not_sent(self, out, what)
        for text in ("kernel 6.1", "EPYC", "failed"):
            self.assertIn(text.encode() + CONTROLS_SHOWN.encode(), r.stdout, text)

    def test_doctor(self):
        root = tempfile.mkdtemp(dir=TMP)
        params = os.path.join(root, "module", "kvm_intel", "parameters")
        os.makedirs(params)
        os.makedirs(os.path.join(root, "module", "kvm", "parameters"))
        for name, value in (("ple_gap", "128"), ("ple_window", "4096" + SHORT_CONTROLS)):
            with open(os.path.join(params, name), "w") as f:
                f.write(value + "\n")
        r = plerig("doctor", env={**os.environ, "PLERIG_SYSFS_ROOT": root})
        for what, out in (("doctor", r.stdout), ("stderr", r.stderr)):
            assert_shown_not_sent(self, out, what)
        self.assertIn(b"4096" + SHORT_SHOWN.encode(), r.stdout)


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

#!/usr/bin/env python3
"""`plerig report` of a `plerig tune --json` file, as a browser shows it: a real
tune (two shapes on host threads, test_ple_cli's fake kvm_intel: no VM, no
KVM, any machine) drawn to HTML, loaded by headless Chromium, screenshot not
blank, the DOM holding the recommendation table and the cost curves with each
shape's best value marked and its flat range shaded; per-VM PLE off and the
value 0 as reference lines; every string of the file hostile and shown as
text; values the log axis cannot take refused with one line and no report.

usage: test_tune_report.py PLERIG GUEST_ELF
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import browser  # noqa: E402
import test_hostile_text  # noqa: E402  (its hostile strings and HTML tokenizer, not its tests)
import test_ple_cli  # noqa: E402  (its fake sysfs host, not its tests)
from hostile import RAW, poison, shown  # noqa: E402
from test_hostile_text import markup  # noqa: E402

PLERIG = GUEST = TMP = TUNE = TUNE_PAGE = None
FIGURES = ["wait_p99_ns", "holder_preemptions_per_s"]  # what host threads measure


def plerig(*args):
    return subprocess.run([PLERIG, *args], capture_output=True, timeout=300)


def setUpModule():
    global TMP, TUNE, TUNE_PAGE
    TMP = tempfile.mkdtemp(prefix="plerig-tune-report-")
    # a cleanup, not tearDownModule: unittest skips that when setUpModule fails
    unittest.addModuleCleanup(shutil.rmtree, TMP, ignore_errors=True)
    host = test_ple_cli.FakeHost()
    try:
        TUNE, TUNE_PAGE = os.path.join(TMP, "tune.json"), os.path.join(TMP, "tune-report.html")
        env = {**host.env, "PLERIG_KVM_DEVICE": os.path.join(host.dir, "no-kvm")}
        # two shapes (2 and 3 threads on one CPU), two rounds of the first grid
        r = subprocess.run([PLERIG, "tune", "--max-visits", "14", "-q", "--json", TUNE,
                            "--report", TUNE_PAGE, "--",
                            "--backend", "native", "--vcpus", "2,3", "--pcpus", "0",
                            "--relax", "pause", "--duration", "0.03", "--warmup", "0.01",
                            "--timeout", "60"], capture_output=True, text=True, timeout=300,
                           env=env)
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        host.cleanup()


def load():
    with open(TUNE) as f:
        return json.load(f)


def write(doc, name):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def report(doc, name):
    """The page of @doc, as text (and the raw bytes)."""
    html = os.path.join(TMP, name + ".html")
    r = plerig("report", write(doc, name + ".json"), "-o", html)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    with open(html, "rb") as f:
        raw = f.read()
    return html, raw.decode(), raw


def with_references(doc):
    """@doc with shape 1's first point as per-VM PLE off and its second as the value 0
    (what a KVM host and halt_poll_ns give; host threads have neither)."""
    doc = copy.deepcopy(doc)
    curve = doc["shapes"][0]["curve"]
    off, zero = copy.deepcopy(curve[0]), copy.deepcopy(curve[1])
    off.update(value=None, roles=["ple_off"])
    zero.update(value=0, roles=["zero"])
    # each a figure to draw: on a loaded host a 0.03 s visit can end with no acquisition
    # and so no wait percentile (seen: wait_p99_ns null at the point copied), and a
    # value whose visits split by regime has no figure at all, the objective's included
    for point in (off, zero):
        for cell in [point["objective"]] + [point["figures"][f] for f in FIGURES]:
            if cell.get("mean") is None:
                cell.update(n=2, mean=1000.0, ci95_low=900.0, ci95_high=1100.0)
    curve += [off, zero]
    # and per-VM PLE off measured worse than the best window (its gain over the best < 0)
    s = doc["shapes"][0]
    s["ple_off"] = dict(gain_pct=-98.7, ci95_low=-101.0, ci95_high=-96.4, p=0.001, n_a=2, n_b=2,
                        exact=False, untested_why=None, value=None, claim="loss", p_holm=0.002,
                        from_confirmation=True)
    return doc


def chart(text, chart_id):
    """The <figure> of the chart @chart_id."""
    start = text.index(f'id="{chart_id}"')
    return text[start:text.index("</figure>", start)]


class Page(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = with_references(load())
        cls.html, cls.text, _ = report(cls.doc, "tune")

    def test_recommendation_table(self):
        table = self.text[self.text.index("Recommendation per shape"):]
        table = table[:table.index("</table>")]
        rows = table.split("<tr>")[2:]
        # a shape's extra rows: too noisy, its edge, and visits left out as another
        # regime (host threads on a busy machine can split a value's visits)
        self.assertEqual(len(rows), len(self.doc["shapes"]) + sum(
            s["too_noisy"] + bool(s.get("edge")) + bool((s.get("regimes") or {}).get("split"))
            for s in self.doc["shapes"]), table)
        for s in self.doc["shapes"]:
            if s.get("edge"):
                # the note after its range (which holds "tune's", escaped)
                self.assertIn(s["edge"]["note"].split("): ", 1)[1], table)
        for k, s in enumerate(self.doc["shapes"]):
            row = next(r for r in rows if r.startswith(f"<td>S{k + 1}: "))
            self.assertIn(s["label"], row)
            if not s["resolved"]:
                self.assertIn("not resolved: ", row)
                continue
            # with its unit: a window of cycles (kvm_amd's count says PAUSEs)
            self.assertIn(f"<b>ple_window={s['best']}</b> TSC cycles", row)
            # every comparison with its gain and 95 % CI, or the best itself
            for cmp in ("vs_current", "vs_default"):
                c = s[cmp]
                if c["claim"] == "same":
                    self.assertIn("the best value itself", row)
                elif c["gain_pct"] is None:  # no test: n/a, with why where the file says
                    self.assertIn(f"against {c['value']}: n/a", row)
                else:
                    self.assertIn(f"against {c['value']}: {c['gain_pct']:+.1f} %", row)
            if s.get("flat_everywhere"):  # a flat curve (host threads can give one)
                self.assertIn("everywhere: every value tried is within", row)
            else:
                for f in s["flat"]:
                    self.assertIn(f"{f['low']}..{f['high']}", row)
            if s["ple_off"]:  # PLE off's own words, not the best's against a value
                self.assertIn("-98.7 % [-101.0, -96.4]: <b>keep PAUSE exits on, with the best "
                              "window</b> (p 0.002 after Holm)", row)
        self.assertIn("tolerance", self.text)
        self.assertIn("parameters after", self.text)

    def test_curves_mark_the_best_and_shade_the_flat_range(self):
        for fig in ["objective"] + FIGURES:
            svg = chart(self.text, "t0-" + fig)
            for k, s in enumerate(self.doc["shapes"]):
                if s["best"] is not None:
                    self.assertIn(f">S{k + 1} best {s['best']}</text>", svg, fig)
            # one shaded rectangle per flat range of every shape, each labelled
            flats = sum(len(s["flat"]) for s in self.doc["shapes"])
            self.assertEqual(svg.count('class="span"'), flats, fig)
            self.assertEqual(len(re.findall(r">S\d+ flat</text>", svg)), flats, fig)
            self.assertEqual(svg.count('class="vline"'),
                             sum(s["best"] is not None for s in self.doc["shapes"]), fig)
            # a line per shape through its values (> 0), in the legend by name
            self.assertEqual(svg.count('class="series"'), len(self.doc["shapes"]), fig)
            # per-VM PLE off and the value 0: reference lines, not points at the axis's end
            self.assertEqual(svg.count('class="hline"'), 2, fig)
            self.assertIn(">S1 PLE off per VM</text>", svg)
            self.assertIn(">S1 ple_window=0</text>", svg)
        # what host threads do not measure is named, not drawn empty
        self.assertIn("Not drawn, no visit measured it: PAUSE-loop exits", self.text)
        self.assertNotIn('id="t0-ple_exits_per_s"', self.text)
        self.assertNotIn('id="t0-acq_per_s"', self.text)  # it is the objective

    def test_kvm_amds_count_is_in_pauses(self):
        """A tune of kvm_amd's pause_filter_count: its best says PAUSEs, not cycles (the
        page of this file with the parameter renamed, as a kvm_amd host writes it)."""
        doc = copy.deepcopy(self.doc)
        doc["param"].update(name="pause_filter_count", module="kvm_amd", unit="PAUSEs")
        _, text, _ = report(doc, "amd")
        self.assertIn("pause_filter_count of kvm_amd, in PAUSEs", text)
        for s in doc["shapes"]:
            if s["resolved"] and s["best"] is not None:
                self.assertIn(f"<b>pause_filter_count={s['best']}</b> PAUSEs", text)
        self.assertNotIn("</b> TSC cycles", text)

    def test_tune_report_option(self):
        """plerig tune --report: the same section, then the visits as a sweep draws them."""
        with open(TUNE_PAGE) as f:
            page = f.read()
        self.assertIn('<section id="tune-0"><h2>Tune: this tune</h2>', page)
        self.assertIn('<section id="sweep-1">', page)
        self.assertIn('id="t0-objective"', page)
        self.assertIn('id="s1-acq_per_s"', page)

    def test_no_results_host_sections(self):
        # a tune file is no results file: no side-by-side hosts, no variant charts
        self.assertNotIn("Hosts side by side", self.text)
        self.assertNotIn('id="r0-', self.text)

    def test_dom_in_chromium(self):
        if not browser.chromium():
            self.skipTest("no chromium (scripts/setup installs it)")
        dom = browser.browse(self.html, TMP, "--dump-dom")
        for i in ["tune-0", "t0-objective"] + ["t0-" + f for f in FIGURES]:
            self.assertIn(f'id="{i}"', dom, i)
        for label in ("Recommendation per shape", "Cost curves", "S1 best ", "S2 best ",
                      "S1 flat", "S1 PLE off per VM", "ple_window (log)",
                      "95 % confidence interval of the mean", "parameters before"):
            self.assertIn(label, dom, label)

    def test_screenshot_not_blank(self):
        if not browser.chromium():
            self.skipTest("no chromium (scripts/setup installs it)")
        browser.assert_screenshot_not_blank(self, self.html, TMP)


class Hostile(unittest.TestCase):
    """Every string of a tune file is the file's: text in the page, never markup."""

    KEEP = {"schema"}

    @classmethod
    def setUpClass(cls):
        doc, cls.marks = with_references(load()), {}
        _, cls.clean, _ = report(doc, "clean")
        poison(doc, cls.marks, cls.KEEP)
        _, cls.text, cls.raw = report(doc, "hostile")

    def test_no_markup_from_the_file(self):
        self.assertGreater(len(self.marks), 30)
        for raw in ("<script", "<img", "onerror=alert(1)>", "onmouseover=\"", "]]>", "' on"):
            self.assertNotIn(raw, self.text, raw)
        page, clean = markup(self.text), markup(self.clean)
        self.assertEqual(page.tags - clean.tags, set())
        self.assertEqual(page.attrs - clean.attrs, set())
        for raw in RAW:
            self.assertNotIn(raw, self.raw, raw)

    def test_fields_shown_as_text(self):
        by_path = {where: mark for mark, where in self.marks.items()}
        always = ["param.name", "param.why", "objective", "shapes.0.label", "shapes.0.note",
                  "provenance.command_line", "provenance.params_after", "ple_off_unavailable"]
        # there when the tune resolved a shape and chose a value for the mix (keep_why: to keep)
        resolved = ["shapes.0.vs_default.claim", "apply.qemu_ple_off", "apply.keep_why"]
        for where in always + [w for w in resolved if w in by_path]:
            with self.subTest(where):
                self.assertIn(where, by_path)
                self.assertIn(shown(by_path[where]), self.text, where)


class Refused(unittest.TestCase):
    def test_values_the_axis_cannot_take(self):
        html = os.path.join(TMP, "never.html")
        for where, bad in (("shapes[0].curve[0].value", 1e308), ("shapes[0].curve[0].value", -1),
                           ("shapes[0].curve[0].value", "4096"), ("shapes[0].best", 1.5),
                           ("shapes[0].flat[0].low", 4294967296)):
            doc = load()
            s = doc["shapes"][0]
            if where.endswith("curve[0].value"):
                s["curve"][0]["value"] = bad
            elif where.endswith("best"):
                s["best"] = bad
            else:
                s["flat"] = [{"low": bad, "high": 1024, "has_best": True}]
            r = plerig("report", write(doc, "bad.json"), "-o", html)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, (bad, err))
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn(f"{where} is not a parameter value", err)
            self.assertFalse(os.path.exists(html))
        doc = load()
        doc["schema_version"] = 2
        r = plerig("report", write(doc, "v2.json"), "-o", html)
        self.assertEqual(r.returncode, 2)
        self.assertIn("schema_version is not 1", r.stderr.decode())


if __name__ == "__main__":
    PLERIG, GUEST = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    test_ple_cli.PLERIG, test_ple_cli.GUEST = PLERIG, GUEST
    test_hostile_text.PLERIG = PLERIG
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[3:]])

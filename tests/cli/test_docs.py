#!/usr/bin/env python3
"""The documentation holds together: README.md is the front door and
docs/*.md the subjects, the man pages (made from --help, held to it by
test_install) the option reference. Here: every command plerig lists has
a paragraph in README.md that links its man page, every relative link and
anchor in README.md and docs/*.md leads somewhere, the README stays a
front door (at most about 250 lines), and the counts the documents give of
the tree are its counts: the tests `make test` runs (meson's introspection
of this build), the scenarios of each suite a document says "has N
scenarios" of.

usage: test_docs.py PLERIG SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import unittest

PLERIG = ROOT = None
LINK = re.compile(r"\]\(([^)\s]+)\)")
# "`suites/ple.cfg`, which has 9 scenarios": within one sentence
SUITE_COUNT = re.compile(r"`suites/([\w-]+)\.cfg`[^.]*?\bhas (\d+) scenarios")
MAKE_TEST_COUNT = re.compile(r"`make test` runs (\d+) tests")
MAKE_TEST_LINE = re.compile(r"`tests: (\d+) passed, (\d+) failed, (\d+) skipped`")
HEADING = re.compile(r"^#+ (.*)$", re.M)


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def documents():
    yield os.path.join(ROOT, "README.md")
    docs = os.path.join(ROOT, "docs")
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md"):
            yield os.path.join(docs, name)


def commands():
    r = subprocess.run([PLERIG, "help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    block = r.stdout.split("commands:", 1)[1].split("\n\n", 1)[0]
    return [l.split()[0] for l in block.splitlines()
            if l.startswith("  ") and l.split()[0] not in ("help", "version")]


def make_test_count():
    """How many tests `make test` runs (scripts/run-tests: every suite but
    'slow'), as meson's introspection of the build plerig was built in
    lists them; None where there is none (an installed plerig)."""
    intro = os.path.join(os.path.dirname(PLERIG), "meson-info", "intro-tests.json")
    if not os.path.exists(intro):
        return None
    with open(intro) as f:
        tests = json.load(f)
    return sum(1 for t in tests if not any(s.split(":")[-1] == "slow" for s in t["suite"]))


def scenario_count(suite):
    """The scenarios of a suite file: its sections but [defaults] and [suite]."""
    with open(os.path.join(ROOT, "suites", suite + ".cfg")) as f:
        sections = re.findall(r"^\[([^\]]+)\]", f.read(), re.M)
    return sum(1 for s in sections if s not in ("defaults", "suite"))


def judged_metrics(suite):
    """{metric: {scenario, ...}} of a suite file: each scenario's `metrics =`
    ([defaults]' where it names none; `none`: nothing judged)."""
    import configparser
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(os.path.join(ROOT, "suites", suite + ".cfg"))
    default = cfg.get("defaults", "metrics", fallback="")
    judged = {}
    for name in cfg.sections():
        if name in ("defaults", "suite"):
            continue
        for m in re.split(r"[,\s]+", cfg.get(name, "metrics", fallback=default).strip()):
            if m and m != "none":
                judged.setdefault(m, set()).add(name)
    return judged


def table_of_judged(text, header):
    """{metric: {scenario, ...}} of the Markdown table under @header: each row's
    metrics in backquotes in its first cell, its scenarios (remarks in
    parentheses dropped) in its last."""
    rows = text.split(header, 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    table = {}
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        scenarios = re.sub(r"\([^)]*\)", "", cells[-1])
        for m in re.findall(r"`([a-z_0-9]+)`", cells[0]):
            table.setdefault(m, set()).update(x.strip() for x in scenarios.split(",") if x.strip())
    return table


def flat(text):
    """@text with its lines joined: a sentence of Markdown spans lines."""
    return re.sub(r"\s+", " ", text)


class Docs(unittest.TestCase):
    def test_every_command_has_a_paragraph_and_its_man_page(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        found = commands()
        self.assertGreaterEqual(len(found), 6, f"commands parsed from plerig help: {found}")
        for cmd in found:
            page = f"docs/man/plerig-{cmd}.1"
            self.assertTrue(os.path.exists(os.path.join(ROOT, page)), f"{page} is missing")
            self.assertIn(f"({page})", readme, f"README.md does not link {page}")

    def test_links_lead_somewhere(self):
        broken = []
        for doc in documents():
            with open(doc) as f:
                text = f.read()
            for target in LINK.findall(text):
                if re.match(r"^[a-z]+:", target):
                    continue  # an URL: not followed, no traffic leaves the machine
                path, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                if not os.path.exists(dest):
                    broken.append(f"{os.path.relpath(doc, ROOT)}: {target}: no such file")
                    continue
                if frag and dest.endswith(".md"):
                    with open(dest) as f:
                        anchors = {anchor(h) for h in HEADING.findall(f.read())}
                    if frag not in anchors:
                        broken.append(f"{os.path.relpath(doc, ROOT)}: {target}: no such heading")
        self.assertFalse(broken, "\n".join(broken))

    def test_readme_is_a_front_door(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            n = sum(1 for _ in f)
        self.assertLessEqual(n, 260, f"README.md has {n} lines: move the detail into docs/")


class Glossary(unittest.TestCase):
    """Item 15 of issue 25: one word, one meaning; the old spellings still work."""

    def test_glossary_is_linked_and_names_each_word(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            self.assertIn("(docs/glossary.md)", f.read())
        with open(os.path.join(ROOT, "docs", "glossary.md")) as f:
            text = f.read()
        for word in ("baseline", "reference", "host", "connection", "suite", "gate",
                     "verdict", "check", "finding"):
            self.assertIn(f"| **{word}** |", text, word)

    def test_the_code_calls_the_reference_a_reference(self):
        """A run's compared-with variant is not check's baseline in the C code either."""
        old = re.compile(r"\b(baseline_axis|parse_baseline|baseline_describe|baseline_resolve"
                         r"|BASELINE_(AUTO|BACKEND|LOCK|RELAX|VCPUS|PLE))\b"
                         r"|(?<![\w>.-])(c|cmp|comparison|rep)(->|\.)baseline\b"
                         r"|another's baseline|bar\\?\.?\s?baseline\b")
        found = []
        for top in ("host", "tests", "fuzz"):
            for d, _, names in os.walk(os.path.join(ROOT, top)):
                for name in names:
                    if name.endswith((".c", ".h")):
                        path = os.path.join(d, name)
                        with open(path, errors="replace") as f:
                            for no, line in enumerate(f, 1):
                                if old.search(line):
                                    found.append(f"{os.path.relpath(path, ROOT)}:{no}: "
                                                 f"{line.strip()}")
        self.assertFalse(found, "the reference's old name in code (docs/glossary.md):\n"
                         + "\n".join(found))

    def test_make_ple_test_asserts_and_only_plerig_checks(self):
        """make ple-test's judgements of a run are assertions (tests/ple/assert-results,
        "N of N assertions passed"): "check" is the command's word alone."""
        old = re.compile(r"check-results|\bof \d+ checks\b|checks? passed|every check\b"
                         r"|failed check\b|cross-checks?\b|trace checks?\b|class Checks\b"
                         r"|\bc\.check\(|checks around the gate")
        paths = list(documents()) + [os.path.join(ROOT, p) for p in (
            "Makefile", ".ci/run", "scripts/ple-test", "tests/meson.build")]
        for top in ("tests/ple", "images/l1", "host"):
            for d, _, names in os.walk(os.path.join(ROOT, top)):
                paths += [os.path.join(d, n) for n in names]
        found = []
        for path in paths:
            with open(path, errors="replace") as f:
                for no, line in enumerate(f, 1):
                    if old.search(line):
                        found.append(f"{os.path.relpath(path, ROOT)}:{no}: {line.strip()}")
        self.assertFalse(found, "make ple-test's assertions called checks (docs/glossary.md):\n"
                         + "\n".join(found))
        self.assertTrue(os.path.exists(os.path.join(ROOT, "tests/ple/assert-results")))

    def test_new_words_in_help_and_old_ones_accepted(self):
        run = subprocess.run([PLERIG, "run", "--help"], capture_output=True, text=True)
        self.assertIn("--reference AXIS=VALUE", run.stdout)
        self.assertIn("(--baseline, its old name, is still accepted)", flat(run.stdout))
        self.assertIn("(default: kept)", flat(run.stdout))
        self.assertNotIn("no-virtualisation baseline", flat(run.stdout))
        self.assertIn("--connect LIST the connections, each to a host:", flat(run.stdout))
        report = subprocess.run([PLERIG, "report", "--help"], capture_output=True, text=True)
        self.assertIn("with the reference and", flat(report.stdout))
        self.assertNotIn("baseline", report.stdout)
        check = subprocess.run([PLERIG, "check", "--help"], capture_output=True, text=True)
        self.assertNotRegex(check.stdout, r"self-check|the checks")
        doctor = subprocess.run([PLERIG, "doctor", "--help"], capture_output=True, text=True)
        self.assertIn("One finding per line", flat(doctor.stdout))
        self.assertNotIn("verdict", doctor.stdout)
        for old in ("--baseline", "--reference"):
            r = subprocess.run([PLERIG, "run", old, "relax=x"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--reference: 'x' is not a value of relax", r.stderr)

    def test_make_vm_test_takes_test_groups_and_the_old_name(self):
        for var in ("VM_TEST_GROUPS", "VM_TEST_SUITES"):
            r = subprocess.run(["make", "-n", "-C", ROOT, "vm-test", f"{var}=slow",
                                "BUILD=build-x"], capture_output=True, text=True)
            if r.returncode != 0 and "No such file" in r.stderr:
                self.skipTest("no make")
            self.assertIn("scripts/vm-test build-x slow", r.stdout, (var, r.stderr))


class Counts(unittest.TestCase):
    def test_make_test_count_is_the_suites(self):
        n = make_test_count()
        if n is None:
            self.skipTest("no meson-info beside plerig: not a build tree")
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = flat(f.read())
        said = MAKE_TEST_COUNT.findall(readme)
        self.assertTrue(said, "README.md says nowhere \"`make test` runs N tests\"")
        for count in said:
            self.assertEqual(int(count), n, f"README.md: `make test` runs {count} tests, "
                             f"but tests/meson.build gives it {n} (every suite but slow)")
        for line in MAKE_TEST_LINE.findall(readme):
            self.assertEqual(sum(map(int, line)), n,
                             f"README.md: `tests: {line[0]} passed, {line[1]} failed, "
                             f"{line[2]} skipped` is not the {n} tests make test runs")

    def test_scenario_counts_are_the_suites(self):
        said = {}
        for doc in documents():
            with open(doc) as f:
                for suite, count in SUITE_COUNT.findall(flat(f.read())):
                    said.setdefault(suite, []).append((os.path.relpath(doc, ROOT), int(count)))
        # each suite CI runs is counted somewhere, so this test cannot pass by saying nothing
        self.assertLessEqual({"default", "ple", "ple-amd"}, set(said), f"counts found: {said}")
        for suite, claims in said.items():
            n = scenario_count(suite)
            for doc, count in claims:
                self.assertEqual(count, n, f"{doc}: suites/{suite}.cfg has {count} scenarios, "
                                 f"but the file has {n}")

    def test_ple_tests_table_of_judged_figures_is_the_suites(self):
        # docs/ple-test.md says which figure the gate judges in which scenario; a
        # figure taken out of suites/ple.cfg (or put in) changes what the gate
        # catches, so the table must follow
        with open(os.path.join(ROOT, "docs", "ple-test.md")) as f:
            table = table_of_judged(f.read(), "| metric | judged | scenarios |")
        self.assertEqual(table, judged_metrics("ple"))

    def test_ple_tests_amd_table_of_judged_figures_is_the_suites(self):
        # the same for the AMD gate, which judges other figures where kvm_amd's
        # spread differs from kvm_intel's
        with open(os.path.join(ROOT, "docs", "ple-test.md")) as f:
            table = table_of_judged(f.read(), "| metric | judged under kvm_amd | scenarios |")
        self.assertEqual(table, judged_metrics("ple-amd"))


if __name__ == "__main__":
    PLERIG, ROOT = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1])

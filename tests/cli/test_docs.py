#!/usr/bin/env python3
"""The documentation holds together: README.md is the front door and
docs/*.md the subjects, the man pages (made from --help, held to it by
test_install) the option reference. Here: every command plerig lists has
a paragraph in README.md that links its man page, every relative link and
anchor in README.md and docs/*.md leads somewhere, and the README stays a
front door (at most about 250 lines).

usage: test_docs.py PLERIG SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import unittest

PLERIG = ROOT = None
LINK = re.compile(r"\]\(([^)\s]+)\)")
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


if __name__ == "__main__":
    PLERIG, ROOT = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1])

#!/usr/bin/env python3
"""Every option `plerig run --help` prints has a row in README.md's option
table for `plerig run`: the table is how most users find an option, and the
option table in host/cli/run_options.c does not write it for us. The same
for `plerig compare`, `plerig sweep` and `plerig report` and their tables.

usage: test_readme_options.py PLERIG README
"""
import re
import subprocess
import sys
import unittest

PLERIG = README = None
# "  --vms N ..." and "  -q, --quiet ...": the option names that start a --help line
HELP_OPTION = re.compile(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", re.M)
OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def help_options(command="run"):
    r = subprocess.run([PLERIG, command, "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return HELP_OPTION.findall(r.stdout)


def readme_options(heading="## `plerig run`"):
    """The options named in the first column of the tables under @heading."""
    with open(README) as f:
        text = f.read()
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    found = set()
    for line in section.splitlines():
        if line.startswith("|"):
            first = line.split(" | ", 1)[0]
            found.update(OPTION.findall(first))
    return found


class ReadmeOptions(unittest.TestCase):
    def test_every_option_has_a_row(self):
        printed = help_options()
        self.assertGreater(len(printed), 20, "no options parsed from --help")
        missing = [o for o in printed if o not in readme_options()]
        self.assertFalse(missing, f"README.md's `plerig run` table lacks {missing}")

    def test_other_commands(self):
        for command, heading in (("compare", "## `plerig compare`"),
                                 ("sweep", "## PLE on the host"),
                                 ("report", "## Pictures: `plerig report`")):
            printed = help_options(command)
            self.assertTrue(printed, f"no options parsed from plerig {command} --help")
            missing = [o for o in printed if o not in readme_options(heading)]
            self.assertFalse(missing, f"README.md's `plerig {command}` table lacks {missing}")


if __name__ == "__main__":
    PLERIG, README = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1])

#!/usr/bin/env python3
"""scripts/lint-errors on the real tree (clean) and on copies of it with one
old-style error report planted: snprintf(err, ...) then return, snprintf(why,
...) then return, an error buffer of a literal size. Each must be caught,
named with its file and line, and fail with exit 1; the idiom errbuf.h asks
for, and a why filled before a call, must pass."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import planted_tree  # noqa: E402

LINT, HOST = sys.argv[1], sys.argv[2]
PLANT_IN = "util/errbuf.c"


class LintErrors(unittest.TestCase):
    def test_tree_is_clean(self):
        r = planted_tree.run(LINT, HOST)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("every error through util/errbuf.h", r.stdout)

    def planted(self, code):
        """lint-errors on a copy of host/ with @code appended to PLANT_IN, and
        the line @code starts on."""
        with open(os.path.join(HOST, PLANT_IN)) as f:
            line = f.read().count("\n") + 2
        return planted_tree.run_planted(LINT, HOST, PLANT_IN, "\n" + code), line

    def assert_refused(self, code, offset, what):
        r, line = self.planted(code)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"{PLANT_IN}:{line + offset}: {what}", r.stdout)
        self.assertEqual(len(r.stdout.splitlines()), 1, r.stdout)

    def test_snprintf_err_then_return_fails(self):
        self.assert_refused("int planted(char *err, size_t errlen)\n{\n"
                            "\tsnprintf(err, errlen, \"no %s\", \"x\");\n\treturn -1;\n}\n",
                            2, "snprintf into an error buffer")

    def test_snprintf_appending_to_err_fails(self):
        self.assert_refused("void planted(char *err, size_t errlen)\n{\n"
                            "\tsize_t n = strlen(err);\n"
                            "\tsnprintf(err + n, errlen - n, \"; more\");\n}\n",
                            3, "snprintf into an error buffer")

    def test_snprintf_why_then_return_fails(self):
        self.assert_refused("int planted(char *why, size_t len)\n{\n"
                            "\tsnprintf(why, len,\n\t\t \"n/a: %s\", \"x\");\n\treturn 0;\n}\n",
                            2, "snprintf(why, ...) then return")

    def test_literal_size_fails(self):
        self.assert_refused("void planted(void)\n{\n\tchar path[64], err[512];\n"
                            "\t(void)path;\n\t(void)err;\n}\n",
                            2, "error buffer err[512]: declare it err[ERRBUF_SIZE]")

    def test_errbuf_idiom_passes(self):
        r, _ = self.planted(
            "int planted(char *err, size_t errlen, char *why, size_t len)\n{\n"
            "\tchar inner[ERRBUF_SIZE], note[64];\n"
            "\t/* not snprintf(err, ...) then return, which is refused */\n"
            "\tsnprintf(why, len, \"%s\", \"a reason\");\n\tnote[0] = inner[0] = 0;\n"
            "\tif (errlen)\n\t\treturn errbuf_printf(err, errlen, \"snprintf(err\");\n"
            "\treturn 0;\n}\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

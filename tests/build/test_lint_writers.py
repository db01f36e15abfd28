#!/usr/bin/env python3
"""scripts/lint-writers on the real tree (clean) and on copies of it with one
write planted in a writer (any file of host/ but the usage texts of cli/): a
string printed with fprintf's %s, a variable through fputs, a format that is
not a literal, fprintf or the plain rule in the report. Each must be caught, named with its file and line, and fail with exit
1; literals, numbers and the printable writers must pass."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import planted_tree  # noqa: E402

LINT, HOST = sys.argv[1], sys.argv[2]
TEXT = "output/results_table.c"
REPORT = "output/html_hosts.c"


class LintWriters(unittest.TestCase):
    def test_tree_is_clean(self):
        r = planted_tree.run(LINT, HOST)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("every string through the printable rule", r.stdout)

    def planted(self, file, body):
        """lint-writers on a copy with a function of @body appended to @file; the
        line @body starts on."""
        with open(os.path.join(HOST, file)) as f:
            line = f.read().count("\n") + 4
        code = "\nvoid planted(FILE *f, const char *s, int n)\n{\n" + body + "}\n"
        return planted_tree.run_planted(LINT, HOST, file, code), line

    def assert_refused(self, file, body, what, offset=0):
        r, line = self.planted(file, body)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"{file}:{line + offset}: {what}", r.stdout)
        self.assertEqual(len(r.stdout.splitlines()), 1, r.stdout)

    def test_string_through_fprintf_fails(self):
        self.assert_refused(TEXT, '\tfprintf(f, "host %-16s\\n",\n\t\ts);\n', "fprintf of a string")
        self.assert_refused(TEXT, '\tprintf("%c", n);\n', "printf of a string")

    def test_format_not_a_literal_fails(self):
        self.assert_refused(TEXT, "\tfprintf(f, s, n);\n", "fprintf with a format that is not a literal")

    def test_variable_through_fputs_or_fputc_fails(self):
        self.assert_refused(TEXT, "\tfputs(s, f);\n", "fputs of a string that is not a literal")
        self.assert_refused(TEXT, "\tfputc(s[0], f);\n", "fputc of a character")
        self.assert_refused(TEXT, '\tfputs(n ? s : "x", f);\n', "fputs of a string")

    def test_fwrite_fails(self):
        self.assert_refused(TEXT, "\tfwrite(s, 1, n, f);\n", "fwrite of text")

    def test_any_file_of_host_is_a_writer(self):
        # a backend's note on stderr, a command's error: not only output/
        self.assert_refused("backends/libvirt/lv_domain.c",
                            '\tfprintf(f, "domain %s gone\\n", s);\n', "fprintf of a string")
        self.assert_refused("commands/check.c", '\tprintf("%s\\n", s);\n', "printf of a string")

    def test_report_writes_only_through_html_printf(self):
        self.assert_refused(REPORT, '\tfprintf(f, "<td>%u</td>", n);\n', "fprintf in the report")
        self.assert_refused(REPORT, "\tprintable_fputs(f, s);\n",
                            "printable_fputs in the report")
        self.assert_refused(REPORT, "\tfputs(s, f);\n", "fputs of a string that is not")

    def test_literals_numbers_and_the_rule_pass(self):
        for file in (TEXT, REPORT):
            r, _ = self.planted(file, (
                '\t/* fprintf(f, "%s", s); is a comment */\n'
                '\tfputs("fprintf(f, s) in a literal\\n", f);\n'
                '\tfputs(n ? "yes" : n > 1 ? "no" : "maybe", f);\n'
                "\tfputc(n ? '_' : ' ', f);\n"
                + ('\thtml_printf(f, "<td>%s</td>", s);\n\thtml_escape(f, s);\n'
                   if file == REPORT else
                   '\tfprintf(f, "%u %.1f%%\\n", n, 1.0);\n'
                   '\tprintable_printf(f, "%s\\n", s);\n\tprintable_fputs(f, s);\n')))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

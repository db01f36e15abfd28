#!/usr/bin/env python3
"""scripts/lint-layers on the real tree (clean) and on copies of it with one
include planted that runs up, sideways between peers, or to a missing file,
or with calls planted that make a circle between files of one folder:
each must be caught, named, and fail with exit 1."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import planted_tree  # noqa: E402

CHECK, HOST = sys.argv[1], sys.argv[2]


class CheckLayers(unittest.TestCase):
    def test_tree_is_clean(self):
        r = planted_tree.run(CHECK, HOST)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("all pointing down", r.stdout)

    def planted(self, file, include):
        return planted_tree.run_planted(CHECK, HOST, file, f'\n#include "{include}"\n')

    def test_upward_include_fails(self):
        r = self.planted("model/variant.h", "cli/run_options.h")
        self.assertEqual(r.returncode, 1)
        self.assertIn('model/variant.h: includes "cli/run_options.h"', r.stdout)
        self.assertIn("above it", r.stdout)

    def test_peer_include_fails(self):
        r = self.planted("backends/kvm/vm.c", "backends/libvirt/connection.h")
        self.assertEqual(r.returncode, 1)
        self.assertIn("peers", r.stdout)

    def test_missing_header_fails(self):
        r = self.planted("util/errbuf.c", "util/no_such.h")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not in host/", r.stdout)


class CallCircles(unittest.TestCase):
    """Files of their own planted in util/, so that no call of the real tree
    takes part in the circles."""

    def planted(self, texts):
        return planted_tree.run_planted_files(CHECK, HOST, texts)

    @staticmethod
    def calling(name, *callees, includes=()):
        """A .c file defining @name, which calls each of @callees."""
        head = "".join(f'#include "{h}"\n' for h in includes)
        body = "".join(f"\t{c}();\n" for c in callees)
        return f"{head}\nvoid {name}(void)\n{{\n{body}}}\n"

    def test_two_files_calling_each_other_fail(self):
        r = self.planted({"util/planted_a.c": self.calling("planted_a", "planted_b"),
                          "util/planted_b.c": self.calling("planted_b", "planted_a")})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("util/planted_a.c, util/planted_b.c: a circle of calls inside util",
                      r.stdout)
        self.assertIn("util/planted_a.c calls util/planted_b.c (planted_b)", r.stdout)
        self.assertIn("util/planted_b.c calls util/planted_a.c (planted_a)", r.stdout)

    def test_a_longer_circle_fails(self):
        r = self.planted({"util/planted_a.c": self.calling("planted_a", "planted_b"),
                          "util/planted_b.c": self.calling("planted_b", "planted_c"),
                          "util/planted_c.c": self.calling("planted_c", "planted_a")})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("util/planted_a.c, util/planted_b.c, util/planted_c.c: a circle of calls",
                      r.stdout)

    def test_one_way_calls_pass(self):
        r = self.planted({"util/planted_a.c": self.calling("planted_a", "planted_b"),
                          "util/planted_b.c": self.calling("planted_b", "planted_c"),
                          "util/planted_c.c": self.calling("planted_c")})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_call_through_an_inline_function_of_a_header_counts(self):
        r = self.planted({
            "util/planted_a.h": "\nstatic inline void planted_inline(void)\n{\n"
                                "\tplanted_b();\n}\n",
            "util/planted_a.c": self.calling("planted_a", "planted_inline",
                                             includes=["util/planted_a.h"]),
            "util/planted_b.c": self.calling("planted_b", "planted_a"),
        })
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("util/planted_a.c calls util/planted_b.c (planted_b)", r.stdout)

    def test_a_call_through_a_macro_of_a_header_counts(self):
        r = self.planted({
            "util/planted_a.h": "\n#define PLANTED(x) \\\n\tplanted_b(x)\n",
            "util/planted_a.c": '#include "util/planted_a.h"\n\nvoid planted_a(void)\n{\n'
                                "\tPLANTED();\n}\n",
            "util/planted_b.c": self.calling("planted_b", "planted_a"),
        })
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("util/planted_a.c calls util/planted_b.c (planted_b)", r.stdout)

    def test_names_that_are_no_calls_do_not_count(self):
        # a comment, a string, members (the lint reads the text, it compiles nothing)
        r = self.planted({
            "util/planted_a.c": (
                "\n/* planted_b(a) */\nstatic const char *planted_s = \"planted_b(\";\n"
                "int planted_a(struct planted *p)\n{\n"
                "\tstruct planted q = {.planted_b = 1};\n"
                "\treturn p->planted_b(q.planted_b);\n}\n"),
            "util/planted_b.c": self.calling("planted_b", "planted_a"),
        })
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("no circle of calls", r.stdout)

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

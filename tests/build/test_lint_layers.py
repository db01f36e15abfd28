#!/usr/bin/env python3
"""scripts/lint-layers on the real tree (clean) and on copies of it with one
include planted that runs up, sideways between peers, or to a missing file:
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


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

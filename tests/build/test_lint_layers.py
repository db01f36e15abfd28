#!/usr/bin/env python3
"""scripts/lint-layers on the real tree (clean) and on copies of it with one
include planted that runs up, sideways between peers, or to a missing file:
each must be caught, named, and fail with exit 1."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CHECK, HOST = sys.argv[1], sys.argv[2]


def run(host):
    return subprocess.run([sys.executable, CHECK, host], capture_output=True, text=True)


class CheckLayers(unittest.TestCase):
    def test_tree_is_clean(self):
        r = run(HOST)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("all pointing down", r.stdout)

    def planted(self, file, include):
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "host")
            shutil.copytree(HOST, copy)
            with open(os.path.join(copy, file), "a") as f:
                f.write(f'\n#include "{include}"\n')
            return run(copy)

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

#!/usr/bin/env python3
"""Makes the results file that test_cli, test_report and test_schemas read
(support/shared_results.py), before them: meson runs this test first. The
run behind it must succeed and write a results file with every variant and
repeat it asked for; what the file says is the readers' to check.

usage: test_shared_results.py PLERIG
"""
import itertools
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import shared_results  # noqa: E402

PLERIG = None


class SharedResults(unittest.TestCase):
    def test_made_with_every_variant_and_repeat(self):
        with open(shared_results.make(PLERIG)) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "plerig-results")
        self.assertEqual(doc["repeat"], shared_results.REPEAT)
        want = sorted(itertools.product(shared_results.backends(),
                                        shared_results.VARIANTS["vcpus"],
                                        shared_results.VARIANTS["relax"]))
        got = sorted((v["backend"], v["vcpus"], v["relax"]) for v in doc["variants"])
        self.assertEqual(got, want)
        for v in doc["variants"]:
            self.assertEqual(len(v["runs"]), shared_results.REPEAT, v["backend"])


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

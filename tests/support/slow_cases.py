"""Which cases of a Python test run in `make test` and which in `make vm-test`.

A case (or a whole TestCase class) marked @slow takes tens of seconds on a
2-CPU machine: `make test` leaves it to `make vm-test`. tests/meson.build
registers a file with such cases twice, telling the two apart by
PLERIG_CASES: NAME with 'quick' (the cases not marked), NAME_slow with
'slow' (the marked ones, in suite 'slow'). Without PLERIG_CASES, as when
a file is run by hand, every case runs.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "support"))
    import slow_cases
    ...
    @slow_cases.slow
    def test_something_long(self): ...
    ...
    unittest.main(argv=sys.argv[:1], verbosity=2, testLoader=slow_cases.Loader())
"""
import os
import unittest


def slow(case):
    """Marks a test method or a TestCase class as one for `make vm-test`."""
    case.plerig_slow = True
    return case


class Loader(unittest.TestLoader):
    """Loads the cases PLERIG_CASES asks for: 'quick', 'slow', or every one."""

    def getTestCaseNames(self, case_class):
        names = super().getTestCaseNames(case_class)
        wanted = os.environ.get("PLERIG_CASES", "all")
        if wanted not in ("quick", "slow"):
            return names
        class_slow = getattr(case_class, "plerig_slow", False)
        return [n for n in names
                if (class_slow or getattr(getattr(case_class, n), "plerig_slow", False))
                == (wanted == "slow")]

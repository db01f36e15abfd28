#!/usr/bin/env python3
"""Runs a Python test file as meson runs every one (tests/meson.build), with
SIGTERM turned into the end of the run, its cleanups done: meson's timeout
sends SIGTERM to the test's process group and SIGKILL half a second later,
and without this a test's tearDown and addCleanup (the temporary
directories, /tmp/plerig-redaction-* and the like) never ran.

On SIGTERM the run stops (unittest's results told to stop, as its Ctrl-C
handler does) and SystemExit is raised where the test is: unittest records
it as the test's error and runs its tearDown and cleanups (a child that
subprocess.run waits for is killed on the way), then ends; further SIGTERMs
are ignored meanwhile. A SIGTERM that comes while a tearDown or the cleanups
run raises nothing: they finish (an exception there left the directory half
removed), and the run stops after them. Exit status 1, as for any failed
test.

usage: run_test.py TEST_FILE ARGS...
"""
import os
import runpy
import signal
import sys
import unittest
from unittest import signals

_cleaning = 0  # tearDowns and cleanups running: a SIGTERM lets them finish


def _finishing(method):
    def run(self, *args, **kwargs):
        global _cleaning
        _cleaning += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            _cleaning -= 1
    return run


def _terminated(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for result in list(signals._results.keys()):
        result.stop()
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: SIGTERM: stopping, cleaning up\n")
    if not _cleaning:
        raise SystemExit(128 + signum)


def install():
    """SIGTERM ends the run with its cleanups (see above)."""
    unittest.TestCase.doCleanups = _finishing(unittest.TestCase.doCleanups)
    unittest.TestCase._callTearDown = _finishing(unittest.TestCase._callTearDown)
    signal.signal(signal.SIGTERM, _terminated)


if __name__ == "__main__":
    install()
    path = os.path.abspath(sys.argv[1])
    sys.argv = [path, *sys.argv[2:]]
    sys.path[0] = os.path.dirname(path)
    runpy.run_path(path, run_name="__main__")

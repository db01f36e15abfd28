"""One results file of a real `plerig run`, shared by the tests that only
read one (test_cli's repeats, test_report, test_schemas' compare), so that
`make test` boots their VMs once rather than once per test.

The test 'shared_results' (cli/test_shared_results.py) makes it first in
every `meson test` (its priority); a test run alone makes it where it is
missing or older than plerig or the guest image. It lies in the build
directory, next to plerig: BUILD/tests/shared-results.json.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "support"))
    import shared_results
    path = shared_results.get(PLERIG)   # raises AssertionError if the run fails
"""
import fcntl
import os
import subprocess
import tempfile

# Both backends, 1x and 2x over-commit, PAUSE and NOP, 3 repeats: every chart
# of a report and every statistic of a results file. Short runs: no reader
# judges a figure. --timeout 60: with the load average at 14 a run's stop once
# took over the default 10 s, and the watchdog failed it.
VARIANTS = {"vcpus": (2, 4), "relax": ("pause", "nop")}
REPEAT = 3


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def backends():
    """kvm and native; native alone where /dev/kvm is not usable."""
    return ("kvm", "native") if kvm_usable() else ("native",)


def path(plerig):
    return os.path.join(os.path.dirname(os.path.abspath(plerig)), "tests",
                        "shared-results.json")


def _inputs(plerig):
    guest = os.environ.get("PLERIG_GUEST") or os.path.join(
        os.path.dirname(os.path.abspath(plerig)), "images", "plerig-guest.elf")
    return [p for p in (os.path.abspath(plerig), guest) if os.path.exists(p)]


def _fresh(plerig):
    out = path(plerig)
    if not os.path.exists(out):
        return False
    made = os.path.getmtime(out)
    return all(os.path.getmtime(p) < made for p in _inputs(plerig))


def _make(plerig):
    out = path(plerig)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(out), prefix=".shared-results-")
    os.close(fd)
    try:
        r = subprocess.run([plerig, "run", "--backend", ",".join(backends()),
                            "--vcpus", ",".join(map(str, VARIANTS["vcpus"])), "--pcpus", "0-1",
                            "--relax", ",".join(VARIANTS["relax"]), "--repeat", str(REPEAT),
                            "--duration", "0.1", "--warmup", "0.02", "--timeout", "60",
                            "--quiet", "--json", tmp],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise AssertionError(f"the shared results file's run failed ({r.returncode}):\n"
                                 f"{r.stdout}{r.stderr}")
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def _locked(plerig, remake):
    out = path(plerig)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one maker; a second waiter then reuses its file
        if remake or not _fresh(plerig):
            return _make(plerig)
        return out


def make(plerig):
    """Makes the file anew (the test 'shared_results'); returns its path."""
    return _locked(plerig, remake=True)


def get(plerig):
    """The file, made first where missing or older than plerig or the guest image."""
    return _locked(plerig, remake=False)

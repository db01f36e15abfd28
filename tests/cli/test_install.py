#!/usr/bin/env python3
"""`meson setup B --prefix P && meson install -C B` gives a working P/bin/plerig:
the guest image, the domain template and the schemas in P/share/plerig/, found
through the data directory compiled in; a man page per command in
P/share/man/man1/, each naming every option its --help prints. The man
pages are checked in `make test`, the install in `make vm-test`.

usage: test_install.py PLERIG SOURCE_ROOT
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import slow_cases  # noqa: E402

PLERIG = SOURCE = None
HELP_OPTION = re.compile(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", re.M)


def commands(plerig):
    """The commands `plerig help` lists, but version and help."""
    out = subprocess.run([plerig, "help"], capture_output=True, text=True, check=True).stdout
    listed = out.split("commands:", 1)[1].split("\n\n", 1)[0]
    return [m for m in re.findall(r"^  ([a-z]+)", listed, re.M) if m not in ("version", "help")]


def man_text(path):
    with open(path) as f:
        return f.read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")


class ManPages(unittest.TestCase):
    """docs/man/ agrees with --help (scripts/make-man regenerates it)."""

    def test_every_command_has_a_page_with_every_option(self):
        man = os.path.join(SOURCE, "docs", "man")
        self.assertTrue(os.path.exists(os.path.join(man, "plerig.1")))
        for cmd in commands(PLERIG):
            page = os.path.join(man, f"plerig-{cmd}.1")
            self.assertTrue(os.path.exists(page), f"{page}: run scripts/make-man")
            text = man_text(page)
            r = subprocess.run([PLERIG, cmd, "--help"], capture_output=True, text=True)
            for opt in HELP_OPTION.findall(r.stdout):
                self.assertIn(opt, text, f"{page} lacks {opt}: run scripts/make-man")


@slow_cases.slow  # a build of its own: 15-25 s on 2 CPUs
class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="plerig-install-")
        cls.prefix = os.path.join(cls.tmp, "P")
        build = os.path.join(cls.tmp, "b")
        # plain: no optimisation, the quickest build of what is installed
        for cmd in (["meson", "setup", build, SOURCE, "--prefix", cls.prefix,
                     "--buildtype=plain"],
                    ["ninja", "-C", build, "plerig", "images/plerig-guest.elf",
                     "images/l1/fixed-time.so", "images/l1/save-state.so"],
                    ["meson", "install", "-C", build, "--no-rebuild", "--quiet"]):
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if r.returncode:
                # no tearDownClass after a failed setUpClass: clean up here
                shutil.rmtree(cls.tmp, ignore_errors=True)
                raise AssertionError(f"{' '.join(cmd)}: {r.stdout[-3000:]}{r.stderr[-3000:]}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_files(self):
        for f in ("bin/plerig", "share/plerig/plerig-guest.elf",
                  "share/plerig/plerig-domain.xml", "share/plerig/schemas/results.schema.json",
                  "share/plerig/schemas/compare.schema.json",
                  "share/plerig/schemas/sweep.schema.json",
                  "share/plerig/schemas/doctor.schema.json",
                  "share/plerig/schemas/tune.schema.json",
                  "share/plerig/suites/default.cfg", "share/plerig/suites/shape.cfg",
                  "share/plerig/l1/build-medium", "share/plerig/l1/init",
                  "share/plerig/l1/unpack-kernel", "share/plerig/l1/boot-shim.S",
                  "share/plerig/l1/fixed-time.so", "share/plerig/l1/save-state.so",
                  "share/plerig/l1/vendors.cfg", "share/plerig/l1/read-vendor",
                  "share/plerig/l1/vendor-fit", "share/plerig/l1/add-modules",
                  "share/man/man1/plerig.1"):
            self.assertTrue(os.path.exists(os.path.join(self.prefix, f)), f)
        for cmd in commands(PLERIG):
            self.assertTrue(os.path.exists(
                os.path.join(self.prefix, "share/man/man1", f"plerig-{cmd}.1")), cmd)

    def test_installed_plerig_runs(self):
        if not os.access("/dev/kvm", os.R_OK | os.W_OK):
            self.skipTest("no usable /dev/kvm")
        env = {k: v for k, v in os.environ.items()
               if k not in ("PLERIG_GUEST", "PLERIG_DOMAIN_TEMPLATE")}
        r = subprocess.run([os.path.join(self.prefix, "bin", "plerig"), "run", "--duration",
                            "0.2", "--vcpus", "2", "--quiet"], capture_output=True, text=True,
                           timeout=120, env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kvm", r.stdout)

    def test_installed_plerig_builds_l1_with_its_own_scripts(self):
        """--connect emulated from elsewhere: the medium's scripts come from share/plerig/l1
        (a kernel that is none stops build-medium there, or a tool it lacks)."""
        kernel = os.path.join(self.tmp, "not-a-kernel")
        with open(kernel, "w") as f:
            f.write("text\n")
        env = {k: v for k, v in os.environ.items() if k not in ("PLERIG_GUEST", "PLERIG_L1_DIR")}
        env["PLERIG_BOCHS"] = "/bin/true"  # no Bochs is started: the medium fails first
        r = subprocess.run([os.path.join(self.prefix, "bin", "plerig"), "run", "--connect",
                            "emulated", "--kernel", kernel, "--cache-dir",
                            os.path.join(self.tmp, "cache"), "--quiet"], capture_output=True,
                           text=True, timeout=120, env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stderr, r"plerig run: emulated host: building L1's medium: "
                                   r"(kernel .*not-a-kernel: not a bzImage|no \S+ here)")

    def test_installed_check_finds_its_suite(self):
        env = {k: v for k, v in os.environ.items() if k not in ("PLERIG_GUEST", "PLERIG_SUITE")}
        r = subprocess.run([os.path.join(self.prefix, "bin", "plerig"), "check", "--list"],
                           capture_output=True, text=True, timeout=60, env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("uncontended", r.stdout)


if __name__ == "__main__":
    PLERIG, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2, testLoader=slow_cases.Loader())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""plerig and its tests as an unprivileged user, as CI runners run them.

Usage: test_unprivileged.py PLERIG BUILD_DIR SOURCE_DIR

As root, drops to nobody (setpriv) and checks: the unit tests against a fake
sysfs (host_params), the doctor/sweep tests (test_ple_cli.py) and the tune
tests (test_tune_cli.py) pass or
skip with a reason; the KVM device's permission error comes from its actual
owner, group and mode (private device nodes in this test's directory, never
the real /dev/kvm): root:root 0600 is not "join the kvm group", a group
member whose device is 0660 runs VMs; a device that is no KVM device (a
private node of /dev/null's numbers) says so; the libvirt backend gives the
working combination of options at once. Skipped (77) when not root.
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

PLERIG, BUILD, SOURCE = (os.path.abspath(a) for a in sys.argv[1:4])
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
KVM_MEMBER = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=kvm"]


def as_nobody(cmd, env=None, prefix=NOBODY, timeout=120):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", **(env or {})}
    return subprocess.run(prefix + ["env", "-i"] + [f"{k}={v}" for k, v in e.items()] + cmd,
                          capture_output=True, text=True, timeout=timeout)


class Unprivileged(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="plerig-unpriv-")
        os.chmod(self.dir, 0o755)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def node(self, name, major, minor, mode, group=0):
        path = os.path.join(self.dir, name)
        os.mknod(path, stat.S_IFCHR | mode, os.makedev(major, minor))
        os.chown(path, 0, group)
        os.chmod(path, mode)
        return path

    def test_host_params_unit_test(self):
        r = as_nobody([os.path.join(BUILD, "tests", "test_host_params")])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def ple_cli(self, env=None, prefix=NOBODY, test="test_ple_cli.py"):
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        return as_nobody([python, os.path.join(SOURCE, "tests", "cli", test),
                          PLERIG, os.path.join(BUILD, "images", "plerig-guest.elf")],
                         env, prefix, timeout=300)

    def test_ple_cli_without_kvm(self):
        r = self.ple_cli()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_tune_cli_without_kvm(self):
        # plerig tune on its fake sysfs: restored after an end, signals and kill -9, as nobody
        r = self.ple_cli(test="test_tune_cli.py")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    @unittest.skipUnless(os.path.exists("/dev/kvm"), "no KVM on this host")
    def test_ple_cli_in_the_kvm_group(self):
        # the sweeps run real VMs as nobody, through a private 0660 root:kvm node
        kvm = self.node("kvm", 10, 232, 0o660, group=grp_id("kvm"))
        r = self.ple_cli({"PLERIG_KVM_DEVICE": kvm}, KVM_MEMBER)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("skipped", r.stderr)

    def test_root_only_device(self):
        kvm = self.node("kvm", 10, 232, 0o600)
        r = as_nobody([PLERIG, "run", "-q", "--duration", "0.1"], {"PLERIG_KVM_DEVICE": kvm})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{kvm} (root:root 0600) as nobody", r.stderr)
        self.assertIn("no group membership helps", r.stderr)
        self.assertNotIn("usermod", r.stderr)

    def test_group_device_not_a_member(self):
        kvm = self.node("kvm", 10, 232, 0o660, group=grp_id("kvm"))
        r = as_nobody([PLERIG, "run", "-q", "--duration", "0.1"], {"PLERIG_KVM_DEVICE": kvm})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("usermod -aG kvm nobody", r.stderr)

    @unittest.skipUnless(os.path.exists("/dev/kvm"), "no KVM on this host")
    def test_group_member_runs_vms(self):
        kvm = self.node("kvm", 10, 232, 0o660, group=grp_id("kvm"))
        r = as_nobody([PLERIG, "run", "-q", "--vcpus", "1", "--relax", "pause", "--duration",
                       "0.1", "--guest", os.path.join(BUILD, "images", "plerig-guest.elf")],
                      {"PLERIG_KVM_DEVICE": kvm}, prefix=KVM_MEMBER)
        self.assertEqual(r.returncode, 0, r.stderr)

    @unittest.skipUnless(os.path.exists("/dev/kvm"), "no KVM on this host")
    def test_exit_times_as_a_kvm_member(self):
        # VMs run; exit times need perf tracepoint sampling: figures or the reason, never 0
        kvm = self.node("kvm", 10, 232, 0o660, group=grp_id("kvm"))
        env = {"PLERIG_KVM_DEVICE": kvm,
               "PLERIG_GUEST": os.path.join(BUILD, "images", "plerig-guest.elf")}
        r = as_nobody([PLERIG, "run", "-q", "--vcpus", "2", "--relax", "pause", "--duration",
                       "0.1", "--exit-times", "--json", "-"], env, prefix=KVM_MEMBER)
        self.assertEqual(r.returncode, 0, r.stderr)
        import json
        summary = json.loads(r.stdout)["variants"][0]["runs"][0]["summary"]
        if summary["exit_times"] is None:
            self.assertTrue(summary["exit_times_unavailable"])
        r = as_nobody([os.path.join(BUILD, "tests", "test_exit_times")], env,
                      prefix=KVM_MEMBER)
        self.assertIn(r.returncode, (0, 77), r.stdout + r.stderr)
        if r.returncode == 77:
            self.assertIn("SKIP: ", r.stdout)

    def test_not_a_kvm_device(self):
        null = self.node("null", 1, 3, 0o666)
        r = subprocess.run([PLERIG, "run", "-q", "--duration", "0.1"], capture_output=True,
                           text=True, env={**os.environ, "PLERIG_KVM_DEVICE": null})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{null} is not a KVM device", r.stderr)
        self.assertNotIn("API -1", r.stderr)

    def test_libvirt_advice_at_once(self):
        if os.access("/dev/kvm", os.R_OK | os.W_OK) and \
                as_nobody(["test", "-w", "/dev/kvm"]).returncode == 0:
            self.skipTest("nobody may open /dev/kvm here")
        r = as_nobody([PLERIG, "run", "-q", "--backend", "libvirt", "--duration", "0.1"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--accel tcg --connect qemu:///session", r.stderr)


    def test_check_reading_no_state_of_roots_says_so_and_records(self):
        """/var/lib/plerig is root's 0700 (what a plerig run as root made): another user's
        check cannot read whether a root plerig left the PLE parameters changed. That
        failed the host's ple-params case, so no check by anyone else could pass or record;
        it is now a skip saying why, and the baseline is recorded."""
        state = os.path.join(self.dir, "state")
        os.mkdir(state, 0o700)
        with open(os.path.join(state, "ple-params.state"), "w") as f:
            f.write("plerig-ple-state 1\npid 999999\nroot /sys\nmodule kvm_intel\n")
        suite = os.path.join(self.dir, "suite.cfg")
        with open(suite, "w") as f:
            f.write("[defaults]\noptions = --backend native --duration 0.05 --warmup 0 --repeat 2\n"
                    "[solo]\noptions = --vcpus 1 --lock ticket --relax pause\nexpect = progress\n")
        store = os.path.join(self.dir, "baselines")
        os.mkdir(store)
        os.chown(store, pwd_id("nobody"), grp_id("nogroup"))
        r = as_nobody([PLERIG, "check", "--suite", suite, "--record", "--baselines", store],
                      {"PLERIG_STATE_DIR": state})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\n  skip  .*cannot tell whether they are the host's own: "
                                   r".*Permission denied.*this user may not read root's record")
        self.assertNotIn("no baseline recorded", r.stdout)
        self.assertTrue(os.listdir(store), r.stdout)
        # root reads it: the same state fails the case and records nothing
        r = subprocess.run([PLERIG, "check", "--suite", suite, "--record", "--baselines", store + "2"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "PLERIG_STATE_DIR": state})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAIL  ple-params: the kvm_intel parameters were not the host's own", r.stdout)


def pwd_id(name):
    import pwd
    return pwd.getpwnam(name).pw_uid


def grp_id(name):
    import grp
    return grp.getgrnam(name).gr_gid


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("SKIP: needs root to drop to an unprivileged user")
        sys.exit(77)
    if not shutil.which("setpriv"):
        print("SKIP: no setpriv (util-linux)")
        sys.exit(77)
    try:
        grp_id("kvm")
    except KeyError:
        print("SKIP: no kvm group")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=2)

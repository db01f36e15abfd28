#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""plerig as root, given a directory that another user can change: refused
with the reason, and nothing it leads to touched (issue 25, item 2).

The hostile trees are built in this test's own scratch directory and owned
by nobody (chown): a --cache-dir whose libvirt/etc/qemu.conf is a link to
a file of the test's and whose libvirt/run links to a root-owned 0700
directory in /dev/shm (made by the test, named plerig-test-precious-*);
a PLERIG_STATE_DIR holding a planted state file for `sweep --restore`
against a fake sysfs; a link of theirs at a --json path. Before the fix
plerig wrote its qemu.conf over the file, removed the /dev/shm directory,
restored the planted value, and wrote its results through their link.

usage: test_hostile_dirs.py PLERIG; skipped (77) when not root: making
another user's files needs root.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PLERIG = None
NOBODY = 65534


def chown_tree(top, uid):
    """@top and everything in it, links themselves included, to @uid."""
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)
    os.chown(top, uid, uid, follow_symlinks=False)


class HostileDirs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="plerig-hostile-")
        os.chmod(self.dir, 0o755)
        self.precious = tempfile.mkdtemp(prefix="plerig-test-precious-", dir="/dev/shm")
        self.keep = os.path.join(self.precious, "keep")
        with open(self.keep, "w") as f:
            f.write("keep\n")
        self.victim = os.path.join(self.dir, "victim")
        with open(self.victim, "w") as f:
            f.write("precious\n")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.precious, ignore_errors=True)

    def untouched(self):
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertTrue(os.path.exists(self.keep), f"{self.precious} was removed")

    def cache_tree(self):
        """The issue's tree: S/libvirt/etc/qemu.conf -> victim, S/libvirt/run -> /dev/shm."""
        s = os.path.join(self.dir, "S")
        os.makedirs(os.path.join(s, "libvirt", "etc"))
        os.symlink(self.victim, os.path.join(s, "libvirt", "etc", "qemu.conf"))
        os.symlink(self.precious, os.path.join(s, "libvirt", "run"))
        return s

    def run_libvirt(self, cache):
        return subprocess.run([PLERIG, "run", "--backend", "libvirt", "--accel", "tcg",
                               "--cache-dir", cache, "--duration", "0.1", "--repeat", "1",
                               "-q"], capture_output=True, text=True, timeout=300)

    def test_cache_dir_of_another_user(self):
        s = self.cache_tree()
        chown_tree(s, NOBODY)
        r = self.run_libvirt(s)
        # bad input, refused before anything runs: exit 2, as every bad option
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"plerig run: --cache-dir {s}: the directory {s} is owned by nobody "
                      f"(uid 65534), not by root", r.stderr)
        self.assertIn("use a directory of your own", r.stderr)
        self.untouched()
        self.assertEqual(sorted(os.listdir(os.path.join(s, "libvirt"))), ["etc", "run"])

    def test_a_directory_of_theirs_inside_ours(self):
        s = self.cache_tree()
        chown_tree(os.path.join(s, "libvirt"), NOBODY)
        r = self.run_libvirt(s)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"the directory {s}/libvirt is owned by nobody", r.stderr)
        self.untouched()

    def test_cache_dir_others_may_write(self):
        s = self.cache_tree()
        os.chmod(s, 0o777)
        r = self.run_libvirt(s)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"the directory {s} is writable by others (mode 0777)", r.stderr)
        self.untouched()

    def test_parsing_options_makes_no_directory(self):
        # a --cache-dir is walked while options are parsed, and made only where a run
        # uses it: this command line is refused after the walk (exit 2), and the
        # option parser's fuzzer, mutating paths, must not make directories anywhere
        new = os.path.join(self.dir, "new", "cache")
        r = subprocess.run([PLERIG, "run", "--connect", "emulated", "--backend", "libvirt",
                            "--cache-dir", new], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--backend names neither", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "new")),
                         "parsing --cache-dir made a directory")
        # a missing directory under one others may change is still refused
        os.chmod(self.dir, 0o777)
        r = subprocess.run([PLERIG, "run", "--backend", "libvirt", "--accel", "tcg",
                            "--cache-dir", new], capture_output=True, text=True, timeout=60)
        os.chmod(self.dir, 0o755)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"the directory {self.dir} is writable by others", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "new")))

    def test_state_dir_of_another_user(self):
        params = os.path.join(self.dir, "sys", "module", "kvm_intel", "parameters")
        os.makedirs(params)
        os.makedirs(os.path.join(self.dir, "sys", "module", "kvm_intel", "holders"))
        with open(os.path.join(self.dir, "sys", "module", "kvm_intel", "refcnt"), "w") as f:
            f.write("0\n")
        window = os.path.join(params, "ple_window")
        with open(window, "w") as f:
            f.write("4096\n")
        state = os.path.join(self.dir, "state")
        os.mkdir(state)
        with open(os.path.join(state, "ple-params.state"), "w") as f:
            f.write("plerig-ple-state 1\npid 999999\nroot %s\nmodule kvm_intel\n"
                    "param ple_window 1\n" % os.path.join(self.dir, "sys"))
        chown_tree(state, NOBODY)
        env = {**os.environ, "PLERIG_SYSFS_ROOT": os.path.join(self.dir, "sys"),
               "PLERIG_STATE_DIR": state, "PLERIG_MODPROBE": "/bin/false",
               "PLERIG_RMMOD": "/bin/false"}
        r = subprocess.run([PLERIG, "sweep", "--restore"], capture_output=True, text=True,
                           env=env, timeout=60)
        self.assertNotEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"the state directory {state}: the directory {state} is owned by nobody",
                      r.stderr)
        self.assertIn("PLERIG_STATE_DIR", r.stderr)
        with open(window) as f:
            self.assertEqual(f.read(), "4096\n")

    def test_another_users_link_at_an_output_path(self):
        # their link at the name root writes its results to: not followed (kernel's
        # protected_symlinks does not apply: plerig resolved the link itself)
        link = os.path.join(self.dir, "r.json")
        os.symlink(self.victim, link)
        os.chown(link, NOBODY, NOBODY, follow_symlinks=False)
        r = subprocess.run([PLERIG, "run", "--backend", "native", "--vcpus", "2", "--duration",
                            "0.2", "--warmup", "0.05", "--quiet", "--json", link],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"{link} is a symbolic link of another user's (uid 65534)", r.stderr)
        self.untouched()


if __name__ == "__main__":
    PLERIG = os.path.abspath(sys.argv.pop(1))
    if os.geteuid() != 0:
        print("SKIP: another user's directories (chown to nobody) can only be made as root")
        sys.exit(77)
    unittest.main(verbosity=2)

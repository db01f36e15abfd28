#!/usr/bin/env python3
"""The host side of `make ple-test` without Bochs: images/l1/unpack-kernel on
a small bzImage made here (an x86-64 ELF with two segments, XZ-compressed
behind a setup header), scripts/ple-test's checks of what it is given and
its steps as plerig commands (a fake plerig that says what it was given
and exits as told), and tests/ple/assert-results on the files those steps
leave (plerig check's TAP, plerig doctor's JSON, two plerig tunes).

usage: test_ple_scripts.py SOURCE_ROOT [PLERIG [TEST...]]
"""
import base64
import concurrent.futures
import fcntl
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import struct
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = PLERIG = None


def elf(segments, entry):
    """An ELF64 x86-64 executable with one PT_LOAD per (paddr, data, memsz)."""
    phoff, phnum = 64, len(segments)
    offset = phoff + 56 * phnum
    head = bytearray(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
    head += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, entry, phoff, 0, 0, 64, 56, phnum, 64, 0, 0)
    body = b""
    for paddr, data, memsz in segments:
        head += struct.pack("<IIQQQQQQ", 1, 5, offset + len(body), 0xffffffff80000000 + paddr, paddr,
                            len(data), memsz, 0x1000)
        body += data
    return bytes(head) + body


def bzimage(payload, setup_sects=1):
    """A setup header (boot protocol 2.15) and a protected-mode part holding payload."""
    setup = bytearray(512 * (setup_sects + 1))
    setup[0x1f1] = setup_sects
    setup[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", setup, 0x206, 0x20f)
    struct.pack_into("<I", setup, 0x214, 0x100000)
    setup[0x234] = 1
    struct.pack_into("<H", setup, 0x236, 0x7f)
    pm = b"\x90" * 0x100 + payload + struct.pack("<I", 0)
    struct.pack_into("<II", setup, 0x248, 0x100, len(payload))
    struct.pack_into("<Q", setup, 0x258, 0x1000000)
    struct.pack_into("<I", setup, 0x260, 0x200000)
    struct.pack_into("<I", setup, 0x1f4, (len(pm) + 15) // 16)
    return bytes(setup) + pm


class UnpackKernel(unittest.TestCase):
    def run_tool(self, image):
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "in"), os.path.join(d, "out")
            with open(src, "wb") as f:
                f.write(image)
            p = subprocess.run([os.path.join(ROOT, "images/l1/unpack-kernel"), src, out],
                               capture_output=True, text=True)
            if p.returncode:
                return p, None
            with open(out, "rb") as f:
                return p, f.read()

    def test_segments_land_behind_the_shim_and_the_header_says_so(self):
        text = bytes(range(256)) * 64 + b"\0" * 4096  # trailing zeros: left to the shim
        data = b"DATA" * 300
        kernel = elf([(0x1000000, text, len(text) + 8192), (0x1400000, data, len(data))], 0x1000000)
        p, out = self.run_tool(bzimage(lzma.compress(kernel, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("2 segments, entry 0x1000000", p.stdout)
        setup = 512 * 2
        pm = out[setup:]
        self.assertEqual(struct.unpack_from("<I", out, 0x1f4)[0] * 16, len(pm))
        self.assertEqual(out[0x234], 0, "not relocatable: linked at 0x100000")
        self.assertGreaterEqual(struct.unpack_from("<I", out, 0x260)[0], 0x1400000 + len(data) - 0x100000)
        # the table: destination, source, file dwords, zero dwords, as the shim reads it
        t = len(text.rstrip(b"\0"))
        row1 = struct.pack("<IIII", 0x1000000, 0x110000, t // 4, (len(text) + 8192 - t) // 4)
        row2 = struct.pack("<IIII", 0x1400000, 0x110000 + t, len(data) // 4, 0)
        self.assertIn(row1 + row2, pm[:0x10000])
        self.assertEqual(pm[0x10000:0x10000 + t], text[:t])
        self.assertEqual(pm[0x10000 + t:0x10000 + t + len(data)], data)

    def test_a_zstd_kernel_unpacks_as_an_xz_one(self):
        # Debian's 6.12 kernels: a zstd frame, then the kernel's size (4 bytes) in the payload
        kernel = elf([(0x1000000, bytes(range(256)) * 16, 8192)], 0x1000b53)
        xz = self.run_tool(bzimage(lzma.compress(kernel, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)))
        frame = subprocess.run(["zstd", "-19", "-cq"], input=kernel, capture_output=True, check=True).stdout
        zstd = self.run_tool(bzimage(frame + struct.pack("<I", len(kernel))))
        self.assertEqual(zstd[0].returncode, 0, zstd[0].stderr)
        self.assertIn("(zstd)", zstd[0].stdout)
        self.assertIn("1 segments, entry 0x1000b53", zstd[0].stdout)
        self.assertEqual(zstd[1][1024:], xz[1][1024:])  # past the setup, which keeps the original's sizes
        # the appended size must match what the frame holds
        p, _ = self.run_tool(bzimage(frame + struct.pack("<I", len(kernel) + 1)))
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"{len(kernel)} bytes for {len(kernel) + 1}", p.stderr)

    def test_what_cannot_be_unpacked_is_refused_with_the_reason(self):
        p, _ = self.run_tool(b"MZ" + b"\0" * 2000)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no bzImage setup header", p.stderr)
        p, _ = self.run_tool(bzimage(b"\x02\x21\x4c\x18" + b"\0" * 64))  # lz4
        self.assertEqual(p.returncode, 1)
        self.assertIn("not xz, gzip, bzip2, lzma or zstd", p.stderr)
        p, _ = self.run_tool(bzimage(b"\x28\xb5\x2f\xfd" + b"\0" * 64))  # a broken zstd frame
        self.assertEqual(p.returncode, 1)
        self.assertIn("zstd payload: zstd -d: exit 1", p.stderr)
        p, _ = self.run_tool(bzimage(lzma.compress(b"not an ELF" * 10, format=lzma.FORMAT_XZ)))
        self.assertEqual(p.returncode, 1)
        self.assertIn("not an x86-64 ELF kernel", p.stderr)


def kernel_image(path, version=b"6.1.0-test (nobody) #1"):
    """A bzImage (header only) whose kernel_version string is @version."""
    image = bytearray(bzimage(b"\0" * 64))
    struct.pack_into("<H", image, 0x20e, 0x300)  # kernel_version, from 0x200
    image[0x500:0x540] = (version + b"\0").ljust(64, b"\0")
    with open(path, "wb") as f:
        f.write(image)
    return path


def kernel_module(path, params, name="kvm_intel", depends=""):
    """A module file as modinfo reads it: an ELF object whose .modinfo lists @params."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    src = path + ".s"
    with open(src, "w") as f:
        f.write('.section .modinfo,"a"\n' + "".join(f'.asciz "parmtype={p}:uint"\n' for p in params)
                + f'.asciz "depends={depends}"\n.asciz "name={name}"\n')
    subprocess.run(["as", "--64", "-o", path, src], check=True)
    os.unlink(src)
    return path


def kernel_package(root, deb, link_to=None):
    """@deb, a linux-image-6.1.0-test package of the tree @root (what is in it stays) with
    boot/vmlinuz-6.1.0-test a header-only bzImage, or a link to @link_to."""
    os.makedirs(os.path.join(root, "DEBIAN"), exist_ok=True)
    os.makedirs(os.path.join(root, "boot"), exist_ok=True)
    with open(os.path.join(root, "DEBIAN/control"), "w") as f:
        f.write("Package: linux-image-6.1.0-test\nVersion: 1\nArchitecture: amd64\n"
                "Maintainer: nobody <nobody@example.org>\nDescription: a test\n")
    vmlinuz = os.path.join(root, "boot/vmlinuz-6.1.0-test")
    if link_to:
        os.symlink(link_to, vmlinuz)
    else:
        kernel_image(vmlinuz)
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "-b", root, deb], check=True, capture_output=True)
    return deb


def skip_without_ple_test_packages(test, why):
    """Skip @test when scripts/setup ple-test's packages are not installed (@why it needs them)."""
    missing = [p for p in ("bochs", "busybox-static", "cpio", "isolinux", "xorriso")
               if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
                                 text=True).stdout != "install ok installed"]
    if missing:
        test.skipTest(f"scripts/setup ple-test's packages missing here ({' '.join(missing)}): {why}")


def run_ple_test(d, env, args=None, cwd=None, timeout=60):
    """scripts/ple-test with work and cache in @d, @env added, a build whose plerig is a
    stub unless @args names one. Never further than the boot medium
    (PLE_TEST_MEDIUM_ONLY=1), never installing (apt-get fails): a check that is missing
    fails its test before Bochs, whatever the script then does. In a session of its own,
    stopped whole after @timeout (a read that never ends: the child outlives bash)."""
    build = os.path.join(d, "build")
    if not os.path.exists(build):
        os.makedirs(os.path.join(build, "images"))
        for f in ("plerig", "images/plerig-guest.elf"):
            with open(os.path.join(build, f), "w") as out:
                out.write("#!/bin/sh\n")
            os.chmod(os.path.join(build, f), 0o755)
        os.makedirs(os.path.join(d, "bin"))
        with open(os.path.join(d, "bin", "apt-get"), "w") as f:
            f.write("#!/bin/sh\necho 'apt-get: not in a test' >&2\nexit 1\n")
        os.chmod(os.path.join(d, "bin", "apt-get"), 0o755)
    env = {**os.environ, "PLE_TEST_DIR": os.path.join(d, "work"), "PLE_TEST_CACHE": os.path.join(d, "cache"),
           "PLE_TEST_MEDIUM_ONLY": "1", **env, "PATH": os.path.join(d, "bin") + ":" + os.environ["PATH"]}
    p = subprocess.Popen(args or [os.path.join(ROOT, "scripts/ple-test"), build], env=env, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        err += f"\n(stopped after {timeout}s)"
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


class KernelUnderTest(unittest.TestCase):
    """scripts/ple-test refuses a kernel it cannot test before Bochs, and
    before it installs anything (exit 125, git bisect's "skip": the reason and the fix)."""

    def ple_test(self, modules_tree):
        with tempfile.TemporaryDirectory() as d:
            mods = os.path.join(d, "mods")
            os.makedirs(mods)
            for path in modules_tree:
                os.makedirs(os.path.join(mods, path))
            return run_ple_test(d, {"KERNEL": kernel_image(os.path.join(d, "bzImage")), "MODULES": mods})

    def test_modules_without_kvm_intel_are_refused(self):
        p = self.ple_test(["lib/modules/6.1.0-test/kernel/fs"])
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertEqual(p.stderr.splitlines()[-1],
                         "ple-test: exit status 125: this kernel cannot be tested (git bisect: skip)")
        self.assertIn("kernel 6.1.0-test has no kvm_intel: no kvm-intel.ko under", p.stderr)
        self.assertIn("CONFIG_KVM_INTEL=m", p.stderr)

    def test_modules_without_the_vendors_module_are_refused(self):
        """VENDOR=amd: the kernel must have kvm_amd (a kvm-intel.ko is no use there)."""
        with tempfile.TemporaryDirectory() as d:
            mods = os.path.join(d, "mods")
            kernel_module(os.path.join(mods, "lib/modules/6.1.0-test/kernel/arch/x86/kvm/kvm-intel.ko"),
                          ["ple_gap"])
            p = run_ple_test(d, {"KERNEL": kernel_image(os.path.join(d, "bzImage")), "MODULES": mods,
                                 "VENDOR": "amd"})
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("kernel 6.1.0-test has no kvm_amd: no kvm-amd.ko under", p.stderr)
        self.assertIn("CONFIG_KVM_AMD=m", p.stderr)

    def test_two_vendors_run_in_turn_each_in_a_work_directory_of_its_own(self):
        """VENDOR="intel amd": scripts/ple-test runs itself once per vendor, in turn, in
        WORK/VENDOR; here each is refused for its own module, and the worst status is its."""
        with tempfile.TemporaryDirectory() as d:
            mods = os.path.join(d, "mods")
            os.makedirs(os.path.join(mods, "lib/modules/6.1.0-test/kernel/fs"))
            p = run_ple_test(d, {"KERNEL": kernel_image(os.path.join(d, "bzImage")), "MODULES": mods,
                                 "VENDOR": "intel,amd"})
            work = os.path.join(d, "work")
            self.assertEqual(p.returncode, 125, p.stderr)
            intel, amd = (p.stderr.index(f"ple-test: VENDOR={v} (work directory {work}/{v})")
                          for v in ("intel", "amd"))
            self.assertLess(intel, p.stderr.index("has no kvm_intel"))
            self.assertLess(p.stderr.index("has no kvm_intel"), amd)
            self.assertLess(amd, p.stderr.index("has no kvm_amd"))
            self.assertIn("ple-test: VENDOR=intel,amd: ", p.stderr)
            self.assertRegex(p.stderr, r"ple-test: VENDOR=intel,amd: \d+s in all, exit status 125\n"
                                       r"ple-test: exit status 125: this kernel cannot be tested "
                                       r"\(git bisect: skip\)\n$")
            self.assertEqual(sorted(os.listdir(work)), ["amd", "intel"])

    def test_compressed_modules_go_into_the_initrd_inflated(self):
        """images/l1/add-modules (build-medium's copy of L1's modules, for plerig's emulated
        host and so for make ple-test): a .ko.xz, .ko.zst or .ko.gz (Debian's 6.12 compresses with xz) is
        inflated once into the initrd, its dependencies too, so that L1 never inflates
        kvm_intel under Bochs at each of the gate's reloads; a plain .ko is copied as it is."""
        if not shutil.which("zstd") or not shutil.which("kmod"):
            self.skipTest("no zstd or kmod here (scripts/setup ple-test installs them)")
        with tempfile.TemporaryDirectory() as d:
            kdir = os.path.join(d, "mods/lib/modules/6.12.0-test/kernel/arch/x86/kvm")
            plain = {}
            for name, file, deps, comp in (("kvm_intel", "kvm-intel.ko", "kvm", ["xz", "-f"]),
                                           ("kvm", "kvm.ko", "irqbypass", ["zstd", "-q", "--rm", "-f"]),
                                           ("irqbypass", "irqbypass.ko", "", ["gzip", "-f"]),
                                           ("other", "other.ko", "", None)):
                path = os.path.join(kdir, file)
                kernel_module(path, ["p"], name=name, depends=deps)
                with open(path, "rb") as f:
                    plain[file] = f.read()
                if comp:
                    subprocess.run(comp + [path], check=True)
            root = os.path.join(d, "rootfs")

            def add(module):
                return subprocess.run([os.path.join(ROOT, "images/l1/add-modules"), os.path.join(d, "mods"),
                                       "6.12.0-test", root, module], capture_output=True, text=True, timeout=60)
            for module in ("kvm-intel", "kvm", "other"):
                p = add(module)
                self.assertEqual(p.returncode, 0, p.stderr)
            files = sorted(os.path.relpath(os.path.join(w, f), root)
                           for w, _, fs in os.walk(root) for f in fs if ".ko" in f)
            self.assertEqual(files, [f"lib/modules/6.12.0-test/kernel/arch/x86/kvm/{f}" for f in
                                     ("irqbypass.ko", "kvm-intel.ko", "kvm.ko", "other.ko")])
            for file, data in plain.items():
                with open(os.path.join(root, "lib/modules/6.12.0-test/kernel/arch/x86/kvm", file), "rb") as f:
                    self.assertEqual(f.read(), data, file)
            with open(os.path.join(root, "lib/modules/6.12.0-test/modules.dep")) as f:
                self.assertEqual(sorted(f.read().split()), [f"kernel/arch/x86/kvm/{f}:" for f in
                                                            ("irqbypass.ko", "kvm-intel.ko", "kvm.ko", "other.ko")])
            # a compressed module is held to what a plain one is (issue 25): a link to a
            # file outside MODULES is refused before it is copied or inflated
            outside = os.path.join(d, "outside.ko.zst")
            os.rename(os.path.join(kdir, "kvm.ko.zst"), outside)
            os.symlink(outside, os.path.join(kdir, "kvm.ko.zst"))
            shutil.rmtree(root)
            p = add("kvm-intel")
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"module kvm of kernel 6.12.0-test: {kdir}/kvm.ko.zst is not a regular file "
                          "(a symbolic link, device or FIFO): refused", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(root, "lib/modules/6.12.0-test/kernel/arch/x86/kvm/kvm.ko")))
            # and so is a second name (a hard link can be someone else's root-only file)
            os.unlink(os.path.join(kdir, "kvm.ko.zst"))
            os.link(outside, os.path.join(kdir, "kvm.ko.zst"))
            shutil.rmtree(root)
            p = add("kvm-intel")
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("has 2 names (hard links)", p.stderr)
            # a kernel release that would lead out of lib/modules is refused
            p = subprocess.run([os.path.join(ROOT, "images/l1/add-modules"), os.path.join(d, "mods"),
                                "../6.12.0-test", root, "kvm"], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("not a plain word", p.stderr)

    def test_compressed_modules_in_a_package_or_modules_tree_make_a_medium(self):
        """KERNEL=FILE.deb whose modules are .ko.xz (Debian's since 6.12), and KERNEL=bzImage
        MODULES=DIR with DIR as make modules_install INSTALL_MOD_PATH=DIR leaves it (its
        build link into the source tree, depmod's files) with CONFIG_MODULE_COMPRESS_XZ:
        PLE_MODPARAMS is held to the compressed module's own parameters, and
        PLE_TEST_MEDIUM_ONLY=1 builds L1's medium as plerig does (images/l1/build-medium)."""
        skip_without_ple_test_packages(self, "scripts/ple-test builds no medium without them")
        if not PLERIG:
            self.skipTest("no plerig given (tests/meson.build passes it): the initrd needs a real one")
        for shape in ("package", "modules_install"):
            with self.subTest(shape=shape), tempfile.TemporaryDirectory() as d:
                root = os.path.join(d, "pkg" if shape == "package" else "mods")
                release = os.path.join(root, "lib/modules/6.1.0-test")
                kdir = os.path.join(release, "kernel/arch/x86/kvm")
                plain = {}
                for ko, params, name, deps in (("kvm-intel.ko", ["ple_gap", "ple_window"], "kvm_intel", "kvm"),
                                               ("kvm.ko", ["halt_poll_ns"], "kvm", "")):
                    kernel_module(os.path.join(kdir, ko), params, name=name, depends=deps)
                    with open(os.path.join(kdir, ko), "rb") as f:
                        plain[ko] = f.read()
                    subprocess.run(["xz", "-q", os.path.join(kdir, ko)], check=True)
                with open(os.path.join(release, "modules.order"), "w") as f:
                    f.write("kernel/arch/x86/kvm/kvm.ko\nkernel/arch/x86/kvm/kvm-intel.ko\n")
                # depmod lives in /usr/sbin, which an unprivileged user's PATH lacks
                depmod = shutil.which("depmod", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
                subprocess.run([depmod, "-b", root, "6.1.0-test"], check=True, capture_output=True)
                if shape == "package":
                    env = {"KERNEL": kernel_package(root, os.path.join(d, "linux-image-6.1.0-test.deb"))}
                else:
                    os.symlink("/nonexistent/linux", os.path.join(release, "build"))
                    env = {"KERNEL": kernel_image(os.path.join(d, "bzImage")), "MODULES": root}
                # a build with a real plerig (ldd names what the initrd must carry); no apt-get
                build = os.path.join(d, "build")
                os.makedirs(os.path.join(build, "images"))
                shutil.copy(PLERIG, build)
                shutil.copy(os.path.join(os.path.dirname(PLERIG), "images/plerig-guest.elf"),
                            os.path.join(build, "images"))
                os.makedirs(os.path.join(d, "bin"))
                with open(os.path.join(d, "bin", "apt-get"), "w") as f:
                    f.write("#!/bin/sh\nexit 1\n")
                os.chmod(os.path.join(d, "bin", "apt-get"), 0o755)
                # a name PLE_MODPARAMS gives that the compressed module does not have is refused
                p = run_ple_test(d, {**env, "PLE_MODPARAMS": "ple_nosuch=1"})
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("ple_nosuch", p.stderr)
                p = run_ple_test(d, {**env, "PLE_MODPARAMS": "ple_window=16384"}, timeout=240)
                self.assertEqual(p.returncode, 0, p.stderr)
                # plerig's medium, the one every step boots (images/l1/build-medium)
                self.assertRegex(p.stdout, r"^l1.iso sha256 [0-9a-f]{64}\n$")
                # its initrd holds the modules plain, the very bytes that were compressed
                # (images/l1/add-modules): L1 inflates nothing at its loads (issue 24)
                initrd, tree = os.path.join(d, "initrd"), os.path.join(d, "tree")
                subprocess.run(["xorriso", "-indev", os.path.join(d, "work/medium/l1.iso"), "-osirrox", "on",
                                "-extract", "/initrd", initrd], capture_output=True, check=True, timeout=60)
                os.makedirs(tree)
                with open(initrd, "rb") as f:
                    subprocess.run(["cpio", "-id", "--quiet"], stdin=f, cwd=tree, check=True, timeout=60)
                got = os.path.join(tree, "lib/modules/6.1.0-test")
                self.assertEqual(sorted(os.listdir(os.path.join(got, "kernel/arch/x86/kvm"))), sorted(plain))
                for ko, data in plain.items():
                    with open(os.path.join(got, "kernel/arch/x86/kvm", ko), "rb") as f:
                        self.assertEqual(f.read(), data, ko)
                with open(os.path.join(got, "modules.dep")) as f:
                    self.assertEqual(sorted(f.read().split()), ["kernel/arch/x86/kvm/kvm-intel.ko:",
                                                                "kernel/arch/x86/kvm/kvm.ko:"])

    def test_modules_of_another_kernel_or_none_are_refused(self):
        p = self.ple_test(["lib/modules/6.2.0-other"])
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("the modules are not those of kernel 6.1.0-test", p.stderr)
        # a MODULES directory that is not one is the user's mistake: the harness's status
        p = self.ple_test([])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.splitlines()[-1], "ple-test: exit status 2: the harness could "
                                                    "not set up: not the kernel's fault")
        self.assertIn("no lib/modules in it", p.stderr)


FAKE_PLERIG = r'''#!/usr/bin/env python3
# A fake plerig for scripts/ple-test: each call's argv appended to $FAKE_LOG, one
# line each; what it writes and its status from FAKE_* by step (gate, trace, doctor, tune)
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write("\x1f".join(args) + "\n")
def opt(name):
    return args[args.index(name) + 1] if name in args else None
suite = opt("--suite") or ""
step = "trace" if suite.endswith("ple-trace.cfg") else "gate" if args[0] == "check" else args[0]
e = os.environ
if step == "gate":
    print("gate summary")
    print(e.get("FAKE_SUMMARY", ""))
elif step == "trace":
    with open(opt("--tap"), "w") as f:
        f.write(e.get("FAKE_TRACE_TAP", "TAP version 13\n1..2\nok 1 - exit-times: exit-times\n"
                    "  ---\n  message: 'held in 2 runs; e.g. 1457 exits timed'\n  ...\n"
                    "ok 2 - pvqspin-trace: kick-trace\n"))
    print(e.get("FAKE_TRACE_SUMMARY", "3 scenario(s) run, 0 skipped, in 6.3 s: 2 passed"))
elif step == "doctor":
    print(json.dumps({"findings": [
        {"finding": "pause_intercept", "status": "ok", "detail": "kvm_intel intercepts PAUSE"},
        {"finding": "kvm_exit_fires", "status": "ok", "detail": "counted 12 kvm_exit for 12 exits"}],
        "kvm_module": {"users": "", "ple_params": []}}))
elif step == "tune":
    best = int(e.get("FAKE_BEST_" + os.path.basename(opt("--json")).split(".")[0][-1], "1024"))
    with open(opt("--json"), "w") as f:
        json.dump({"param": {"name": "ple_window"}, "resolved": True, "mix": {"value": best},
                   "apply": {"change": True},
                   "shapes": [{"label": "s", "resolved": True, "best": best,
                               "vs_current": {"claim": "gain"}, "vs_default": {"claim": "gain"},
                               "flat": [], "flat_everywhere": False, "edge": {"note": "edge"}}],
                   "visits": [{"value": 1024, "shapes": [{"objective": 7300.0}]}],
                   "provenance": {"seconds": 31.5}}, f)
print(f"plerig {step}: L1 relayed", file=sys.stderr)
sys.exit(int(e.get("FAKE_" + step.upper() + "_STATUS", e.get("FAKE_STATUS", "0"))))
'''


class Steps(unittest.TestCase):
    """Every step of make ple-test is a plerig command against the emulated host (here
    a fake plerig that says what it was given and exits as told): the gate (plerig check
    of suites/ple.cfg) beside the rest, then trace (plerig check of
    suites/ple-trace.cfg), doctor (plerig doctor --json) and, on Intel, tune-twice (two
    plerig tunes). Each status is read as git bisect run reads the harness's: 0, 1, 125
    as they are, anything else (77: nothing ran) the harness's 3."""

    def setUp(self):
        skip_without_ple_test_packages(self, "scripts/ple-test stops before its steps without them")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        d = self.d = self.tmp.name
        self.mods = os.path.join(d, "mods")
        kernel_module(os.path.join(self.mods, "lib/modules/6.1.0-test/kernel/arch/x86/kvm/kvm-intel.ko"),
                      ["ple_gap", "ple_window"])
        self.kernel = kernel_image(os.path.join(d, "bzImage"))
        run_ple_test(d, {"KERNEL": self.kernel, "MODULES": self.mods, "PLE_TEST_MEDIUM_ONLY": "0",
                         "PLE_TEST_ONLY": "nosuch"})  # makes the stub build
        with open(os.path.join(d, "build", "plerig"), "w") as f:
            f.write(FAKE_PLERIG)
        self.log = os.path.join(d, "calls")
        os.makedirs(os.path.join(d, "store"))
        for key, text in (("intel-kvm_intel", "intel's"), ("amd-kvm_amd", "amd's")):
            with open(os.path.join(d, "store", key + ".json"), "w") as f:
                f.write(text)

    def run_steps(self, **env):
        if os.path.exists(self.log):
            os.unlink(self.log)
        p = run_ple_test(self.d, {"KERNEL": self.kernel, "MODULES": self.mods, "PLE_TEST_MEDIUM_ONLY": "0",
                                  "PLERIG_BASELINES": os.path.join(self.d, "store"), "FAKE_LOG": self.log,
                                  **env}, timeout=240)
        calls = []
        if os.path.exists(self.log):
            with open(self.log) as f:
                calls = [line.rstrip("\n").split("\x1f") for line in f]
        return p, calls

    BROKE = "the harness broke (a stall, Bochs, a limit, the judging): not the kernel's fault"

    def test_the_gate_is_plerig_checks_and_so_is_its_status(self):
        ran = "9 scenario(s) run, 0 skipped, in 57.7 s: 42 passed, 0 failed, 3 skipped"
        # a gate that skipped a scenario (L1 could not reload its module for a sweep
        # point) did not judge the kernel: the harness's 3, however check exited
        for status, want, line, summary in (
                (0, 0, "good: every assertion held", ran),
                (1, 1, "bad: a regression or a failed assertion (git bisect: bad)", ran),
                (125, 125, "this kernel cannot be tested (git bisect: skip)", ""),
                (77, 3, self.BROKE, ""),
                (0, 3, self.BROKE, ran.replace("9 scenario(s) run, 0", "7 scenario(s) run, 2"))):
            with self.subTest(status=status, summary=summary):
                p, calls = self.run_steps(PLE_TEST_ONLY="gate", RECORD="1" if status == 0 else "",
                                          PLE_MODPARAMS="ple_window=16384" if status == 1 else "",
                                          FAKE_STATUS=str(status), FAKE_SUMMARY=summary)
                self.assertEqual(p.returncode, want, p.stderr)
                self.assertEqual(p.stderr.splitlines()[-1], f"ple-test: exit status {want}: {line}")
                self.assertIn(f"the gate by plerig: exit status {want if summary.startswith('7') else status} after",
                              p.stderr)
                self.assertIn("gate summary\n", p.stdout)
                work = os.path.join(self.d, "work", "results")
                self.assertEqual(calls, [["check", "--connect", "emulated", "--kernel", self.kernel,
                                          "--cache-dir", os.path.join(self.d, "cache"), "--modules", self.mods,
                                          # PLE_MODPARAMS: L1's modules reloaded with them
                                          *(["--module-params", "ple_window=16384"] if status == 1 else []),
                                          "--suite", os.path.join(ROOT, "suites/ple.cfg"),
                                          "--baselines", os.path.join(self.d, "store"),
                                          "--tap", f"{work}/gate.tap", "--junit", f"{work}/gate-junit.xml",
                                          # every round's figures kept
                                          "--json", f"{work}/gate-results.json",
                                          *(["--record"] if status == 0 else ["--threshold", "2"])]])
                if want == 3 and status == 0:
                    self.assertIn("the gate by plerig skipped 2 scenario(s) (its summary "
                                  "says why): not judged", p.stderr)
                # for side-by-side: the gate's status, and this machine's baseline from
                # the store (not the other vendor's)
                with open(os.path.join(work, "gate.json")) as f:
                    self.assertEqual(json.load(f), {
                        "exit_status": want if summary.startswith("7") else status,
                        "summary": [summary or "gate summary"]})
                with open(os.path.join(work, "gate", "l1", "baseline.json")) as f:
                    self.assertEqual(f.read(), "intel's")

    def test_the_plan_is_plerig_commands_judged_by_assert_results(self):
        p, calls = self.run_steps(FAKE_SUMMARY="10 scenario(s) run, 0 skipped, in 34.8 s: 33 passed")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stderr.splitlines()[-1], "ple-test: exit status 0: good: every assertion held")
        common = ["--connect", "emulated", "--kernel", self.kernel, "--cache-dir",
                  os.path.join(self.d, "cache"), "--modules", self.mods]
        work = os.path.join(self.d, "work", "results")
        steps = {tuple(c[:1] + (["trace"] if "--suite" in c and c[c.index("--suite") + 1].endswith(
            "ple-trace.cfg") else [])): c for c in calls}
        self.assertEqual(sorted(steps), [("check",), ("check", "trace"), ("doctor",), ("tune",)])
        self.assertEqual(steps[("check", "trace")], ["check", *common, "--suite",
                                                     os.path.join(ROOT, "suites/ple-trace.cfg"),
                                                     "--tap", f"{work}/trace.tap",
                                                     "--junit", f"{work}/trace-junit.xml"])
        self.assertEqual(steps[("doctor",)], ["doctor", *common, "--json"])
        tunes = [c for c in calls if c[0] == "tune"]
        self.assertEqual(len(tunes), 2)
        self.assertEqual(tunes[1], ["tune", *common, "--max-visits", "6", "--budget", "3600", "--param",
                                    "ple_window=1024..16384", "--no-ple-off", "--seed", "1", "-q",
                                    "--json", f"{work}/tune-twice-2.json", "--", "--ring", "kernel",
                                    "--duration", "0.2", "--warmup", "0.05", "--timeout", "30",
                                    "--vcpus", "2", "--pcpus", "0", "--lock", "ticket", "--relax", "pause"])
        # each case of the trace suite an assertion, with its figures; doctor's and tune's too
        self.assertIn("ok 1 - trace: exit-times: exit-times: held in 2 runs; e.g. 1457 exits timed",
                      p.stdout)
        self.assertIn("ok 2 - trace: pvqspin-trace: kick-trace", p.stdout)
        self.assertRegex(p.stdout, r"ok \d+ - doctor: PAUSE interception")
        self.assertRegex(p.stdout, r"ok \d+ - kvm:kvm_exit per vCPU equals the exits stat delta")
        self.assertRegex(p.stdout, r"ok \d+ - tune twice: the same recommendation")
        with open(os.path.join(work, "meta.json")) as f:
            meta = json.load(f)
        self.assertEqual(meta["plan"], ["gate", "trace", "doctor", "tune-twice"])
        self.assertEqual(sorted(meta["steps"]), ["doctor", "trace", "tune-twice-1", "tune-twice-2"])
        # AMD's plan has no tune-twice
        p, calls = self.run_steps(PLE_TEST_ONLY="", VENDOR="amd")
        self.assertNotIn("tune", [c[0] for c in calls], p.stderr)

    def test_each_steps_status_is_read_as_git_bisect_reads_it(self):
        """assert-results' status through the harness (its cases: AssertResults)."""
        bad_tap = ("TAP version 13\n1..1\nnot ok 1 - pvqspin-trace: kick-trace\n  ---\n"
                   "  message: 'APIC ID 3 kicked 10 times'\n  ...\n")
        for env, want, needle in (
                ({"FAKE_TRACE_TAP": bad_tap, "FAKE_TRACE_STATUS": "1"}, 1,
                 "not ok 1 - trace: pvqspin-trace: kick-trace: APIC ID 3 kicked 10 times"),
                ({"FAKE_TRACE_STATUS": "125"}, 125, "trace: plerig says the kernel cannot be tested"),
                ({"FAKE_DOCTOR_STATUS": "77"}, 3, "doctor: plerig exited 77")):
            with self.subTest(env=env):
                p, _ = self.run_steps(PLE_TEST_ONLY="trace doctor", **env)
                self.assertEqual(p.returncode, want, p.stdout + p.stderr)
                self.assertIn(needle, p.stdout + p.stderr)

    def test_the_harnesss_own_l1_settings_are_gone_and_said(self):
        for v in ("PLE_TEST_GATE", "PLE_TEST_SEED", "PLE_TEST_CPUS", "PLE_TEST_CONSOLE", "PLE_TEST_UNPACK"):
            with self.subTest(v=v):
                p, calls = self.run_steps(**{v: "shell" if v == "PLE_TEST_GATE" else "1"})
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{v}: no longer a setting: make ple-test boots no L1 of its own", p.stderr)
                self.assertEqual(calls, [])


class Inputs(unittest.TestCase):
    """Issue 25, items 4, 5, 6 and 9: what make ple-test is given (its variables, a .deb,
    a MODULES directory, what L1 sends back) is checked before anything is built or
    removed, and read by neither make nor a shell on the way."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.d = self.tmp.name
        self.work = os.path.join(self.d, "work")
        self.mods = os.path.join(self.d, "mods")
        self.ko = kernel_module(os.path.join(self.mods, "lib/modules/6.1.0-test/kernel/arch/x86/kvm/kvm-intel.ko"),
                                ["ple_gap", "ple_window", "enable_apicv"])
        self.kernel = kernel_image(os.path.join(self.d, "bzImage"))

    def refused(self, env, *needles, cwd=None, status=2):
        """Refused before anything is built: 2 bad input, 125 a kernel that cannot be tested."""
        p = run_ple_test(self.d, {"KERNEL": self.kernel, "MODULES": self.mods, **env}, cwd=cwd)
        self.assertEqual(p.returncode, status, p.stdout + p.stderr)
        for n in needles:
            self.assertIn(n, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "rootfs")), "the initrd was begun")
        return p

    def test_make_passes_its_variables_unread(self):
        """`make ple-test` itself: backticks and $(shell) in a variable run nothing, and
        a value that would close plan.env's quotes is refused before anything is built."""
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        pwned = os.path.join(self.d, "PWNED")
        run_ple_test(self.d, {}, args=["true"])  # the stub build

        def make(*variables):
            return run_ple_test(self.d, env, args=["make", "-s", "-C", ROOT, "-o", "build", "ple-test",
                                                   "BUILD=" + os.path.join(self.d, "build"),
                                                   "PLE_TEST_DIR=" + self.work, *variables])
        kernel = f"{self.d}/k`touch {pwned}1`$(touch {pwned}2)$(shell touch {pwned}3).deb"
        p = make("KERNEL=" + kernel)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn(f"KERNEL={kernel}: no such file", p.stderr)
        p = make("KERNEL=" + self.kernel, "MODULES=" + self.mods,
                 'PLE_MODPARAMS=ple_window=1" ; touch ' + pwned + '4 ; X="')
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("PLE_MODPARAMS='ple_window=1\\\"\\ \\;\\ touch", p.stderr)
        self.assertIn("NAME=VALUE pairs separated by spaces", p.stderr)
        self.assertEqual([f for f in os.listdir(self.d) if f.startswith("PWNED")], [])
        self.assertFalse(os.path.exists(self.work))

    def test_each_variable_is_checked_before_anything(self):
        for env, why in (({"PLE_MODPARAMS": "ple_window=1 $(reboot)"}, "PLE_MODPARAMS='ple_window=1\\ \\$\\(reboot\\)'"),
                         ({"PLE_MODPARAMS": "ple_window"}, "'ple_window' is not NAME=VALUE"),
                         ({"PLE_TEST_ONLY": "nosuch"}, "PLE_TEST_ONLY: no step 'nosuch'; the steps: gate trace doctor tune-twice tune"),
                         ({"PLE_TEST_ONLY": "gate;x=y"}, "PLE_TEST_ONLY='gate\\;x=y': step names separated by"),
                         ({"PLE_TEST_ONLY": "modules"}, "no step 'modules'"),
                         ({"PLE_TEST_ONLY": "gate\nDEFAULT evil"}, "step names separated by"),
                         ({"PLE_MODPARAMS": "ple_window=1\nX=y"}, "NAME=VALUE pairs separated by spaces"),
                         ({"PLE_TEST_ONLY": " , "}, "names no step"),
                         ({"PLE_TEST_WALL": "1e9"}, "PLE_TEST_WALL=1e9: a number of seconds"),
                         ({"RECORD": "yes"}, "RECORD=yes"),
                         ({"PLE_TEST_MEDIUM_ONLY": "yes"}, "PLE_TEST_MEDIUM_ONLY=yes: 0 or 1"),
                         ({"VENDOR": "arm"}, "VENDOR=arm: no vendor 'arm'; the emulated vendors are intel amd (images/l1/vendors.cfg)"),
                         ({"VENDOR": "intel,arm"}, "VENDOR=intel,arm: no vendor 'arm'; the emulated vendors are"),
                         ({"VENDOR": "intel amd intel"}, "VENDOR=intel amd intel: intel named twice"),
                         ({"VENDOR": " , "}, "VENDOR=' , ': names no vendor"),
                         ({"VENDOR": "intel amd", "PLE_MODPARAMS": "ple_window=1"},
                          "PLE_MODPARAMS with VENDOR=intel amd: each vendor's module has parameters of its own"),
                         ({"VENDOR": "intel\namd"}, "VENDOR=$'intel\\namd': the emulated vendors are"),
                         ({"VENDOR": "[intel]"}, "VENDOR=\\[intel\\]: the emulated vendors are"),
                         ({"PLE_TEST_DIR": self.work + " x"}, "only letters, digits and"),
                         ({"KERNEL": "/nonexistent.deb"}, "KERNEL=/nonexistent.deb: no such file"),
                         ({"KERNEL": "/dev/zero"}, "KERNEL=/dev/zero: no such file (or not a regular one)")):
            with self.subTest(env=env):
                self.refused(env, why)
                self.assertFalse(os.path.exists(self.work), "the work directory was made")
        # names are held to the module's: after the kernel is looked at, before anything is built
        self.refused({"PLE_MODPARAMS": "enable_apicv=0 nosuch=1"},
                     "kvm_intel has no parameter 'nosuch'; it has: ple_gap ple_window enable_apicv")
        self.assertFalse(os.path.exists(os.path.join(self.work, "results")))

    def check_inputs(self, builtin_modinfo, body):
        """@body run by bash after tests/ple/check-inputs, die() printing its message;
        @builtin_modinfo (bytes) written as a modules.builtin.modinfo, its path in $B."""
        builtin = os.path.join(self.d, "modules.builtin.modinfo")
        with open(builtin, "wb") as f:
            f.write(builtin_modinfo)
        script = (f"set -euo pipefail\nROOT={ROOT}\nB={builtin}\ndie() {{ echo \"$*\"; exit 2; }}\n"
                  f"source {ROOT}/tests/ple/check-inputs\n{body}")
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)

    def test_parameters_of_the_module_pass_non_ple_ones_too(self):
        """enable_apicv=0 is a parameter of kvm_intel: the module's list, or a built-in
        kvm_intel's modules.builtin.modinfo, is what PLE_MODPARAMS is held to."""
        p = self.check_inputs(b"kvm.parmtype=halt_poll_ns:uint\0kvm_intel.parmtype=ple_gap:uint\0"
                              b"kvm_intel.parmtype=enable_apicv:bool\0",
                              f"check_modparams_names 'ple_window=16384 enable_apicv=0' {self.ko} '' kvm_intel; "
                              "echo module ok\n"
                              "check_modparams_names 'enable_apicv=0' '' $B kvm_intel; echo built-in ok\n"
                              "check_modparams_names 'halt_poll_ns=0' '' $B kvm_intel; echo not reached\n")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "module ok\nbuilt-in ok\nPLE_MODPARAMS: kvm_intel has no parameter "
                                   "'halt_poll_ns' (kvm.ko's are named kvm.NAME: kvm.halt_poll_ns); "
                                   "it has: ple_gap enable_apicv\n")

    def test_kvm_dot_names_are_kvm_kos_parameters(self):
        """PLE_MODPARAMS' kvm.NAME=VALUE goes to kvm.ko (its prefix dropped), held to kvm's
        own parameters; the vendor module gets the others."""
        mp = "kvm.halt_poll_ns=0 ple_window=16384 kvm.halt_poll_ns_grow=0"
        p = self.check_inputs(b"kvm.parmtype=halt_poll_ns:uint\0kvm.parmtype=halt_poll_ns_grow:uint\0"
                              b"kvm_intel.parmtype=ple_window:uint\0",
                              f"check_modparams_syntax '{mp}'\n"
                              f"echo \"kvm=[$(modparams_of '{mp}' kvm)] vendor=[$(modparams_of '{mp}' vendor)]\"\n"
                              f"check_modparams_names '{mp}' '' $B kvm_intel; echo vendor ok\n"
                              f"check_modparams_names '{mp}' '' $B kvm; echo kvm ok\n"
                              "check_modparams_names 'kvm.ple_window=1' '' $B kvm; echo not reached\n")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "kvm=[halt_poll_ns=0 halt_poll_ns_grow=0] vendor=[ple_window=16384]\n"
                                   "vendor ok\nkvm ok\nPLE_MODPARAMS: kvm has no parameter 'ple_window'; "
                                   "it has: halt_poll_ns halt_poll_ns_grow\n")
        for bad in ("kvm_amd.pause_filter_count=1", "kvm..x=1", ".halt_poll_ns=1"):
            p = self.check_inputs(b"", f"check_modparams_syntax '{bad}'\n")
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn(f"'{bad}' is not NAME=VALUE", p.stdout)

    def l1_function(self, name):
        """A function of images/l1/vendor-fit, which L1's init sources."""
        with open(os.path.join(ROOT, "images/l1/vendor-fit")) as f:
            text = f.read()
        m = re.search(rf"^{name}\(\) {{\n.*?^}}\n", text, re.M | re.S)
        self.assertIsNotNone(m, name)
        return m.group(0)

    def test_l1_stops_on_a_cpu_without_the_pause_filter(self):
        """vendor-fit's missing_flags and zeroed_params: the vendor's /proc/cpuinfo flags this
        CPU lacks, and the parameters the module zeroed though asked otherwise (kvm_amd
        without pfthreshold: pause_filter_thresh=0); one asked 0 is the gate's to judge."""
        cpuinfo, sysfs = os.path.join(self.d, "cpuinfo"), os.path.join(self.d, "parameters")
        os.makedirs(sysfs)
        with open(cpuinfo, "w") as f:
            f.write("processor\t: 0\nflags\t\t: fpu svm npt pausefilter lbrv\n"
                    "processor\t: 1\nflags\t\t: fpu svm npt pausefilter pfthreshold\n")
        for name, value in (("pause_filter_count", "3000"), ("pause_filter_thresh", "0")):
            with open(os.path.join(sysfs, name), "w") as f:
                f.write(value + "\n")
        script = (f"CPUINFO={cpuinfo} PARAMS={sysfs} KVM_MODULE=kvm_amd\n"
                  'CPU_FLAGS="svm npt pausefilter pfthreshold" NONZERO="pause_filter_count pause_filter_thresh"\n'
                  + self.l1_function("missing_flags") + self.l1_function("zeroed_params") +
                  'KVM_ARGS="pause_filter_count=3000 pause_filter_thresh=128"\n'
                  'echo "[$(missing_flags)] [$(zeroed_params)]"\n'
                  'KVM_ARGS="pause_filter_count=3000 pause_filter_thresh=128 pause_filter_thresh=0"\n'
                  'echo "[$(zeroed_params)]"\n'
                  'CPU_FLAGS="svm npt pausefilter" KVM_ARGS=""\n'
                  'echo "[$(missing_flags)] [$(zeroed_params)]"\n')
        p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.stdout, "[pfthreshold ] [kvm_amd.pause_filter_thresh=0 (asked 128) ]\n[]\n"
                                   "[] [kvm_amd.pause_filter_thresh=0 (asked its default) ]\n", p.stderr)

    def test_l1_stops_for_the_reasons_vendor_fit_gives(self):
        """images/l1/vendor-fit's vendor_unfit, sourced by L1's init (images/l1/init):
        one line saying why nothing may run, or none; the init says how a bzImage gets
        its modules."""
        for init, how in (("images/l1/init", "--kernel bzImage needs --modules DIR"),):
            with open(os.path.join(ROOT, init)) as f:
                text = f.read()
            self.assertIn(". /vendor-fit\n", text, init)
            self.assertIn(f'vendor_unfit "{how}"', text, init)
        cpuinfo, sysfs = os.path.join(self.d, "cpuinfo"), os.path.join(self.d, "parameters")
        device, modprobe = os.path.join(self.d, "kvm"), os.path.join(self.d, "modprobe.out")
        os.makedirs(sysfs)
        with open(cpuinfo, "w") as f:
            f.write("flags\t\t: fpu svm npt pausefilter pfthreshold\n")
        for name, value in (("pause_filter_count", "3000"), ("pause_filter_thresh", "128")):
            with open(os.path.join(sysfs, name), "w") as f:
                f.write(value + "\n")
        with open(modprobe, "w") as f:
            f.write("modprobe: FATAL: Module kvm_amd not found\n")
        with open(os.path.join(ROOT, "images/l1/vendor-fit")) as f:
            fit = f.read()
        env = (f"CPUINFO={cpuinfo} PARAMS={sysfs} KVM_DEVICE={device} KVM_MODULE=kvm_amd\n"
               'CPU_FLAGS="svm npt pausefilter pfthreshold" NONZERO="pause_filter_count pause_filter_thresh"\n'
               'KVM_ARGS="pause_filter_count=3000 pause_filter_thresh=128"\n')
        script = (env + fit.replace("/tmp/modprobe.out", modprobe) +
                  'echo "1[$(vendor_unfit HOW)]"\n'
                  f': > {device}\n'
                  'echo "2[$(vendor_unfit HOW)]"\n'
                  f'echo 0 > {sysfs}/pause_filter_thresh\n'
                  'echo "3[$(vendor_unfit HOW)]"\n'
                  'CPU_FLAGS="svm npt pausefilter pfthreshold vmx"\n'
                  'echo "4[$(vendor_unfit HOW)]"\n')
        p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 4, p.stdout + p.stderr)
        self.assertRegex(lines[0], r"^1\[no kvm_amd in L1's kernel \S+( \(not built in, and no "
                                   r"modules were given with it: HOW unless CONFIG_KVM_AMD=y\))?: "
                                   r"modprobe kvm_amd pause_filter_count=3000 pause_filter_thresh=128 "
                                   r"says: modprobe: FATAL: Module kvm_amd not found \]$")
        self.assertEqual(lines[1:], [
            "2[]",
            "3[kvm_amd.pause_filter_thresh=0 (asked 128) : this CPU lacks what they need, and "
            "kvm_amd would intercept no PAUSE]",
            "4[L1's CPU lacks vmx  in /proc/cpuinfo (wanted: svm npt pausefilter pfthreshold vmx): "
            "kvm_amd would intercept no PAUSE here; kvm_amd.pause_filter_thresh=0 (asked 128) ]"])

    def test_links_in_a_package_or_modules_directory_are_not_followed(self):
        secret = os.path.join(self.d, "secret")
        with open(secret, "w") as f:
            f.write("root only\n")
        # kvm-intel.ko a link to another file
        os.unlink(self.ko)
        os.symlink(secret, self.ko)
        self.refused({}, f"{self.ko} is not a regular file (a symbolic link, device or FIFO): refused")
        # kvm-intel.ko a second name of a file elsewhere (a hard link)
        os.unlink(self.ko)
        kernel_module(secret, ["ple_gap"])
        os.link(secret, self.ko)
        self.refused({}, f"{self.ko} has 2 names (hard links), so it may be a file of someone else's: refused")
        # a directory on the way a link out of MODULES
        os.unlink(self.ko)
        release = os.path.join(self.mods, "lib/modules/6.1.0-test")
        outside = os.path.join(self.d, "outside")
        os.rename(release, outside)
        kernel_module(os.path.join(outside, "kvm-intel.ko"), ["ple_gap"])
        os.symlink(outside, release)
        self.refused({}, f"is {outside}/kvm-intel.ko, outside {self.mods}")
        # a package whose kernel is a link to /dev/zero (sha256sum read it for ever)
        deb = kernel_package(os.path.join(self.d, "pkg"), os.path.join(self.d, "linux-image-6.1.0-test.deb"),
                             link_to="/dev/zero")
        p = run_ple_test(self.d, {"KERNEL": deb}, timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"the package's kernel: \S*/boot/vmlinuz-6.1.0-test is not a regular file")

    def test_the_kernel_header_and_version_string_are_checked(self):
        for version, why in ((b"", "its version string is empty"),
                             (b"../../../etc #1", "version string '../../../etc': not a kernel release"),
                             (b"6.1.0/x #1", "version string '6.1.0/x'")):
            with self.subTest(version=version):
                kernel_image(self.kernel, version)
                self.refused({}, why, status=125)
        image = bytearray(bzimage(b"\0" * 64))  # no kernel_version offset
        with open(self.kernel, "wb") as f:
            f.write(image)
        self.refused({}, "its setup header has no kernel_version string", status=125)

    def test_a_kernel_named_like_an_option_is_a_file(self):
        os.rename(self.kernel, os.path.join(self.d, "-x.bin"))
        self.refused({"KERNEL": "-x.bin", "MODULES": "mods/none"}, f"MODULES={self.d}/mods/none: no such directory",
                     cwd=self.d)
        os.makedirs(os.path.join(self.d, "other/lib/modules/6.2.0-other"))
        self.refused({"KERNEL": "-x.bin", "MODULES": "other"}, "the modules are not those of kernel 6.1.0-test",
                     cwd=self.d, status=125)

    def test_amds_parameters_are_kvm_amds(self):
        """VENDOR=amd: PLE_MODPARAMS is held to kvm_amd's parameters, not kvm_intel's."""
        kernel_module(os.path.join(self.mods, "lib/modules/6.1.0-test/kernel/arch/x86/kvm/kvm-amd.ko"),
                      ["pause_filter_count", "pause_filter_thresh"], name="kvm_amd")
        self.refused({"VENDOR": "amd", "PLE_MODPARAMS": "pause_filter_count=0 ple_window=1"},
                     "kvm_amd has no parameter 'ple_window'; it has: pause_filter_count pause_filter_thresh")

    def test_a_second_run_in_one_work_directory_touches_nothing_of_the_first(self):
        """The first run holds the work directory (here the test holds its lock); a second
        one, whether its inputs are good or bad, leaves the first one's results alone."""
        log = os.path.join(self.work, "results", "a", "serial.log")
        os.makedirs(os.path.dirname(log))
        with open(log, "w") as f:
            f.write("the first run's console\n")
        self.refused({"KERNEL": os.path.join(self.d, "nonexistent")}, "no such file")
        lock = os.open(self.work, os.O_RDONLY | os.O_DIRECTORY)
        self.addCleanup(os.close, lock)
        fcntl.flock(lock, fcntl.LOCK_EX)
        self.refused({}, f"another make ple-test is running in {self.work}", "PLE_TEST_DIR=DIR")
        with open(log) as f:
            self.assertEqual(f.read(), "the first run's console\n")

class Vendors(unittest.TestCase):
    """images/l1/vendors.cfg through images/l1/read-vendor: each emulated vendor says
    everything scripts/ple-test and L1 need; Intel's is what the gate always ran."""
    KEYS = ("cpu", "bochs", "module", "params", "prefix", "flags", "nonzero", "hlt_exit", "suite",
            "cpu_name", "virt")

    def read(self, script, vendor=""):
        p = subprocess.run(["bash", "-c", f"set -euo pipefail; ROOT={ROOT}; VENDOR={vendor}\n"
                            f"source {ROOT}/images/l1/read-vendor\n{script}"],
                           capture_output=True, text=True, timeout=30)
        return p

    def test_every_vendor_has_every_key(self):
        p = self.read("vendor_names")
        self.assertEqual(p.stdout.split(), ["intel", "amd"], p.stderr)
        for vendor in p.stdout.split():
            for key in self.KEYS:
                with self.subTest(vendor=vendor, key=key):
                    q = self.read(f"vendor_key {key}", vendor)
                    self.assertEqual(q.returncode, 0, q.stderr)
                    self.assertRegex(q.stdout, r"^\S.*\n$")
            suite = self.read("vendor_key suite", vendor).stdout.strip()
            self.assertTrue(os.path.isfile(os.path.join(ROOT, suite)), suite)
        self.assertEqual(self.read("vendor_key nosuch", "intel").returncode, 1)

    def test_each_suite_parses_and_sweeps_its_vendors_knob(self):
        """plerig check reads each vendor's suite, and its params = name the vendor's
        module parameters (kvm_amd has no ple_window)."""
        for vendor in self.read("vendor_names").stdout.split():
            with self.subTest(vendor=vendor):
                suite = os.path.join(ROOT, self.read("vendor_key suite", vendor).stdout.strip())
                prefix = self.read("vendor_key prefix", vendor).stdout.strip()
                p = subprocess.run([PLERIG, "check", "--suite", suite, "--list"], capture_output=True,
                                   text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                swept = re.findall(r" params=(\w+)=", p.stdout)
                self.assertGreaterEqual(len(swept), 2, p.stdout)
                self.assertTrue(all(n.startswith(prefix) for n in swept), swept)

    def test_intels_host_is_the_one_the_gate_always_ran(self):
        got = {k: self.read(f"vendor_key {k}", "intel").stdout.strip() for k in self.KEYS}
        self.assertEqual(got, {"cpu": "corei7_haswell_4770", "bochs": "system", "module": "kvm_intel",
                               "params": "ple_gap=128 ple_window=4096", "prefix": "ple_", "flags": "vmx",
                               "nonzero": "ple_gap", "hlt_exit": "12", "suite": "suites/ple.cfg",
                               "cpu_name": "Intel Core i7-4770 (Haswell)",
                               "virt": "VMX with PAUSE-loop exiting"})
        self.assertEqual(self.read("vendor_env", "amd").stdout,
                         "KVM_MODULE=kvm_amd PLE_PREFIX=pause_filter_ HLT_EXIT=120\n"
                         'CPU_FLAGS="svm npt pausefilter pfthreshold" NONZERO="pause_filter_count pause_filter_thresh"\n')


def ple_script(name, *args):
    """tests/ple/NAME (a Python script) with @args, its output captured."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "tests/ple", name), *args],
                          capture_output=True, text=True, timeout=30)


class SideBySide(unittest.TestCase):
    """tests/ple/side-by-side: each vendor's gate figures (the baseline its L1 sent back)
    in one table, per scenario of either suite, and whether the kernel was the same."""

    def results(self, d, vendor, module, sha, entries, record=True, rc=0, by_plerig=False):
        """A run's results; @by_plerig: the gate by this host's plerig, no L1 of the
        harness's own (gate.json and the store's baseline in gate/l1/, no figures.json)."""
        out = os.path.join(d, vendor)
        l1 = "gate" if by_plerig else "b"
        os.makedirs(os.path.join(out, l1, "l1"))
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump({"kernel": {"release": "6.1.0-test", "image_sha256": sha}, "record": record,
                       "bochs": "3.1", "vendor": {"name": vendor, "module": module, "params": "p=1",
                                                  "cpu": vendor + "-cpu"}}, f)
        with open(os.path.join(out, "gate.json" if by_plerig else "figures.json"), "w") as f:
            json.dump({"exit_status": rc} if by_plerig else {"figures": {"gate": {"exit_status": rc}}}, f)
        with open(os.path.join(out, l1, "l1", "baseline.json"), "w") as f:
            json.dump({"entries": [{"scenario": sc, "variant": "v", "metric": m, "values": v}
                                   for sc, m, v in entries]}, f)
        return out

    def table(self, *dirs):
        return ple_script("side-by-side", *dirs)

    def test_both_vendors_per_scenario_with_the_kernel_named(self):
        with tempfile.TemporaryDirectory() as d:
            intel = self.results(d, "intel", "kvm_intel", "a" * 64, [
                ("pause", "acq_per_s", [3607.6, 3612.3, 3612.2, 3612.1]),
                ("pause", "ple_exits_per_acq", [2.0083, 2.0083]),
                ("pause", "ple_window_updates_per_acq", [3.0166, 3.0138]),
                ("window-1024", "acq_per_s", [5485.7, 29141.7, 5478.4])])
            amd = self.results(d, "amd", "kvm_amd", "a" * 64, [
                ("pause", "acq_per_s", [704.2, 749.1, 731.0]),
                ("count-750", "ple_exits_per_acq", [2.009]),
                ("count-750", "wait_p50_ns", [787412.0, 788040.5])], record=False, rc=1, by_plerig=True)
            p = self.table(intel, amd)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertEqual(lines[0], "# Side by side, the same storm: kernel 6.1.0-test, "
                             "image sha256 aaaaaaaaaaaaaaaa for each")
            self.assertIn("intel: kvm_intel p=1, Bochs intel-cpu (3.1); gate exit status 0; "
                          "figures recorded in this run", lines[1])
            self.assertIn("amd: kvm_amd p=1, Bochs amd-cpu (3.1); gate exit status 1; "
                          "figures: the baseline this run was judged against", lines[2])
            self.assertEqual(lines[3], "| scenario | intel acq/s | intel exits/acq | intel updates/acq "
                             "| intel wait p50 ns | amd acq/s | amd exits/acq | amd updates/acq "
                             "| amd wait p50 ns |")
            self.assertIn("| pause | 3612 (3608-3612) | 2.008 | 3.015 (3.014-3.017) | - | 731 (704-749) "
                          "| - | - | - |", lines)
            self.assertIn("| window-1024 | 5486 (5478-29142) | - | - | - | - | - | - | - |", lines)
            self.assertIn("| count-750 | - | - | - | - | - | 2.009 | - | 787726 (787412-788040) |", lines)

    def test_another_kernel_is_said_and_what_is_not_results_refused(self):
        with tempfile.TemporaryDirectory() as d:
            intel = self.results(d, "intel", "kvm_intel", "a" * 64, [])
            amd = self.results(d, "amd", "kvm_amd", "b" * 64, [])
            p = self.table(intel, amd)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("NOT the same kernel image (intel aaaaaaaaaaaaaaaa, amd bbbbbbbbbbbbbbbb)", p.stdout)
            p = self.table(intel, d)
            self.assertEqual(p.returncode, 2)
            self.assertIn(f"side-by-side: {d}: not the results of a ple-test run (FileNotFoundError", p.stderr)
            self.assertEqual(self.table().returncode, 2)


class RoundsTable(unittest.TestCase):
    """tests/ple/rounds-table: the rounds of several recordings of the gate, per scenario,
    variant and metric, the rounds off the median by more than the threshold, and the
    gate's own Welch CI over each pair of consecutive recordings."""

    def store(self, d, name, entries, schema="plerig-baseline"):
        out = os.path.join(d, name)
        os.makedirs(out)
        with open(os.path.join(out, "intel-x-kvm_intel.json"), "w") as f:
            json.dump({"schema": schema, "entries": [
                {"scenario": sc, "variant": "kvm ticket pause kernel 1x2 ple=on pcpus=0", "metric": m,
                 "values": v} for sc, m, v in entries]}, f)
        return out

    def table(self, *args):
        return ple_script("rounds-table", *args)

    def test_rounds_of_another_regime_and_the_widest_ci(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.store(d, "1", [("pause", "acq_per_s", [3612.0, 3612.0, 3607.0, 3612.0]),
                                    ("pause", "foreign_cpu_share", [0, 0, 0, 0]),
                                    ("nop", "acq_per_s", [1.0, 2.0, 3.0, 4.0]),
                                    ("ple-off", "acq_per_s", [100.0, 101.0, 100.0, 101.0])])
            b = self.store(d, "2", [("pause", "acq_per_s", [3612.0, 8377.0, 3612.0, 3612.0]),
                                    ("nop", "acq_per_s", [2.0, 3.0, 4.0, 5.0]),
                                    ("ple-off", "acq_per_s", [110.0, 111.0, 110.0, 111.0])])
            p = self.table(a, os.path.join(b, "intel-x-kvm_intel.json"))
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertTrue(lines[0].startswith("2 recordings, 2 % threshold"), lines[0])
            # judged in suites/ple.cfg: marked; one round of 8 in another regime
            self.assertIn("| pause | ticket pause 1x2 ple=on pcpus=0 | acq_per_s* | 3612 3612 3607 3612 \\| "
                          "3612 8377 3612 3612 | 3612 | 132.1 % | 8377 | ", p.stdout)
            # Welch's 95 % CI of [2..5] against [1..4]: 178.7 % of 2.5 wide (t 2.447, df 6)
            # its change +40 % of 2.5, the interval not wholly beyond 2 %
            self.assertIn("| nop | ticket pause 1x2 ple=on pcpus=0 | acq_per_s | 1 2 3 4 \\| 2 3 4 5 | 3 | "
                          "133.3 % | 1 2 4 2 4 5 | 178.7 % (1 of 1) | +40.0 % (0 of 1) |", p.stdout)
            # +9.95 %, the interval narrow and wholly beyond 2 %: what check calls better
            self.assertRegex(p.stdout, r"\| ple-off \| .* \| [0-9.]+ % \(0 of 1\) \| \+10\.0 % \(1 of 1\) \|")
            self.assertNotIn("foreign_cpu_share", p.stdout)
            bad = self.store(d, "3", [], schema="plerig-results")
            p = self.table(a, bad)
            self.assertEqual(p.returncode, 2)
            self.assertIn("not a plerig baseline", p.stderr)


class EmulatedHostKernelInputs(unittest.TestCase):
    """images/l1/build-medium build (plerig's emulated host, --kernel and --modules): the
    package or modules tree may be someone else's and plerig root, so only regular files
    inside it are taken (issue 25 item 5, as scripts/ple-test): a vmlinuz linked to
    /dev/zero, a module linked out of the tree and a version string with '/' are refused
    before anything is read from them or copied."""

    def build(self, d, kernel, modules="", cache=None):
        out = os.path.join(d, "out")
        os.makedirs(out, exist_ok=True)
        files = []
        for name in ("plerig", "guest", "init"):
            files.append(os.path.join(d, name))
            with open(files[-1], "w") as f:
                f.write(name)
        return subprocess.run([os.path.join(ROOT, "images/l1/build-medium"), "build", out, kernel, modules,
                               *files, cache or os.path.join(d, "cache"), "", "intel"],
                              capture_output=True, text=True, timeout=60)

    def test_a_kernel_linked_out_of_the_package_is_refused(self):
        if not shutil.which("dpkg-deb"):
            self.skipTest("no dpkg-deb here (Debian's dpkg)")
        with tempfile.TemporaryDirectory() as d:
            deb = kernel_package(os.path.join(d, "pkg"), os.path.join(d, "linux-image-6.1.0-test.deb"),
                                 link_to="/dev/zero")
            os.makedirs(os.path.join(d, "cache"))
            p = self.build(d, deb)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("is not a regular file", p.stderr)

    def test_plerigs_unpacking_one_package_at_once_all_get_it(self):
        """make ple-test's gate and trace steps build one medium at once on a fresh cache:
        both unpacked the package into one fixed name, and one of them failed (`mv: cannot
        stat .../deb-*.tmp`, its step 77, CI red). Six builds at once now all reach the
        kernel's checks (this package has no kvm_intel: 3, refused), one unpacked tree stays
        and no partial one."""
        if not shutil.which("dpkg-deb"):
            self.skipTest("no dpkg-deb here (Debian's dpkg)")
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "pkg")
            os.makedirs(os.path.join(root, "lib/modules/6.1.0-test/kernel"))
            for i in range(200):  # enough files that the unpacks overlap
                with open(os.path.join(root, f"lib/modules/6.1.0-test/kernel/f{i}"), "wb") as f:
                    f.write(os.urandom(4096))
            deb = kernel_package(root, os.path.join(d, "linux-image-6.1.0-test.deb"))
            cache = os.path.join(d, "cache")
            os.makedirs(cache)
            with concurrent.futures.ThreadPoolExecutor(6) as pool:
                runs = list(pool.map(lambda i: self.build(os.path.join(d, f"b{i}"), deb, cache=cache), range(6)))
            for p in runs:
                self.assertEqual(p.returncode, 3, p.stderr)
                self.assertIn("has no kvm_intel", p.stderr)
            left = os.listdir(cache)
            self.assertEqual(len(left), 1, left)
            self.assertRegex(left[0], r"^deb-[0-9a-f]{16}$")
            self.assertEqual(os.listdir(os.path.join(cache, left[0], "boot")), ["vmlinuz-6.1.0-test"])

    def test_a_module_linked_out_of_the_tree_and_a_bad_version_are_refused(self):
        if not os.path.exists("/bin/busybox") or not shutil.which("kmod"):
            self.skipTest("no busybox or kmod here (scripts/setup ple-test installs them)")
        with tempfile.TemporaryDirectory() as d:
            mods = os.path.join(d, "mods")
            kdir = os.path.join(mods, "lib/modules/6.1.0-test/kernel/arch/x86/kvm")
            os.makedirs(kdir)
            secret = os.path.join(d, "secret")
            with open(secret, "w") as f:
                f.write("root only\n")
            os.chmod(secret, 0o600)
            os.symlink(secret, os.path.join(kdir, "kvm-intel.ko"))
            p = self.build(d, kernel_image(os.path.join(d, "bzImage")), mods)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("module kvm-intel of kernel 6.1.0-test", p.stderr)
            self.assertIn("is not a regular file", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "out/l1.iso")))
            p = self.build(d, kernel_image(os.path.join(d, "bzImage2"), version=b"../../x (nobody) #1"), mods)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("holds '/' or '..'", p.stderr)


class L1CommandLine(unittest.TestCase):
    """images/l1/build-medium iso: L1's one CD and kernel command line, scripts/ple-test's
    L1s and plerig's emulated host alike: idle=halt (an idle CPU HLTs: Bochs wakes it by
    the IPI, not at its next timer interrupt as an MWAIT wake-up), the caller's words after."""

    def test_idle_halt_and_the_steps(self):
        if not shutil.which("xorriso") or not os.path.exists("/usr/lib/ISOLINUX/isolinux.bin"):
            self.skipTest("no xorriso or isolinux here (scripts/setup ple-test installs them)")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "cd")
            os.makedirs(src)
            for f in ("vmlinuz", "initrd"):
                with open(os.path.join(src, f), "w") as out:
                    out.write(f)
            iso = os.path.join(d, "l1.iso")
            p = subprocess.run([os.path.join(ROOT, "images/l1/build-medium"), "iso", src, iso,
                                "ttyS0,115200", "ple.steps=gate"], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            cfg = os.path.join(d, "isolinux.cfg")
            subprocess.run(["xorriso", "-indev", iso, "-osirrox", "on", "-extract",
                            "/isolinux/isolinux.cfg", cfg], capture_output=True, check=True, timeout=60)
            with open(cfg) as f:
                append = [x.strip() for x in f if x.strip().startswith("APPEND")]
            self.assertEqual(append, ["APPEND console=ttyS0,115200 panic=-1 quiet loglevel=4 tsc=reliable "
                                      "mitigations=off nokaslr idle=halt ple.steps=gate"])
            os.unlink(os.path.join(src, "initrd"))
            p = subprocess.run([os.path.join(ROOT, "images/l1/build-medium"), "iso", src, iso, "tty0", ""],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("holds no vmlinuz and initrd", p.stderr)


class FixedTime(unittest.TestCase):
    """images/l1/fixed-time.c, preloaded into Bochs: time() answers L1's time0 (Bochs'
    RDRAND seed), plus PLE_TEST_SEED (PLERIG_L1_SEED) when given: one path per seed."""

    def test_time0_and_the_seed(self):
        if not shutil.which("cc"):
            self.skipTest("no C compiler here (scripts/ple-test builds fixed-time.so with cc)")
        with tempfile.TemporaryDirectory() as d:
            so, prog = os.path.join(d, "fixed-time.so"), os.path.join(d, "t")
            subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                            "-o", so, os.path.join(ROOT, "images/l1/fixed-time.c")], check=True, timeout=60)
            with open(prog + ".c", "w") as f:
                f.write("#include <stdio.h>\n#include <time.h>\n"
                        "int main(void) { time_t t; printf(\"%ld %ld\\n\", (long)time(NULL), (long)time(&t)); "
                        "return t == time(NULL) ? 0 : 1; }\n")
            subprocess.run(["cc", "-o", prog, prog + ".c"], check=True, timeout=60)
            for seed, want in ((None, 946684800), ("0", 946684800), ("7", 946684807)):
                env = {**os.environ, "LD_PRELOAD": so}
                env.pop("PLERIG_L1_SEED", None)
                if seed is not None:
                    env["PLERIG_L1_SEED"] = seed
                p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=30)
                self.assertEqual((p.returncode, p.stdout), (0, f"{want} {want}\n"), seed)


class AssertResults(unittest.TestCase):
    """tests/ple/assert-results on the files scripts/ple-test's steps leave: each step's
    status (STEP.status), the trace suite's TAP, doctor's JSON, the two tunes' JSON."""

    def judge(self, plan, files, statuses=None):
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            for step in [s for p in plan for s in (["tune-twice-1", "tune-twice-2"]
                                                    if p == "tune-twice" else [p])]:
                with open(os.path.join(d, step + ".status"), "w") as f:
                    f.write(f"{(statuses or {}).get(step, 0)} 10\n")
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"plan": plan, "ple_modparams": "",
                           "kernel": {"release": "6.1.0-test", "image_sha256": "ab" * 32},
                           "vendor": {"module": "kvm_intel"}}, f)
            p = subprocess.run([os.path.join(ROOT, "tests/ple/assert-results"), d],
                               capture_output=True, text=True)
            with open(os.path.join(d, "junit.xml")) as f:
                junit = f.read()
            return p, junit

    TRACE = {"trace.txt": "3 scenario(s) run, 0 skipped, in 6.3 s: 8 passed\n",
             "trace.tap": "TAP version 13\n1..2\nok 1 - pv-yield-trace: yield-trace\n  ---\n"
                          "  message: 'held in 1 runs; 613 KVM_HC_SCHED_YIELD traced, the pass''s figures'\n"
                          "  severity: pass\n  ...\nok 2 - pvqspin-trace: kick-trace\n"}
    DOCTOR = {"findings": [{"finding": "pause_intercept", "status": "ok", "detail": "intercepts"},
                           {"finding": "kvm_exit_fires", "status": "ok",
                            "detail": "counted 12 kvm_exit for 12 exits"}],
              "kvm_module": {"users": "", "ple_params": []}}

    def test_a_passing_plan_passes(self):
        p, junit = self.judge(["gate", "trace", "doctor"], {**self.TRACE, "doctor.json": json.dumps(self.DOCTOR)})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("ok 1 - trace: pv-yield-trace: yield-trace: held in 1 runs; 613 "
                      "KVM_HC_SCHED_YIELD traced, the pass's figures", p.stdout)
        self.assertIn("ok 3 - step doctor exits 0", p.stdout)
        self.assertIn("ok 5 - kvm:kvm_exit per vCPU equals the exits stat delta", p.stdout)
        self.assertIn('failures="0"', junit)
        # each TAP line is one of make ple-test's assertions: "check" is plerig check's word
        n = len(re.findall(r"^ok \d+ - ", p.stdout, re.M))
        self.assertIn(f"# ple-test: {n} of {n} assertions passed (results: ", p.stderr)
        self.assertNotIn("checks", p.stderr)
        self.assertIn('<property name="kernel_image_sha256" value="' + "ab" * 32 + '"/>', junit)

    def test_doctors_findings_are_held(self):
        for finding, detail, failed in (("pause_intercept", None, "doctor: PAUSE interception"),
                                        ("kvm_exit_fires", "counted 11 kvm_exit for 12 exits",
                                         "kvm:kvm_exit per vCPU equals")):
            with self.subTest(finding=finding):
                doc = json.loads(json.dumps(self.DOCTOR))
                for f in doc["findings"]:
                    if f["finding"] == finding:
                        f["status"] = "no" if detail is None else f["status"]
                        f["detail"] = detail or f["detail"]
                p, _ = self.judge(["doctor"], {"doctor.json": json.dumps(doc)})
                self.assertEqual(p.returncode, 1, p.stdout)
                self.assertRegex(p.stdout, rf"not ok \d+ - {re.escape(failed)}")
        doc = json.loads(json.dumps(self.DOCTOR))
        doc["kvm_module"]["users"] = "123 plerig (1 fd)"
        p, _ = self.judge(["doctor"], {"doctor.json": json.dumps(doc)})
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stdout, r"not ok \d+ - doctor does not name itself as the holder")

    def test_a_trace_case_skipped_or_failed_fails(self):
        skip = {**self.TRACE, "trace.tap": "TAP version 13\n1..1\nok 1 - pvqspin-trace: kick-trace"
                                           " # SKIP no kprobe events here\n"}
        p, _ = self.judge(["trace"], skip)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        # a case skipped did not judge what it stands for: a failed assertion
        self.assertIn("not ok 1 - trace: pvqspin-trace: kick-trace: not judged: no kprobe events here",
                      p.stdout)
        fail = {**self.TRACE, "trace.tap": "TAP version 13\n1..1\nnot ok 1 - pv-yield-trace: yield-trace"
                                           "\n  ---\n  message: 'failed 1 time(s)'\n  ...\n"}
        p, _ = self.judge(["trace"], fail, statuses={"trace": 1})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("not ok 1 - trace: pv-yield-trace: yield-trace: failed 1 time(s)", p.stdout)
        # a scenario skipped as a whole judged nothing: the harness's 3
        p, _ = self.judge(["trace"], {**self.TRACE, "trace.txt": "2 scenario(s) run, 1 skipped, in 3 s\n"})
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("trace: 1 scenario(s) skipped (trace.txt says why): not judged", p.stderr)
        # doctor's own failure (no usable KVM device in L1) is a failed assertion
        p, _ = self.judge(["doctor"], {"doctor.json": "{}"}, statuses={"doctor": 1})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("not ok 1 - step doctor exits 0: rc=1", p.stdout)

    def test_a_step_that_did_not_run_broke_the_harness(self):
        p, _ = self.judge(["doctor"], {"doctor.json": "{}"}, statuses={"doctor": 77})
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("doctor: plerig exited 77", p.stderr)
        # a failed assertion beside a 125 is the kernel's failure first
        p, _ = self.judge(["trace", "doctor"], {**self.TRACE, "doctor.json": "{}"},
                          statuses={"trace": 125, "doctor": 1})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        p, _ = self.judge(["trace"], self.TRACE, statuses={"trace": 125})
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)

    @staticmethod
    def tune_doc(best, claim, figures, split=()):
        """A plerig tune JSON as far as assert-results reads it: one shape, its visits (@split:
        the values it gave no figure, their visits in two regimes, as tune's regimes.split)."""
        return json.dumps({
            "param": {"name": "ple_window"}, "resolved": True, "mix": {"value": best},
            "apply": {"change": claim == "gain"},
            "shapes": [{"label": "kvm ticket pause kernel 2/1", "resolved": True, "best": best,
                        "vs_current": {"claim": claim}, "vs_default": {"claim": claim},
                        "flat": [{"low": best, "high": best, "has_best": True}],
                        "flat_everywhere": False,
                        # as plerig tune: no edge note where noise kept the claims undecided
                        "edge": None if claim == "too noisy" else
                        {"note": f"best at the lower edge {best} of the range searched"},
                        "regimes": {"split": [{"value": v, "agree": 0, "other_regime": 2}
                                              for v in split]}}],
            "visits": [{"value": v, "shapes": [{"objective": y}]} for v, y in figures],
            "provenance": {"seconds": 31.5}})

    def test_tune_twice_must_recommend_the_same(self):
        figs = [(1024, 7300.0), (4096, 4300.0), (16384, 1600.0)]
        # the same answer from slightly other figures: passes, and says the figures differ
        same = {"tune-twice-1.json": self.tune_doc(1024, "gain", figs),
            "tune-twice-2.json": self.tune_doc(1024, "gain", figs[:2] +
            [(16384, 1601.0)])}
        p, _ = self.judge(["tune-twice"], same)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ok \d+ - tune twice: the same recommendation .*: first: "
                                   r"ple_window=1024 vs default gain, .*the second the same; "
                                   r"the visits' figures differ; \[31.5, 31.5\] emulated s")
        self.assertIn('"same_visits_and_figures": false', p.stdout)
        # another best the second time: fails, with both answers
        other = {"tune-twice-1.json": self.tune_doc(1024, "gain", figs),
            "tune-twice-2.json": self.tune_doc(4096, "same", figs)}
        p, _ = self.judge(["tune-twice"], other)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"not ok \d+ - tune twice: .*second: .*'best': 4096")
        # another best because the first tune had no figure of the second's (its two visits
        # of 1024 one in each regime: tune's regimes.split): passes, naming them; where the
        # first measured 1024 it fails as above
        unmeasured = [(1024, 7343.3), (4096, 4300.0), (16384, 1600.0), (1024, 14377.2),
                      (4096, 4300.0), (16384, 1600.0)]
        split = {"tune-twice-1.json": self.tune_doc(4096, "same", unmeasured, split=[1024]),
            "tune-twice-2.json": self.tune_doc(1024, "gain", figs + figs)}
        p, _ = self.judge(["tune-twice"], split)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ok \d+ - tune twice: .*first: ple_window=4096 vs default "
                                   r"same, .*the second the same answer where both measured it: "
                                   r"best 4096 against 1024: tune 1 has no figure of 1024, its "
                                   r"visits \[7343.3, 14377.2\] in two regimes")
        split["tune-twice-1.json"] = self.tune_doc(4096, "same", unmeasured)
        p, _ = self.judge(["tune-twice"], split)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"not ok \d+ - tune twice: .*best 4096 against 1024")
        # a claim too noisy the second time, because a round of 4096 fell into the second
        # regime (issue 27), or unresolved (its two visits, one in each regime, agree in no
        # majority: tune's regime rule gives it no figure): the same answer, passes and names
        # the split visits
        twice = figs + figs
        odd = figs + [(1024, 7300.0), (4096, 8377.0), (16384, 1600.0)]
        for claim in ("too noisy", "unresolved"):
            regime = {"tune-twice-1.json": self.tune_doc(1024, "gain", twice),
            "tune-twice-2.json": self.tune_doc(1024, claim, odd)}
            p, _ = self.judge(["tune-twice"], regime)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"ok \d+ - tune twice: .*the second the same answer, "
                                       rf"claims differ: vs_current gain against {claim}: tune "
                                       r"2's visits \{4096: \[4300.0, 8377.0\]\} \(a round in "
                                       r"the second regime")
        # one tune too noisy, the other unresolved (6.12's multi-modal default): neither
        # decides, the same answer in two words; passes and says so
        undecided = {"tune-twice-1.json": self.tune_doc(1024, "too noisy", twice),
            "tune-twice-2.json": self.tune_doc(1024, "unresolved", odd)}
        p, _ = self.judge(["tune-twice"], undecided)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ok \d+ - tune twice: .*claims differ: vs_current too noisy "
                                   r"against unresolved: neither tune decides")
        # too noisy with every value's visits together: fails
        noisy = {"tune-twice-1.json": self.tune_doc(1024, "gain", twice),
            "tune-twice-2.json": self.tune_doc(1024, "too noisy", twice)}
        p, _ = self.judge(["tune-twice"], noisy)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"not ok \d+ - tune twice: .*no value of tune 2 has a round in "
                                   r"another regime")
        # opposite decisions are never explained by a regime
        loss = {"tune-twice-1.json": self.tune_doc(1024, "gain", twice),
            "tune-twice-2.json": self.tune_doc(1024, "loss", odd)}
        p, _ = self.judge(["tune-twice"], loss)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"not ok \d+ - tune twice: .*vs_current: gain against loss")


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv[1])
    PLERIG = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)

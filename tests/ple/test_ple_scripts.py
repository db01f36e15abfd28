#!/usr/bin/env python3
"""The host side of `make ple-test` without Bochs: tests/ple/unpack-kernel on
a small bzImage made here (an x86-64 ELF with two segments, XZ-compressed
behind a setup header), and tests/ple/check-results on consoles written
here in L1's protocol (frames, manifest, the gate's exit status).

usage: test_ple_scripts.py SOURCE_ROOT
"""
import base64
import gzip
import hashlib
import json
import lzma
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

ROOT = None


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
            p = subprocess.run([os.path.join(ROOT, "tests/ple/unpack-kernel"), src, out],
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

    def test_what_cannot_be_unpacked_is_refused_with_the_reason(self):
        p, _ = self.run_tool(b"MZ" + b"\0" * 2000)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no bzImage setup header", p.stderr)
        p, _ = self.run_tool(bzimage(b"\x28\xb5\x2f\xfd" + b"\0" * 64))  # zstd
        self.assertEqual(p.returncode, 1)
        self.assertIn("not xz, gzip, bzip2 or lzma", p.stderr)
        p, _ = self.run_tool(bzimage(lzma.compress(b"not an ELF" * 10, format=lzma.FORMAT_XZ)))
        self.assertEqual(p.returncode, 1)
        self.assertIn("not an x86-64 ELF kernel", p.stderr)


class KernelUnderTest(unittest.TestCase):
    """scripts/ple-test refuses a kernel it cannot test before Bochs, and
    before it installs anything (exit 2, the reason and the fix)."""

    def ple_test(self, modules_tree):
        with tempfile.TemporaryDirectory() as d:
            build = os.path.join(d, "build")
            os.makedirs(os.path.join(build, "images"))
            for f in ("plerig", "images/plerig-guest.elf"):
                with open(os.path.join(build, f), "w") as out:
                    out.write("#!/bin/sh\n")
                os.chmod(os.path.join(build, f), 0o755)
            image = bytearray(bzimage(b"\0" * 64))
            struct.pack_into("<H", image, 0x20e, 0x300)  # kernel_version, from 0x200
            image[0x500:0x520] = b"6.1.0-test (nobody) #1\0".ljust(32, b"\0")
            kernel = os.path.join(d, "bzImage")
            with open(kernel, "wb") as f:
                f.write(image)
            mods = os.path.join(d, "mods")
            for path in modules_tree:
                os.makedirs(os.path.join(mods, path))
            env = dict(os.environ, KERNEL=kernel, MODULES=mods, PLE_TEST_DIR=os.path.join(d, "work"),
                       PLE_TEST_CACHE=os.path.join(d, "cache"))
            return subprocess.run([os.path.join(ROOT, "scripts/ple-test"), build], env=env,
                                  capture_output=True, text=True, timeout=60)

    def test_modules_without_kvm_intel_are_refused(self):
        p = self.ple_test(["lib/modules/6.1.0-test/kernel/fs"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("kernel 6.1.0-test has no kvm_intel: no kvm-intel.ko under", p.stderr)
        self.assertIn("CONFIG_KVM_INTEL=m", p.stderr)

    def test_modules_of_another_kernel_or_none_are_refused(self):
        p = self.ple_test(["lib/modules/6.2.0-other"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("the modules are not those of kernel 6.1.0-test", p.stderr)
        p = self.ple_test([])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no lib/modules in it", p.stderr)


class StopBochs(unittest.TestCase):
    """scripts/ple-test runs under set -e: stopping an L1 whose Bochs has
    powered off (its console drain gone) or is killed now must not end
    the script before the results are judged (a CI run exited 1 there)."""

    def test_stopping_an_instance_that_already_ended_or_is_killed_goes_on(self):
        with open(os.path.join(ROOT, "scripts/ple-test")) as f:
            text = f.read()
        body = re.search(r"^stop_bochs\(\) \{.*?^\}$", text, re.M | re.S).group(0)
        with tempfile.TemporaryDirectory() as work:
            script = (f"set -euo pipefail\nWORK={work}\n{body}\n"
                      "true & DRAIN_a=$!; wait $DRAIN_a\n"  # a drain that has already ended
                      "sleep 60 >/dev/null 2>&1 & BOCHS_a=$!\n"  # a Bochs still running: killed, wait says 143
                      "stop_bochs a\n"
                      "kill -0 $! 2>/dev/null && echo 'still running' || echo stopped\n"
                      "stop_bochs a\necho went on\n")
            p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "stopped\nwent on\n")


def frame(name, text):
    gz = gzip.compress(text.encode(), mtime=0)
    lines = [f"@@ple file {name} {len(gz)} {hashlib.sha256(gz).hexdigest()}"]
    b64 = base64.b64encode(gz).decode()
    lines += [b64[i:i + 76] for i in range(0, len(b64), 76)]
    return lines + [f"@@ple file-end {name}"]


def console(steps, manifest=True):
    """L1's console: each step (name, rc, {file: text}) as l1-init sends it, then the manifest."""
    lines, entries = ["[    0.1] booting"], []
    for name, rc, files in steps:
        lines += [f"@@ple step {name} begin uptime=1.0", f"@@ple step {name} end rc={rc} uptime=2.0"]
        for f, text in files.items():
            lines += frame(f, text)
        entries.append(f"{name} rc={rc} " + " ".join(files))
    if manifest:
        lines += frame("manifest.txt", "\n".join(entries) + "\n") + ["@@ple done uptime=3.0"]
    return "\n".join(lines) + "\n"


L1_TXT = ("kernel=6.1.0-test\nkernel_version=Linux version 6.1.0-test\nparam_ple_gap=128\n"
          "param_ple_window=4096\nparam_ple_window_grow=2\n")


class CheckResults(unittest.TestCase):
    def judge(self, consoles, modparams=""):
        with tempfile.TemporaryDirectory() as d:
            plans = {}
            for inst, (plan, text) in consoles.items():
                os.makedirs(os.path.join(d, inst))
                with open(os.path.join(d, inst, "serial.log"), "w") as f:
                    f.write(text)
                plans[inst] = plan
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"plans": plans, "ple_modparams": modparams,
                           "kernel": {"release": "6.1.0-test", "image_sha256": "ab" * 32}}, f)
            p = subprocess.run([os.path.join(ROOT, "tests/ple/check-results"), d],
                               capture_output=True, text=True)
            with open(os.path.join(d, "junit.xml")) as f:
                junit = f.read()
            return p, junit

    def gate(self, rc, summary):
        return ("gate", rc, {"gate.txt": summary, "gate.tap": "TAP version 13\n1..0\n"})

    def test_a_passing_gate_and_its_plan_pass(self):
        p, junit = self.judge({"b": ("gate", console([("modules", 0, {"l1.txt": L1_TXT}),
                                                      self.gate(0, "5 passed\n")]))})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("ok 3 - kvm_intel loads with the parameters asked", p.stdout)
        self.assertIn('failures="0"', junit)
        self.assertIn('<property name="kernel_image_sha256" value="' + "ab" * 32 + '"/>', junit)

    def test_a_regression_in_the_gate_fails_and_is_shown(self):
        text = "pause: acq_per_s vs baseline: kvm ticket pause: FAIL regression: -60.2 %\n"
        p, _ = self.judge({"b": ("gate", console([("modules", 0, {"l1.txt": L1_TXT}), self.gate(1, text)]))})
        self.assertEqual(p.returncode, 1)
        self.assertIn("# gate | pause: acq_per_s vs baseline", p.stdout)
        self.assertRegex(p.stdout, r"not ok \d+ - gate: .*exit status 1; .*regression: -60.2 %")

    def test_a_step_of_the_plan_that_never_ended_fails(self):
        p, _ = self.judge({"a": ("doctor", console([("modules", 0, {"l1.txt": L1_TXT})], manifest=False))})
        self.assertEqual(p.returncode, 1)
        self.assertIn("no manifest (L1 did not finish)", p.stdout)
        self.assertIn("not ok 4 - step doctor exits 0: rc=never ended", p.stdout)

    SUITE = ("[pause]\noptions = --relax pause\nexpect = progress, ftrace-counts\n"
             "[window-1024]\nparams = ple_window=1024  # a sweep point\n"
             "[window-16384]\nparams = ple_window=16384\n")
    PARAMS = "ple_gap=128\nple_window=4096\nple_window_grow=2\n"

    def swept_gate(self, log, after=PARAMS, kvm="halt_poll_ns set=12345 after=12345\n"):
        return ("gate", 0, {"gate.txt": "7 passed\n", "ple.cfg": self.SUITE, "modprobe.log": log,
                            "params-before.txt": self.PARAMS, "params-after.txt": after,
                            "kvm-params.txt": kvm})

    def test_the_suites_sweep_points_reload_kvm_intel_and_restore_it(self):
        log = ("rmmod kvm_intel\nmodprobe kvm_intel ple_gap=128 ple_window=1024\nrmmod kvm_intel\n"
               "modprobe kvm_intel ple_gap=128 ple_window=4096\nrmmod kvm_intel\n"
               "modprobe kvm_intel ple_gap=128 ple_window=16384\nrmmod kvm_intel\n"
               "modprobe kvm_intel ple_gap=128 ple_window=4096\n")
        mods = ("modules", 0, {"l1.txt": L1_TXT})
        p, _ = self.judge({"b": ("gate", console([mods, self.swept_gate(log)]))})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("kvm_intel reloaded for each ple_window of the suite's params: suite asks "
                      "['1024', '16384']", p.stdout)
        # a point the suite names but L1 never loaded, kvm reloaded, parameters left changed: each fails
        p, _ = self.judge({"b": ("gate", console([mods, self.swept_gate(
            log.replace("ple_window=16384", "ple_window=8192"), after=self.PARAMS.replace("4096", "1024"),
            kvm="halt_poll_ns set=12345 after=200000\n")]))})
        self.assertEqual(p.returncode, 1)
        for what in ("kvm_intel reloaded for each ple_window", "kvm stayed loaded",
                     "original kvm_intel parameters back"):
            self.assertRegex(p.stdout, r"not ok \d+ - gate: " + what)

    def test_parameters_other_than_asked_fail(self):
        p, _ = self.judge({"b": ("gate", console([("modules", 0, {"l1.txt": L1_TXT}), self.gate(0, "")]))},
                          modparams="ple_window=16384")
        self.assertEqual(p.returncode, 1)
        self.assertIn("not ok 3 - kvm_intel loads with the parameters asked", p.stdout)

    def pvqspin_trace(self, kicked_apics):
        """pvqspin-trace's files for 4 vCPUs: 3 kicks to each APIC ID, KVM's
        APIC accepting (and kvm_irq_delivery_to_apic returning 1) for @kicked_apics."""
        vcpus = [{"vcpu": i, "tid": 100 + i} for i in range(4)]
        run = {"ok": True, "summary": {"halt_path": {"halts": 10, "kicks_sent": 10, "kicks_received": 10}},
               "vm_results": [{"vcpus": vcpus}]}
        lines = [f"hypercall {100 + (a + 1) % 4} {a} 3" for a in range(4)]
        lines += [f"accept {a} 768 3" for a in kicked_apics]
        lines += [f"deliver_ret 1 {3 * len(kicked_apics)}"]
        if len(kicked_apics) < 4:
            lines += [f"deliver_ret 0 {3 * (4 - len(kicked_apics))}"]
        lines += [f"hlt_exit {100 + a} 3" for a in range(4)] + [f"wakeup {100 + a} 1 1 3" for a in range(4)]
        return ("pvqspin-trace", 0, {"pvqspin.json": json.dumps({"variants": [{"runs": [run]}]}),
                                     "pvqspin-trace.txt": "\n".join(lines + ["lost: 0"]) + "\n"})

    def test_pvqspin_kicks_that_reach_every_apic_pass(self):
        p, _ = self.judge({"a": ("pvqspin-trace", console([("modules", 0, {"l1.txt": L1_TXT}),
                                                           self.pvqspin_trace([0, 1, 2, 3])]))})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ok \d+ - pvqspin \(traced\): every KVM_HC_KICK_CPU reached")

    def test_a_kick_to_the_last_vcpu_that_reached_nobody_fails(self):
        # the bug: KVM's APIC map lacked the last vCPU created (APIC ID 3)
        p, _ = self.judge({"a": ("pvqspin-trace", console([("modules", 0, {"l1.txt": L1_TXT}),
                                                           self.pvqspin_trace([0, 1, 2])]))})
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"not ok \d+ - pvqspin \(traced\): every KVM_HC_KICK_CPU .*"
                                   r"returned \{1: 9, 0: 3\}")

    def test_a_corrupt_frame_is_caught(self):
        text = re.sub(r"@@ple file l1.txt (\d+)", lambda m: f"@@ple file l1.txt {int(m.group(1)) + 1}",
                      console([("modules", 0, {"l1.txt": L1_TXT}), self.gate(0, "")]))
        p, _ = self.judge({"b": ("gate", text)})
        self.assertEqual(p.returncode, 1)
        self.assertIn("not ok 1 - L1 b: results arrive whole", p.stdout)


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)

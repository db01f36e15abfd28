#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The libvirt backend through a remote connection: qemu+ssh to an sshd and
a libvirtd of the test's own (remote_libvirt_host.py), on 127.0.0.1.

Usage: test_libvirt_remote.py PLERIG

A run through qemu+ssh against a local run of the same experiment: both
complete, the same host figures are present (run delay and run time from
libvirt's domain stats remotely, never a 0 that was not read), the guest's
figures are of the same kind. pvqspin on a remote PVM host falls back to
test-and-set with the reason. libvirt's vCPU stats against QEMU's own
query-stats and the thread's schedstat, read around them. A remote run
killed with SIGKILL leaves nothing the next run does not remove. Nothing
outlives the test: the daemons, their QEMUs and mounts go with the
namespace; the test checks the process table and TMPDIR.

The daemon sees none of plerig's files (a tmpfs over the build tree, the
source tree and the temporary directory in its namespace), as on another
machine: the guest image and configs go there as volumes of plerig's own
storage pool, the results come back through the console stream; no pool
is left after a run. Skipped (77) without root, KVM, sshd or libvirtd.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remote_libvirt_host  # noqa: E402

PLERIG = os.path.abspath(sys.argv[1])
HOST = None  # the RemoteHost, set in main


def qemu_of(domain):
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(l.split()[0]) for l in out.splitlines() if f"guest={domain}," in l]


class LibvirtRemote(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plerig-remote-")
        self.env = dict(os.environ, TMPDIR=self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def plerig(self, *args, remote=True, timeout=180):
        where = ["--connect", HOST.uri] if remote else []
        cache = os.path.join(CACHE, "r" if remote else "l")
        cmd = [PLERIG, "run", "-q", "--backend", "libvirt", "--cache-dir", cache, *where,
               "--relax", "pause", "--warmup", "0.05", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=self.env)

    def run_json(self, *args, remote=True):
        path = os.path.join(CACHE, "r.json")
        p = self.plerig(*args, "--json", path, remote=remote)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        with open(path) as f:
            doc = json.load(f)
        os.unlink(path)
        self.assertEqual(os.listdir(self.tmp), [], "a run directory was left in TMPDIR")
        return doc, p

    def assert_remote_clean(self):
        self.assertEqual(HOST.domains(), [], "a domain outlived the remote run")
        self.assertEqual(HOST.pools(), [], "a storage pool outlived the remote run")

    def test_the_remote_daemon_sees_none_of_plerigs_files(self):
        # else the runs below would prove nothing about shipping the guest
        self.assertFalse(HOST.sees(PLERIG))
        self.assertFalse(HOST.sees(os.path.join(os.path.dirname(PLERIG), "images")))
        self.assertFalse(HOST.sees(self.tmp))
        self.assertTrue(HOST.sees("/usr/bin/qemu-system-x86_64"))

    def test_a_refused_key_fails_at_once_naming_the_uri_not_the_key(self):
        # a key the host does not know: batch mode, so no prompt waits for a password
        key = os.path.join(self.tmp, "stranger")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        uri = HOST.uri.replace(f"keyfile={HOST.key}", f"keyfile={key}")
        p = subprocess.run([PLERIG, "run", "-q", "--backend", "libvirt", "--connect", uri,
                            "--duration", "0.1"], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, env=self.env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"connecting to qemu+ssh://***@127.0.0.1:{HOST.port}/system?keyfile=***",
                      p.stderr)
        self.assertNotIn(key, p.stderr + p.stdout)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        os.unlink(key)
        os.unlink(key + ".pub")

    def test_remote_run_has_the_local_runs_figures(self):
        args = ("--vcpus", "2", "--duration", "0.5")
        local, _ = self.run_json(*args, remote=False)
        remote, p = self.run_json(*args)
        self.assert_remote_clean()
        lrun, rrun = (d["variants"][0]["runs"][0] for d in (local, remote))
        self.assertTrue(lrun["ok"] and rrun["ok"], (lrun.get("error"), rrun.get("error")))
        ls, rs = lrun["summary"], rrun["summary"]
        # the same host figures present: nothing null remotely that is measured here
        present = lambda s: {k for k, v in s.items() if v is not None}
        # what cannot be read from another host is null with its reason, nothing else
        remote_only = {"run_delay_note", "foreign_cpu_unavailable"}
        self.assertEqual(present(ls) - {"foreign_cpu_share"}, present(rs) - remote_only)
        self.assertIn("another host", rs["foreign_cpu_unavailable"])
        self.assertNotIn("run_delay_unavailable", rs)
        self.assertIn("vcpu.N.delay", rs["run_delay_note"])
        # run delay and run time were read, not zeros: the vCPU threads ran and
        # waited (2 vCPUs on this shared machine) within the wall time they had
        self.assertGreater(rs["run_time_ns"], 0)
        wall = rrun["timing"]["torn_down_ns"]
        self.assertLessEqual(rs["run_delay_ns"] + rs["run_time_ns"], 2 * wall)
        for doc in (local, remote):
            vcpus = doc["variants"][0]["runs"][0]["vm_results"][0]["vcpus"]
            self.assertEqual(len(vcpus), 2)
            total = sum(v["acquisitions"] + v["unmeasured_acquisitions"] for v in vcpus)
            self.assertEqual(doc["variants"][0]["runs"][0]["vm_results"][0]
                             ["protected_counter"], total)
            self.assertGreater(sum(v["acquisitions"] for v in vcpus), 0)
            for v in vcpus:
                self.assertGreater(v["kvm_stats"]["exits"], 0, "no exits read")
        for v in remote["variants"][0]["runs"][0]["vm_results"][0]["vcpus"]:
            self.assertIsNone(v["tid"])  # a thread of another host
            self.assertIsNone(v["timeslices"])  # libvirt does not count them
        # the results name the machine the VMs ran on, as libvirt reports it
        host = remote["host"]
        self.assertEqual(host["name"], HOST.virsh("hostname").stdout.strip())
        self.assertTrue(host["hypervisor"].startswith("QEMU "), host)
        self.assertIn("127.0.0.1", host["connection"])
        self.assertEqual(host["kernel"], "unknown")
        self.assertIn("libvirt does not report", host["unknown_why"])
        self.assertNotIn("connection", local["host"])
        # libvirt names no module: the daemon's capabilities (this machine's CPU) tell
        # which, and the results say it was inferred; this machine's is read
        self.assertEqual(host["kvm_module"], local["host"]["kvm_module"])
        self.assertRegex(host["kvm_module_source"], "^inferred.*libvirt names no module$")
        self.assertNotIn("kvm_module_source", local["host"])
        # the keyfile in the URI is not in any output
        self.assertNotIn(HOST.key, json.dumps(remote) + p.stderr + p.stdout)

    def test_pvqspin_on_a_remote_pvm_host_runs_as_test_and_set_and_says_why(self):
        """libvirt names no KVM module; PVM shows in the capabilities as KVM on a CPU with
        neither vmx nor svm. Unrecognised, the guest would kick, and the kick never returns."""
        if not os.path.isdir("/sys/module/kvm_pvm"):
            self.skipTest("the daemon's KVM here is not PVM (no /sys/module/kvm_pvm)")
        doc, _ = self.run_json("--lock", "pvqspin", "--vcpus", "2", "--duration", "0.3")
        self.assert_remote_clean()
        run = doc["variants"][0]["runs"][0]
        self.assertTrue(run["ok"], run.get("error"))
        hp = run["summary"]["halt_path"]
        self.assertIsNone(hp["halts"])
        self.assertRegex(hp["unavailable"], "test-and-set: PVM, it seems .*without vmx or svm")
        self.assertEqual(doc["host"]["kvm_module"], "kvm_pvm")
        self.assertIn("neither vmx nor svm", doc["host"]["kvm_module_source"])
        self.assertGreater(sum(v["acquisitions"] for v in run["vm_results"][0]["vcpus"]), 0)

    def test_libvirt_vcpu_stats_agree_with_qemu_and_schedstat(self):
        # what plerig reads through libvirt against QEMU's query-stats (the
        # monitor passthrough plerig no longer uses) and the thread's schedstat
        p = subprocess.Popen([PLERIG, "run", "-q", "--backend", "libvirt", "--connect",
                              HOST.uri, "--cache-dir", os.path.join(CACHE, "r"),
                              "--vcpus", "2", "--duration", "20"], env=self.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not HOST.domains() and time.monotonic() < deadline:
                time.sleep(0.1)
            doms = HOST.domains()
            self.assertEqual(len(doms), 1, doms)
            dom = doms[0]
            time.sleep(1)  # running, not paused

            def domstats():
                out = HOST.virsh("domstats", "--vcpu", dom).stdout
                return dict(l.strip().split("=", 1) for l in out.splitlines() if "=" in l)

            before = domstats()
            qmp = json.loads(HOST.virsh(
                "qemu-monitor-command", dom,
                '{"execute":"query-stats","arguments":{"target":"vcpu",'
                '"providers":[{"provider":"kvm","names":["exits"]}]}}').stdout)
            threads = {}
            for pid in qemu_of(dom):
                for t in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{t}/comm") as f:
                        comm = f.read().strip()
                    if comm.startswith("CPU "):
                        with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                            threads[int(comm.split()[1].split("/")[0])] = \
                                [int(x) for x in f.read().split()]
            after = domstats()
            self.assertEqual(len(qmp["return"]), 2)
            # QEMU names vCPUs by QOM path, libvirt by index: compare the sums
            exits = sum(e["stats"][0]["value"] for e in qmp["return"])
            total = lambda st: sum(int(st[f"vcpu.{i}.exits.sum"]) for i in range(2))
            self.assertLessEqual(total(before), exits)
            self.assertLessEqual(exits, total(after))
            self.assertEqual(sorted(threads), [0, 1])
            for vcpu, (run_ns, wait_ns, _) in threads.items():
                self.assertLessEqual(int(before[f"vcpu.{vcpu}.delay"]), wait_ns)
                self.assertLessEqual(wait_ns, int(after[f"vcpu.{vcpu}.delay"]))
                # vcpu.N.time is in whole ticks (10 ms), cut down from run_ns
                self.assertLessEqual(int(before[f"vcpu.{vcpu}.time"]), run_ns + 20_000_000)
        finally:
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=60)
        self.assert_remote_clean()

    def test_a_guest_fault_comes_back_through_the_console(self):
        p = self.plerig("--vcpus", "2", "--duration", "0.3", "--inject", "fault")
        self.assertEqual(p.returncode, 1, p.stderr + p.stdout)
        self.assertIn("guest exception #UD", p.stdout)
        self.assert_remote_clean()
        self.assertEqual(os.listdir(self.tmp), [])

    def test_kill_9_of_a_remote_run_is_cleaned_by_the_next(self):
        p = subprocess.Popen([PLERIG, "run", "-q", "--backend", "libvirt", "--connect",
                              HOST.uri, "--cache-dir", os.path.join(CACHE, "r"),
                              "--vcpus", "2", "--duration", "30"], env=self.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not HOST.domains() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertTrue(HOST.domains(), "the remote domain never started")
        p.kill()
        p.wait()
        self.assertTrue(os.listdir(self.tmp), "nothing left to clean: no run directory")
        left = HOST.pools()
        self.assertEqual(len(left), 1, left)
        self.assertIn(f"-{p.pid}-", left[0])
        later = self.plerig("--vcpus", "1", "--duration", "0.05")
        self.assertEqual(later.returncode, 0, later.stderr)
        self.assertIn(f"removed run directory {self.tmp}/plerig-libvirt-{p.pid}-",
                      later.stderr)
        self.assertIn(f"removed storage pool {left[0]} of a plerig that no longer runs",
                      later.stderr)
        # the dead run's connection closed: libvirtd destroyed its autodestroy domain
        self.assert_remote_clean()
        self.assertEqual(os.listdir(self.tmp), [])

    def test_a_dead_plerigs_domain_is_removed_by_its_metadata_and_no_other(self):
        """Left by a plerig whose connection did not close (no autodestroy here)."""
        me = re.sub(r"[^A-Za-z0-9._]", "_", socket.gethostname())[:63] or "unknown"
        gone = subprocess.Popen(["true"])
        gone.wait()
        with open("/proc/self/stat") as f:
            my_start = f.read().rsplit(")", 1)[1].split()[19]
        owners = {
            "owner-dead": (me, gone.pid, 1),
            "owner-live": (me, os.getpid(), my_start),  # this test: it runs
            "owner-elsewhere": ("another-controller", gone.pid, 1),  # cannot be checked
            "plerig-1-1-0": None,  # plerig's name, not its metadata
        }
        for name, owner in owners.items():
            meta = "" if owner is None else (
                "<metadata><plerig:owner xmlns:plerig='urn:plerig:owner:1' host='%s' "
                "pid='%s' start='%s' run='1'/></metadata>" % owner)
            path = os.path.join(self.tmp, name + ".xml")
            with open(path, "w") as f:
                f.write(f"<domain type='kvm'><name>{name}</name>{meta}"
                        "<memory unit='MiB'>16</memory><vcpu>1</vcpu><os>"
                        "<type arch='x86_64' machine='microvm'>hvm</type></os><devices>"
                        "<controller type='usb' model='none'/><memballoon model='none'/>"
                        "</devices></domain>")
            HOST.virsh("create", "--paused", path)  # transient, lives on after virsh
            os.unlink(path)
        try:
            later = self.plerig("--vcpus", "1", "--duration", "0.05")
            self.assertEqual(later.returncode, 0, later.stderr)
            self.assertIn("removed domain owner-dead of a plerig that no longer runs",
                          later.stderr)
            self.assertNotIn("removed domain owner-live", later.stderr)
            self.assertEqual(sorted(HOST.domains()),
                             ["owner-elsewhere", "owner-live", "plerig-1-1-0"])
        finally:
            for name in HOST.domains():
                HOST.virsh("destroy", name, check=False)
        self.assert_remote_clean()
        self.assertEqual(os.listdir(self.tmp), [])


def started(host, cache):
    global HOST, CACHE
    HOST, CACHE = host, cache


if __name__ == "__main__":
    sys.exit(remote_libvirt_host.main(__file__, PLERIG, "plr-", started))

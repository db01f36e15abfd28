#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hosts as an axis: `--connect URI1,URI2` and `check --connect LIST`.

Usage: test_hosts.py PLERIG

Two hosts at once: plerig's embedded driver on this machine ("embedded")
and a libvirtd of the test's own reached through qemu+ssh on 127.0.0.1
(remote_libvirt_host.py: its own sshd, a mount namespace that hides
plerig's files). Every variant runs on each, each host in its own schedule;
the results, the table and the CSV name the host. A host that cannot be
reached (an sshd-less port) is a failed row per variant with the reason,
and the reachable host's rows are kept. Two spellings of the daemon's URI
are two hosts whose pools and domains do not collide. `check --connect` judges each host
against its own baseline, keyed by its own identity; TAP names the host.
Nothing outlives the test. Skipped (77) without root, KVM, sshd or libvirtd.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from xml.etree import ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remote_libvirt_host  # noqa: E402

PLERIG = os.path.abspath(sys.argv[1])
HOST = None  # the RemoteHost, set in main
CACHE = None

SUITE = """[defaults]
options = --duration 0.2 --warmup 0.05 --repeat 2
metrics = acq_per_cpu_s
[uncontended]
options = --vcpus 1 --pcpus 0 --lock ticket --relax pause
expect = progress
"""


class Hosts(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plerig-hosts-")
        # a cleanup, not tearDown's last line: it runs after tearDown's assertions fail too
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        # check has no --cache-dir: the embedded driver's root below the test's own
        # cache, not the ~/.cache/plerig another plerig on this machine may hold
        self.env = dict(os.environ, TMPDIR=self.tmp, XDG_CACHE_HOME=CACHE)

    def tearDown(self):
        self.assertEqual(HOST.domains(), [], "a domain outlived the run")
        self.assertEqual(HOST.pools(), [], "a storage pool outlived the run")
        self.assertEqual(os.listdir(self.tmp), [], "a file was left in TMPDIR")

    def plerig(self, *args, timeout=300):
        # in TMPDIR, which must stay empty: nothing written where plerig is started
        # (a NULL cache dir once made a "(null)/libvirt.log" there)
        return subprocess.run([PLERIG, *args], capture_output=True, text=True, cwd=self.tmp,
                              timeout=timeout, env=self.env, stdin=subprocess.DEVNULL)

    def run_hosts(self, connect, *args):
        out = os.path.join(CACHE, "hosts.json")
        table = os.path.join(CACHE, "hosts.csv")
        p = self.plerig("run", "--backend", "libvirt", "--cache-dir", CACHE, "--connect",
                        connect, "--vcpus", "1", "--pcpus", "0", "--duration", "0.2",
                        "--warmup", "0.05", "--json", out, "--csv", table, *args)
        with open(out) as f:
            doc = json.load(f)
        with open(table) as f:
            rows = list(csv.DictReader(f))
        os.unlink(out)
        os.unlink(table)
        return p, doc, rows

    def test_two_hosts_at_once_each_named_everywhere(self):
        p, doc, rows = self.run_hosts(f"embedded,{HOST.uri}", "--relax", "pause,nop")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        hosts = doc["hosts"]
        self.assertEqual(len(hosts), 2)
        here, there = hosts
        self.assertEqual(here["connection"], "embedded")
        self.assertIn("127.0.0.1", there["connection"])
        self.assertTrue(there["hypervisor"].startswith("QEMU "), there)
        self.assertEqual(there["name"], HOST.virsh("hostname").stdout.strip())
        # this machine's kernel is read here; libvirt does not report the other's
        self.assertNotEqual(here["kernel"], "unknown")
        self.assertEqual(there["kernel"], "unknown")
        self.assertIn("libvirt does not report", there["unknown_why"])
        self.assertIsNone(here["error"])
        self.assertIsNone(there["error"])
        labels = [h["label"] for h in hosts]
        self.assertEqual(len(set(labels)), 2, labels)
        self.assertEqual(doc["host"]["name"], here["name"])
        # every variant on each host, every run ok
        self.assertEqual(len(doc["variants"]), 4)
        for label in labels:
            mine = [v for v in doc["variants"] if v["host"] == label]
            self.assertEqual(sorted(v["relax"] for v in mine), ["nop", "pause"])
            for v in mine:
                self.assertTrue(all(r["ok"] for r in v["runs"]), v["runs"])
        # the run's comparisons pair the variants of one host only
        self.assertTrue(doc["comparisons"])
        for c in doc["comparisons"]:
            self.assertEqual(doc["variants"][c["baseline"]]["host"],
                             doc["variants"][c["candidate"]]["host"])
        # the table's host column, the CSV's
        # (the rows, not the hosts side by side that follow them)
        rows_part = p.stdout.split("\nhosts side by side")[0]
        self.assertIn("\nhosts side by side", p.stdout)
        table = [l for l in rows_part.splitlines() if " libvirt " in l]
        self.assertEqual(len(table), 4, p.stdout)
        self.assertTrue(p.stdout.startswith("host "), p.stdout)
        for label in labels:
            self.assertEqual(sum(l.startswith(label + " ") for l in table), 2, p.stdout)
        self.assertEqual({r["host"] for r in rows}, set(labels))
        self.assertNotIn(HOST.key, json.dumps(doc) + p.stderr + p.stdout)

    def test_two_uris_of_one_daemon_name_their_domains_and_pools_apart(self):
        # the same libvirtd under two spellings (its query's order turned round):
        # two hosts to plerig, at once, each with its own pool and domains there
        base, query = HOST.uri.split("?", 1)
        other = base + "?" + "&".join(reversed(query.split("&")))
        self.assertNotEqual(other, HOST.uri)
        p, doc, rows = self.run_hosts(f"{HOST.uri},{other}", "--relax", "pause",
                                      "--repeat", "2")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual([h["error"] for h in doc["hosts"]], [None, None], doc["hosts"])
        self.assertEqual(len(doc["variants"]), 2)
        for v in doc["variants"]:
            self.assertEqual(len(v["runs"]), 2, v)
            self.assertTrue(all(r["ok"] for r in v["runs"]), v["runs"])
        # neither host's sweep took the other's (a live plerig's) pool or domains
        self.assertNotIn("removed", p.stderr)

    def test_an_unreachable_host_is_a_failed_row_and_the_other_is_kept(self):
        dead = (f"qemu+ssh://root@127.0.0.1:{remote_libvirt_host.free_port()}/system"
                f"?keyfile={HOST.key}&no_verify=1")
        p, doc, rows = self.run_hosts(f"{HOST.uri},{dead}")
        self.assertEqual(p.returncode, 1, p.stderr + p.stdout)
        ok, gone = doc["hosts"]
        self.assertIsNone(ok["error"])
        self.assertIn("Connection refused", gone["error"])
        self.assertEqual(gone["name"], "127.0.0.1")
        self.assertEqual(gone["kernel"], "unknown")
        for v in doc["variants"]:
            runs = v["runs"]
            if v["host"] == ok["label"]:
                self.assertTrue(runs and all(r["ok"] for r in runs), runs)
            else:
                self.assertEqual(len(runs), 1)
                self.assertFalse(runs[0]["ok"])
                self.assertIn("Connection refused", runs[0]["error"])
        self.assertIn("FAILED: host", p.stdout)
        self.assertEqual({r["ok"] for r in rows if r["host"] == gone["label"]}, {"0"})
        self.assertNotIn(HOST.key, json.dumps(doc) + p.stderr + p.stdout)

    def test_check_judges_each_host_against_its_own_baseline(self):
        suite = os.path.join(CACHE, "hosts.cfg")
        with open(suite, "w") as f:
            f.write(SUITE)
        store = os.path.join(CACHE, "baselines")
        os.makedirs(store, exist_ok=True)
        hosts = f"embedded,{HOST.uri}"
        rec = self.plerig("check", "--suite", suite, "--connect", hosts, "--baselines",
                          store, "--record")
        self.assertEqual(rec.returncode, 0, rec.stderr + rec.stdout)
        keys = sorted(os.listdir(store))
        self.assertEqual(len(keys), 2, keys)  # one per host: their identities differ
        self.assertTrue(any(k.endswith("-unknown.json") for k in keys), keys)
        for k in keys:
            with open(os.path.join(store, k)) as f:
                b = json.load(f)
            self.assertTrue(any("libvirt" in e["variant"] for e in b["entries"]), b)
            if "kvm_module_source" in b["host"]:  # the ssh host: its module inferred,
                # its key as before plerig inferred it
                self.assertTrue(k.endswith("-unknown.json"), k)
        tap = os.path.join(CACHE, "hosts.tap")
        dead = (f"qemu+ssh://root@127.0.0.1:{remote_libvirt_host.free_port()}/system"
                f"?keyfile={HOST.key}&no_verify=1")
        junit = os.path.join(CACHE, "hosts.xml")
        html = os.path.join(CACHE, "hosts.html")
        # what is tested is each host's own baseline, not a verdict: a 1-vCPU
        # variant is judged whatever the host's load, and a busy runner moved
        # its acq/s by -18 % once; a threshold no change can cross keeps the
        # comparison and takes the verdict out of the test
        p = self.plerig("check", "--suite", suite, "--connect", f"{hosts},{dead}",
                        "--baselines", store, "--tap", tap, "--junit", junit,
                        "--report", html, "--threshold", "1000")
        # the third host could not be reached: the worst of the three
        self.assertEqual(p.returncode, 1, p.stderr + p.stdout)
        with open(tap) as f:
            text = f.read()
        os.unlink(tap)
        points = [l for l in text.splitlines() if l.startswith(("ok ", "not ok "))]
        named = {l.split(" - ", 1)[1].split("/", 1)[0] for l in points}
        self.assertEqual(len(named), 3, text)
        # the two reachable hosts: progress passed, acq/s judged against their baseline
        good = [l for l in points if "/uncontended: " in l]
        self.assertEqual(len(good), 4, text)
        self.assertTrue(all(l.startswith("ok ") for l in good), text)
        # judged against the host's own baseline: passed, or too noisy (a busy
        # machine), never "no baseline"
        judged = [l for l in good if "acq_per_cpu_s vs baseline" in l]
        self.assertEqual(len(judged), 2, text)
        for l in judged:
            self.assertNotIn("no baseline", l)
            self.assertTrue("# SKIP" not in l or "too noisy" in l, l)
        failed = [l for l in points if l.startswith("not ok ")]
        self.assertEqual(len(failed), 1, text)
        self.assertIn("/host: reachable", failed[0])
        self.assertEqual(p.stdout.count("plerig check: "), 3, p.stdout)
        # JUnit: a testsuite per host and scenario, named HOST/scenario
        suites = ElementTree.parse(junit).getroot().findall("testsuite")
        os.unlink(junit)
        names = sorted(s.get("name") for s in suites)
        self.assertEqual(len(names), 3, names)
        self.assertEqual(sum(n.endswith("/uncontended") for n in names), 2, names)
        self.assertEqual(sum(n.endswith("/host") for n in names), 1, names)
        # --report: the two hosts that ran, side by side, and a section per host
        with open(html) as f:
            page = f.read()
        os.unlink(html)
        self.assertIn("Hosts side by side", page)
        labels = sorted(n.split("/")[0] for n in names if n.endswith("/uncontended"))
        for label in labels:
            self.assertIn(f"Results: uncontended on {label}", page)
        self.assertNotIn(HOST.key, text + p.stderr + p.stdout)


def started(host, cache):
    global HOST, CACHE
    HOST, CACHE = host, cache


if __name__ == "__main__":
    sys.exit(remote_libvirt_host.main(__file__, PLERIG, "plh-", started))

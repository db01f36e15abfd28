#!/usr/bin/env python3
"""A libvirt URI's credentials reach no output of plerig: run's table, stderr,
JSON, CSV and HTML, libvirt's own log in the cache dir (libvirt.log, which
quotes ssh); check's summary, TAP, JUnit, HTML and --list, for a
scenario's own --connect and for check --connect; the errors of a mistyped
option; plerig report on a results file that holds them (an older plerig's).

The URI lists libvirt's test driver (here, in-process: its rows fail, as it
cannot run microvm domains) and a qemu+ssh host that cannot be reached,
with a password, a keyfile after ';' (libvirt splits the query at '&' and
';') and one behind a percent-encoded name (libvirt decodes names): ssh
gets both as -i. The ssh libvirt runs is tests/support/fake_ssh.py's (first
on PATH), which says what OpenSSH says of them and of a refused
connection, every time, and the host is 127.0.0.1 port 1: nothing leaves
this machine, not even a DNS query. No VM boots; no KVM, root or network
needed.

And a qemu+ssh host whose ssh dies at once (fake_ssh's "dies": libvirt's
write then finds the socket closed) fails its open, naming the host, while
the run goes on with the other hosts: plerig ignores SIGPIPE (fc5abdc;
without it plerig was killed, exit -13).

usage: test_redaction.py PLERIG GUEST_ELF
"""
import glob
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import fake_ssh  # noqa: E402

PLERIG = GUEST = None
SECRETS = ("alice", "pw-7f3a", "SECRET-9c1e", "K3Y-55")
# no '&': libvirt splits at ';' only then, and ssh is run with -i /K3Y-55, which it quotes
REMOTE = ("qemu+ssh://alice:pw-7f3a@127.0.0.1:1/system?no_tty=1;keyfile=/SECRET-9c1e;"
          "key%66ile=%2FK3Y-55")
SHOWN = "qemu+ssh://***@127.0.0.1:1/system?no_tty=1;keyfile=***;key%66ile=***"
HOSTS = "test:///default," + REMOTE
SHORT = ["--vcpus", "2", "--duration", "0.05", "--warmup", "0.01", "--repeat", "1",
         "--timeout", "60"]
SUITE = f"""\
[defaults]
options = {" ".join(SHORT)}
metrics = acq_per_s

[remote]
options = --backend libvirt --accel tcg --connect {HOSTS}
expect = progress
"""
# every scenario on each host of check --connect
FLEET_SUITE = f"""\
[defaults]
options = {" ".join(SHORT)} --backend libvirt --accel tcg
metrics = acq_per_s

[plain]
expect = progress
"""


class Redaction(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="plerig-redaction-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.bin = os.path.join(self.dir, "bin")
        fake_ssh.install(self.bin, "refused")
        self.env = {**os.environ, "PLERIG_GUEST": GUEST, "PLERIG_BASELINES": "",
                    "XDG_CACHE_HOME": os.path.join(self.dir, "cache"),
                    "PATH": self.bin + os.pathsep + os.environ.get("PATH", "")}

    def path(self, name):
        return os.path.join(self.dir, name)

    def plerig(self, *args):
        return subprocess.run([PLERIG, *args], capture_output=True, text=True, timeout=300,
                              env=self.env, cwd=self.dir)

    def assert_hidden(self, r, *files):
        """No secret in @r's stdout and stderr, nor in any of @files (which exist)."""
        texts = {"stdout": r.stdout, "stderr": r.stderr}
        for f in files:
            with open(f, errors="replace") as fh:
                texts[os.path.basename(f)] = html.unescape(fh.read())
        for where, text in texts.items():
            for secret in SECRETS:
                self.assertNotIn(secret, text, f"{secret} in {where}:\n{text[:3000]}")
        return texts

    def suite(self, name, text):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_run_every_writer(self):
        for form in (["--connect", HOSTS], ["--connect=" + HOSTS]):
            out = {ext: self.path("r." + ext) for ext in ("json", "csv", "html")}
            r = self.plerig("run", "--backend", "libvirt", "--accel", "tcg", *form, *SHORT,
                            "--json", out["json"], "--csv", out["csv"], "--report",
                            out["html"])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            # libvirt's own log in the cache dir too (issue 25, item 3)
            log = os.path.join(self.dir, "cache", "plerig", "libvirt.log")
            texts = self.assert_hidden(r, *out.values(), log)
            # ssh ran (the fake, never the real one), and its words were redacted too, in
            # the log as well
            self.assertGreater(fake_ssh.runs(self.bin), 0)
            for where in (r.stderr, texts["libvirt.log"]):
                self.assertIn("Warning: Identity file *** not accessible: No such file or "
                              "directory.", where)
                self.assertIn("ssh: connect to host 127.0.0.1 port 1: Connection refused",
                              where)
            # what libvirt wrote before plerig redacted it is gone with plerig
            self.assertEqual(sorted(os.listdir(os.path.dirname(log))), ["libvirt.log"])
            # the run got as far as the unreachable host and said so, redacted
            self.assertIn("127.0.0.1", r.stdout)
            self.assertIn(SHOWN, r.stderr)
            with open(out["json"]) as f:
                doc = json.load(f)
            self.assertIn("test:///default," + SHOWN, doc["command_line"])
            self.assertIn(SHOWN, [h.get("connection") for h in doc["hosts"]])
            self.assertIn("127.0.0.1", texts["r.html"])
            # the report of that file, and of one where an older plerig left them
            r = self.plerig("report", out["json"], "-o", self.path("again.html"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assert_hidden(r, self.path("again.html"))
        doc["command_line"] = "plerig run --connect " + HOSTS
        for h in doc["hosts"]:
            if h.get("connection") == SHOWN:
                h["connection"] = REMOTE
                h["error"] = f"connecting to {REMOTE}: failed"
        with open(self.path("old.json"), "w") as f:
            json.dump(doc, f)
        r = self.plerig("report", self.path("old.json"), "-o", self.path("old.html"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(SHOWN, self.assert_hidden(r, self.path("old.html"))["old.html"])
        # compare copies each file's command line into its JSON: redacted too
        r = self.plerig("compare", "--json", self.path("cmp.json"), self.path("old.json"),
                        self.path("old.json"))
        self.assertIn(r.returncode, (0, 1, 2), r.stderr)
        with open(self.path("cmp.json")) as f:
            cmp = json.load(f)
        self.assertIn(SHOWN, cmp["base"]["command_line"])
        self.assert_hidden(r, self.path("cmp.json"))

    def test_check_a_scenarios_own_connect(self):
        suite = self.suite("own.cfg", SUITE)
        r = self.plerig("check", "--suite", suite, "--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(SHOWN, self.assert_hidden(r)["stdout"])
        out = [self.path(n) for n in ("c.tap", "c.xml", "c.html")]
        r = self.plerig("check", "--suite", suite, "--tap", out[0], "--junit", out[1],
                        "--report", out[2])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        texts = self.assert_hidden(r, *out)
        self.assertIn("test:///default," + SHOWN, texts["c.html"])

    def test_check_connect(self):
        suite = self.suite("fleet.cfg", FLEET_SUITE)
        out = [self.path(n) for n in ("f.tap", "f.xml", "f.html")]
        r = self.plerig("check", "--suite", suite, "--connect", HOSTS, "--tap", out[0],
                        "--junit", out[1], "--report", out[2])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        texts = self.assert_hidden(r, *out)
        self.assertIn(SHOWN, r.stdout)
        self.assertIn("127.0.0.1", texts["f.xml"])

    def test_a_host_whose_ssh_dies_fails_alone(self):
        fake_ssh.install(self.bin, "dies")
        out = self.path("r.json")
        r = self.plerig("run", "--backend", "libvirt", "--accel", "tcg", "--connect",
                        "test:///default,qemu+ssh://127.0.0.1:1/system", *SHORT, "--json", out)
        # not killed by SIGPIPE (-13): the open failed, said naming the host
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(fake_ssh.runs(self.bin), 1)
        self.assertIn("plerig run: host 127.0.0.1: connecting to qemu+ssh://127.0.0.1:1/system"
                      "?no_tty=1: internal error: client socket is closed", r.stderr)
        # and the other host ran: its rows failed for its own reason, in the JSON with the rest
        with open(out) as f:
            doc = json.load(f)
        errors = {v["host"]: v["runs"][0]["error"] for v in doc["variants"]}
        self.assertEqual(len(errors), 2, errors)
        (other,) = [e for h, e in errors.items() if h != "127.0.0.1"]
        self.assertIn("microvm", other)
        self.assertIn("client socket is closed", errors["127.0.0.1"])

    def test_errors(self):
        for args in (["run", "--conect=" + HOSTS],
                     ["run", "--backend", "libvirt", "--connect", REMOTE + "," + REMOTE],
                     ["check", "--connect", HOSTS + ",", "--list"],
                     # tune sets this machine's parameters: another host is refused
                     ["tune", "--", "--backend", "libvirt", "--connect", REMOTE],
                     ["tune", "--", "--backend", "libvirt", "--conect=" + HOSTS]):
            r = self.plerig(*args)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertTrue(r.stderr)
            self.assert_hidden(r)
        # a suite's line that names the option wrong
        suite = self.suite("bad.cfg", SUITE.replace("--connect ", "--conect="))
        r = self.plerig("check", "--suite", suite)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("unknown option '--conect=test:///default," + SHOWN, r.stderr)
        self.assert_hidden(r)
        # no output file was asked for, and none holds them either
        for f in glob.glob(os.path.join(self.dir, "**"), recursive=True):
            if os.path.isfile(f) and not f.endswith(".cfg"):
                self.assert_hidden(subprocess.CompletedProcess([], 0, "", ""), f)


if __name__ == "__main__":
    PLERIG, GUEST = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[3:]])

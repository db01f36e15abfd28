# SPDX-License-Identifier: GPL-2.0
"""A "remote" libvirt host on this machine, for tests: sshd, libvirtd and
virtlogd of its own, on 127.0.0.1, in a mount namespace of their own.

unshare -m --propagation private gives the three daemons tmpfs over /run,
/etc/libvirt (a qemu.conf and libvirtd.conf of their own), /var/lib/libvirt,
/var/log/libvirt and /var/cache/libvirt, so they neither see nor touch the
machine's libvirt, and its state goes with the namespace. sshd listens on
a port of its own with a throwaway host key and lets in only a throwaway
client key; ssh sessions run in the namespace and so reach that libvirtd.
Paths in @hide get a tmpfs too, so that the daemon cannot see them (as on
another machine). The client side is a libvirt URI:
    qemu+ssh://root@127.0.0.1:PORT/system?keyfile=K&no_tty=1&no_verify=1&command=W
where W is ssh with -F /dev/null and UserKnownHostsFile=/dev/null: no_verify
would otherwise add the throwaway host key to ~/.ssh/known_hosts.

Needs root (mounts, a daemon running QEMU as root); skip_reason() says
what is missing. stop() ends every process of the namespace (QEMU too)
and leaves nothing behind.
"""
import os
import shutil
import signal
import socket
import subprocess
import time

QEMU_CONF = """user = "root"
group = "root"
security_driver = "none"
namespaces = []
cgroup_controllers = []
dynamic_ownership = 0
remember_owner = 0
"""
LIBVIRTD_CONF = """unix_sock_group = "root"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
"""
# runs inside the namespace: $1 state dir, $2 port, then the paths to hide
HOST_SH = r"""set -e
S=$1; P=$2; shift 2
mount -t tmpfs plerig-remote /run
mkdir -p /run/sshd /run/libvirt /run/lock /run/plerig-remote
mount --bind "$S" /run/plerig-remote
S=/run/plerig-remote
for d in /etc/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt "$@"; do
    mkdir -p "$d"; mount -t tmpfs plerig-remote "$d"
done
cp $S/qemu.conf $S/libvirtd.conf /etc/libvirt/
mkdir -p /var/lib/libvirt/qemu /var/log/libvirt/qemu /var/cache/libvirt/qemu
virtlogd 2>$S/virtlogd.err &
libvirtd -f /etc/libvirt/libvirtd.conf 2>$S/libvirtd.err &
exec /usr/sbin/sshd -D -e -f /dev/null -h $S/hostkey -o ListenAddress=127.0.0.1 -o Port=$P \
    -o AuthorizedKeysFile=$S/client.pub -o PermitRootLogin=prohibit-password \
    -o StrictModes=no -o PidFile=none -o UsePAM=no 2>$S/sshd.err
"""


def skip_reason():
    if os.geteuid() != 0:
        return "a libvirt daemon of the test's own needs root (mount namespace, QEMU as root)"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "no usable /dev/kvm"
    for tool in ("unshare", "libvirtd", "virtlogd", "ssh", "ssh-keygen", "virsh",
                 "qemu-system-x86_64"):
        if not shutil.which(tool):
            return f"no {tool} (scripts/setup installs it)"
    if not os.path.exists("/usr/sbin/sshd"):
        return "no /usr/sbin/sshd (openssh-server; scripts/setup installs it)"
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mount_ns(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


class RemoteHost:
    def __init__(self, state_dir, hide=()):
        self.state = state_dir
        self.hide = list(hide)
        self.port = free_port()
        self.proc = None
        self.ns = None
        os.makedirs(state_dir, exist_ok=True)
        self.key = os.path.join(state_dir, "client")
        self.ssh = os.path.join(state_dir, "ssh")
        self.uri = (f"qemu+ssh://root@127.0.0.1:{self.port}/system?keyfile={self.key}"
                    f"&no_tty=1&no_verify=1&command={self.ssh}")

    def _write(self, name, text, mode=0o600):
        path = os.path.join(self.state, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def start(self, timeout=60):
        for k in ("hostkey", "client"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                            os.path.join(self.state, k)], check=True)
        self._write("qemu.conf", QEMU_CONF)
        self._write("libvirtd.conf", LIBVIRTD_CONF)
        script = self._write("host.sh", HOST_SH)
        self._write("ssh", "#!/bin/sh\nexec ssh -F /dev/null -o UserKnownHostsFile=/dev/null "
                    "-o LogLevel=ERROR \"$@\"\n", 0o700)
        self.proc = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", script, self.state,
             str(self.port), *self.hide], start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.state, "host.err"), "w"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if self.virsh("hostname", check=False).returncode == 0:
                self.ns = mount_ns(self.proc.pid)
                return
            time.sleep(0.3)
        err = self.logs()
        self.stop()
        raise RuntimeError(f"the test's libvirt host did not come up: {err}")

    def logs(self):
        text = []
        for name in ("host.err", "sshd.err", "libvirtd.err", "virtlogd.err"):
            try:
                with open(os.path.join(self.state, name)) as f:
                    text.append(f"{name}: {f.read()[-800:]}")
            except OSError:
                pass
        return "\n".join(text)

    def virsh(self, *args, check=True):
        return subprocess.run(["virsh", "-q", "-c", self.uri, *args], capture_output=True,
                              text=True, check=check, timeout=60)

    def domains(self):
        out = self.virsh("list", "--all", "--name").stdout
        return [l.strip() for l in out.splitlines() if l.strip()]

    def sees(self, path):
        """Does @path exist where the daemon runs (through ssh, in its namespace)?"""
        return subprocess.run([self.ssh, "-i", self.key, "-p", str(self.port), "-o",
                               "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                               "root@127.0.0.1", "test", "-e", path],
                              timeout=60).returncode == 0

    def pools(self):
        out = self.virsh("pool-list", "--all", "--name").stdout
        return [l.strip() for l in out.splitlines() if l.strip()]

    def processes(self):
        """Every process in the namespace (its daemons, their QEMUs, ssh sessions)."""
        if not self.ns:
            return []
        pids = []
        for e in os.listdir("/proc"):
            if e.isdigit() and int(e) != os.getpid() and mount_ns(e) == self.ns:
                pids.append(int(e))
        return pids

    def stop(self):
        """End all the namespace's processes: QEMUs first, then the daemons."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = self.processes()
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 10
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.1)
            if not self.processes():
                break
        if self.proc:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        left = self.processes()
        if left:
            raise RuntimeError(f"processes of the test's libvirt host survived: {left}")


def main(test_file, plerig, prefix, started):
    """The main() of a unittest file that needs a RemoteHost: 77 with the
    reason where one cannot run; else the host started with plerig's build,
    its sources and TMPDIR hidden from the daemon (as on another machine),
    @started(host, cache) before the tests (cache: a short directory of the
    test's own: QEMU's monitor socket lies under the embedded driver's root),
    and everything stopped and removed after them."""
    import sys
    import tempfile
    import unittest
    why = skip_reason()
    if why:
        print(f"SKIP: {why}")
        return 77
    base = tempfile.mkdtemp(prefix=prefix)
    cache = os.path.join(base, "c")
    os.makedirs(cache)
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(test_file))))
    hide = sorted({os.path.dirname(plerig), source, tempfile.gettempdir()})
    host = RemoteHost(os.path.join(base, "host"), hide=hide)
    try:
        host.start()
        started(host, cache)
        prog = unittest.main(module="__main__", argv=[sys.argv[0]] + sys.argv[2:], exit=False,
                             verbosity=2)
        ok = prog.result.wasSuccessful()
    finally:
        host.stop()
        shutil.rmtree(base, ignore_errors=True)
    return 0 if ok else 1

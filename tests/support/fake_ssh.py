"""A fake `ssh` for libvirt's qemu+ssh:// transport, so that a test of a remote
host never leaves this machine (no resolver, no network, no ~/.ssh) and ends
the same way every time. libvirt runs `ssh [-p PORT] [-l USER] [-i KEYFILE]...
-T -e none -o BatchMode=yes -- HOST sh -c '...'` with a socket as its stdin and
stdout (libvirt's remote protocol) and a pipe as its stderr (libvirt quotes it
in the open's error).

install(DIR, MODE) writes DIR/ssh; put DIR first on PATH. DIR/ssh.ran counts
its runs. Modes:

  refused  what ssh says of a host that refuses the connection, and of each
           keyfile it cannot read, as OpenSSH words it; it takes libvirt's
           first request whole before it exits, so that libvirt's read, not
           its write, finds it gone, and quotes those words (a real ssh's
           words arrive only when it outlives libvirt's first write)
  dies     takes the first request, stops reading, answers it (an empty
           list of auth types) and exits: libvirt's next write finds the
           socket closed. Without SIGPIPE ignored that write kills the
           client (exit -13, as plerig did before fc5abdc)
"""
import os
import stat
import sys

SCRIPT = r'''
import os, socket, struct, sys

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "ssh.ran"), "a") as f:
    f.write("ran\n")
mode = MODE
args = sys.argv[1:]


def request():
    """libvirt's first call, whole: its 4-byte length, then the rest."""
    data = b""
    while len(data) < 4 or len(data) < struct.unpack(">I", data[:4])[0]:
        chunk = os.read(0, 65536)
        if not chunk:
            sys.exit(255)
        data += chunk
    return data


port = args[args.index("-p") + 1] if "-p" in args else "22"
host = args[args.index("--") + 1] if "--" in args else "?"
if mode == "refused":
    for i, a in enumerate(args[:-1]):
        if a == "-i":
            sys.stderr.write(f"Warning: Identity file {args[i + 1]} not accessible: "
                             "No such file or directory.\n")
    sys.stderr.write(f"ssh: connect to host {host} port {port}: Connection refused\n")
    sys.stderr.flush()
    request()
    sys.exit(255)
# dies: no more reading, then the answer (prog, vers, proc, type REPLY, serial, status OK)
call = request()
prog, vers, proc, _, serial = struct.unpack(">IIIiI", call[4:24])
socket.socket(fileno=os.dup(0)).shutdown(socket.SHUT_RD)
body = struct.pack(">I", 0)
head = struct.pack(">IIIiII", prog, vers, proc, 1, serial, 0)
os.write(1, struct.pack(">I", 4 + len(head) + len(body)) + head + body)
sys.exit(255)
'''


def install(directory, mode):
    """DIR/ssh, in @mode ("refused", "dies"); returns its path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "ssh")
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\n" + SCRIPT.replace("MODE", repr(mode), 1))
    os.chmod(path, stat.S_IRWXU)
    return path


def runs(directory):
    """How many times DIR/ssh ran."""
    try:
        with open(os.path.join(directory, "ssh.ran")) as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0

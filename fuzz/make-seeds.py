#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ that are not copies of real output.

    fuzz/make-seeds.py [FUZZ_DIR]

serial_decode: serial logs as the guest writes them (plerig/frame.h), with
the harness's leading byte (bit 0: fix up CRCs; the rest: vCPUs - 1, times 2).
run_options: argv of `plerig run`, NUL-separated.
suite_file: suites of `plerig check`, good and bad (a NUL byte, a key twice).
baseline: baseline files of the machine "cpu-2cpu-smt0-kvm_pvm" (fuzz_baseline's key).
ple_state: PLE state files as `plerig sweep` saves them (ple/state_file.c).
report_inputs: `plerig sweep --json` curves, and a results file of two hosts
whose every string is hostile (the other results files of report_inputs are
copies of results_file's).
The elf_image and results_file seeds are the real guest image and a real
`plerig run --json` file (see scripts/fuzz).
"""
import json
import os
import struct
import sys
import zlib

D = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
MAGIC = 0x46524C50
HELLO, VCPU, END = 1, 2, 3
VCPU_FIXED = 232  # PLERIG_FRAME_VCPU_FIXED


def frame(ftype, index, payload):
    head = struct.pack("<HHI", ftype, index, len(payload))
    crc = zlib.crc32(payload, zlib.crc32(head))
    return struct.pack("<I", MAGIC) + head + struct.pack("<I", crc) + payload


def vcpu(index, acq, state=3):
    fixed = struct.pack("<II", state, index)
    counts = [acq, 10, acq // 2, 10 * acq, 900, 3, 4000, 10 * acq, 40, 2, 100, 1, 1,
              1000, 1000 + 20 * acq]
    fixed += struct.pack("<15Q", *counts) + bytes(7 * 8)  # ... the fault
    # pvqspin: halts, kicks sent, kicks received, spurious, early; the longest kick latency
    fixed += struct.pack("<6Q", acq // 10, acq // 20, acq // 20, 1, 2, 7000)
    assert len(fixed) == VCPU_FIXED
    wait = struct.pack("<I", 2) + struct.pack("<IQ", 3, acq - 4) + struct.pack("<IQ", 60, 4)
    hold = struct.pack("<I", 1) + struct.pack("<IQ", 3, acq)
    kick = struct.pack("<I", 2) + struct.pack("<IQ", 90, acq // 40) + struct.pack("<IQ", 120, 1)
    return frame(VCPU, index, fixed + wait + hold + kick)


def end(status, detail, nr, counter, kvm_features=0x2001a0):
    return frame(END, 0, struct.pack("<IIIIQQQ", status, detail, nr, kvm_features, counter, 5000,
                                     90000))


def write(target, name, data):
    os.makedirs(os.path.join(D, "corpus", target), exist_ok=True)
    with open(os.path.join(D, "corpus", target, name), "wb") as f:
        f.write(data)


hello = frame(HELLO, 0, struct.pack("<IIQQ", 4, 2, 100, 200))  # ABI version 4
good = b"SeaBIOS (version 1.16)\r\n" + hello + vcpu(0, 1000) + vcpu(1, 2000) + end(0, 0, 2, 3020)
write("serial_decode", "two-vcpus-ok", bytes([2]) + good)
write("serial_decode", "two-vcpus-ok-fixcrc", bytes([3]) + good)
write("serial_decode", "fault", bytes([3]) + hello + vcpu(0, 5, state=4) + end(1, 0, 1, 5))
write("serial_decode", "bad-config", bytes([1]) + end(2, 4, 0, 0))
write("serial_decode", "cut-short", bytes([2]) + good[:len(good) // 2])

for name, argv in {
    "matrix": ["--vcpus", "2,4", "--lock", "ticket,tas,mcs", "--relax", "pause,nop,rep-pause,none"],
    "libvirt": ["--backend", "libvirt", "--connect", "qemu:///system", "--accel", "tcg",
                "--cache-dir", "/tmp/c", "--vms", "2"],
    "repeat": ["--repeat", "5", "--order", "shuffle", "--seed", "42", "--discard-rounds", "2",
               "--baseline", "relax=pause", "--json", "-", "--csv", "x.csv"],
    "timing": ["--duration", "0.5", "--warmup", "0.1", "--timeout", "3", "--stall-us", "20",
               "--cs-cycles", "200", "--think-cycles", "0", "--pcpus", "0-1", "--pin", "float"],
    "ple": ["--ple", "on,off", "--relax", "pv-yield", "--pv-yield-spins", "64", "--ring", "kernel",
            "--inject", "garbage", "-q"],
    "help": ["-h"],
}.items():
    write("run_options", name, b"\0".join(a.encode() for a in argv))

SUITES = {
    "default-like": """# a comment
[defaults]
options = --duration 0.3 --warmup 0.05 --repeat 5
metrics = acq_per_cpu_s

[uncontended]
groups = quick, solo
options = --vcpus 1 --pcpus 0 --lock ticket,mcs --relax pause
expect = progress, no-stalls
min_cpus = 1

[overcommit]
groups = lhp
options = --vcpus 4 --pcpus 0 --lock ticket --relax pause,nop
requires = ple, hw-virt
expect = progress, stalls, ple-exits
metrics = acq_per_cpu_s, stalls, run_delay_share
""",
    "paths": "[libvirt]\noptions = --backend libvirt --cache-dir /tmp/c --connect qemu:///system "
             "--guest /images/g.elf\n[pv]\noptions = --relax pv-yield --ple off\n"
             "requires = pv-yield\nexpect = directed-yields, no-ple-exits\nmetrics = none\n",
    "nul": "[a]\noptions=--vcpus 1\n\0\n[b]\noptions=--inject fault\n",
    "key-twice": "[a]\noptions = --vcpus 1\noptions = --vcpus 2\n",
    "help": "[a]\noptions = --help\n",
}
for name, text in SUITES.items():
    write("suite_file", name, text.encode())

HOST = {"kernel": "6.1", "kvm_module": "kvm_pvm", "cpu_model": "CPU", "cpus": 2, "cpus_online": 2,
        "smt": False, "ple_params": {"ple_gap": 128, "ple_window": 4096}}


def baseline(entries, **changes):
    doc = {"schema": "plerig-baseline", "schema_version": 1, "plerig_version": "0.1.0",
           "key": "cpu-2cpu-smt0-kvm_pvm", "recorded_at": "2026-12-01T18:57:42Z",
           "suite": "suites/default.cfg", "host": HOST, "entries": entries}
    doc.update(changes)
    return json.dumps(doc, indent=2).encode()


V = "kvm ticket pause user 1x1 ple=on pcpus=0"
GOOD = [{"scenario": "solo", "variant": V, "metric": "acq_per_cpu_s",
         "values": [1234567.5, 1250000.25, 1240000.0]},
        {"scenario": "solo", "variant": V, "metric": "run_delay_share", "values": [0.0, 0.125, 1]},
        {"scenario": "crowd", "variant": V.replace("1x1", "1x4"), "metric": "stalls",
         "values": []}]
write("baseline", "good", baseline(GOOD))
# as baselines were written before output/host_json: ple_params one string, smt null
write("baseline", "older-host", baseline(GOOD[:1], host={**HOST, "smt": None,
                                                        "ple_params": "ple_gap=128"}).replace(
    b"smt0", b"smtunknown"))
write("baseline", "nan", baseline(GOOD[:1]).replace(b"1240000.0", b"NaN"))
write("baseline", "share-out-of-range", baseline([{**GOOD[1], "values": [-50, -50, -50]}]))
write("baseline", "twice", baseline(GOOD[:1] + GOOD[:1]))
write("baseline", "escapes", baseline(GOOD[1:2], recorded_at="\x1b[2J\u009b31m"))
write("baseline", "version-string", baseline(GOOD, schema_version="1"))
STATE = "plerig-ple-state 1\n# original KVM PLE parameters\npid {pid}\nroot {root}\nmodule {module}\n"
write("ple_state", "kvm_intel", (STATE.format(pid=4242, root="/sys", module="kvm_intel") +
                                 "param ple_gap 128\nparam ple_window 4096\nparam ple_window_grow 2\n"
                                 "param ple_window_shrink 0\nparam ple_window_max 4294967295\n"
                                 ).encode())
# the module's other parameters, kept for a restore that has to load it
write("ple_state", "kept", (STATE.format(pid=4243, root="/sys", module="kvm_intel") +
                            "param ple_gap 128\nparam ple_window 4096\nkeep enable_apicv N\n"
                            "keep pt_mode -1\nkeep nested Y\n").encode())
write("ple_state", "kvm_amd", (STATE.format(pid=1, root="/tmp/fake sys", module="kvm_amd") +
                               "param pause_filter_count 3000\nparam pause_filter_thresh 128\n"
                               ).encode())
# a pid past pid_t: was cast to -1 and accepted (found by this target)
write("ple_state", "pid-overflow", STATE.format(pid=8888888888888888888888884242, root="/sys",
                                                module="kvm_intel").encode())
write("ple_state", "root-twice", (STATE.format(pid=7, root="/tmp/x", module="kvm_intel") +
                                  "root /sys\n").encode())
write("ple_state", "bad-value", (STATE.format(pid=7, root="/sys", module="kvm_intel") +
                                 "param ple_window -1\n").encode())

for name, params, values in (("one-axis", ["ple_window"], [[1024], [4096], [65536]]),
                             ("two-axes", ["ple_gap", "ple_window"],
                              [[0, 4096], [128, 4096], [128, 16384]])):
    points = []
    for variant in ("kvm ticket pause user ple-on 1x4/0-1", "kvm ticket nop user ple-on 1x4/0-1"):
        for i, vals in enumerate(values):
            points.append({"values": dict(zip(params, vals)), "variant": variant, "ok": True,
                           "runs": 2, "acq_per_s": 500.0 * (i + 1), "acq_per_s_stddev": 50.0,
                           "stalls": 3.0, "stalled_share": 0.1, "pause_loop_exits": None,
                           "pause_loop_exits_unavailable": "no hardware PLE"})
    points.append({"values": dict(zip(params, values[0])), "variant": "failed", "ok": False,
                   "error": "the run measured nothing"})
    write("report_inputs", name, json.dumps(
        {"schema": "plerig-sweep", "schema_version": 1, "plerig_version": "0.1.0",
         "params": params, "rounds": 1, "points": points}, indent=1).encode())

# report_inputs: a results file of two hosts (--connect A,B) with comparisons, every
# string in it markup, an attribute breakout, a CDATA end and terminal commands
# (fuzz_report_inputs aborts where any of it reaches the page as anything but text)
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(1)>\"' x=\"]]>\x1b[2J\x07\u009b"


def hostile(node, keep=("schema", "metric", "better", "test", "unit", "host")):
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in list(items):
        if isinstance(value, str) and key not in keep:
            node[key] = HOSTILE[:24] if key in ("backend", "lock", "relax", "ring", "pcpus",
                                                "pin", "ple") else HOSTILE
        elif isinstance(value, (dict, list)):
            hostile(value)


with open(os.path.join(D, "corpus", "results_file", "small.json")) as f:
    one = json.load(f)
doc = dict(one, variants=[], comparisons=[])
doc["hosts"] = [dict(one["host"], name=f"h{h}", label=f"h{h}", connection=f"qemu+ssh://h{h}/",
                     error="refused" if h else None) for h in range(2)]
for h in range(2):
    for relax in ("pause", "nop"):
        doc["variants"].append(dict(json.loads(json.dumps(one["variants"][0])), relax=relax,
                                    host=f"{h}"))
    doc["comparisons"].append({"baseline": 2 * h, "candidate": 2 * h + 1, "metric": "acq_per_s",
                               "better": "higher", "delta_pct": -12.5, "p_value": 0.01,
                               "significant": True, "verdict": "worse"})
hostile(doc)
for v in doc["variants"]:  # two hosts still, each as hostile as the rest
    v["host"] = HOSTILE + v["host"]
write("report_inputs", "two-hosts-hostile.json", json.dumps(doc, indent=1).encode())

#!/usr/bin/env python3
"""Check that every spin loop of the built storm holds exactly its relax bytes.

The question plerig answers (does the guest spin with PAUSE, f3 90, or a
plain NOP, 90?) is only meaningful if the binary really holds those bytes:
a compiler or assembler is free to pick other encodings. This disassembles
the built image, finds each plerig_acquire_<lock>_<relax> and
plerig_release_mcs_<relax> function, builds its control-flow graph and takes
its spin loops: the cycles that pass through no atomic read-modify-write (a
cycle through xchg or cmpxchg is a retry, not a spin), i.e. the strongly
connected components of the graph without those instructions. Each spin loop
must hold exactly one relax instruction, by bytes, and no reachable relax-like
instruction may lie outside the spin loops. The compiler may lay a loop out
in pieces (GCC moves the PAUSE of a test-and-test-and-set behind the ret), so
address ranges would not do.

usage: test_relax_bytes.py ELF [ELF...]
"""
import re
import subprocess
import sys

RELAX_BYTES = {
    "pause": "f3 90",
    "nop": "90",
    "rep_pause": "f3 f3 90",
    "none": None,
    "pv_yield": "f3 90",  # PAUSE in the loop; the hypercall sits behind a call
}
LOCKS = ("ticket", "tas", "mcs", "pvqspin")
QUEUED = ("mcs", "pvqspin")  # their releases spin too
RELAX_LIKE = {"90", "f3 90", "f3 f3 90"}
FUNC_RE = re.compile(r"^([0-9a-f]+) <(plerig_(?:acquire|release)_\w+)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$")
JUMP_RE = re.compile(r"^j\w*\s+([0-9a-f]+)\b")


def disassemble(path):
    """{function name: [(address, bytes, mnemonic text)]}"""
    out = subprocess.run(
        ["objdump", "-d", "-w", path],
        check=True, capture_output=True, text=True).stdout
    functions, current = {}, None
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            current = functions.setdefault(m.group(2), [])
            continue
        if not line.strip():
            current = None
            continue
        m = INSN_RE.match(line)
        if m and current is not None:
            current.append((int(m.group(1), 16), m.group(2).strip(), m.group(3).strip()))
    return functions


def is_atomic(raw, text):
    return raw.startswith("f0 ") or text.startswith(("xchg", "cmpxchg", "lock"))


def successors(insns):
    """{address: [successor addresses]} at instruction granularity."""
    succ = {}
    for i, (addr, _, text) in enumerate(insns):
        nxt = [insns[i + 1][0]] if i + 1 < len(insns) else []
        m = JUMP_RE.match(text)
        if text.startswith("ret"):
            succ[addr] = []
        elif m and text.startswith("jmp"):
            succ[addr] = [int(m.group(1), 16)]
        elif m:
            succ[addr] = nxt + [int(m.group(1), 16)]
        else:
            succ[addr] = nxt
    return succ


def reachable(succ, entry):
    seen, todo = set(), [entry]
    while todo:
        a = todo.pop()
        if a in seen or a not in succ:
            continue
        seen.add(a)
        todo.extend(succ[a])
    return seen


def spin_loops(insns):
    """Strongly connected components (Tarjan) of the reachable, non-atomic graph."""
    atomic = {a for a, b, t in insns if is_atomic(b, t)}
    succ = successors(insns)
    live = reachable(succ, insns[0][0]) - atomic
    graph = {a: [b for b in succ[a] if b in live] for a in live}
    index, low, stack, on_stack, loops = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                loops.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return loops, live


def check_function(name, insns, relax):
    errors = []
    loops, live = spin_loops(insns)
    if not loops:
        return [f"{name}: no spin loop found"]
    want = RELAX_BYTES[relax]
    expected = [want] if want else []
    in_loops = set().union(*loops)
    for a, b, _ in insns:
        if b in RELAX_LIKE and a in live and a not in in_loops:
            errors.append(f"{name}: relax bytes {b} at 0x{a:x} outside every spin loop")
    for loop in loops:
        relaxes = [b for a, b, _ in insns if a in loop and b in RELAX_LIKE]
        if relaxes != expected:
            errors.append(f"{name}: spin loop at 0x{min(loop):x} holds relax bytes "
                          f"{relaxes}, expected {expected}")
    return errors


def check_image(path):
    functions = disassemble(path)
    errors, checked = [], 0
    for relax in RELAX_BYTES:
        names = [f"plerig_acquire_{lock}_{relax}" for lock in LOCKS]
        names += [f"plerig_release_{lock}_{relax}" for lock in QUEUED]
        for name in names:
            if name not in functions:
                errors.append(f"{path}: {name} missing from the image")
                continue
            errors += check_function(name, functions[name], relax)
            checked += 1
    return checked, errors


def main(paths):
    total_errors = []
    for path in paths:
        checked, errors = check_image(path)
        print(f"{path}: {checked} spin functions checked")
        total_errors += errors
    for e in total_errors:
        print("FAIL:", e)
    return 1 if total_errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

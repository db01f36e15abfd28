#!/usr/bin/env python3
"""The freestanding guest and the native storm are built without sanitizers.

Usage: test_unsanitized.py BUILD_DIR

Whatever -Db_sanitize the build has, every compile of guest/ objects and
of the native storm (host/libstorm-native) must end with -fno-sanitize=all
and carry no -fsanitize= after it: the guest has no runtime to call, and an
instrumented spin loop is not the guest's (tests/guest/test_relax_bytes.py).
The guest image's link must turn them off too.
"""
import json
import os
import re
import shlex
import sys

BUILD = sys.argv[1]


def last_sanitize(args):
    """The last -fsanitize=/-fno-sanitize= argument, or None."""
    found = None
    for a in args:
        if re.match(r"-f(no-)?sanitize=", a):
            found = a
    return found


def main():
    with open(os.path.join(BUILD, "compile_commands.json")) as f:
        commands = json.load(f)
    bad, seen = [], 0
    for c in commands:
        out = c.get("output", "")
        if not (out.startswith("guest/") or "storm-native" in out):
            continue
        seen += 1
        last = last_sanitize(shlex.split(c["command"]))
        if last != "-fno-sanitize=all":
            bad.append(f"{out}: last sanitizer flag {last!r}, not -fno-sanitize=all")
    if seen < 10:
        bad.append(f"only {seen} guest or native-storm objects in compile_commands.json")
    with open(os.path.join(BUILD, "build.ninja")) as f:
        ninja = f.read()
    link = re.search(r"^build images/plerig-guest\.elf:.*?(?=^build |\Z)", ninja, re.M | re.S)
    if not link or "-fno-sanitize=all" not in link.group(0):
        bad.append("images/plerig-guest.elf is linked without -fno-sanitize=all")
    for b in bad:
        print(b)
    print(f"{seen} objects checked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

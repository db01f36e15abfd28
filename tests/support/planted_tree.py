"""A lint of host/ (scripts/lint-*) run on the real tree, or on a copy of it
with something planted in one file: what tests/build's lint tests share.

    r = planted_tree.run(LINT, HOST)                        # the real tree
    r = planted_tree.run_planted(LINT, HOST, "util/errbuf.c", "\\nint x;\\n")
    r = planted_tree.run_planted_files(LINT, HOST, {"util/a.c": "...", "util/b.c": "..."})
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(lint, host):
    """The lint's CompletedProcess (stdout, stderr as text)."""
    return subprocess.run([sys.executable, lint, host], capture_output=True, text=True)


def run_planted(lint, host, file, text):
    """The lint on a copy of @host with @text appended to @file (relative to host/)."""
    return run_planted_files(lint, host, {file: text})


def run_planted_files(lint, host, texts):
    """The lint on a copy of @host with each text of @texts appended to its
    file (relative to host/; a file that is not there is created)."""
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "host")
        shutil.copytree(host, copy)
        for file, text in texts.items():
            with open(os.path.join(copy, file), "a") as f:
                f.write(text)
        return run(lint, copy)

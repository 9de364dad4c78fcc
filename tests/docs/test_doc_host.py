#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_doc_host.py - the Documentation's host examples, run as printed, their output compared (KTAP).
#
# A ".. code-block:: sh" that a Documentation/*.rst file marks ".. host-shell" is run line by
# line on the host, as make shell's examples are in the guest (test_readme_shell.py, whose
# reading of the blocks this shares): each line in one bash, in a scratch directory where
# tests/ is the tree's (the bundled firmware), with the tree's crashwalk and framewalk first
# on PATH. What a line printed (stdout, then stderr) must hold the "#>" lines below it, in
# order and together; a "#> ..." line stands for any lines, so a long report can show its
# head and its tail. A line the program died on (a signal) fails whatever it printed; a line
# that shows no output is a set-up step and must exit 0.
# usage: test_doc_host.py [RST...]   (default: Documentation/*.rst)
import glob
import os
import subprocess
import sys
import tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))
sys.path.insert(0, os.path.join(TOP, "tests", "userspace"))
from ktap import Ktap  # noqa: E402
from test_readme_shell import marked_lines  # noqa: E402

MARK = ".. host-shell"


def holds(printed, expected):
    """Whether printed holds expected's runs (split at "..." lines) in order, each run's lines
    together; a leading or trailing "..." is implied, as for make shell's examples."""
    runs, run = [], []
    for line in expected:
        if line.strip() == "...":
            runs.append(run)
            run = []
        else:
            run.append(line)
    runs.append(run)
    at = 0
    for run in runs:
        if not run:
            continue
        for i in range(at, len(printed) - len(run) + 1):
            if printed[i:i + len(run)] == run:
                at = i + len(run)
                break
        else:
            return False
    return True


def main():
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(TOP, "Documentation", "*.rst")))
    k = Ktap("doc-host")
    env = dict(os.environ, LC_ALL="C", TERM="dumb",
               PATH=os.pathsep.join([os.path.join(TOP, "analyzer", "build"),
                                     os.path.join(TOP, "userspace", "build"),
                                     os.environ.get("PATH", "")]))
    env.pop("NO_COLOR", None)
    blocks = 0
    for path in files:
        lines = marked_lines(path, (MARK,))
        blocks += bool(lines)
        with tempfile.TemporaryDirectory(prefix="doc-host.") as scratch:
            os.symlink(os.path.join(TOP, "tests"), os.path.join(scratch, "tests"))
            for name, n, command, expected in lines:
                # expected: the "#>" text, whose first character is the space after "#>".
                want = [x[1:] if x.startswith(" ") else x for x in expected]
                p = subprocess.run(["bash", "-c", command], cwd=scratch, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=120)
                got = (p.stdout + p.stderr).decode(errors="replace").rstrip("\n").split("\n")
                # A line that shows no output is a step the next ones need: it must succeed.
                ok = p.returncode == 0 if not want else p.returncode >= 0 and holds(got, want)
                if not ok:
                    k.note("  the text shows:")
                    for x in want:
                        k.note("    " + x)
                    k.note("  it printed (exit status %d):" % p.returncode)
                    for x in got:
                        k.note("    " + x)
                k.result(ok, "%s:%d prints what the text shows (%d lines): %s"
                         % (name, n, len(want), command.split("\n")[0]))
    # A marker the reader stopped seeing would turn this suite into an empty pass.
    k.result(blocks > 0, "the Documentation has host-shell examples")
    return k.done()


if __name__ == "__main__":
    sys.exit(main())

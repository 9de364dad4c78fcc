#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_readme_shell.py - the README's examples, followed line by line in make shell's guest (KTAP).
#
# Boots scripts/guest.sh -s (the shell `make shell` opens) with a pipe for its console and
# types each line of every ```sh block that README.md marks <!-- make-shell -->, then of
# every ".. code-block:: sh" that a Documentation/*.rst file marks ".. make-shell", in
# order, waiting for the prompt as a user would; after each, `echo @@RC=$?` reads its exit
# status. Each line must exit 0, and what it printed must hold the "#>" lines below it in
# the text, in order and together, with addresses, times, pids and CPUs masked and spaces
# squeezed: a recipe that printed the login shell's own reads between them fails.
# usage: test_readme_shell.py [SERIES [README [RST...]]] (default 6.12, the tree's
#        README.md and Documentation/*.rst)
import glob
import os
import re
import subprocess
import sys
import threading
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))
from ktap import Ktap  # noqa: E402

PROMPT = re.compile(r"fw:[^\s#]*# ")
LINE_LIMIT = 300        # seconds for one line under TCG on a loaded machine
BOOT_LIMIT = 900        # staging and boot beside make check's other guests on two cores


def marked_lines(path, marks=("<!-- make-shell -->", ".. make-shell")):
    """The commands of the marked sh blocks as [file, line, command, expected output lines],
    blank lines left out. Markdown: <!-- make-shell --> before a ```sh fence; reST:
    ".. make-shell" before ".. code-block:: sh", whose indented lines are the block. The
    host's examples (tests/docs/test_doc_host.py) are marked ".. host-shell" instead."""
    rst = path.endswith(".rst")
    lines, marked, inside, indent = [], False, False, None
    name = os.path.relpath(path, TOP)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.strip() in marks:
                marked = True
            elif marked and (line.startswith("```sh") or
                             (rst and line.strip() == ".. code-block:: sh")):
                inside, marked, indent = True, False, None
            elif inside and not rst and line.startswith("```"):
                inside = False
            elif inside and rst and line.strip() and (
                    not line.startswith(" ") or
                    (indent is not None and len(line) - len(line.lstrip()) < indent)):
                # Back at the text's margin, or at an enclosing list item's.
                inside = False
            elif inside and line.strip():
                if rst:
                    if indent is None:
                        indent = len(line) - len(line.lstrip())
                    line = line[indent:]
                if line.startswith("#>"):
                    if lines:
                        lines[-1][3].append(line[2:])
                elif lines and open_quote(lines[-1][2]):
                    # Inside a quote the shell reads on: one command over several lines.
                    lines[-1][2] += "\n" + line
                else:
                    lines.append([name, n, line, []])
    return lines


def open_quote(command):
    """Whether the shell would read on after command: it ends inside a single or double
    quote (a quote in a comment does not count)."""
    quote = None
    for i, c in enumerate(command):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1].isspace()):
            break
    return quote is not None


def mask(line):
    """A printed line as the text shows it whatever the run: addresses, times, pids, CPU
    numbers, trace flags and the kernel's release masked, spaces squeezed."""
    line = re.sub(r"0x[0-9a-f]+", "0x?", line)
    line = re.sub(r"\b\d+\.\d{6}\b", "T", line)
    line = re.sub(r"(\S)-\d+(\s)", r"\1-PID\2", line)
    line = re.sub(r"\[\d{3}\]", "[CPU]", line)
    # The irq/preempt flags say what the CPU was doing (need-resched, softirq), not framewalk.
    line = re.sub(r"(\[CPU\]\s+)[.a-zA-Z0-9]{4,5}(\s)", r"\1FLAGS\2", line)
    line = re.sub(r"\b\d+\.\d+\.\d+[^\s,]*-arm64\b", "RELEASE", line)
    return " ".join(line.split())


def printed(out, command):
    """What a command printed: the console's text after the typed lines' echo (a line each:
    the terminal is set wide) and before the next prompt, terminal escapes left out."""
    lines = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out).split("\n")
    return lines[command.count("\n") + 1:-1]


def shows(out, command, expected):
    """Whether what was printed is, line by line, what the text shows, once masked."""
    return [mask(x) for x in printed(out, command)] == [mask(x) for x in expected]


class Console:
    """The guest's console: what it printed so far, and a way to type into it."""

    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.text = ""
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            b = self.proc.stdout.read1(4096)
            if not b:
                return
            with self.lock:
                self.text += b.decode("utf-8", "replace").replace("\r", "")

    def prompts(self):
        with self.lock:
            return len(PROMPT.findall(self.text))

    def wait_prompt(self, count, limit):
        """Until the console has shown more than count prompts; False on timeout or exit."""
        end = time.time() + limit
        while time.time() < end:
            if self.prompts() > count:
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.2)
        return False

    def type(self, line, limit=LINE_LIMIT):
        """Type line and wait for the next prompt; the console's output since then."""
        with self.lock:
            start = len(self.text)
        seen = self.prompts()
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        ok = self.wait_prompt(seen, limit)
        with self.lock:
            return ok, self.text[start:]


def main():
    series = sys.argv[1] if len(sys.argv) > 1 else "6.12"
    k = Ktap("readme-shell")
    readme = sys.argv[2] if len(sys.argv) > 2 else os.path.join(TOP, "README.md")
    rsts = sys.argv[3:] or sorted(glob.glob(os.path.join(TOP, "Documentation", "*.rst")))
    lines = marked_lines(readme)
    k.note("%d README lines in the marked blocks" % len(lines))
    if not k.result(len(lines) >= 10, "README.md marks its quick start's blocks for make shell"):
        return k.done()
    for rst in rsts:
        lines += marked_lines(rst)
    con = Console([os.path.join(TOP, "scripts", "guest.sh"), "-s", "-k", series, "-t", "1800"])
    booted = con.wait_prompt(0, BOOT_LIMIT)
    if not k.result(booted, "make shell's guest boots to its prompt"):
        k.note(con.text[-2000:])
        con.proc.kill()
        return k.done()
    # One line per typed command: line editing wraps at 80 columns without a size.
    con.type("stty cols 4000")
    for name, n, line, expected in lines:
        ok, out = con.type(line)
        ok2, rc_out = con.type('echo "@@RC=$?"') if ok else (False, "")
        rc = re.findall(r"^@@RC=(\d+)$", rc_out, re.M)
        passed = ok and ok2 and rc and rc[-1] == "0"
        if not passed:
            k.note((out + rc_out)[-1500:])
        what = " ".join(line.split("  #")[0].split())
        k.result(passed, "%s:%d runs in make shell: %s" % (name, n, what))
        if expected:
            seen = shows(out, line, expected)
            if not seen:
                k.note("the text shows:")
                for x in expected:
                    k.note("  " + mask(x))
                k.note("it printed:")
                for x in printed(out, line)[-40:]:
                    k.note("  " + mask(x))
            k.result(seen, "%s:%d prints what the text shows (%d lines): %s" %
                     (name, n, len(expected), what))
    ok, _ = con.type("exit", limit=5)
    try:
        con.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        con.proc.kill()
    k.result(con.proc.returncode == 0, "exit powers the guest off (qemu exit status %s)" %
             con.proc.returncode)
    return k.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_readme_shell.py - the README's examples, followed line by line in make shell's guest (KTAP).
#
# Boots scripts/guest.sh -s (the shell `make shell` opens) with a pipe for its console and
# types each line of every ```sh block that README.md marks <!-- make-shell -->, in order,
# waiting for the prompt as a user would; after each, `echo @@RC=$?` reads its exit status.
# Each line must exit 0, and the by-hand recipe's reader must show the chains of the work
# done in the same shell (set_event_notrace_pid with event-fork once hid them).
# usage: test_readme_shell.py [SERIES [README]] (default 6.12 and the tree's README.md)
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


def readme_lines(path):
    """The lines of the marked sh blocks, as written, blank lines left out."""
    lines, marked, inside = [], False, False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.strip() == "<!-- make-shell -->":
                marked = True
            elif marked and line.startswith("```sh"):
                inside, marked = True, False
            elif inside and line.startswith("```"):
                inside = False
            elif inside and line.strip():
                lines.append((n, line))
    return lines


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
    lines = readme_lines(sys.argv[2] if len(sys.argv) > 2 else os.path.join(TOP, "README.md"))
    k.note("%d README lines in the marked blocks" % len(lines))
    if not k.result(len(lines) >= 10, "README.md marks its quick start's blocks for make shell"):
        return k.done()
    con = Console([os.path.join(TOP, "scripts", "guest.sh"), "-s", "-k", series, "-t", "1800"])
    booted = con.wait_prompt(0, BOOT_LIMIT)
    if not k.result(booted, "make shell's guest boots to its prompt"):
        k.note(con.text[-2000:])
        con.proc.kill()
        return k.done()
    for n, line in lines:
        ok, out = con.type(line)
        ok2, rc_out = con.type('echo "@@RC=$?"') if ok else (False, "")
        rc = re.findall(r"^@@RC=(\d+)$", rc_out, re.M)
        passed = ok and ok2 and rc and rc[-1] == "0"
        if not passed:
            k.note((out + rc_out)[-1500:])
        k.result(passed, "README.md:%d runs in make shell: %s" % (n, line.split("  #")[0].strip()))
    # The recipe's reader prints the chains of what the shell ran (head's reads of /proc/version).
    k.result(re.search(r"^\s*head-\d+\s.*vfs_read", con.text, re.M) is not None,
             "the by-hand recipe traces the work done in the reader's shell")
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

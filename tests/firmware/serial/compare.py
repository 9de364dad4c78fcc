#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# compare.py - the serial scene's oracle: crashwalk's reports in the arm64 guest against the
# host's crashwalk on the same bytes and GDB's backtrace at each fault, and framewalk.ko's
# trace of the port's receive path: the KTAP of test_serial.sh, through tests/ktap.py;
# --trace-summary prints the trace's chains, symbolized, for the demo.
"""
The firmware crashes three times (tests/firmware/serial/uart.c); the dump of the second crash
is cut by its "watchdog", the third is CrashCatcher's hex dump. So the stream must give: a
report of a Zephyr dump, an error naming the cut dump and what its bytes lack, a report of a
CrashCatcher dump. Each report must equal the host's for the same stream line by
line (the dump's name aside: the guest names the port, the host its file), and its frames
from the fault on must match GDB's at that fault, frame for frame (function, caller return
addresses, lines), as tests/analyzer/test_corpus.py scores the corpus.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from ktap import Ktap  # noqa: E402  (tests/ktap.py: the one KTAP writer)
# tests/analyzer/test_corpus.py, for its oracle() and score(): one scoring for both.
sys.path.insert(0, os.path.join(HERE, "..", "..", "analyzer"))
import test_corpus  # noqa: E402


def read_lines(path):
    try:
        with open(path) as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as e:
        return "%s: %s" % (path, e)


def without_name(report):
    """A report without its dump's STREAM:LINE name, keeping the LINE, and without where the
    firmware lay (the guest's copy and the host's have different paths; its build-id stays)."""
    r = json.loads(json.dumps(report))
    path = r["dump"]["path"]
    r["dump"]["path"] = path.rsplit(":", 1)[-1]
    if isinstance(r.get("firmware"), dict):
        r["firmware"].pop("path", None)
    if "error" in r:
        r["error"] = r["error"].replace(path, "LINE")
    return r


class SymbolMap:
    """The guest's names for the chains' return addresses ("ADDRESS NAME" lines, from kallsyms)."""

    def __init__(self, path):
        self.names = {}
        try:
            with open(path) as fh:
                for line in fh:
                    f = line.split()
                    if len(f) == 2:
                        self.names[int(f[0], 16)] = f[1]
        except OSError:
            pass

    def name(self, addr):
        return self.names.get(addr, hex(addr))


EVENT = re.compile(r"^\s*(\S+)-(\d+)\s+.*chain: (\S+) <- (\S+) .*ancestors=\{?([0-9a-fx,]*)\}?")


def chains(trace, symbols):
    """[(task, function, [caller, ancestors...])] from the trace of framewalk:chain events."""
    out = []
    try:
        with open(trace) as fh:
            lines = fh.readlines()
    except OSError:
        return out
    for line in lines:
        m = EVENT.match(line)
        if not m:
            continue
        anc = [symbols.name(int(a, 16)) for a in m.group(5).split(",") if a]
        out.append((m.group(1), m.group(3), [m.group(4)] + anc))
    return out


def summary(trace, symbols):
    seen = {}
    for task, fn, chain in chains(trace, symbols):
        key = (task, fn, " <- ".join(c.split("/")[0] for c in chain[:8]))
        seen[key] = seen.get(key, 0) + 1
    for (task, fn, chain), n in sorted(seen.items(), key=lambda kv: -kv[1])[:6]:
        print("%4d x  [%s] %s <- %s" % (n, task, fn, chain))


def tail(path, n):
    try:
        with open(path, errors="replace") as fh:
            return "".join(fh.readlines()[-n:]).rstrip("\n")
    except OSError as e:
        return str(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--elf")
    ap.add_argument("--oracle-dir")
    ap.add_argument("--host")
    ap.add_argument("--guest")
    ap.add_argument("--trace")
    ap.add_argument("--symbols", default="")
    ap.add_argument("--guest-status", type=int, default=0)
    ap.add_argument("--guest-log")
    ap.add_argument("--trace-summary")
    a = ap.parse_args()
    symbols = SymbolMap(a.symbols)
    if a.trace_summary:
        summary(a.trace_summary, symbols)
        return 0

    ktap = Ktap("serial")

    def check(name, ok, why=""):
        """A result, and why it failed as a diagnostic before it."""
        if why and not ok:
            ktap.note("%s: %s" % (name, why))
        return ktap.result(ok, name)

    if a.guest_status and tail(a.guest_log, 20):
        ktap.note(tail(a.guest_log, 20))
    ktap.result(a.guest_status == 0, "serial_guest_ran_the_scene")
    guest, host = read_lines(a.guest), read_lines(a.host)
    if isinstance(guest, str) or isinstance(host, str):
        check("serial_reports_readable", False, guest if isinstance(guest, str) else host)
        return ktap.done()
    kinds = [r["dump"]["format"] if "frames" in r else "error" for r in guest]
    check("serial_stream_gives_zephyr_error_crashcatcher",
          kinds == ["zephyr", "error", "crashcatcher"], "got %s" % kinds)
    cut = [r["error"] for r in guest if "error" in r]
    check("serial_cut_dump_names_what_is_missing",
          len(cut) == 1 and "incomplete dump (a new CRASH ENCOUNTERED at line" in cut[0] and
          "what came: " in cut[0], "got %s" % cut)
    check("serial_guest_reports_equal_the_host_reports",
          [without_name(r) for r in guest] == [without_name(r) for r in host],
          "the guest's and the host's JSON differ")

    cc = test_corpus
    funcs = cc.functions(a.elf)
    reports = [r for r in guest if "frames" in r]
    for n, r in zip((1, 3), reports):
        expect = cc.oracle(os.path.join(a.oracle_dir, "crash-%d" % n), funcs)
        got = r["frames"][r["fault_frame"]:]
        s = cc.score(expect, got, True, True)
        check("serial_crash_%d_equals_gdb" % n, bool(expect) and s == len(expect),
              "%d of GDB's %d frames (%s)" % (s, len(expect),
                                               " ".join(f["function"] for f in expect)))

    events = chains(a.trace, symbols)
    rx = [c for t, fn, c in events if fn == "in_intr"]
    check("serial_framewalk_traces_the_port_receive_interrupt",
          any(c[0].startswith("vring_interrupt") for c in rx),
          "%d in_intr events, callers %s" % (len(rx), sorted({c[0] for c in rx})))
    rd = [t for t, fn, c in events if fn == "port_fops_read"]
    check("serial_framewalk_traces_crashwalk_reading_the_port",
          "crashwalk" in rd, "port_fops_read by %s" % sorted(set(rd)))
    return ktap.done()


if __name__ == "__main__":
    sys.exit(main())

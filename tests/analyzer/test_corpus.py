#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_corpus.py - crashwalk against GDB on the QEMU crash corpus, frame by frame, per core x
# flavour x method x dump format; KTAP lines; fails on a wrong fault site, a drop below baseline or
# a group under issue #7's bars.
"""
What is compared: GDB (with DWARF CFI, attached to QEMU at the fault) gives the oracle backtrace.
Its real frames are kept, each with the inline frames GDB shows inside it; tail-call frames GDB
derives from DWARF call sites are left out, because they have no frame on the stack for any
unwinder to find. The oracle starts at the interrupted frame, crashwalk's frames at its fault
frame. A frame matches when the function is the same and, for callers, the return address too;
with DWARF also the line and the inlined functions. The method "auto-nodwarf" runs on the
firmware stripped of DWARF. The score of a case is the length of the matching prefix; a case is
exact when the whole oracle matches.

The bars, per core x flavour x method over all dump formats:
  frames >= 99% of GDB's wherever the firmware has tables: "auto" and "cfi" on every flavour (the
  ELF has .debug_frame), "auto-nodwarf" and "ehabi" on the -uw flavours (.ARM.exidx);
  cases exact >= 90% for "auto-nodwarf" on -Os/-O2 builds with neither frame pointer nor tables.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from compare_common import Calibration, corpus_groups, finish, functions, load_baseline

METHODS = ["auto", "cfi", "ehabi", "prologue", "fp", "scan", "auto-nodwarf"]
FRAMES_BAR = 99.0
EXACT_BAR = 90.0


def bar_for(fl, method):
    """(kind, percent) of the bar a core x flavour x method group must meet, or None."""
    if method in ("auto", "cfi") or (fl.endswith("-uw") and method in ("auto-nodwarf", "ehabi")):
        return ("frames", FRAMES_BAR)
    if fl in ("Os-nofp", "O2-nofp") and method == "auto-nodwarf":
        return ("exact", EXACT_BAR)
    return None
# "remoteproc" is core.elf without its notes: memory only, as Linux remoteproc writes it;
# "rproc-regblock" is the same with the registers taken from the firmware's register block.
REGBLOCK = "crash_entry:r4,r5,r6,r7,r8,r9,r10,r11,msp,psp,control,lr"
# "gdb-core" is the core GDB itself wrote (gcore) at the stop.
FORMATS = [("elf-core", "core.elf", []), ("zephyr", "core.zephyr", []),
           ("gdb-core", "core-gdb.elf", []),
           ("remoteproc", "core.elf", []), ("rproc-regblock", "core.elf", ["--regs", REGBLOCK])]
# Past this hand-written trampoline both GDB and crashwalk read the other stack: not comparable.
STOP_AFTER = {"run_on_psp"}
# A stack overflow loses the exception frame, so the fault's pc and lr exist nowhere; crashwalk
# recovers the chain from the stack above, given the stack pointer. Two formats cannot give it:
# GDB's gcore has no PSP (QEMU's stub does not expose it) and a remoteproc dump has no registers.
# There crashwalk must say so (stop reason or error) instead of unwinding a stale frame.
UNRECOVERABLE = {("overflow", "gdb-core"): "no_psp",
                 ("overflow", "remoteproc"): "stacking failed"}


def oracle(case_dir, funcs=None):
    with open(os.path.join(case_dir, "oracle.json")) as fh:
        o = json.load(fh)
    frames = o["frames"]
    # From a stop in the fault handler, the interrupted code starts after the exception marker.
    for i, f in enumerate(frames):
        if f["type"] == "exception":
            frames = frames[i + 1:]
            break
    out, inlined = [], []
    for f in frames:
        # A caller GDB cannot place in any function (no symbol, or data such as the vector
        # table) is where its own unwinding went wrong, for instance on Thumb-1 CFI, which
        # does not describe epilogues: no oracle from there on.
        if f["type"] == "normal" and out and (f["function"] is None or
                                              (funcs is not None and
                                               f["function"] not in funcs)):
            break
        if f["type"] == "inline":
            inlined.append(f["function"])
            continue
        if f["type"] != "normal":
            continue
        out.append({"function": f["function"], "pc": f["pc"], "line": f["line"],
                    "inlined": inlined})
        inlined = []
        if f["function"] in STOP_AFTER:
            break
    return out


def crashwalk(tool, elf, dumps, method, extra):
    """One run over many dumps (JSON lines): {dump path: (frames from the fault on, why)}."""
    cmd = [tool, "--json", "--method", method.split("-")[0]] + extra + [elf] + dumps
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    out = {d: (None, " ".join(l for l in r.stderr.splitlines() if d + ":" in l) or "no output")
           for d in dumps}
    for line in r.stdout.splitlines():
        j = json.loads(line)
        if "error" in j:    # a dump crashwalk could not analyze: its message is the reason
            out[j["dump"]["path"]] = (None, j["error"])
            continue
        out[j["dump"]["path"]] = (j["frames"][j["fault_frame"]:], j["stop"]["reason"])
    return out


def memory_only(core, out):
    """Copy an ELF core with its PT_NOTE segments turned into PT_NULL."""
    b = bytearray(open(core, "rb").read())
    phoff, = struct.unpack_from("<I", b, 28)
    phnum, = struct.unpack_from("<H", b, 44)
    for i in range(phnum):
        if struct.unpack_from("<I", b, phoff + 32 * i)[0] == 4:
            struct.pack_into("<I", b, phoff + 32 * i, 0)
    with open(out, "wb") as fh:
        fh.write(b)
    return out


def score(expect, got, first_pc_exact, dwarf):
    n = 0
    for i, e in enumerate(expect):
        if i >= len(got) or got[i]["function"] != e["function"]:
            break
        if (i > 0 or first_pc_exact) and got[i]["pc"] != e["pc"]:
            break
        if dwarf and (i > 0 or first_pc_exact) and got[i]["line"] != e["line"]:
            break
        if dwarf and [x["function"] for x in got[i]["inlined"]] != e["inlined"]:
            break
        n += 1
    return n


def main():
    a, ktap, builds = corpus_groups("crashwalk-corpus")
    if builds is None:
        return 1

    groups = {}
    calib = Calibration()
    tmp = tempfile.TemporaryDirectory(prefix="crashwalk-corpus-")
    for (core, fl), members in builds.items():
        fwdir = os.path.dirname(members[0][1])
        funcs = functions(os.path.join(fwdir, "fw.elf"))
        for fmt, fname, extra in FORMATS:
            dumps = []
            for name, d in members:
                dump = os.path.join(d, fname)
                if fmt.startswith("r"):
                    dump = memory_only(dump, os.path.join(tmp.name, "%s-%s-%s.elf" %
                                                          (core, fl, name)))
                dumps.append(dump)
            for method in METHODS:
                dwarf = not method.endswith("nodwarf")
                elf = os.path.join(fwdir, "fw.elf" if dwarf else "fw-nodwarf.elf")
                results = crashwalk(a.crashwalk, elf, dumps, method, extra)
                g = groups.setdefault((core, fl, method, fmt),
                                      {"cases": 0, "exact": 0, "frames": 0, "expected": 0,
                                       "site_bad": [], "limits": []})
                for (name, d), dump in zip(members, dumps):
                    got, why = results[dump]
                    limit = UNRECOVERABLE.get((name, fmt))
                    if limit:
                        if limit not in why:
                            g["limits"].append("%s: expected '%s', got '%s'" %
                                               (name, limit, why))
                        continue
                    expect = oracle(d, funcs)
                    # At a breakpoint in the thread (PSP) GDB's frame 0 pc is not the fault's.
                    n = score(expect, got, name not in ("psp", "overflow"), dwarf) \
                        if got is not None else 0
                    if got is not None:
                        first = name not in ("psp", "overflow")
                        calib.judge(expect, got, lambda i, e, g: g["function"] == e["function"]
                                    and (g["pc"] == e["pc"] or (i == 0 and not first)))
                    g["cases"] += 1
                    g["expected"] += len(expect)
                    g["frames"] += n
                    g["exact"] += n == len(expect)
                    if n == 0:
                        g["site_bad"].append("%s (%s)" % (name, why))

    base = load_baseline(a.baseline)
    print("# %-4s %-10s %-12s %-12s %7s %9s" % ("core", "flavour", "method", "format",
                                               "exact", "frames"))
    lines = []
    for key in sorted(groups):
        g = groups[key]
        print("# %-4s %-10s %-12s %-12s %3d/%-3d %4d/%-4d" % (key + (g["exact"], g["cases"],
                                                              g["frames"], g["expected"])))
    for key in sorted(groups):
        g = groups[key]
        problems = []
        if g["site_bad"]:
            problems.append("wrong fault site: " + ", ".join(g["site_bad"]))
        problems += g["limits"]
        if key in base and g["frames"] < base[key]:
            problems.append("frames %d below baseline %d" % (g["frames"], base[key]))
        for p in problems:
            print("# " + p)
        ktap.result(not problems, "corpus " + " ".join(key))
        lines.append("%s %s %s %s %d\n" % (key + (g["frames"],)))
    bars = {}
    for (core, fl, method, fmt), g in groups.items():
        b = bars.setdefault((core, fl, method), {"cases": 0, "exact": 0, "frames": 0,
                                                 "expected": 0})
        for k in b:
            b[k] += g[k]
    for (core, fl, method) in sorted(bars):
        want = bar_for(fl, method)
        if not want:
            continue
        b = bars[(core, fl, method)]
        kind, floor = want
        got = 100.0 * (b["frames"] / max(b["expected"], 1) if kind == "frames"
                       else b["exact"] / max(b["cases"], 1))
        ok = got >= floor
        name = "cfi>=%g%%" % floor if kind == "frames" else "exact>=%g%%" % floor
        print("# bar %s: %s %s %s %.1f%% %s" % (name, core, fl, method, got,
                                                "ok" if ok else "FAILED"))
        ktap.result(ok, "bar %s %s %s %s" % (name, core, fl, method))
    calib.report(ktap, "corpus")
    print("# per method, all cores, flavours and formats: frames matched/expected, cases exact")
    for method in METHODS:
        tot = [sum(g[k] for key, g in groups.items() if key[2] == method)
               for k in ("frames", "expected", "exact", "cases")]
        print("#   %-12s %6d/%-6d frames  %4d/%-4d cases" % tuple([method] + tot))
    return finish(a, ktap, lines, "corpus",
                  "frames matching GDB per core flavour method format")


if __name__ == "__main__":
    sys.exit(main())

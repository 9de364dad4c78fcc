#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_match.py - crashwalk's dump-against-firmware check over the crash corpus: right pairs pass, wrong ones are refused; KTAP.
"""
What is checked, per core and flavour of tests/firmware/run-corpus.sh: every dump of a case
(core.elf, core.zephyr, GDB's core-gdb.elf) with its own firmware, with and without DWARF, is
analyzed with exit status 0 and no mismatch; the same dumps given the firmware of the next two
flavours of the same core (the same sources built otherwise: the wrong ELF a user is most
likely to pick) are refused with "not a dump of". Every one must be, with one exception that
no check can see: a RAM-only dump (core.elf, core.zephyr) given a firmware whose code is the
dumped build's except where the startup code loads .data's initial image from flash, with the
same .data image and the same RAM symbols (-funwind-tables only adds .ARM.exidx after .text).
Both builds write the same RAM in every run; those pairs are counted, not judged.
"""
import json
import re
import subprocess
import sys
import tempfile

from compare_common import corpus_groups, finish

DUMPS = ["core.elf", "core.zephyr", "core-gdb.elf"]
WRONG_FLAVOURS = 2


def crashwalk(tool, elf, dumps):
    """{dump: None when analyzed, else its error}: one run over many dumps, JSON lines."""
    r = subprocess.run([tool, "-q", "--json", "--rtos", "none", elf] + dumps,
                       capture_output=True, text=True, timeout=600)
    out = {}
    for line in r.stdout.splitlines():
        j = json.loads(line)
        out[j["dump"]["path"]] = j.get("error")
    return {d: out.get(d, "no report (exit %d)" % r.returncode) for d in dumps}


def tool(name, *args):
    return subprocess.run(["arm-none-eabi-" + name] + list(args), capture_output=True,
                          check=True, timeout=60).stdout


def section(elf, name):
    """A section's bytes (objcopy renames its output into place: a file, never a pipe)."""
    with tempfile.TemporaryDirectory() as tmp:
        tool("objcopy", "-O", "binary", "-j", name, elf, tmp + "/out")
        with open(tmp + "/out", "rb") as fh:
            return fh.read()


def ram_view(elf):
    """What a RAM-only dump can witness of a build: its code words, .data, RAM symbols."""
    lma = None
    for line in tool("objdump", "-h", elf).decode().splitlines():
        f = line.split()
        if len(f) > 4 and f[1] == ".data":
            lma = int(f[4], 16)
    text, data = section(elf, ".text"), section(elf, ".data")
    syms = sorted(line for line in tool("nm", "-S", elf).decode().splitlines()
                  if re.match(r"\S+ \S+ [bBdD] ", line))
    return lma, text, data, syms


def ram_identical(a, b):
    """Do builds a and b differ only in words that hold where each keeps .data in flash?"""
    (la, ta, da, sa), (lb, tb, db, sb) = ram_view(a), ram_view(b)
    if da != db or sa != sb or not ta or len(ta) != len(tb) or la is None or lb is None:
        return False
    for o in range(0, len(ta) - 3, 4):
        wa, wb = ta[o:o + 4], tb[o:o + 4]
        if wa != wb and (int.from_bytes(wa, "little"), int.from_bytes(wb, "little")) != (la, lb):
            return False
    return True


def main():
    a, ktap, groups = corpus_groups("crashwalk-match")
    if groups is None:
        return 1
    totals = [0, 0, 0]
    for core, flavour in sorted(groups):
        same_core = sorted(f for c, f in groups if c == core)
        i = same_core.index(flavour)
        wrong = [same_core[(i + k) % len(same_core)] for k in range(1, WRONG_FLAVOURS + 1)]
        problems, refused, tried, same = [], 0, 0, 0
        fwdir = groups[(core, flavour)][0][1].rsplit("/", 1)[0]
        dumps = ["%s/%s" % (d, dump) for _, d in groups[(core, flavour)] for dump in DUMPS]
        for elf, which in (("fw.elf", dumps), ("fw-nodwarf.elf", dumps[::len(DUMPS)])):
            for path, err in crashwalk(a.crashwalk, "%s/%s" % (fwdir, elf), which).items():
                if err is not None:
                    problems.append("%s with its own %s: %s" % (path, elf, err))
        for w in wrong:
            other = fwdir.rsplit("/", 1)[0] + "/%s-%s/fw.elf" % (core, w)
            identical = ram_identical("%s/fw.elf" % fwdir, other)
            for path, err in crashwalk(a.crashwalk, other, dumps).items():
                ok = err is not None and "not a dump of" in err
                if not path.endswith("core-gdb.elf") and identical:
                    same += 1
                    continue
                tried += not path.endswith("core-gdb.elf")
                refused += ok and not path.endswith("core-gdb.elf")
                if not ok:
                    problems.append("%s accepted with %s-%s's firmware" % (path, core, w))
        for p in problems[:10]:
            print("# " + p)
        print("# %-4s %-10s RAM-only dumps with a wrong firmware refused: %d/%d, %d with a "
              "build no RAM tells apart" % (core, flavour, refused, tried, same))
        ktap.result(not problems, "match %s %s" % (core, flavour))
        totals = [totals[0] + refused, totals[1] + tried, totals[2] + same]
    print("# RAM-only dumps with a wrong firmware refused: %d/%d; %d more with a build no RAM "
          "tells apart" % tuple(totals))
    return finish(a, ktap, [], "match", None)


if __name__ == "__main__":
    sys.exit(main())

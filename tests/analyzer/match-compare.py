#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# match-compare.py - crashwalk's dump-against-firmware check over the crash corpus: right pairs pass, wrong ones are refused; KTAP.
"""
What is checked, per core and flavour of tests/firmware/run-corpus.sh: every dump of a case
(core.elf, core.zephyr, GDB's core-gdb.elf) with its own firmware, with and without DWARF, is
analyzed with exit status 0 and no mismatch; the same dumps given the firmware of the next two
flavours of the same core (the same sources built otherwise: the wrong ELF a user is most
likely to pick) are refused with "not a dump of". A dump that holds the firmware's code (GDB's
gcore writes it) must always be refused; the others carry only RAM, where the check rests on
the stacked pcs, so their count of refusals may not fall below tests/analyzer/match-baseline.txt.
"""
import json
import subprocess
import sys

from compare_common import build, finish, load_baseline, parse_args

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


def main():
    a = parse_args("--corpus-script")
    cases = build(a.corpus_script, "crashwalk-match", "corpus")
    if cases is None:
        return 1
    base = load_baseline(a.baseline)
    groups = {}
    for core, flavour, case, d in cases:
        groups.setdefault((core, flavour), []).append((case, d))
    n = failed = 0
    lines = []
    for core, flavour in sorted(groups):
        same_core = sorted(f for c, f in groups if c == core)
        i = same_core.index(flavour)
        wrong = [same_core[(i + k) % len(same_core)] for k in range(1, WRONG_FLAVOURS + 1)]
        problems, refused, tried = [], 0, 0
        fwdir = groups[(core, flavour)][0][1].rsplit("/", 1)[0]
        dumps = ["%s/%s" % (d, dump) for _, d in groups[(core, flavour)] for dump in DUMPS]
        for elf, which in (("fw.elf", dumps), ("fw-nodwarf.elf", dumps[::len(DUMPS)])):
            for path, err in crashwalk(a.crashwalk, "%s/%s" % (fwdir, elf), which).items():
                if err is not None:
                    problems.append("%s with its own %s: %s" % (path, elf, err))
        for w in wrong:
            other = fwdir.rsplit("/", 1)[0] + "/%s-%s/fw.elf" % (core, w)
            for path, err in crashwalk(a.crashwalk, other, dumps).items():
                ok = err is not None and "not a dump of" in err
                if path.endswith("core-gdb.elf") and not ok:
                    problems.append("%s (holds the code) accepted with %s-%s's firmware"
                                    % (path, core, w))
                elif not path.endswith("core-gdb.elf"):
                    tried += 1
                    refused += ok
        key = (core, flavour)
        if key in base and refused < base[key]:
            problems.append("RAM-only dumps refused with a wrong firmware: %d, baseline %d"
                            % (refused, base[key]))
        n += 1
        for p in problems[:10]:
            print("# " + p)
        failed += bool(problems)
        print("# %-4s %-10s RAM-only dumps with a wrong firmware refused: %d/%d"
              % (core, flavour, refused, tried))
        print("%sok %d match %s %s" % ("not " if problems else "", n, core, flavour))
        lines.append("%s %s %d\n" % (core, flavour, refused))
    return finish(a, n, failed, lines, "match",
                  "RAM-only corpus dumps refused with a wrong firmware per core flavour")


if __name__ == "__main__":
    sys.exit(main())

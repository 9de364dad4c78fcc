# SPDX-License-Identifier: GPL-2.0
# compare_common.py - what the corpus and RTOS compares share: building the firmware, baselines.
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ktap import Ktap  # noqa: E402  (tests/ktap.py: the one KTAP writer)


def parse_args(script_option):
    """The compares' command line: the tool, the firmware script, the baseline."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--crashwalk", required=True)
    ap.add_argument(script_option, required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--update-baseline", action="store_true")
    return ap.parse_args()


def build(script, suite, what):
    """The suite's KTAP writer, and the firmware script's cases (None after a failure line)."""
    ktap = Ktap(suite)
    r = subprocess.run([script], capture_output=True, text=True, timeout=2700)
    cases = [line.split() for line in r.stdout.splitlines() if line.strip()]
    if r.returncode != 0 or not cases:
        ktap.note("%s build failed:\n%s" % (what, r.stderr))
        ktap.result(False, "%s-build" % what)
        ktap.done()
        return ktap, None
    return ktap, cases


def corpus_groups(suite):
    """The command line, the suite's KTAP writer and the corpus's cases grouped by firmware:
    {(core, flavour): [(case, dir), ...]} (None after a failure line)."""
    a = parse_args("--corpus-script")
    ktap, cases = build(a.corpus_script, suite, "corpus")
    if cases is None:
        return a, ktap, None
    groups = {}
    for core, flavour, case, d in cases:
        groups.setdefault((core, flavour), []).append((case, d))
    return a, ktap, groups


def load_baseline(path):
    """{key fields: frames} from lines "field... frames"; empty without a file."""
    base = {}
    if path and os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):
                    *key, frames = line.split()
                    base[tuple(key)] = int(frames)
    return base


def finish(a, ktap, lines, name, fields):
    """Print the KTAP plan and totals, write the baseline when asked; the exit status."""
    status = ktap.done()
    if a.update_baseline and a.baseline:
        with open(a.baseline, "w") as fh:
            fh.write("# SPDX-License-Identifier: GPL-2.0\n"
                     "# %s-baseline.txt - floor of %s; written by %s "
                     "--update-baseline\n" % (name, fields, os.path.basename(sys.argv[0])))
            fh.writelines(lines)
    return status


def functions(elf):
    """Names of the firmware's functions, to tell GDB's real frames from its wrong turns."""
    r = subprocess.run(["arm-none-eabi-readelf", "-sW", elf], capture_output=True, text=True,
                       timeout=60)
    # Num: Value Size Type Bind Vis Ndx Name
    return {f[7] for f in (line.split() for line in r.stdout.splitlines())
            if len(f) == 8 and f[3] == "FUNC"}


def code_ranges(elf):
    """[start, end) of each of the firmware's functions (Thumb bit clear)."""
    r = subprocess.run(["arm-none-eabi-readelf", "-sW", elf], capture_output=True, text=True,
                       timeout=60)
    return [((int(f[1], 16) & ~1), (int(f[1], 16) & ~1) + int(f[2], 0))
            for f in (line.split() for line in r.stdout.splitlines())
            if len(f) == 8 and f[3] == "FUNC" and int(f[2], 0)]


def in_code(ranges, pc):
    return any(lo <= pc < hi for lo, hi in ranges)


class Calibration:
    """
    How often a frame crashwalk reports at each confidence is GDB's frame at the same place of
    the chain (crashwalk.rst, "Confidence"). Only frames GDB's chain reaches are judged: past
    its end GDB knows nothing. The bar: frames reported 80 % sure or more are right >= 99 %.
    """
    BUCKETS = [(100, 100), (90, 99), (80, 89), (60, 79), (30, 59), (0, 29)]
    SURE, BAR = 80, 99.0

    def __init__(self):
        self.n = {b: [0, 0] for b in self.BUCKETS}

    def add(self, confidence, right):
        for lo, hi in self.BUCKETS:
            if lo <= confidence <= hi:
                self.n[(lo, hi)][0] += bool(right)
                self.n[(lo, hi)][1] += 1

    def judge(self, expect, got, same):
        """Each of got's frames that expect reaches: right when same(i, expected, got) holds."""
        for i, (e, g) in enumerate(zip(expect, got)):
            self.add(g["confidence"], same(i, e, g))

    def report(self, ktap, what):
        """The table as KTAP comments, and the bar as a result."""
        print("# calibration (%s): confidence, frames right / judged" % what)
        for lo, hi in self.BUCKETS:
            right, total = self.n[(lo, hi)]
            print("#   %3d-%-3d %6d/%-6d %s" % (lo, hi, right, total,
                                            "%.2f%%" % (100.0 * right / total) if total else "-"))
        right = sum(self.n[b][0] for b in self.BUCKETS if b[0] >= self.SURE)
        total = sum(self.n[b][1] for b in self.BUCKETS if b[0] >= self.SURE)
        pct = 100.0 * right / total if total else 100.0
        print("#   >=%d: %d/%d right (%.2f%%)" % (self.SURE, right, total, pct))
        ktap.result(pct >= self.BAR, "calibration %s >=%d%% sure right >=%g%%"
                    % (what, self.SURE, self.BAR))

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
                     "# %s-baseline.txt - floor of %s; written by %s-compare.py "
                     "--update-baseline\n" % (name, fields, name))
            fh.writelines(lines)
    return status

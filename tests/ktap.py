# SPDX-License-Identifier: GPL-2.0
# ktap.py - the one KTAP (version 1) writer for the Python tests; ktap.sh and ktap.h are the
# shell's and C's, all read by scripts/ktap-results.awk.


class Ktap:
    """The version line and suite name now, a result line per case, the plan and totals last."""

    def __init__(self, suite):
        self.n = self.failed = 0
        print("KTAP version 1\n# suite: " + suite)

    @staticmethod
    def note(text):
        print("# " + str(text).replace("\n", "\n# "))

    def result(self, ok, desc):
        self.n += 1
        self.failed += not ok
        print("%sok %d %s" % ("" if ok else "not ", self.n, desc))
        return ok

    def done(self):
        """The plan and totals; the exit status."""
        print("1..%d\n# %d passed, %d failed" % (self.n, self.n - self.failed, self.failed))
        return 1 if self.failed else 0

# SPDX-License-Identifier: GPL-2.0
# oracle.py - GDB script: the backtrace GDB computes at the stop, as JSON: the corpus's answer.
import json
import gdb

TYPES = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline", gdb.TAILCALL_FRAME: "tailcall",
         gdb.SIGTRAMP_FRAME: "exception", gdb.ARCH_FRAME: "arch", gdb.DUMMY_FRAME: "dummy"}


def capture():
    """GDB's backtrace from the newest frame: frame list and why it ended."""
    out = []
    f = gdb.newest_frame()
    stop = "depth"
    while f is not None and len(out) < 64:
        sal = f.find_sal()
        out.append({"pc": f.pc(), "type": TYPES.get(f.type(), "other"), "function": f.name(),
                    "file": sal.symtab.filename if sal.symtab else None, "line": sal.line})
        try:
            older = f.older()
        except gdb.error as e:
            stop = "error: %s" % e
            break
        if older is None:
            stop = gdb.frame_stop_reason_string(f.unwind_stop_reason())
        f = older
    return out, stop


class LastEntry(gdb.Breakpoint):
    """
    Keeps the backtrace at the latest entry of a function and lets the target
    run on. When a fault destroys the state it happened in (a stack overflow:
    the exception frame cannot be stacked), the last entry of the function that
    overflowed is the closest answer GDB can give.
    """
    last = None

    def stop(self):
        LastEntry.last = capture()
        return False


def track_entries(func):
    LastEntry("*" + func, internal=True)


def oracle_frames(path):
    out, stop = LastEntry.last if LastEntry.last else capture()
    with open(path, "w") as fh:
        json.dump({"frames": out, "stop": stop}, fh, indent=1)

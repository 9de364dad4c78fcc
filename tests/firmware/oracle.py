# SPDX-License-Identifier: GPL-2.0
# oracle.py - GDB script: the backtrace GDB computes at the stop, as JSON: the corpus's answer.
import json
import gdb

TYPES = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline", gdb.TAILCALL_FRAME: "tailcall",
         gdb.SIGTRAMP_FRAME: "exception", gdb.ARCH_FRAME: "arch", gdb.DUMMY_FRAME: "dummy"}


def oracle_frames(path):
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
    with open(path, "w") as fh:
        json.dump({"frames": out, "stop": stop}, fh, indent=1)

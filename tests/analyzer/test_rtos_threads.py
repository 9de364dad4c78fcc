#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_rtos_threads.py - crashwalk's per-thread backtraces against GDB's on the multi-thread firmware; KTAP.
"""
What is compared: tests/firmware/run-rtos.sh crashes the multi-thread firmware (FreeRTOS- and
Zephyr-shaped kernels, per core) under QEMU, and rtos-oracle.py has GDB backtrace every thread
from registers it reads itself. Here crashwalk --rtos lists the threads from the dump alone. Per
case and dump format: every thread GDB knows must be listed (matched by TCB address), in the right
state, and flagged overflowed exactly when it is the crasher of the "overflow" case. Frames are
compared as test_corpus.py does (function, return address, with DWARF the line and inlined
functions), from frame 0 up to the thread's entry function: what lies above it is the task
start-up, which neither side can know. A case fails on a missing or extra thread, a wrong
state, stack bounds or overflow flag, a warning about the kernel's lists (the states above are all states the
kernel produces), a whole chain that does not end with the task_entry stop, or fewer matching
frames than tests/analyzer/rtos-baseline.txt records. On NuttX the bytes of stack colour left are
compared too: the oracle counts the 0xdeadbeef words itself (on µC/OS the zero words). On RT-Thread the waiter's semaphore
is checked, and a copy of one dump with its lists broken must warn and invent no thread.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from compare_common import Calibration, build, code_ranges, finish, in_code, load_baseline, \
    parse_args

FORMATS = [("elf-core", "core.elf"), ("zephyr", "core.zephyr")]
# scan: the method most apt to read past a stack's end, which no method may do.
METHODS = ["auto", "auto-nodwarf", "scan"]
# What the firmware's threads are doing when it crashes (rtos/app.c); the crasher is running.
# FreeRTOS's eTaskGetState() gives these too: "notified" waits for a notification in the
# suspended list (blocked), "pending" was readied into xPendingReadyList by the crasher just
# before the fault (still blocked in the overflow case), "doomed" deleted itself (dead).
# ThreadX's "System Timer Thread" suspends itself when no timer is due; doomed terminated itself.
# LiteOS-M's kernel has its own idle task (ready, in the lowest queue) and a software timer task
# pended on its queue. NuttX's idle task (the boot thread, in nx_start) is ready below them all;
# its kernel stops a sleeping task with SIGSTOP inside signal delivery (suspended). RT-Thread's
# idle thread "tidle0" is ready below the application's IDLE, its soft-timer thread "timer"
# suspended with no timer started; doomed detached itself (closed, in the defunct list). RTX5's
# "osRtxIdle" is ready below IDLE, "osRtxTimer" waits on its message queue; doomed, joinable,
# exited (terminated, in the terminate list).
# µC/OS-III's idle task is ready below the application's IDLE, its stat task delayed between
# samples, its timer task pending on its task semaphore; µC/OS-II's stat task sits just above
# its idle task (ready, never run) and its timer task pends on a semaphore.
STATES = {"IDLE": {"ready"}, "sensor": {"delayed"}, "worker": {"ready"}, "fpu": {"ready"},
          "waiter": {"blocked"}, "crasher": {"running"}, "notified": {"blocked"},
          "doomed": {"dead"}, "System Timer Thread": {"suspended"},
          "IdleCore000": {"ready"}, "Swt_Task": {"blocked"}, "Idle_Task": {"ready"},
          "stopped": {"suspended"}, "tidle0": {"ready"}, "timer": {"suspended"},
          "osRtxIdle": {"ready"}, "osRtxTimer": {"blocked"},
          "uC/OS-III Idle Task": {"ready"}, "uC/OS-III Stat Task": {"delayed"},
          "uC/OS-III Timer Task": {"blocked"}, "uC/OS-II Idle": {"ready"},
          "uC/OS-II Stat": {"ready"}, "uC/OS-II Tmr": {"blocked"}}
# Where a kernel starts every thread: a thread that never ran is only this frame.
SHELLS = ("z_thread_entry", "_tx_thread_shell_entry", "nxtask_start", "osThreadEntry")
# In the "isr" case (Zephyr's; FreeRTOS's on M0 and M33) the tick's work faults over whichever
# thread the tick preempted (the running one), and in the M4F "fpu" case the fpu thread faults,
# while the crasher sleeps; "pending" is never readied there. In FreeRTOS's "isrspin" the tick
# preempts the crasher itself, spinning in its task function. In ThreadX's "isrtail" the fault
# comes at the tick's end, after it woke the sleeping crasher.
CASE_STATES = {("pending", "fault"): {"ready"}, ("pending", "overflow"): {"blocked"},
               ("pending", "nullcall"): {"blocked"},
               ("pending", "fpu"): {"blocked"}, ("pending", "isr"): {"blocked"},
               ("crasher", "isr"): {"delayed"}, ("pending", "isrspin"): {"blocked"},
               ("crasher", "isrtail"): {"ready"},
               ("crasher", "fpu"): {"delayed"}}
# LiteOS-M (kernel_liteos.c) runs sensor and crasher at the level of the always-ready worker and
# fpu: in the "fpu" case their delay may have ended while they wait their turn in the queue.
LITEOS_CASE_STATES = {("sensor", "fpu"): {"delayed", "ready"},
                      ("crasher", "fpu"): {"delayed", "ready"}}
# RT-Thread (kernel_rtthread.c) wakes a sleeper in the tick before the application's timer runs:
# in the "isr" case the woken thread may be rt_current_thread already, its switch pending (ready).
# µC/OS's OSTimeTick readies it before the application's work in the tick too.
RTTHREAD_CASE_STATES = {("sensor", "isr"): {"delayed", "ready"},
                        ("crasher", "isr"): {"delayed", "ready"}}
# RTX5 (kernel_rtx5.c) likewise: the tick readies a sleeper and dispatches it (run.next) before the
# application's timer work runs, the switch made only at the handler's end.
RTX5_CASE_STATES = RTTHREAD_CASE_STATES


def base_name(f):
    # GCC clones (foo.constprop.0) keep the source name in DWARF, which GDB shows.
    return f.split(".")[0] if f else f


def thread_start(thread):
    """Where a chain ends: the thread's function; on LiteOS-M OsTaskEntry, which calls it."""
    return ("OsTaskEntry",) if thread.get("kernel") == "liteos" else \
        (thread["entry"],) + SHELLS


def expected(thread, code=None):
    out, inlined = [], []
    for f in thread["frames"]:
        if f["type"] == "inline":
            inlined.append(f["function"])
            continue
        if f["type"] != "normal":
            continue
        # A call through NULL: GDB names pc 0 after the symbol there, the vector table (data).
        data = code is not None and not out and not in_code(code, f["pc"])
        out.append({"function": None if data else f["function"], "pc": f["pc"],
                    "line": 0 if data else f["line"], "inlined": inlined})
        inlined = []
        # The thread's function, or the kernel's shell for a thread that never ran.
        if f["function"] in thread_start(thread):
            break
    return out


def score(expect, got, dwarf):
    n = 0
    for i, e in enumerate(expect):
        if i >= len(got) or base_name(got[i]["function"]) != e["function"]:
            break
        if got[i]["pc"] != e["pc"]:
            break
        if dwarf and got[i]["line"] != e["line"]:
            break
        if dwarf and [base_name(x["function"]) for x in got[i]["inlined"]] != e["inlined"]:
            break
        n += 1
    return n


def run_crashwalk(tool, elf, dump, kernel, method):
    r = subprocess.run([tool, "--json", "--rtos", kernel, "--method", method, elf, dump],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        return None, r.stderr.strip() or "no output (exit %d)" % r.returncode
    return json.loads(r.stdout.splitlines()[0]), None


def same_frame(i, e, g):
    return base_name(g["function"]) == e["function"] and g["pc"] == e["pc"]


def check_case(tool, core, kernel, case, d, fmt, fname, method, calib):
    """Problems (strings), frames matched, frames expected, threads exact, threads."""
    with open(os.path.join(d, "oracle.json")) as fh:
        oracle = json.load(fh)
    dwarf = not method.endswith("nodwarf")
    elf = os.path.join(os.path.dirname(d), "fw.elf" if dwarf else "fw-nodwarf.elf")
    kernel = kernel.split("-")[0]  # freertos-noend is FreeRTOS built otherwise
    j, err = run_crashwalk(tool, elf, os.path.join(d, fname), kernel, method.split("-")[0])
    if j is None:
        return ["crashwalk failed: " + err], 0, 0, 0, len(oracle["threads"])
    problems = []
    got = {t["tcb"]: t for t in j.get("threads", [])}
    if j.get("rtos") != kernel:
        problems.append("rtos is %r, not %s" % (j.get("rtos"), kernel))
    # Every member the kernel's lists need is in the DWARF, under whatever name the kernel's
    # compatibility macros gave it.
    if dwarf and j.get("rtos_layout") != "dwarf":
        problems.append("struct layout from %s, the firmware has DWARF" % j.get("rtos_layout"))
    extra = set(got) - {t["tcb"] for t in oracle["threads"]}
    if extra:
        problems.append("threads GDB does not know: " + ", ".join("0x%x" % x for x in extra))
    frames = want = exact = 0
    code = code_ranges(elf)
    for t in oracle["threads"]:
        name = t["name"]
        t["kernel"] = kernel
        exp = expected(t, code)
        want += len(exp)
        g = got.get(t["tcb"])
        if g is None:
            problems.append("%s (0x%x) not listed" % (name, t["tcb"]))
            continue
        if g["name"] != name:
            problems.append("%s listed as %r" % (name, g["name"]))
        want_state = {"running"} if t["current"] else \
            (kernel == "liteos" and LITEOS_CASE_STATES.get((name, case))) or \
            (kernel in ("rtthread", "ucos2", "ucos3") and
             RTTHREAD_CASE_STATES.get((name, case))) or \
            (kernel == "rtx5" and RTX5_CASE_STATES.get((name, case))) or \
            CASE_STATES.get((name, case), STATES.get(name))
        if want_state is None:
            problems.append("%s: no expected state" % name)
        elif g["state"] not in want_state:
            problems.append("%s is %s, expected %s" % (name, g["state"], "/".join(want_state)))
        if j.get("rtos_warnings"):
            problems.append("warnings for states the kernel produces: %s" %
                            "; ".join(j["rtos_warnings"]))
        # RT-Thread's waiter is in the semaphore's suspend list: its tlist names the object (RTX5's
        # the semaphore's thread_list, found up thread_prev); µC/OS's TCB names the object it pends on.
        if kernel in ("rtthread", "rtx5", "ucos2", "ucos3") and name == "waiter" and \
                not (g.get("waits_on") or "").startswith('semaphore "never" at '):
            problems.append("waiter waits on %r, not semaphore \"never\"" % g.get("waits_on"))
        # The stack as the kernel was given it (the registry), wherever the kernel records its size.
        size = g["stack"].get("size")
        if g["stack"].get("start") != t["stack_lo"] or \
                (size is not None and g["stack"]["start"] + size != t["stack_hi"]):
            problems.append("%s stack 0x%x+%s, the kernel was given 0x%x-0x%x" %
                            (name, g["stack"].get("start", 0), size, t["stack_lo"],
                             t["stack_hi"]))
        # Stack use as the kernel measures it, where the oracle measured it too.
        if "untouched" in t and g["stack"].get("untouched") != t["untouched"]:
            problems.append("%s: %s bytes of fill left, GDB counts %d" %
                            (name, g["stack"].get("untouched"), t["untouched"]))
        should_overflow = case == "overflow" and name == "crasher"
        if g["stack"]["overflow"] != should_overflow:
            problems.append("%s overflow flag %s (%s)" % (name, g["stack"]["overflow"],
                                                          g["stack"]["overflow_reasons"]))
        n = score(exp, g["frames"], dwarf)
        calib.judge(exp, g["frames"], same_frame)
        # A chain that reached where the kernel started the thread ends there, saying so.
        if n == len(exp) and exp and exp[-1]["function"] in thread_start(t) and \
                g["stop"]["reason"] != "task_entry":
            problems.append("%s: chain ends %s (%s) at its entry, not task_entry" %
                            (name, g["stop"]["reason"], g["stop"].get("detail")))
        frames += n
        exact += n == len(exp)
        if n < len(exp):
            at = g["frames"][n] if n < len(g["frames"]) else None
            print("#   %s %s %s %s %s: %s matches %d/%d frames; GDB has %s@0x%x, crashwalk %s" %
                  (core, kernel, case, fmt, method, name, n, len(exp), exp[n]["function"],
                   exp[n]["pc"], "%s@0x%x" % (at["function"], at["pc"]) if at else
                   "nothing (%s)" % (g.get("problem") or g["stop"]["reason"])))
    return problems, frames, want, exact, len(oracle["threads"])


def symbols(elf):
    """Address of each of the firmware's objects, by name."""
    r = subprocess.run(["arm-none-eabi-readelf", "-sW", elf], capture_output=True, text=True,
                       timeout=60)
    return {f[7]: int(f[1], 16) for f in (line.split() for line in r.stdout.splitlines())
            if len(f) == 8 and f[3] == "OBJECT"}


class CoreMemory:
    """The memory of an ELF core dump, read and written in place through its PT_LOAD segments."""

    def __init__(self, path):
        with open(path, "rb") as fh:
            self.b = bytearray(fh.read())
        phoff, = struct.unpack_from("<I", self.b, 28)
        phnum, = struct.unpack_from("<H", self.b, 44)
        self.loads = [struct.unpack_from("<IIIII", self.b, phoff + 32 * i)
                      for i in range(phnum)]

    def _at(self, addr):
        for typ, off, vaddr, _, filesz in self.loads:
            if typ == 1 and vaddr <= addr and addr + 4 <= vaddr + filesz:
                return off + addr - vaddr
        raise KeyError("0x%x not in the dump" % addr)

    def read32(self, addr):
        return struct.unpack_from("<I", self.b, self._at(addr))[0]

    def write32(self, addr, v):
        struct.pack_into("<I", self.b, self._at(addr), v)

    def save(self, path):
        with open(path, "wb") as fh:
            fh.write(self.b)


def damaged_lists(tool, d, elf, known, kernel, damages, ktap):
    """
    Each of damages, (what, damage(CoreMemory), warning, threads lost), done to a copy of d's
    dump and read with --rtos kernel: its warning given, no thread invented, the rest listed.
    """
    for what, damage, warning, lost in damages:
        m = CoreMemory(os.path.join(d, "core.elf"))
        damage(m)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "core.elf")
            m.save(path)
            j, err = run_crashwalk(tool, elf, path, kernel, "auto")
        problems = [err] if j is None else []
        if j is not None:
            warnings = j.get("rtos_warnings") or []
            tcbs = {t["tcb"] for t in j.get("threads", [])}
            if not any(warning in w for w in warnings):
                problems.append("no warning %r: %s" % (warning, warnings))
            if tcbs - known:
                problems.append("invented threads: %s" % sorted(tcbs - known))
            if len(tcbs) != len(known) - lost:
                problems.append("%d threads listed, %d expected" % (len(tcbs),
                                                                    len(known) - lost))
        for p in problems:
            print("# " + p)
        ktap.result(not problems, "rtos %s damaged lists: %s" % (kernel, what))


def nuttx_damaged(tool, d, ktap):
    """
    NuttX's lists broken by hand in a copy of one dump: g_readytorun made cyclic, a g_pidhash
    slot pointed outside RAM, g_waitingforsignal emptied under a sleeping task. Each must give
    its warning, and no thread that is not one of the firmware's.
    """
    with open(os.path.join(d, "oracle.json")) as fh:
        known = {t["tcb"] for t in json.load(fh)["threads"]}
    elf = os.path.join(os.path.dirname(d), "fw.elf")
    sym = symbols(elf)

    def cycle(m):
        head = m.read32(sym["g_readytorun"])
        m.write32(head, head)		# tcb_s.flink, the first member

    def outside(m):
        m.write32(m.read32(sym["g_pidhash"]) + 4, 0xF0000000)

    def emptied(m):
        m.write32(sym["g_waitingforsignal"], 0)
        m.write32(sym["g_waitingforsignal"] + 4, 0)

    damaged_lists(tool, d, elf, known, "nuttx", [
        ("cycle", cycle, "g_readytorun is cyclic", 0),
        ("outside", outside, "g_pidhash slot 1 holds 0xf0000000", 1),
        ("count", emptied, "g_waitingforsignal holds 0 tasks", 0)], ktap)


def rtthread_damaged(tool, d, ktap):
    """
    RT-Thread's lists broken by hand in a copy of one dump: the object container's thread list
    cut after its first thread (pointed outside RAM) or made to loop on it, a ready thread taken
    off rt_thread_priority_table. Each must give its warning, and no thread that is not one of
    the firmware's.
    """
    with open(os.path.join(d, "oracle.json")) as fh:
        threads = json.load(fh)["threads"]
    known = {t["tcb"] for t in threads}
    worker = [t["tcb"] for t in threads if t["name"] == "worker"][0]
    elf = os.path.join(os.path.dirname(d), "fw.elf")
    head = symbols(elf)["_object_container"] + 4	# [0].object_list

    def cut(m):
        m.write32(m.read32(head), 0xF0000000)

    def loop(m):
        m.write32(m.read32(head), m.read32(head))

    def unready(m):
        m.write32(worker + 20, worker + 20)	# tlist (rtdef.h), alone
        m.write32(worker + 24, worker + 20)

    damaged_lists(tool, d, elf, known, "rtthread", [
        ("cut", cut, "0xf0000000 is not a thread", len(known) - 1),
        ("loop", loop, "does not link back", len(known) - 1),
        ("unready", unready, '"worker" is ready but not in rt_thread_priority_table', 0)], ktap)


def rtx5_damaged(tool, d, ktap):
    """
    RTX5's lists broken by hand in a copy of one dump: the ready list cut after its first thread
    (pointed outside RAM), the wait list made to loop on its first thread, the ready "worker"
    taken off the ready list. Each must give its warning and invent no thread; the threads the
    lists lost are still found in the thread pool, as RTX5.scvd finds them.
    """
    with open(os.path.join(d, "oracle.json")) as fh:
        threads = json.load(fh)["threads"]
    known = {t["tcb"] for t in threads}
    worker = [t["tcb"] for t in threads if t["name"] == "worker"][0]
    elf = os.path.join(os.path.dirname(d), "fw.elf")
    info = symbols(elf)["osRtxInfo"]
    ready, wait = info + 36, info + 48	# thread.ready.thread_list, thread.wait_list (rtx_os.h)

    def cut(m):
        m.write32(m.read32(ready) + 8, 0xF0000000)	# thread_next

    def loop(m):
        m.write32(m.read32(wait) + 16, m.read32(wait))	# delay_next

    def unready(m):
        assert m.read32(ready) == worker
        after = m.read32(worker + 8)
        m.write32(ready, after)
        m.write32(after + 12, info + 28)	# its thread_prev: the ready object

    damaged_lists(tool, d, elf, known, "rtx5", [
        ("cut", cut, "the ready list broken: 0xf0000000 is not a thread", 0),
        ("loop", loop, "does not link back", 0),
        ("unready", unready, '"worker" is ready but not in the ready list', 0)], ktap)


def ucos_damaged(tool, d, kernel, ktap):
    """
    µC/OS's task list broken by hand in a copy of one dump: cut after its first task (its next
    link pointed outside RAM) or made to loop on it, the ready worker taken off its ready list
    (OSRdyList's head, OSRdyTbl's bit). Each must give its warning, and no invented thread.
    """
    with open(os.path.join(d, "oracle.json")) as fh:
        threads = json.load(fh)["threads"]
    known = {t["tcb"] for t in threads}
    worker = [t["tcb"] for t in threads if t["name"] == "worker"][0]
    elf = os.path.join(os.path.dirname(d), "fw.elf")
    sym = symbols(elf)
    # The links' offsets in kernel_ucos3.c's and kernel_ucos2.c's TCBs (os.h, ucos_ii.h).
    if kernel == "ucos3":
        head, tcb_size = sym["OSTaskDbgListPtr"], 0
        r = subprocess.run(["arm-none-eabi-readelf", "-sW", elf], capture_output=True,
                           text=True, timeout=60)
        for f in (line.split() for line in r.stdout.splitlines()):
            if len(f) == 8 and f[7] == "OSIdleTaskTCB":
                tcb_size = int(f[2])
        nxt = tcb_size - 8		# DbgNextPtr

        def unready(m):
            prio = m.read32(worker + 56) >> 24		# Prio
            m.write32(sym["OSRdyList"] + 12 * prio, 0)
        warning = '"worker" is ready but not in OSRdyList'
    else:
        head, nxt = sym["OSTCBList"], 20		# OSTCBNext

        def unready(m):
            prio = m.read32(worker + 56) >> 16 & 0xFF	# OSTCBPrio
            a = sym["OSRdyTbl"] + (prio >> 3)
            w = m.read32(a & ~3)
            m.write32(a & ~3, w & ~(1 << (8 * (a & 3) + (prio & 7))))
        warning = '"worker" is ready but not in OSRdyTbl'

    def cut(m):
        m.write32(m.read32(head) + nxt, 0xF0000000)

    def loop(m):
        m.write32(m.read32(head) + nxt, m.read32(head))

    damaged_lists(tool, d, elf, known, kernel, [
        ("cut", cut, "does not link back", len(known) - 1),
        ("loop", loop, "does not link back", len(known) - 1),
        ("unready", unready, warning, 0)], ktap)


def main():
    a = parse_args("--rtos-script")

    ktap, cases = build(a.rtos_script, "crashwalk-rtos", "rtos")
    if cases is None:
        return 1
    base = load_baseline(a.baseline)
    lines, summary = [], []
    calib = Calibration()
    for core, kernel, case, d in cases:
        for fmt, fname in FORMATS:
            for method in METHODS:
                key = (core, kernel, case, fmt, method)
                problems, frames, want, exact, nthreads = check_case(
                    a.crashwalk, core, kernel, case, d, fmt, fname, method, calib)
                if key in base and frames < base[key]:
                    problems.append("frames %d below baseline %d" % (frames, base[key]))
                summary.append("# %-4s %-8s %-8s %-8s %-12s threads %d/%d exact, frames %d/%d"
                               % (key + (exact, nthreads, frames, want)))
                for p in problems:
                    print("# " + p)
                ktap.result(not problems, "rtos " + " ".join(key))
                lines.append("%s %d\n" % (" ".join(key), frames))
    for core, kernel, case, d in cases:
        if kernel == "nuttx" and case == "fault":
            nuttx_damaged(a.crashwalk, d, ktap)
        if kernel == "rtthread" and core == "m3" and case == "fault":
            rtthread_damaged(a.crashwalk, d, ktap)
        if kernel == "rtx5" and core == "m3" and case == "fault":
            rtx5_damaged(a.crashwalk, d, ktap)
        if kernel in ("ucos2", "ucos3") and core == "m3" and case == "fault":
            ucos_damaged(a.crashwalk, d, kernel, ktap)
    for s in summary:
        print(s)
    calib.report(ktap, "rtos")
    return finish(a, ktap, lines, "rtos",
                  "thread frames matching GDB per core kernel case format method")


if __name__ == "__main__":
    sys.exit(main())

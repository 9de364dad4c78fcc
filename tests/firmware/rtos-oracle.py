# SPDX-License-Identifier: GPL-2.0
# rtos-oracle.py - GDB script: GDB's backtrace of every thread of the multi-thread firmware, as JSON.
#
# GDB attached to QEMU sees only the CPU's registers, so this script finds each thread and its
# saved registers itself, gives them to the CPU (QEMU's stub lets GDB write registers), asks GDB
# for the backtrace and puts the registers back. It shares nothing with crashwalk's reading of
# the kernel: the threads come from the firmware's rtos_registry (not the kernel's lists) and
# the saved-context layouts are written out again here, from port.S's comment.
#
# Stop at crash_handler (crash_entry is filled): a thread that was running in thread mode when
# the fault came is read from its exception frame on the process stack (the main stack for NuttX
# without an interrupt stack); every other thread, including a running one whose context the
# switch had already saved, from its saved context.
import json
import os
import sys

import gdb

# The single-thread corpus's oracle takes GDB's backtrace the same way: share it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import capture as backtrace  # noqa: E402
from oracle import LastEntry, track_entries  # noqa: E402,F401  (run-rtos.sh's gdb-python)
REGS = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
        "sp", "lr", "pc"]


def u32(expr):
    return int(gdb.parse_and_eval(expr)) & 0xFFFFFFFF


def word(addr):
    return u32("*(unsigned int *)0x%x" % addr)


def hw_frame(regs, base, exc_return):
    """Pop the hardware exception frame at base into regs; the sp is the one before entry."""
    for i, r in enumerate(["r0", "r1", "r2", "r3", "r12", "lr", "pc"]):
        regs[r] = word(base + 4 * i)
    xpsr = word(base + 28)
    size = 0x20 if exc_return & 0x10 else 0x68
    regs["sp"] = base + size + (4 if xpsr & (1 << 9) else 0)
    regs["pc"] &= ~1


def saved_context_freertos(tcb, port):
    top = u32("((TCB_t *)0x%x)->pxTopOfStack" % tcb)
    regs = {}
    if port == "cm3":
        callee, exc, base = top, 0xFFFFFFFD, top + 32
    elif port == "cm0":  # ARM_CM0 since V11.1: EXC_RETURN, r4-r11
        callee, exc, base = top + 4, word(top), top + 36
    elif port == "cm4f":
        callee, exc = top, word(top + 32)
        base = top + 36 + (0 if exc & 0x10 else 64)
    else:  # cm33, no TrustZone: PSPLIM, EXC_RETURN, r4-r11
        callee, exc = top + 8, word(top + 4)
        base = top + 40 + (0 if exc & 0x10 else 64)
    for i in range(8):
        regs["r%d" % (4 + i)] = word(callee + 4 * i)
    hw_frame(regs, base, exc)
    return regs


def saved_context_zephyr(tcb):
    t = "((struct k_thread *)0x%x)" % tcb
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = u32("%s->callee_saved.v%d" % (t, i + 1))
    exc = 0xFFFFFF00 | u32("%s->arch.mode_exc_return" % t)
    hw_frame(regs, u32("%s->callee_saved.psp" % t), exc)
    return regs


def saved_context_threadx(tcb):
    """port.S's ThreadX shape: EXC_RETURN, [s16-s31], r4-r11, the hardware frame."""
    sp = u32("((TX_THREAD *)0x%x)->tx_thread_stack_ptr" % tcb)
    exc = word(sp)
    callee = sp + 4 + (0 if exc & 0x10 else 64)
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = word(callee + 4 * i)
    hw_frame(regs, callee + 32, exc)
    return regs


def saved_context_liteos(tcb, port):
    """LiteOS-M's PendSV: [s16-s31 with the FPU], r4-r11, PRIMASK, then the hardware frame."""
    sp = u32("((LosTaskCB *)0x%x)->stackPointer" % tcb)
    fp = port == "cm4f"
    callee = sp + (64 if fp else 0)
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = word(callee + 4 * i)
    hw_frame(regs, callee + 36, 0xFFFFFFED if fp else 0xFFFFFFFD)
    return regs


def saved_context_nuttx(tcb, port, member="regs"):
    """NuttX's exception_common: xcp.regs (or xcp.saved_regs) -> sp, BASEPRI, r4-r11, CONTROL,
    EXC_RETURN, [s16-s31 space with the FPU], then the hardware frame."""
    at = u32("((struct tcb_s *)0x%x)->xcp.%s" % (tcb, member))
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = word(at + 4 * (2 + i))
    hw_frame(regs, at + 4 * (12 + (16 if port == "cm4f" else 0)), word(at + 44))
    return regs


def saved_context_rtthread(tcb, port):
    """RT-Thread's PendSV (port.S): cortex-m0/m3 r4-r11; cortex-m4 FPU flag, r4-r11, [s16-s31];
    cortex-m33 TrustZone context, EXC_RETURN, PSPLIM, CONTROL, r4-r11, [s16-s31]; the frame."""
    sp = u32("((struct rt_thread *)0x%x)->sp" % tcb)
    if port in ("cm0", "cm3"):
        callee, exc, base = sp, 0xFFFFFFFD, sp + 32
    elif port == "cm4f":
        flag = word(sp)
        callee, exc, base = sp + 4, 0xFFFFFFED if flag else 0xFFFFFFFD, sp + 36 + 64 * flag
    else:
        exc = word(sp + 4)
        callee, base = sp + 16, sp + 48 + (0 if exc & 0x10 else 64)
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = word(callee + 4 * i)
    hw_frame(regs, base, exc)
    return regs


def saved_context_ucos(tcb, port, kernel, current):
    """µC/OS's OS_CPU_PendSVHandler (port.S): r4-r11, EXC_RETURN, [µC/OS-III: s16-s31 if its bit
    4 is 0], the frame; µC/OS-II's FPU build has s16-s31 below r4 but for the running task."""
    sp = u32("((OS_TCB *)0x%x)->%s" % (tcb, "StkPtr" if kernel == "ucos3" else "OSTCBStkPtr"))
    if kernel == "ucos2" and port in ("cm4f", "cm33") and not current:
        sp += 64
    exc = word(sp + 32)
    base = sp + 36 + (64 if kernel == "ucos3" and not exc & 0x10 else 0)
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = word(sp + 4 * i)
    hw_frame(regs, base, exc)
    return regs


def rtthread_live():
    """The thread whose stack is live: the one a pending PendSV is to save, else rt_current_thread."""
    frm = u32("rt_interrupt_from_thread")
    if u32("rt_thread_switch_interrupt_flag") and frm:
        return frm - u32("(unsigned int)&((struct rt_thread *)0)->sp")
    return u32("rt_current_thread")


def saved_context_rtx5(tcb):
    """RTX5's SVC_Context (port.S): [s16-s31 if EXC_RETURN bit 4 is 0], r4-r11, the frame, from
    thread->sp, EXC_RETURN's low byte in thread->stack_frame; an exited thread's sp is its svc
    frame, nothing saved below it."""
    t = "((osRtxThread_t *)0x%x)" % tcb
    sp = u32(t + "->sp")
    exc = 0xFFFFFF00 | u32(t + "->stack_frame")
    regs = {}
    if u32(t + "->state") & 0xF == 4:
        hw_frame(regs, sp, exc)
        return regs
    callee = sp + (0 if exc & 0x10 else 64)
    for i in range(8):
        regs["r%d" % (4 + i)] = word(callee + 4 * i)
    hw_frame(regs, callee + 32, exc)
    return regs


def rtx5_live():
    """The thread whose stack is live: run.curr, unless the fault came in SVC_Context between
    making run.next current and saving the old thread (its stack check failed): then the thread
    whose new saved sp puts its frame at the PSP."""
    curr = u32("osRtxInfo.thread.run.curr")
    psp = u32("crash_entry.psp")
    for i in range(u32("rtos_registry_n")):
        tcb = u32("rtos_registry[%d].tcb" % i)
        t = "((osRtxThread_t *)0x%x)" % tcb
        fp = not u32(t + "->stack_frame") & 0x10
        if tcb != curr and u32(t + "->sp") + 32 + 64 * fp == psp:
            return tcb
    return curr


def colour_left(lo, hi, colour=0xDEADBEEF):
    """NuttX's arm_stack_check: STACK_COLOR words from the stack's low end up, in bytes (RTX5's
    osRtxThreadGetStackSpace: its fill words above the magic word; µC/OS's OSTaskStkChk the
    same with zero words)."""
    mem = bytes(gdb.selected_inferior().read_memory(lo, hi - lo))
    n = 0
    while n + 4 <= len(mem) and int.from_bytes(mem[n:n + 4], "little") == colour:
        n += 4
    return n


def live_context(exc_return=None, base=None, callee=None):
    """
    The thread the fault (or the interrupt the fault hit, whose EXC_RETURN is given) interrupted
    in thread mode: its frame is on the process stack, or at base on the main stack; its r4-r11
    the fault's, or callee's (those GDB restored through the interrupt's own frames).
    """
    regs = dict(callee) if callee else {}
    for i in range(8 if not callee else 0):
        regs["r%d" % (4 + i)] = u32("crash_entry.r4_r11[%d]" % i)
    hw_frame(regs, u32("crash_entry.psp") if base is None else base,
             u32("crash_entry.exc_return") if exc_return is None else exc_return)
    return regs


def fault_context():
    """The fault's own frame, at the MSP the fault handler entered with: a handler faulted."""
    regs = {}
    for i in range(8):
        regs["r%d" % (4 + i)] = u32("crash_entry.r4_r11[%d]" % i)
    hw_frame(regs, u32("crash_entry.msp"), u32("crash_entry.exc_return"))
    return regs


def threads_on_msp(kernel):
    """NuttX built without an interrupt stack (no g_intstackalloc): its tasks run on the MSP."""
    if kernel != "nuttx":
        return False
    try:
        gdb.parse_and_eval("(unsigned int)&g_intstackalloc")
        return False
    except gdb.error:
        return True


def exception_base():
    """Where GDB's first exception frame (from the selected registers) found its hardware frame."""
    f = gdb.newest_frame()
    while f is not None and f.type() != gdb.SIGTRAMP_FRAME:
        f = f.older()
    return int(f.read_register("sp")) & 0xFFFFFFFF if f is not None else None


def exception_callee():
    """
    r4-r11 at GDB's first exception frame (from the selected registers), as it restored them
    through the handler's frames: a handler that moved r7 (clang's frame pointer) or saved
    r4-r11 has not changed the interrupted code's.
    """
    f = gdb.newest_frame()
    while f is not None and f.type() != gdb.SIGTRAMP_FRAME:
        f = f.older()
    if f is None:
        return None
    return {"r%d" % i: int(f.read_register("r%d" % i)) & 0xFFFFFFFF for i in range(4, 12)}


def with_registers(regs, fn):
    """
    fn() with the CPU's registers set to regs, then put back. Each is set in the innermost
    frame: after sp changes, GDB re-selects the frame of the selected one's id, which may now
    be an outer frame, whose lr and pc are stack slots: "set $lr" would write the dump's memory
    (a handler's leaf tail-called with EXC_RETURN in lr: the stacked lr of its fault's frame).
    """
    saved = {r: u32("$" + r) for r in REGS}
    try:
        for r in REGS:
            if r in regs:
                gdb.newest_frame().select()
                gdb.execute("set $%s = 0x%x" % (r, regs[r]), to_string=True)
        return fn()
    finally:
        for r in REGS:
            gdb.newest_frame().select()
            gdb.execute("set $%s = 0x%x" % (r, saved[r]), to_string=True)


def rtos_oracle(path, kernel, port):
    if kernel == "freertos":
        current = u32("pxCurrentTCB")
    elif kernel == "threadx":
        current = u32("_tx_thread_current_ptr")
    elif kernel == "liteos":
        current = u32("g_losTask.runTask")
    elif kernel == "nuttx":
        current = u32("g_readytorun.head")
    elif kernel == "rtthread":
        current = rtthread_live()
    elif kernel == "rtx5":
        current = rtx5_live()
    elif kernel in ("ucos2", "ucos3"):
        current = u32("OSTCBCurPtr" if kernel == "ucos3" else "OSTCBCur")
    else:
        current = u32("_kernel.cpus[0].current")
    exc_return = u32("crash_entry.exc_return")
    on_msp = threads_on_msp(kernel)
    # Returns to thread mode on the stack the threads run on: the PSP, or the MSP.
    in_thread = (exc_return & 0x8) == 0x8 and (on_msp or (exc_return & 0x4) == 0x4)
    crash, tick_return, tick_base, tick_callee = None, None, None, None
    if not in_thread and u32("crash_case") in (3, 8, 9):
        # The "isr" case (and ThreadX's "isrtail", its fault in a leaf the tick tail-called, and
        # FreeRTOS's "isrspin", over a thread in its own task function):
        # the tick's work faulted on the interrupt stack over a thread. GDB's
        # chain from the fault's frame, to the tick's exception return (GDB does not take the
        # PSP for the frame under it: the thread is read below, like any live thread). With
        # the threads on the MSP, the thread's frame is where GDB's exception frame found it.
        frames, stop = with_registers(fault_context(), backtrace)
        at = [i for i, f in enumerate(frames) if f["type"] == "exception"]
        if at:
            frames, stop, tick_return = frames[:at[0] + 1], "exception", frames[at[0]]["pc"]
            if on_msp:
                tick_base = with_registers(fault_context(), exception_base)
            tick_callee = with_registers(fault_context(), exception_callee)
        crash = {"frames": frames, "stop": stop}
    threads = []
    for i in range(u32("rtos_registry_n")):
        e = "rtos_registry[%d]" % i
        tcb = u32(e + ".tcb")
        name = gdb.parse_and_eval(e + ".name").string()
        entry = gdb.block_for_pc(u32(e + ".entry")).function.name
        if tcb == current and in_thread:
            regs = fault_context() if on_msp else live_context()
            how = "exception-frame"
        elif tcb == current and tick_return is not None:
            regs, how = live_context(tick_return, tick_base, tick_callee), "exception-frame"
        elif tcb == current and kernel == "liteos":
            # LiteOS-M saves the running task only after OsSchedTaskSwitch: a fault in a
            # handler (its stack check) finds the task's frame at the PSP, nothing saved.
            regs, how = live_context(0xFFFFFFED if port == "cm4f" else 0xFFFFFFFD), \
                "exception-frame"
        elif kernel == "freertos":
            regs, how = saved_context_freertos(tcb, port), "saved-context"
        elif kernel == "threadx":
            regs, how = saved_context_threadx(tcb), "saved-context"
        elif kernel == "liteos":
            regs, how = saved_context_liteos(tcb, port), "saved-context"
        elif kernel == "rtthread":
            regs, how = saved_context_rtthread(tcb, port), "saved-context"
        elif kernel == "rtx5":
            regs, how = saved_context_rtx5(tcb), "saved-context"
        elif kernel in ("ucos2", "ucos3"):
            regs, how = saved_context_ucos(tcb, port, kernel, tcb == current), "saved-context"
        elif kernel == "nuttx":
            # An interrupt over the running task left its context in xcp.regs too.
            regs, how = saved_context_nuttx(tcb, port), "saved-context"
        else:
            regs, how = saved_context_zephyr(tcb), "saved-context"
        frames, stop = with_registers(regs, backtrace)
        if tcb == current and in_thread and LastEntry.last:
            # Its overflow's frame was never stacked: GDB's chain at the recursion's last entry.
            frames, stop = LastEntry.last
            how = "last-entry"
        sig = [k for k, f in enumerate(frames) if f["function"] == "arm_sigdeliver"]
        if kernel == "nuttx" and sig and u32("((struct tcb_s *)0x%x)->xcp.saved_regs" % tcb):
            # Signal delivery: arm_sigdeliver was entered through a copy of the context it
            # interrupted, lr kept; it returns to that context, kept at xcp.saved_regs.
            more, stop = with_registers(saved_context_nuttx(tcb, port, "saved_regs"), backtrace)
            frames = frames[:sig[0] + 1] + more
        threads.append({"name": name, "tcb": tcb, "entry": entry, "current": tcb == current,
                        "stack_lo": u32(e + ".stack_lo"), "stack_hi": u32(e + ".stack_hi"),
                        "from": how, "sp": regs["sp"], "frames": frames, "stop": stop})
        if kernel == "nuttx":
            threads[-1]["untouched"] = colour_left(u32(e + ".stack_lo"), u32(e + ".stack_hi"))
        if kernel == "rtx5":
            threads[-1]["untouched"] = colour_left(u32(e + ".stack_lo") + 4,
                                                   u32(e + ".stack_hi"), 0xCCCCCCCC)
        if kernel in ("ucos2", "ucos3"):
            threads[-1]["untouched"] = colour_left(u32(e + ".stack_lo"), u32(e + ".stack_hi"), 0)
    out = {"kernel": kernel, "port": port, "threads": threads}
    if crash:
        out["crash"] = crash
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)

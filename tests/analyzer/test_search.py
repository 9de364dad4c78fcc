#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_search.py - crashwalk's exception frame search against GDB: process-stack crashes whose
# dumps are rewritten without the PSP, then hostile dumps; KTAP lines.
"""
The crashes: every process-stack case of the QEMU crash corpus ("psp") and of the multi-thread
firmware ("fault", the running task's chain; "nullcall", a call through a NULL pointer, whose
stacked pc is 0; "stale", a fault above the context the kernel saved at the task's last switch;
and on M4F "fpu", whose fault frame is a lazy extended frame that FPCAR locates); a task's chain
that reaches its entry must end task_entry.
GDB's backtrace, taken with the true registers, is
the oracle. Each crash's own ELF core (handler entry, MSP and PSP in its CRASHWALK note) is
rewritten these ways:
  gcore        r0-r15 and xPSR only, as GDB's gcore writes them: no MSP, PSP or SCB;
  crashcatcher the interrupted registers, as CrashCatcher writes them, with sp and PSP zeroed;
  memory-only  no registers at all (the notes removed), as a remoteproc dump: the fault frame is
               found first, then the thread's;
  ram-only     memory-only without the system registers (SCB, FPU): no fault status rules out
               a candidate, such as the stale frame an RTOS's scheduler start leaves on the main
               stack;
  dead-stack   gcore, with stale copies of the live thread frame in the dead stack below it;
  unbounded    gcore of the RTOS crashes run with --rtos none: without the running task's stack
               bounds every task's saved context (stacked by an earlier context switch) competes,
               and the report must name a rival and stay below full confidence;
  no-stack     gcore with the live process stack wiped: no frame to find;
  zephyr-isr   the crash's Zephyr coredump with the registers of a handler over the thread (the
               fault handler at its entry), as Zephyr writes a dump taken in an interrupt that
               preempted a thread: no PSP; the chain from its exception frame on is compared.
The "stale" crashes of the kernels that keep the running thread's saved stack pointer
(ThreadX, LiteOS-M) or whose saved contexts point at themselves (NuttX, which clears the
running task's xcp.regs) must be exact in every form without the PSP, with no rival named: that
context, whole below the fault's frame with a chain through it, is the kernel's, not the fault's.
The M33 overflows (PSPLIM stops the crasher's recursion, its frame stacked) as gcore and, on
Zephyr, as its dump without the SCB and with reason K_ERR_CPU_EXCEPTION: nothing in the dump
names the fault, yet the instruction it stopped at lowers sp below the stack's start: the class
must be stack-overflow and the running thread flagged.
The Zephyr MPU-guard build's overflow (its exception's stacking failed) is rewritten as Zephyr
writes it (reason K_ERR_STACK_CHK_FAIL, every register 0 but sp, no SCB): its chain must be GDB's
at the recursion's last entry, walked from the stack above sp, the class "stack-overflow".
Every Zephyr-kernel crash (fault, nullcall, fpu, isr) is rewritten as Zephyr's dump-every-thread
mode writes it (header, arch block, _kernel as the threads metadata block, each thread's struct
and stack, the interrupt stack): every thread must be listed and the chain be GDB's.
The M33 Zephyr thread crashes (fault, nullcall) are rewritten as Zephyr writes a frame with the
v8-M additional state context below it, taken at that context (its words planted below the
frame, the registers those words, sp in the 4.0 and 4.1 forms): the chain must be GDB's.
Then the Zephyr firmware's "isr" crashes (the tick's work faults on the interrupt stack, a stack
object no thread's stack_info names, over a thread) as memory-only dumps: the chain must equal
GDB's from the fault's frame through the tick's exception return to the thread's entry, and the
fault's frame, found by search, must have been found in a stack the firmware names (confidence
80: z_interrupt_stacks), not in unbounded RAM (60). Every kernel's "isr" crashes, in every form
without the PSP (gcore, crashcatcher, memory-only, ram-only), must give GDB's chain, the
interrupted thread's frame not called stale though it lies where its last switch saved one: NuttX's
interrupt stack (g_intstackalloc) lies below the threads' stacks, so the fault's frame there is
found below the interrupted thread's, which must not win for being higher. ThreadX's "isrtail"
crashes count as "isr" ones: the fault is in a leaf the tick tail-called, its lr the handler's
EXC_RETURN, so the fault's frame is the handler's whole chain (one frame, then the return to a
process stack the dump has no pointer for). So do FreeRTOS's "isrspin" ones (M0, M33): the tick
hook faults over a task spinning in its own function, whose chain is that one frame, its return
address the kernel's task exit.
The FreeRTOS crashes also run with the ELF's main-stack symbols stripped, as real firmware whose
linker script names none: in every form without the PSP the chain must equal GDB's, and in
every form (and the crash's own dump) no frame of the crash's chain may lie in the function
whose svc started the first task (that svc's frame stays on the main stack for good), nor may
the dump be refused unless its own frame was never stacked.
The crashes whose thread runs on the MSP (the NuttX-shaped kernel without an interrupt stack),
and the NuttX crashes on the PSP, also run memory-only with a copy of the live frame and the
stack above it planted at the top of RAM, as an exited task leaves its last context in freed
heap: the frame taken must be GDB's (its sp), not the copy above it, outside the running
thread's stack and the interrupt stack NuttX's ops table names (g_intstackalloc).
On gcore and no-stack, also: the fault kind is "unknown" (no SCB), the instruction shown is the
interrupted frame's and none when no frame was found (never the handler's own), and the running
thread is not flagged sp-outside-stack from the handler's MSP.
Bars, over all crashes of a format: chains equal to GDB's >= 95%; no frame that GDB's chain lacks
reported with the confidence of an unambiguous search or more (80). The "fpu" crashes in the
formats that keep FPCCR and FPCAR (crashcatcher, memory-only) must all be equal: the lazy state
says the fault's frame is extended. Then hostile dumps (RAM full of
copies of a real exception frame) must end within the time limit, without a crash, and say that
other candidates yield a complete chain. The multi-thread firmware's run-rtos.sh is found beside
--corpus-script.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True     # the tests it imports are scripts, not a package
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import test_corpus as cc  # noqa: E402
from compare_common import parse_args  # noqa: E402
import test_rtos_threads as rc  # noqa: E402
from ktap import Ktap  # noqa: E402  (tests/ktap.py: the one KTAP writer)

CHAIN_BAR = 95.0
SURE = 80           # unwind/cw_search.c CONF_SEARCH_SURE: a searched frame with no rival
HOSTILE_SECONDS = 20.0
ZEPHYR_STACK_CHK_FAIL = 2
PT_NULL, PT_LOAD, PT_NOTE = 0, 1, 4


def phdrs(b):
    phoff, = struct.unpack_from("<I", b, 28)
    phnum, = struct.unpack_from("<H", b, 44)
    return [(phoff + 32 * i,) + struct.unpack_from("<IIIIII", b, phoff + 32 * i)
            for i in range(phnum)]


def notes(b, off, size):
    """(offset, name, type, desc offset, desc size, next offset) of each note."""
    out, end = [], off + size
    while end - off >= 12:
        namesz, descsz, typ = struct.unpack_from("<III", b, off)
        desc = off + 12 + ((namesz + 3) & ~3)
        nxt = desc + ((descsz + 3) & ~3)
        out.append((off, bytes(b[off + 12:off + 12 + namesz]).rstrip(b"\0"), typ, desc,
                    descsz, nxt))
        off = nxt
    return out


def prstatus_regs(b):
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_NOTE:
            for _, name, t, desc, _, _ in notes(b, off, filesz):
                if name == b"CORE" and t == 1:
                    return list(struct.unpack_from("<17I", b, desc + 72))
    raise ValueError("no NT_PRSTATUS")


def gcore(core, out):
    """Only the CORE note (r0-r15, xPSR) and no SCB segment: what GDB's gcore has."""
    b = bytearray(open(core, "rb").read())
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_NOTE:
            keep = [n for n in notes(b, off, filesz) if n[1] == b"CORE"]
            struct.pack_into("<I", b, ph + 16, keep[0][5] - off)
        elif typ == PT_LOAD and vaddr >= 0xE0000000:
            struct.pack_into("<I", b, ph, PT_NULL)
    open(out, "wb").write(b)
    return out


def memory(core):
    """The dumped regions: [(address, bytes)]."""
    b = open(core, "rb").read()
    return [(vaddr, b[off:off + filesz]) for ph, typ, off, vaddr, paddr, filesz, memsz
            in phdrs(b) if typ == PT_LOAD]


def ram_only(core, out):
    """
    Memory only and no system registers (SCB, FPU): RAM as a remoteproc dump of an MCU that
    forwards no register block holds it, where no fault status rules a candidate out.
    """
    b = bytearray(open(core, "rb").read())
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_NOTE or (typ == PT_LOAD and vaddr >= 0xE0000000):
            struct.pack_into("<I", b, ph, PT_NULL)
    with open(out, "wb") as fh:
        fh.write(b)
    return out


def read32(regions, addr):
    for a, data in regions:
        if a <= addr and addr + 4 <= a + len(data):
            return struct.unpack_from("<I", data, addr - a)[0]
    return None


def crashcatcher(core, out):
    """
    CrashCatcher's layout: the registers the fault interrupted (popped from the frame the
    handler's EXC_RETURN names), with sp and PSP zeroed as a writer that lost the PSP leaves them.
    """
    b = open(core, "rb").read()
    regs = prstatus_regs(b)
    regions = memory(core)
    msp = crashwalk_note(b)[0]
    frame = [read32(regions, fault_frame_base(b) + 4 * i) for i in range(8)]
    r = regs[:]
    for k, n in enumerate([0, 1, 2, 3, 12, 14, 15, 16]):
        r[n] = frame[k]
    r[13] = 0
    words = r[:17] + [msp, 0, regs[16] & 0x1FF]
    blob = bytearray(b"cC\x03\x00") + struct.pack("<I", 0) + struct.pack("<20I", *words)
    for a, data in regions:
        blob += struct.pack("<II", a, a + len(data)) + data
    open(out, "wb").write(blob)
    return out


def hostile(core, out):
    """Every RAM word pair a copy of the crash's own thread frame: thousands of candidates."""
    b = bytearray(open(core, "rb").read())
    base = fault_frame_base(b)
    regions = memory(core)
    frame = struct.pack("<8I", *[read32(regions, base + 4 * i) for i in range(8)])
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_LOAD and vaddr < 0xE0000000 and filesz > 4096:
            for a in range(off, off + filesz - 32, 32):
                b[a:a + 32] = frame
    open(out, "wb").write(b)
    return gcore(out, out)


def dead_stack(core, out):
    """
    gcore, with stale copies of the live thread frame in the dead stack below it, as earlier
    exceptions leave there: their chains run through dead words and must not be taken.
    """
    b = bytearray(open(core, "rb").read())
    base = fault_frame_base(b)
    regions = memory(core)
    frame = struct.pack("<8I", *[read32(regions, base + 4 * i) for i in range(8)])
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_LOAD and vaddr <= base - 0xC0 and base < vaddr + filesz:
            for k in range(2, 7):
                at = base - 0x20 * k - vaddr + off
                b[at:at + 32] = frame
    open(out, "wb").write(b)
    return gcore(out, out)


def no_stack(core, out):
    """gcore with the live thread stack wiped: no frame to find, so nothing to decode."""
    b = bytearray(open(core, "rb").read())
    base = fault_frame_base(b)
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_LOAD and vaddr <= base < vaddr + filesz:
            lo = max(vaddr, base - 0x100)
            b[lo - vaddr + off:min(base + 0x400, vaddr + filesz) - vaddr + off] = \
                bytes(min(base + 0x400, vaddr + filesz) - lo)
    open(out, "wb").write(b)
    return gcore(out, out)


def fault_problems(fmt, j):
    """
    Without SCB the fault kind is "unknown"; the instruction shown is the interrupted frame's,
    never the handler's: none when the frame was not found. The running thread's stack is not
    judged from another stack's pointer.
    """
    out = []
    if j is None or "error" in j:
        return out
    ff, fault = j["fault_frame"], j["fault"]
    if fault["class"] != "unknown":
        out.append("fault class '%s' without SCB" % fault["class"])
    if ff < len(j["frames"]) and not j["frames"][ff]["exception"]:
        out.append("fault frame %d is not an exception frame" % ff)
    if ff >= len(j["frames"]) and fault["instruction"] is not None:
        out.append("instruction '%s' decoded with no fault frame" % fault["instruction"])
    if fmt == "no-stack" and ff < len(j["frames"]):
        out.append("a fault frame found on a wiped stack")
    for t in j.get("threads", []):
        if t["current"] and "sp-outside-stack" in t["stack"]["overflow_reasons"]:
            out.append("running thread %s flagged sp-outside-stack" % t["name"])
    return out


def zephyr_blocks(z):
    """
    (kind, offset, length, fields) of each block of a Zephyr coredump before its CRC trailer:
    fields (version, size) of an arch block, (start, end) of a memory block.
    """
    off = 12
    while off < len(z) and z[off:off + 1] != b"C":
        kind = z[off:off + 1]
        if kind == b"A":
            fields = struct.unpack_from("<HH", z, off + 1)
            size = 5 + fields[1]
        elif kind == b"M":
            fields = struct.unpack_from("<II", z, off + 3)
            size = 11 + fields[1] - fields[0]
        else:
            raise ValueError("Zephyr dump: block %r at %d" % (kind, off))
        yield kind, off, size, fields
        off += size


def zephyr_isr(core, out):
    """
    The crash's own Zephyr coredump with its arch block holding the registers of a handler
    that preempted the thread (the fault handler at its entry: pc in it, lr EXC_RETURN, sp
    MSP), as Zephyr writes a dump taken in an interrupt: the thread's PSP is not in it.
    """
    regs = prstatus_regs(open(core, "rb").read())
    z = bytearray(open(os.path.join(os.path.dirname(core), "core.zephyr"), "rb").read())
    end = 12
    for kind, off, size, (ver, _) in zephyr_blocks(z):
        if kind == b"A":
            words = [regs[i] for i in (0, 1, 2, 3, 12, 14, 15, 16, 13)]
            struct.pack_into("<9I", z, off + 5, *words)
            if ver >= 2:
                struct.pack_into("<8I", z, off + 5 + 36, *regs[4:12])
        end = off + size
    if z[2] >= 2 and z[7] & 1:
        z[7] &= ~1 & 0xFF      # the rewritten registers no longer match the CRC: drop it
        z = z[:end]
    open(out, "wb").write(z)
    return out


def zephyr_stacking_lost(core, out):
    """
    The crash's Zephyr coredump as Zephyr (4.3) writes a fault whose exception could not be
    stacked (the MPU guard's MSTKERR): reason K_ERR_STACK_CHK_FAIL, every register 0 but sp,
    the sp the thread had (the PSP above the frame that was never written), and no SCB (no
    Zephyr dump holds it): nothing in the dump but that reason says the frame is lost.
    """
    msp, psp = crashwalk_note(open(core, "rb").read())
    z = bytearray(open(os.path.join(os.path.dirname(core), "core.zephyr"), "rb").read())
    struct.pack_into("<I", z, 8, ZEPHYR_STACK_CHK_FAIL)
    out_z = z[:12]
    for kind, off, size, (a, b) in zephyr_blocks(z):
        if kind == b"A":
            block = bytearray(z[off:off + size])
            struct.pack_into("<%dI" % (b // 4), block, 5, *([0] * (b // 4)))
            struct.pack_into("<I", block, 5 + 32, psp + 32)
            out_z += block
        elif a < 0xE0000000:
            out_z += z[off:off + size]
    out_z[7] &= ~1 & 0xFF      # rewritten: no CRC trailer
    open(out, "wb").write(out_z)
    return out


def chain_problems(label, expect, j):
    """A crash's chain against GDB's: where it leaves it, and frames GDB lacks shown sure."""
    got = j["frames"][j["fault_frame"]:]
    k = rc.score(expect, got, False)
    bad = [] if k == len(expect) else [
        "%s: %d/%d frames equal GDB's; then %s" % (
            label, k, len(expect), "%s@0x%x %d%%" % (got[k]["function"], got[k]["pc"],
                                                     got[k]["confidence"])
            if k < len(got) else "nothing")]
    return bad + ["%s: frame %s at 0x%x reported %d%% sure, not in GDB's chain" %
                  (label, g["function"], g["pc"], g["confidence"])
                  for g in got[k:len(expect)] if g["confidence"] >= SURE]


INTEGRITY_SIG = 0xFEFA125B     # ARMv8-M additional state context, no FP state


def zephyr_additional_state(core, out, since_41):
    """
    The crash's Zephyr coredump as Zephyr writes a fault whose frame has the ARMv8-M additional
    state context below it (EXC_RETURN.DCRS = 0: integrity signature, reserved, r4-r11), taking
    the frame's address at that context: the words planted below the fault's frame in the
    dumped stack, the registers those words (r0 the signature, pc r8, xPSR r9), sp that address
    (up to Zephyr 4.0) or 0x20 above it (since_41).
    """
    b = open(core, "rb").read()
    regs = prstatus_regs(b)
    base = fault_frame_base(b) - 0x28
    state = [INTEGRITY_SIG, 0] + list(regs[4:12])
    z = bytearray(open(os.path.join(os.path.dirname(core), "core.zephyr"), "rb").read())
    end, planted = 12, False
    for kind, off, size, (a, b) in zephyr_blocks(z):
        if kind == b"A":
            struct.pack_into("<9I", z, off + 5, *(state[:8] + [base + (0x20 if since_41 else 0)]))
            if a >= 2:
                struct.pack_into("<8I", z, off + 5 + 36, *regs[4:12])
        elif a <= base and base + 0x28 <= b:
            struct.pack_into("<10I", z, off + 11 + base - a, *state)
            planted = True
        end = off + size
    if not planted:
        raise ValueError("zephyr_additional_state: 0x%x not in the dump" % base)
    z[7] &= ~1 & 0xFF
    open(out, "wb").write(z[:end])
    return out


def additional_state_problems(tool, crashes, tmp):
    """
    Problems of each v8-M thread crash (the Zephyr kernel's fault and nullcall on M33) in the
    Zephyr form with additional state, sp in either Zephyr's form: the chain must be GDB's to
    the thread's entry, no frame GDB lacks at 80 % or more.
    """
    bad, n = [], 0
    for label, elf, core, expect, rtos in crashes:
        if not label.startswith("m33-zephyr-") or not fault_frame_on_psp(core):
            continue
        for since_41 in (False, True):
            n += 1
            name = "%s %s" % (label, "4.1+" if since_41 else "4.0")
            dump = zephyr_additional_state(core, os.path.join(tmp, label + ".addstate"),
                                           since_41)
            r, j = run(tool, elf, dump)
            if j is None or "error" in j:
                bad.append("%s: %s" % (name, r.stderr.strip()[:160]))
                continue
            bad += chain_problems(name, expect, j)
            if j["stop"]["reason"] != "task_entry":
                bad.append("%s: stop %s, not task_entry" % (name, j["stop"]["reason"]))
    return n, bad


def elf_symbol(elf, name):
    """(address, size) of a symbol of the firmware, by binutils' nm."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == name:
            return int(f[0], 16), int(f[1], 16)
    raise ValueError("%s: no symbol %s" % (elf, name))


def zephyr_dump_threads(core, out, elf):
    """
    The crash's Zephyr coredump as CONFIG_DEBUG_COREDUMP_MEMORY_DUMP_THREADS writes it: the
    header and arch block, _kernel only as the threads metadata block ('T'), then for each
    thread on _kernel.threads its struct k_thread and its stack (stack_info), then the
    interrupt stack; no other memory.
    """
    z = open(os.path.join(os.path.dirname(core), "core.zephyr"), "rb").read()
    head, mem = bytearray(z[:12]), []
    for kind, off, size, (a, _) in zephyr_blocks(z):
        if kind == b"A":
            head += z[off:off + size]
        else:
            mem.append((a, z[off + 11:off + size]))

    def read(addr, n):
        for start, data in mem:
            if start <= addr and addr + n <= start + len(data):
                return data[addr - start:addr - start + n]
        raise ValueError("zephyr_dump_threads: 0x%x not in the dump" % addr)

    head[7] &= ~1 & 0xFF
    kernel, ksize = elf_symbol(elf, "_kernel")
    head += struct.pack("<cHH", b"T", 1, ksize) + read(kernel, ksize)
    oracle = json.load(open(os.path.join(os.path.dirname(core), "oracle.json")))
    tcbs = sorted(t["tcb"] for t in oracle["threads"])
    tsize = min(b - a for a, b in zip(tcbs, tcbs[1:]))
    for t in oracle["threads"]:
        for lo, hi in ((t["tcb"], t["tcb"] + tsize), (t["stack_lo"], t["stack_hi"])):
            head += struct.pack("<cHII", b"M", 1, lo, hi) + read(lo, hi - lo)
    # The part of the interrupt stack the crash's own dump holds (its writer leaves out what
    # lies below the fault handler's sp).
    isr, isize = elf_symbol(elf, "z_interrupt_stacks")
    for start, data in mem:
        lo, hi = max(start, isr), min(start + len(data), isr + isize)
        if lo < hi:
            head += struct.pack("<cHII", b"M", 1, lo, hi) + read(lo, hi - lo)
    open(out, "wb").write(head)
    return out, len(oracle["threads"])


def dump_threads_problems(tool, crashes, isr, tmp):
    """
    Problems of the Zephyr kernel's thread and interrupt crashes in the form Zephyr's
    dump-every-thread mode writes: every thread listed, the crash chain GDB's (an interrupt's
    through its exception return to the thread it preempted), no frame GDB lacks at 80 % or
    more (another thread's stale context taken for the preempted thread's).
    """
    bad, n = [], 0
    todo = [(c[0], c[1], c[2], c[3]) for c in crashes if "-zephyr-" in c[0]] + \
           [(c[0], c[1], c[2], c[3][0] + c[3][1]) for c in isr if "-zephyr-" in c[0]]
    for label, elf, core, expect in todo:
        n += 1
        dump, threads = zephyr_dump_threads(core, os.path.join(tmp, label + ".threads"), elf)
        r, j = run(tool, elf, dump)
        if j is None or "error" in j:
            bad.append("%s: %s" % (label, r.stderr.strip()[:160]))
            continue
        if len(j.get("threads") or []) != threads:
            bad.append("%s: %d threads listed, not %d" % (label, len(j.get("threads") or []),
                                                          threads))
        bad += chain_problems(label, expect, j)
    return n, bad


def zephyr_no_scb(core, out):
    """The crash's Zephyr coredump without the SCB, as Zephyr writes it (its reason kept)."""
    z = open(os.path.join(os.path.dirname(core), "core.zephyr"), "rb").read()
    out_z = bytearray(z[:12])
    for kind, off, size, (a, _) in zephyr_blocks(z):
        if kind == b"A" or a < 0xE0000000:
            out_z += z[off:off + size]
    out_z[7] &= ~1 & 0xFF
    open(out, "wb").write(out_z)
    return out


def stack_limit_problems(tool, limit, tmp):
    """
    Problems of each v8-M stack-limit overflow (the crasher's recursion stopped by PSPLIM, its
    frame stacked) in the forms that hold no fault status: gcore, and the Zephyr dump without
    the SCB and with reason K_ERR_CPU_EXCEPTION. The instruction it faulted at lowers sp below
    its stack's start: the class must be stack-overflow, the running thread flagged. A form
    whose fault frame the search does not find (clang's gcore: see Limits) is not judged.
    """
    bad, n = [], 0
    for label, elf, core in limit:
        forms = [("gcore", gcore)] + ([("zephyr", zephyr_no_scb)] if "-zephyr-" in label else [])
        for fmt, rewrite in forms:
            r, j = run(tool, elf, rewrite(core, os.path.join(tmp, "%s.%s" % (label, fmt))))
            if j is not None and "error" not in j and j["fault_frame"] >= len(j["frames"]):
                print("#   %s %s: not judged, its fault frame not found" % (label, fmt))
                continue
            n += 1
            if j is None or "error" in j:
                bad.append("%s %s: %s" % (label, fmt, r.stderr.strip()[:160]))
                continue
            cur = [t for t in j.get("threads") or [] if t["current"]]
            if j["fault"]["class"] != "stack-overflow":
                bad.append("%s %s: fault class %s" % (label, fmt, j["fault"]["class"]))
            if not cur or not cur[0]["stack"]["overflow"]:
                bad.append("%s %s: the running thread not flagged overflowed" % (label, fmt))
    return n, bad


def stacking_lost_problems(tool, guard, tmp):
    """
    Problems of each MPU-guard overflow (the stacking failed) in the form Zephyr writes it: the
    chain must be GDB's at the recursion's last entry, from the stack above sp, and the fault
    named a stack overflow; no frame GDB lacks shown at 80 % or more (a pc 0 at 100 %).
    """
    bad = []
    for label, elf, core, expect in guard:
        r, j = run(tool, elf, zephyr_stacking_lost(core, os.path.join(tmp, label + ".zlost")))
        if j is None or "error" in j:
            bad.append("%s: %s" % (label, r.stderr.strip()[:160]))
            continue
        bad += chain_problems(label, expect, j)
        if j["fault"]["class"] != "stack-overflow":
            bad.append("%s: fault class %s, not stack-overflow" % (label, j["fault"]["class"]))
    return bad


def frame_on_psp(b):
    """Is the fault's frame on the PSP, as its EXC_RETURN says (else on the MSP)? Thread mode and
    SPSEL: a v8-M handler runs on the MSP with whatever SPSEL it wrote (real RTX5 sets it)."""
    return prstatus_regs(b)[14] & 0xC == 0xC


def fault_frame_on_psp(core):
    return frame_on_psp(open(core, "rb").read())


def fault_frame_base(b):
    """
    The fault's frame, where its EXC_RETURN says: at the PSP, or at the MSP (a thread of a
    kernel that runs its threads there, NuttX without an interrupt stack).
    """
    msp, psp = crashwalk_note(b)
    return psp if frame_on_psp(b) else msp


def crashwalk_note(b):
    """(msp, psp) from crashwalk's own note."""
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_NOTE:
            for _, name, t, desc, _, _ in notes(b, off, filesz):
                if name == b"CRASHWALK":
                    return struct.unpack_from("<II", b, desc + 4)
    raise ValueError("no CRASHWALK note")


# Each format: its name, how a crash's own ELF core is rewritten, crashwalk's extra options.
# "dead-stack" adds stale copies of the live frame below it; "unbounded" runs the RTOS crashes
# without the RTOS's stack bounds, so that every task's saved context (a frame the context switch
# stacked earlier) is a candidate with a complete chain: the report must name a rival.
# "zephyr-isr" pairs the handler's registers with the thread's fault status (CFSR), which no
# real dump does and the ELF check rightly refuses (that instruction cannot raise that fault):
# it runs with --allow-mismatch, since only the thread's chain is compared there.
FORMATS = [("gcore", gcore, []), ("crashcatcher", crashcatcher, []),
           ("memory-only", cc.memory_only, []), ("ram-only", ram_only, []),
           ("dead-stack", dead_stack, []),
           ("unbounded", gcore, ["--rtos", "none"]), ("no-stack", no_stack, []),
           ("zephyr-isr", zephyr_isr, ["--allow-mismatch"])]


# Kernels that leave the running thread's saved stack pointer at its last switch's context
# (ThreadX tx_thread_stack_ptr, LiteOS-M stackPointer), which tells the search that context
# is stale, and NuttX, which clears the running task's xcp.regs as it switches it in: there
# the context's own shape names it (its first word the sp above its hardware frame).
STALE_KERNELS = ("threadx", "liteos", "nuttx", "rtthread", "rtx5", "ucos2", "ucos3")
NO_PSP = ("gcore", "crashcatcher", "memory-only", "ram-only")


def isr_expected(oracle):
    """GDB's chain of an "isr" crash: the handler's frames, then the preempted thread's."""
    handler = [{"function": f["function"], "pc": f["pc"], "line": f["line"], "inlined": []}
               for f in oracle["crash"]["frames"] if f["type"] == "normal"]
    cur = [t for t in oracle["threads"] if t.get("current")][0]
    return handler, rc.expected(cur)


def cases(corpus_script, isr, guard, limit, freertos, stkof):
    """
    (label, fw.elf, core.elf, oracle frames, from the RTOS firmware) of every process-stack
    crash; the multi-thread firmware's script sits beside the corpus's. Its "isr" crashes go to
    isr, as (label, fw.elf, core.elf, (handler frames, thread frames)), the MPU guard's
    overflows to guard, as (label, fw.elf, core.elf, crasher frames), the M33 overflows (PSPLIM)
    to limit, as (label, fw.elf, core.elf), and with their oracle frames to stkof, as (label,
    fw.elf, core.elf, oracle frames); every crash of its FreeRTOS-shaped kernels to freertos,
    as (label, fw.elf, core.elf).
    """
    out = []
    r = subprocess.run([corpus_script], capture_output=True, text=True, timeout=2700)
    if r.returncode:
        raise RuntimeError("run-corpus.sh failed: " + r.stderr)
    for core, fl, name, d in (line.split() for line in r.stdout.splitlines()):
        if name != "psp":
            continue
        elf = os.path.join(os.path.dirname(d), "fw.elf")
        out.append(("%s-%s-%s" % (core, fl, name), elf, os.path.join(d, "core.elf"),
                    cc.oracle(d, cc.functions(elf)), False))
    r = subprocess.run([os.path.join(os.path.dirname(corpus_script), "run-rtos.sh")],
                       capture_output=True, text=True, timeout=2700)
    if r.returncode:
        raise RuntimeError("run-rtos.sh failed: " + r.stderr)
    for core, kernel, name, d in (line.split() for line in r.stdout.splitlines()):
        if kernel.startswith("freertos"):
            freertos.append(("%s-%s-%s" % (core, kernel, name),
                             os.path.join(os.path.dirname(d), "fw.elf"),
                             os.path.join(d, "core.elf")))
        if name in ("isr", "isrtail", "isrspin"):
            isr.append(("%s-%s-%s" % (core, kernel, name),
                        os.path.join(os.path.dirname(d), "fw.elf"), os.path.join(d, "core.elf"),
                        isr_expected(json.load(open(os.path.join(d, "oracle.json"))))))
        if core == "m33" and name == "overflow":
            limit.append(("%s-%s-%s" % (core, kernel, name),
                          os.path.join(os.path.dirname(d), "fw.elf"), os.path.join(d, "core.elf")))
        if name not in ("fault", "fpu", "nullcall", "stale") and \
                not (kernel.endswith("-guard") and name == "overflow") and \
                (core, name) != ("m33", "overflow"):
            continue
        o = json.load(open(os.path.join(d, "oracle.json")))
        cur = [t for t in o["threads"] if t.get("current")][0]
        frames = rc.expected(cur, rc.code_ranges(os.path.join(os.path.dirname(d), "fw.elf")))
        if name == "overflow":
            (guard if kernel.endswith("-guard") else stkof).append(
                ("%s-%s-%s" % (core, kernel, name), os.path.join(os.path.dirname(d), "fw.elf"),
                 os.path.join(d, "core.elf"), frames))
            continue
        out.append(("%s-%s-%s" % (core, kernel, name), os.path.join(os.path.dirname(d), "fw.elf"),
                    os.path.join(d, "core.elf"), frames, True))
    return out


def run(tool, elf, dump, extra=(), timeout=300):
    r = subprocess.run([tool, "--json"] + list(extra) + [elf, dump], capture_output=True,
                       text=True, timeout=timeout)
    return r, (json.loads(r.stdout.splitlines()[0]) if r.stdout.strip() else None)


def compare(expect, j, rtos, entry_stop, calib):
    """(chain equal, frames reported sure that GDB's chain lacks)."""
    if j is None or "error" in j or j["fault_frame"] >= len(j["frames"]):
        return False, []
    got = j["frames"][j["fault_frame"]:]
    if j["dump"]["format"] == "zephyr" and j["dump"]["context"] == "pre-exception":
        # A dump taken in a handler: the thread's frames start at the exception frame.
        first = [i for i, f in enumerate(j["frames"]) if f["exception"]]
        got = j["frames"][first[0]:] if first else []
    # GDB stopped the corpus's thread at a breakpoint in its faulting function, not at the fault;
    # the RTOS oracle ends at the task's entry function.
    n = rc.score(expect, got, False) if rtos else cc.score(expect, got, False, False)
    calib.judge(expect, got, lambda i, e, g: rc.base_name(g["function"]) == e["function"] and
                (i == 0 or g["pc"] == e["pc"]))
    wrong = [g for i, g in enumerate(got[:len(expect)])
             if i >= n and g["confidence"] >= SURE]
    # A task's chain that reaches its entry ends there, saying so (not at a frame read past it),
    # when crashwalk knows the RTOS.
    whole = n == len(expect) and (not entry_stop or j["stop"]["reason"] == "task_entry")
    return whole, wrong


def isr_stack_object(tool, isr, tmp):
    """Problems of each "isr" crash as a memory-only dump (see the module's docstring)."""
    bad = []
    for label, elf, core, (handler, thread) in isr:
        r, j = run(tool, elf, cc.memory_only(core, os.path.join(tmp, label + ".memory-only")))
        if j is None or "error" in j or j["fault_frame"] >= len(j["frames"]):
            bad.append("%s: no fault frame (%s)" % (label, r.stderr.strip()[:160]))
            continue
        got = j["frames"][j["fault_frame"]:]
        n = rc.score(handler + thread, got, False)
        if n < len(handler) + len(thread):
            at = got[n] if n < len(got) else None
            bad.append("%s: %d/%d frames equal GDB's; then %s" %
                       (label, n, len(handler) + len(thread),
                        "%s@0x%x" % (at["function"], at["pc"]) if at else "nothing"))
        low = [f for f in got[:len(handler)] if f["confidence"] < SURE]
        if low:
            bad.append("%s: the fault's frame was found at confidence %d, not in a named stack" %
                       (label, low[0]["confidence"]))
    return bad


def no_psp_runs(tool, label, elf, core, expect, tmp):
    """(format, search summary, problem or None) of one crash in each form without the PSP."""
    for fmt, rewrite, extra in FORMATS:
        if fmt not in NO_PSP:
            continue
        r, j = run(tool, elf, rewrite(core, os.path.join(tmp, "%s.%s" % (label, fmt))))
        if j is None or "error" in j or j["fault_frame"] >= len(j["frames"]):
            yield fmt, {}, "no fault frame (%s)" % r.stderr.strip()[:120]
            continue
        got = j["frames"][j["fault_frame"]:]
        n = rc.score(expect, got, False)
        at = got[n] if n < len(got) else None
        yield fmt, j.get("search") or {}, None if n == len(expect) else \
            "%d/%d frames equal GDB's; then %s" % \
            (n, len(expect), "%s@0x%x" % (at["function"], at["pc"]) if at else "nothing")


def stale_context(tool, crashes, tmp):
    """
    Problems of the "stale" crashes (see STALE_KERNELS) in each dump form without the PSP:
    the chain must equal GDB's, and the search must neither take the context the kernel saved
    at the crasher's last switch (whole below the fault's frame, its chain running up through
    it) nor name it as a rival: the kernel says it is stale, so the live frame is the only one.
    """
    bad = []
    for label, elf, core, expect, rtos in crashes:
        if not label.endswith("-stale") or label.split("-")[1] not in STALE_KERNELS:
            continue
        for fmt, s, problem in no_psp_runs(tool, label, elf, core, expect, tmp):
            if problem:
                bad.append("%s %s: %s" % (label, fmt, problem))
            # No search ran where the dump's sp holds the frame (a NuttX task on the MSP).
            elif s and (s.get("other") is not None or s.get("confidence", 0) < SURE):
                bad.append("%s %s: the stale context at 0x%x named a rival (confidence %s)" %
                           (label, fmt, s.get("other") or 0, s.get("confidence")))
    return bad


def exited_copy(core, out):
    """
    Memory-only, with a copy of the live thread's frame and the 0x200 bytes of stack above it
    planted at the top of RAM, outside every stack the kernel names: what an exited task leaves
    in freed heap (its last context, its chain whole), as the real NuttX without an interrupt
    stack showed. Higher than the live frame, it wins an unbounded search.
    """
    b = bytearray(open(cc.memory_only(core, out), "rb").read())
    base = fault_frame_base(bytes(open(core, "rb").read()))
    words = b"".join(struct.pack("<I", read32(memory(core), base + 4 * i) or 0)
                     for i in range(0x80))
    loads = [p for p in phdrs(b) if p[1] == PT_LOAD and p[3] < 0xE0000000]
    top = max(vaddr + filesz for _, _, _, vaddr, _, filesz, _ in loads)
    at = (top - len(words) - 0x40) & ~7
    for ph, typ, off, vaddr, paddr, filesz, memsz in loads:
        if vaddr <= at and at + len(words) <= vaddr + filesz:
            b[at - vaddr + off:at - vaddr + off + len(words)] = words
    open(out, "wb").write(b)
    return out


def exited_copy_crashes(crashes, on_psp):
    """
    The crashes exited_copy is made of: those whose thread runs on the MSP (NuttX without an
    interrupt stack), or (on_psp) NuttX's on the PSP, whose interrupt stack, named in the
    kernel's ops table, is all the main side a search may look in.
    """
    return [c for c in crashes if c[4] and fault_frame_on_psp(c[2]) == on_psp and
            (not on_psp or "-nuttx-" in c[0])]


def exited_copy_problems(tool, crashes, tmp):
    """
    Problems of crashes as exited_copy dumps: the chain must equal GDB's, from the live frame
    (its sp GDB's): the copy, whose frames read the same, lies outside the running thread's
    stack and the kernel's interrupt stack, where the search must not look.
    """
    bad = []
    for label, elf, core, expect, rtos in crashes:
        with open(os.path.join(os.path.dirname(core), "oracle.json")) as fh:
            sp = [t for t in json.load(fh)["threads"] if t["current"]][0]["sp"]
        r, j = run(tool, elf, exited_copy(core, os.path.join(tmp, label + ".exited-copy")))
        ok, wrong = compare(expect, j, True, True, cc.Calibration())
        if not ok or wrong:
            bad.append("%s: %s" % (label, j["stop"]["detail"] if j and "stop" in j else
                                   r.stderr.strip()[:120]))
        elif j["frames"][j["fault_frame"]]["sp"] != sp:
            bad.append("%s: the frame at sp 0x%x taken, GDB's is at 0x%x" %
                       (label, j["frames"][j["fault_frame"]]["sp"], sp))
    return bad


def neighbour_top(core, out, rewrite):
    """
    rewrite's form of the crash, with the top of a blocked thread's stack (its saved context
    and every frame above it) copied to just below the running thread's stack, under an 8-byte
    heap node header: what LiteOS-M's heap leaves there, where LOS_MemAllocAlign gives each task
    its stack (struct OsMemNodeHead: ptr, sizeAndFlag). The copy's chain is whole.
    """
    with open(os.path.join(os.path.dirname(core), "oracle.json")) as fh:
        threads = json.load(fh)["threads"]
    cur = [t for t in threads if t["current"]][0]
    other = [t for t in threads if not t["current"] and t["from"] == "saved-context" and
             t["stack_hi"] - t["sp"] < 0x100][-1]
    lo = other["sp"] - 0x60
    words = b"".join(struct.pack("<I", read32(memory(core), a) or 0)
                     for a in range(lo, other["stack_hi"], 4))
    at = cur["stack_lo"] - 8 - len(words)
    b = bytearray(open(rewrite(core, out), "rb").read())
    for ph, typ, off, vaddr, paddr, filesz, memsz in phdrs(b):
        if typ == PT_LOAD and vaddr <= at and at + len(words) <= vaddr + filesz:
            b[at - vaddr + off:at - vaddr + off + len(words)] = words
    open(out, "wb").write(b)
    return out


def neighbour_problems(tool, crashes, tmp):
    """
    Problems of the LiteOS-M crashes whose stack is intact (not "overflow") as neighbour_top
    dumps, gcore and memory-only: the chain must equal GDB's with no rival named. Below an
    intact low end (the kernel's fill still there) lies another's memory, not the thread's.
    """
    bad = []
    for label, elf, core, expect, rtos in crashes:
        if "-liteos-" not in label or label.endswith("-overflow"):
            continue
        for fmt, rewrite in (("gcore", gcore), ("memory-only", cc.memory_only)):
            r, j = run(tool, elf, neighbour_top(core, os.path.join(tmp, "%s.%s.neighbour" %
                                                                   (label, fmt)), rewrite))
            ok, wrong = compare(expect, j, True, True, cc.Calibration())
            s = (j or {}).get("search") or {}
            if not ok or wrong:
                bad.append("%s %s: %s" % (label, fmt, j["stop"]["detail"] if j and "stop" in j
                                          else r.stderr.strip()[:120]))
            elif s.get("other") is not None or s.get("confidence", 0) < SURE:
                bad.append("%s %s: the neighbour's context at 0x%x named a rival (confidence %s)"
                           % (label, fmt, s.get("other") or 0, s.get("confidence")))
    return bad


# Where FreeRTOS's GCC ports start the first task with an svc (rtos/cw_freertos.c frt_start_svc).
START_FUNCTIONS = ("prvPortStartFirstTask", "vStartFirstTask", "xPortStartScheduler")


def without_stack_symbols(elf, out):
    """elf without its main stack's symbols, as firmware whose linker script names none."""
    subprocess.run(["arm-none-eabi-objcopy", "--strip-symbol=__msp_stack_lo",
                    "--strip-symbol=__msp_stack_hi", elf, out], check=True)
    return out


def start_frame_problems(tool, crashes, isr, freertos, tmp):
    """
    Problems with the frame the svc that started FreeRTOS's first task left on the main stack
    (ARM_CM3/CM4F: prvPortStartFirstTask; ARM_CM0 and ARMv8-M: vStartFirstTask, whose
    vPortSVCHandler_C() also leaves the svc's EXC_RETURN below it). The FreeRTOS crashes
    ("fault", "nullcall", "isr") in every form without the PSP, run with an ELF whose main
    stack has no symbols (real firmware's linker scripts often name none, so no range tells
    that frame's stack apart): the chain must equal GDB's. Every FreeRTOS crash ("overflow"
    too, which faults in PendSV, whose EXC_RETURN ARM_CM0 keeps in a register), in its own
    dump and every form without the PSP, with and without those symbols: no frame of the
    crash's chain may lie in the function that started the first task, and no dump may be
    refused but one whose own frame was never stacked (a push past PSPLIM): a handler whose
    EXC_RETURN is in no stack slot (ARM_CM0's PendSV) ends its chain there, found or not.
    """
    bad = []
    picked = [(label, elf, core, expect) for label, elf, core, expect, rtos in crashes
              if "-freertos" in label and not label.endswith("-fpu")] + \
             [(label, elf, core, handler + thread) for label, elf, core, (handler, thread) in isr
              if "-freertos" in label]
    for label, elf, core, expect in picked:
        bare = without_stack_symbols(elf, os.path.join(tmp, label + ".nosym.elf"))
        for fmt, s, problem in no_psp_runs(tool, label + "-nosym", bare, core, expect, tmp):
            if problem:
                bad.append("%s %s, no stack symbols: %s" % (label, fmt, problem))
    for label, elf, core in freertos:
        bare = without_stack_symbols(elf, os.path.join(tmp, label + ".nosym.elf"))
        r, j = run(tool, elf, core)
        lost = j and "error" not in j and any(f.get("lost") for f in j["frames"])
        for fmt, rewrite, extra in [("own", lambda c, o: c, [])] + FORMATS:
            if fmt != "own" and fmt not in NO_PSP:
                continue
            dump = rewrite(core, os.path.join(tmp, "%s.start.%s" % (label, fmt)))
            for which, e in (("", elf), (", no stack symbols", bare)):
                r, j = run(tool, e, dump)
                if j is None or "error" in j:
                    # Refused: only a crash whose own frame was never stacked may be.
                    if not lost:
                        bad.append("%s %s%s: refused (%s)" % (label, fmt, which,
                                                              r.stderr.strip()[:100]))
                    continue
                start = [f for f in j["frames"][j["fault_frame"]:]
                         if rc.base_name(f["function"] or "") in START_FUNCTIONS]
                if start:
                    bad.append("%s %s%s: the start frame %s@0x%x in the crash's chain (%d%%)" %
                               (label, fmt, which, start[0]["function"], start[0]["pc"],
                                start[0]["confidence"]))
    return bad


def stkof_problems(tool, stkof, tmp):
    """
    Problems of the M33 "overflow" crashes (the crasher's sub sp crosses PSPLIM: STKOF, raised by
    the instruction, so the fault's own stacking starts above the limit and writes the whole
    frame) as memory-only and RAM-only dumps: the chain must equal GDB's (the running thread's),
    and with the SCB (memory-only) the fault class be stack-overflow and the running thread
    flagged psplim. A dump refused as
    "stacking failed" fails: that refusal belongs to stacking that itself crossed the limit,
    which must be refused.
    """
    bad = []
    for label, elf, core, expect in stkof:
        # Where the push itself crossed the limit (clang's build) the stacking failed: the
        # crash's own dump says its frame is lost, and a memory-only dump must be refused.
        r, j = run(tool, elf, core)
        if j and "error" not in j and any(f.get("lost") for f in j["frames"]):
            r, j = run(tool, elf, cc.memory_only(core, os.path.join(tmp, label + ".stkof-lost")))
            if "stacking failed" not in r.stderr:
                bad.append("%s memory-only: its frame was never stacked, yet not refused" % label)
            continue
        for fmt, rewrite in (("memory-only", cc.memory_only), ("ram-only", ram_only)):
            # µC/OS-II's FPU port starts every task with FP state live (its OSTaskStkInit's
            # EXC_RETURN 0xFFFFFFED): without the SCB nothing says the frame at the limit is
            # extended, and read as basic its chain is a recursion's frame longer.
            if fmt == "ram-only" and "-ucos2-" in label:
                continue
            r, j = run(tool, elf, rewrite(core, os.path.join(tmp, "%s.stkof.%s" % (label, fmt))))
            if j is None or "error" in j or j["fault_frame"] >= len(j["frames"]):
                bad.append("%s %s: no fault frame (%s)" % (label, fmt, r.stderr.strip()[:120]))
                continue
            n = rc.score(expect, j["frames"][j["fault_frame"]:], False)
            if n != len(expect):
                bad.append("%s %s: %d/%d frames equal GDB's" % (label, fmt, n, len(expect)))
            if fmt == "ram-only":   # no CFSR: nothing says what the fault was
                continue
            cls = (j.get("fault") or {}).get("class")
            if cls != "stack-overflow":
                bad.append("%s %s: fault class %s, not stack-overflow" % (label, fmt, cls))
            cur = [t for t in j.get("threads", []) if t.get("state") == "running"]
            why = cur[0]["stack"].get("overflow_reasons", []) if cur else "no running thread"
            if "psplim" not in why:
                bad.append("%s %s: the running thread is not flagged psplim (%s)" %
                           (label, fmt, why))
    return bad


def isr_no_psp(tool, isr, tmp):
    """
    Problems of each "isr" crash in the forms without the PSP (see the module's docstring). The
    tick preempts a thread spinning in one loop, at the sp where it was preempted before: its
    live frame lies exactly where its last switch saved one, which the kernel still names (or,
    on NuttX, whose shape names). Only the fault's own frame is judged stale so: the search for
    the thread's frame under the handler must not call it stale.
    """
    bad = []
    for label, elf, core, (handler, thread) in isr:
        for fmt, s, problem in no_psp_runs(tool, label, elf, core, handler + thread, tmp):
            if problem:
                bad.append("%s %s: %s" % (label, fmt, problem))
            elif s.get("stale"):
                bad.append("%s %s: the interrupted thread's frame at 0x%x reported stale "
                           "(confidence %s)" % (label, fmt, s.get("at") or 0, s.get("confidence")))
    return bad


def main():
    a = parse_args("--corpus-script")
    ktap = Ktap("crashwalk-search")
    isr, guard, limit, freertos, stkof = [], [], [], [], []
    try:
        crashes = cases(a.corpus_script, isr, guard, limit, freertos, stkof)
    except RuntimeError as e:
        ktap.note(e)
        ktap.result(False, "search-build")
        return ktap.done()
    tmp = tempfile.TemporaryDirectory(prefix="crashwalk-search-")
    lazy_total, lazy_bad = 0, []
    calib = cc.Calibration()
    for fmt, rewrite, extra in FORMATS:
        equal, total, sure_wrong, bad = 0, 0, 0, []
        for label, elf, core, expect, rtos in crashes:
            if fmt == "unbounded" and not rtos:
                continue
            # Without FPCCR a lazy extended frame cannot be told from a basic one (see Limits):
            # the fpu crashes are judged where the dump keeps it.
            if fmt == "ram-only" and label.endswith("-fpu"):
                continue
            dump = rewrite(core, os.path.join(tmp.name, "%s.%s" % (label, fmt)))
            r, j = run(a.crashwalk, elf, dump, extra)
            ok, wrong = compare(expect, j, rtos, rtos and "none" not in extra, calib)
            if fmt in ("gcore", "no-stack"):
                problems = fault_problems(fmt, j)
                bad += ["%s: %s" % (label, p) for p in problems]
                # Nothing to find on a wiped stack: a right answer is an honest stop.
                ok = not problems if fmt == "no-stack" else ok and not problems
            s = (j or {}).get("search") or {}
            # A thread on the MSP (NuttX without an interrupt stack): gcore's sp is the
            # frame's, and no search may run, let alone take another task's context.
            on_psp = fault_frame_on_psp(core)
            if fmt == "unbounded" and ok and on_psp and (s.get("other") is None or
                                                         s.get("confidence", 100) >= SURE):
                ok = False
                bad.append("%s: the other tasks' saved contexts compete, yet the search named "
                           "no rival (confidence %s)" % (label, s.get("confidence")))
            if fmt == "unbounded" and ok and not on_psp and s.get("found"):
                ok = False
                bad.append("%s: a frame searched for, though the dump's sp holds it" % label)
            total += 1
            equal += ok
            if label.endswith("-fpu") and fmt in ("crashcatcher", "memory-only"):
                lazy_total += 1
                lazy_bad += [] if ok else ["%s %s" % (label, fmt)]
            sure_wrong += len(wrong)
            if not ok and fmt != "no-stack":
                bad.append("%s (%s)" % (label, j["stop"]["detail"] if j and "stop" in j
                                        else r.stderr.strip()[:120]))
            for w in wrong:
                bad.append("%s: frame %s at 0x%x reported %d%% sure, not in GDB's chain" %
                           (label, w["function"], w["pc"], w["confidence"]))
        pct = 100.0 * equal / max(total, 1)
        print("# %s: %d/%d %s (%.1f%%), %d sure frames GDB lacks" %
              (fmt, equal, total, "honest answers" if fmt == "no-stack" else
               "chains equal GDB's", pct, sure_wrong))
        for b in bad:
            print("#   " + b)
        ktap.result(pct >= CHAIN_BAR and sure_wrong == 0,
                    "search %s chains>=%g%%" % (fmt, CHAIN_BAR))
    calib.report(ktap, "search")
    print("# fpu-lazy-frame: %d/%d chains of lazy extended fault frames equal GDB's" %
          (lazy_total - len(lazy_bad), lazy_total))
    for b in lazy_bad:
        print("#   " + b)
    ktap.result(lazy_total and not lazy_bad, "search fpu-lazy-frame")
    bad = stale_context(a.crashwalk, crashes, tmp.name)
    print("# stale-context: %d problems in the no-PSP forms of the \"stale\" crashes" % len(bad))
    for b in bad:
        print("#   " + b)
    ktap.result(not bad, "search stale-context")
    for name, on_psp in (("msp-exited-copy", False), ("nuttx-exited-copy", True)):
        some = exited_copy_crashes(crashes, on_psp)
        bad = exited_copy_problems(a.crashwalk, some, tmp.name)
        print("# %s: %d/%d memory-only crashes right with an exited task's context planted "
              "above them" % (name, len(some) - len(bad), len(some)))
        for b in bad:
            print("#   " + b)
        ktap.result(some and not bad, "search " + name)
    bad = neighbour_problems(a.crashwalk, crashes, tmp.name)
    print("# liteos-neighbour: %d problems with a neighbour's stack top below the running "
          "task's" % len(bad))
    for b in bad:
        print("#   " + b)
    ktap.result(any("-liteos-" in c[0] for c in crashes) and not bad, "search liteos-neighbour")
    bad = isr_no_psp(a.crashwalk, isr, tmp.name)
    print("# isr-no-psp: %d problems in the no-PSP forms of the \"isr\" crashes" % len(bad))
    for b in bad:
        print("#   " + b)
    ktap.result(isr and not bad, "search isr-no-psp")
    bad = stkof_problems(a.crashwalk, stkof, tmp.name)
    print("# stkof-memory-only: %d problems in the memory-only and RAM-only forms of %d M33 "
          "stack-limit faults" % (len(bad), len(stkof)))
    for b in bad:
        print("#   " + b)
    ktap.result(stkof and not bad, "search stkof-memory-only")
    bad = start_frame_problems(a.crashwalk, crashes, isr, freertos, tmp.name)
    print("# freertos-start-frame: %d problems with the frame that started the first task" %
          len(bad))
    for b in bad:
        print("#   " + b)
    ktap.result(freertos and not bad, "search freertos-start-frame")
    bad = isr_stack_object(a.crashwalk, isr, tmp.name)
    print("# isr-stack-object: %d/%d memory-only interrupt-stack crashes right" %
          (len(isr) - len({b.split(":")[0] for b in bad}), len(isr)))
    for b in bad:
        print("#   " + b)
    ktap.result(isr and not bad, "search isr-stack-object")
    for name, what, (n, bad) in (
            ("zephyr-additional-state", "v8-M thread crashes right with the additional state "
             "context as Zephyr writes it", additional_state_problems(a.crashwalk, crashes,
                                                                      tmp.name)),
            ("zephyr-dump-threads", "Zephyr crashes right as the dump-every-thread mode writes "
             "them", dump_threads_problems(a.crashwalk, crashes, isr, tmp.name)),
            ("zephyr-stacking-lost", "MPU-guard overflows right as Zephyr writes them",
             (len(guard), stacking_lost_problems(a.crashwalk, guard, tmp.name))),
            ("stack-limit", "PSPLIM overflows named so without the fault status",
             stack_limit_problems(a.crashwalk, limit, tmp.name))):
        print("# %s: %d/%d %s" % (name, n - len({b.split(":")[0] for b in bad}), n, what))
        for b in bad:
            print("#   " + b)
        ktap.result(n and not bad, "search " + name)
    # Hostile: a few crashes, RAM tiled with copies of their own frame.
    for label, elf, core, expect, rtos in crashes[::8]:
        dump = hostile(core, os.path.join(tmp.name, "%s.hostile" % label))
        t0 = time.monotonic()
        try:
            r, j = run(a.crashwalk, elf, dump, timeout=HOSTILE_SECONDS)
            took = time.monotonic() - t0
            problems = []
            if r.returncode not in (0, 1) or j is None:
                problems.append("exit status %d: %s" % (r.returncode, r.stderr.strip()[:200]))
            elif "error" not in j:
                s = j.get("search") or {}
                sure = [f for f in j["frames"] if f["confidence"] >= SURE and
                        f.get("provenance") == "searched"]
                if s.get("found") and not (s.get("other") is not None or s.get("truncated")):
                    problems.append("a search among copies named no other candidate")
                if sure:
                    problems.append("a searched frame reported %d%% sure" % sure[0]["confidence"])
        except subprocess.TimeoutExpired:
            took, problems = HOSTILE_SECONDS, ["no answer within %gs" % HOSTILE_SECONDS]
        print("# hostile %s: %.2fs%s" % (label, took, "".join("; " + p for p in problems)))
        ktap.result(not problems, "search hostile " + label)
    return ktap.done()


if __name__ == "__main__":
    sys.exit(main())

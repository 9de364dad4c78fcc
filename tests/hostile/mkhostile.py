#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkhostile.py - hostile variants of the bundled crash dumps, one file each.

Each is what a dying MCU or a broken transport might deliver: truncated files,
lying sizes, enormous or overlapping memory, registers pointing anywhere, a
stack whose frames point at themselves, RAM full of fake exception frames for
the frame search, a corrupted Zephyr dump. Written to
OUTDIR/<case>.<ext>; tests/hostile/test_hostile.sh feeds each to crashwalk.
usage: mkhostile.py BUNDLED_DIR OUTDIR
"""
import os
import random
import struct
import sys


def phdrs(core):
    phoff, = struct.unpack_from("<I", core, 28)
    phnum, = struct.unpack_from("<H", core, 44)
    return [(phoff + 32 * i, struct.unpack_from("<8I", core, phoff + 32 * i))
            for i in range(phnum)]


def prstatus_regs_offset(core):
    """File offset of pr_reg in NT_PRSTATUS: the note's desc + 72."""
    for _, ph in phdrs(core):
        if ph[0] == 4:
            off = ph[1]
            namesz, = struct.unpack_from("<I", core, off)
            return off + 12 + ((namesz + 3) & ~3) + 72
    raise SystemExit("mkhostile: the bundled core has no PT_NOTE")


def first_load(core):
    return next((at, ph) for at, ph in phdrs(core) if ph[0] == 1)


def put(buf, off, fmt, *vals):
    struct.pack_into(fmt, buf, off, *vals)
    return buf


def fake_frames(core, regs, memory_only):
    """core with its RAM tiled by the frame at the handler's sp; no notes, or only NT_PRSTATUS."""
    buf = bytearray(core)
    sp, = struct.unpack_from("<I", core, regs + 13 * 4)
    loads = [ph for _, ph in phdrs(core) if ph[0] == 1 and ph[2] < 0xE0000000]
    ph = next(p for p in loads if p[2] <= sp and sp + 32 <= p[2] + p[4])
    frame = core[ph[1] + sp - ph[2]:ph[1] + sp - ph[2] + 32]
    for p in loads:
        for off in range(p[1], p[1] + p[4] - 32, 32):
            buf[off:off + 32] = frame
    for at, p in phdrs(core):
        if p[0] == 4 and memory_only:
            put(buf, at, "<I", 0)
        elif p[0] == 4:
            namesz, descsz = struct.unpack_from("<II", core, p[1])
            put(buf, at + 16, "<I", 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3))
    return buf


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    core = open(os.path.join(src, "demo.core"), "rb").read()
    zeph = open(os.path.join(src, "demo.zephyr"), "rb").read()
    regs = prstatus_regs_offset(core)
    load_at, load = first_load(core)
    cases = {}

    cases["empty.core"] = b""
    cases["truncated-header.core"] = core[:30]
    cases["truncated-phdrs.core"] = core[:52 + 40]
    cases["truncated-note.core"] = core[:regs + 20]
    cases["truncated-load.core"] = core[:load[1] + load[4] // 2]
    cases["lying-filesz.core"] = put(bytearray(core), load_at + 16, "<I", 0x7fffffff)
    cases["huge-memsz.core"] = put(bytearray(core), load_at + 20, "<I", 0xffffffff)
    cases["phnum-65535.core"] = put(bytearray(core), 44, "<H", 0xffff)
    cases["phoff-past-end.core"] = put(bytearray(core), 28, "<I", len(core) + 4096)
    # Every PT_LOAD at the same address: overlapping memory.
    ov = bytearray(core)
    for at, ph in phdrs(core):
        if ph[0] == 1:
            put(ov, at + 8, "<II", load[2], load[3])
    cases["overlapping-loads.core"] = ov
    # Registers pointing anywhere.
    wild = bytearray(core)
    put(wild, regs + 13 * 4, "<III", 0xfffffff0, 0x00000000, 0xfffffffe)
    put(wild, regs + 16 * 4, "<I", 0x00000000)
    cases["registers-anywhere.core"] = wild
    # A stack of frame records pointing at themselves, lr into the firmware.
    cyc = bytearray(core)
    base, size = load[2], load[4]
    for off in range(0, size - 8, 8):
        put(cyc, load[1] + off, "<II", base + off, 0x00000201)
    sp = base + size // 2
    put(cyc, regs + 7 * 4, "<I", sp)
    put(cyc, regs + 13 * 4, "<III", sp, 0x00000201, 0x00000200)
    cases["cyclic-stack.core"] = cyc
    # Memory only, every RAM segment tiled with copies of the live exception frame: thousands
    # of candidates for the frame search, which must end on its trial budget and say so.
    cases["fake-frames-memory-only.core"] = fake_frames(core, regs, memory_only=True)
    # The same with the registers kept but the CRASHWALK note (MSP, PSP) gone, as gcore writes.
    cases["fake-frames-no-psp.core"] = fake_frames(core, regs, memory_only=False)
    # Zephyr: a flipped byte under the CRC, and a memory block claiming 4 GiB.
    z = bytearray(zeph)
    z[len(z) // 2] ^= 0xff
    cases["crc-mismatch.zephyr"] = z
    zm = bytearray(zeph)
    at = zm.find(b"M\x01\x00")
    if at > 0:
        put(zm, at + 3, "<II", 0x00000000, 0xffffffff)
    cases["huge-block.zephyr"] = zm
    cases["truncated.zephyr"] = zeph[:len(zeph) // 3]
    rnd = random.Random(20261122)
    cases["random-64k.bin"] = bytes(rnd.getrandbits(8) for _ in range(65536))
    cases["cd-log-garbage.txt"] = b"boot\n#CD:BEGIN#\n#CD:5a45zz\n#CD:" + b"f" * 5000 + b"\n"

    for name, data in cases.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(bytes(data))
    print("mkhostile: %d cases in %s" % (len(cases), out))


if __name__ == "__main__":
    main()

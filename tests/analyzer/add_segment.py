#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# add_segment.py - copy an ELF core with one more segment: the firmware's .text (one byte flipped on request) or a GNU build-id note.
"""Usage: add_segment.py IN.core OUT.core (--text FIRMWARE.elf [--flip OFFSET] | --build-id HEX)

For test_crashwalk_cli.sh: crashwalk must compare what a dump holds of the firmware's read-only sections
and its build-id with the firmware's own. The new program header table goes at the end of the
file, so the existing segments keep their offsets.
"""
import argparse
import struct


def text_section(elf):
    """(address, bytes) of the firmware's .text."""
    shoff, = struct.unpack_from("<I", elf, 32)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 46)
    sec = [struct.unpack_from("<IIIIII", elf, shoff + i * shentsize) for i in range(shnum)]
    stroff = sec[shstrndx][4]
    for name, _, _, addr, off, size in sec:
        if elf[stroff + name:stroff + name + 6] == b".text\0":
            return addr, elf[off:off + size]
    raise SystemExit("no .text")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--text")
    ap.add_argument("--flip", type=lambda x: int(x, 0))
    ap.add_argument("--build-id")
    a = ap.parse_args()
    core = bytearray(open(a.inp, "rb").read())
    phoff, = struct.unpack_from("<I", core, 28)
    phentsize, phnum = struct.unpack_from("<HH", core, 42)
    phdrs = core[phoff:phoff + phentsize * phnum]
    if a.text:
        addr, data = text_section(open(a.text, "rb").read())
        data = bytearray(data)
        if a.flip is not None:
            data[a.flip] ^= 0xFF
        ptype, vaddr, flags = 1, addr, 5
    else:
        desc = bytes.fromhex(a.build_id)
        data = struct.pack("<III", 4, len(desc), 3) + b"GNU\0" + desc
        data += b"\0" * (-len(data) % 4)
        ptype, vaddr, flags = 4, 0, 4
    off = len(core)
    core += data + b"\0" * (-len(data) % 4)
    new_phoff = len(core)
    core += phdrs + struct.pack("<IIIIIIII", ptype, off, vaddr, vaddr, len(data),
                                len(data) if ptype == 1 else 0, flags, 4)
    struct.pack_into("<I", core, 28, new_phoff)
    struct.pack_into("<H", core, 44, phnum + 1)
    open(a.out, "wb").write(core)


if __name__ == "__main__":
    main()

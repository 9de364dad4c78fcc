#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# png_boxes.py - how wide the widest box of a flame graph screenshot is: the longest run of
# one coloured (not grey, not white) pixel colour on any row, in pixels. Reads 8-bit RGB or
# RGBA PNGs, as Chromium writes them, with zlib alone.
# usage: png_boxes.py SCREENSHOT.png
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_boxes: %s: not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("png_boxes: %s: not an 8-bit RGB(A) PNG without interlace" % path)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield [tuple(line[x * bpp:x * bpp + 3]) for x in range(w)]


def widest(path):
    best = 0
    for px in rows(path):
        run, last = 0, None
        for p in px:
            coloured = max(p) - min(p) > 40     # d3-flame-graph's reds and oranges
            run = run + 1 if coloured and p == last else (1 if coloured else 0)
            last = p
            best = max(best, run)
    return best


if __name__ == "__main__":
    print(widest(sys.argv[1]))

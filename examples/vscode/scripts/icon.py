#!/usr/bin/env python3
"""Draws the extension's icon (icon.png, 128x128 RGBA) with the standard
library only: a dark rounded square with three status lights, blocked
(amber, with a ring: it waits for you), working (blue) and idle (grey),
as the status bar orders them. Run from examples/vscode:

    python3 scripts/icon.py icon.png
"""
import struct
import sys
import zlib

SIZE = 128
SS = 4  # samples per pixel side, for smooth edges

BG = (30, 34, 42)
LIGHTS = [  # centre x, centre y, radius, colour
    (36, 64, 15, (242, 169, 0)),  # blocked
    (76, 64, 11, (55, 148, 255)),  # working
    (106, 64, 8, (140, 146, 158)),  # idle
]
RING = (36, 64, 22, 3.5, (242, 169, 0))  # centre, radius, width, colour


def inside_rounded(x, y, r=26):
    """Whether (x, y) lies in the 128 px square with corners of radius r."""
    cx = min(max(x, r), SIZE - r)
    cy = min(max(y, r), SIZE - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def sample(x, y):
    """The colour and opacity at one sample point."""
    if not inside_rounded(x, y):
        return (0, 0, 0, 0)
    for cx, cy, rad, col in LIGHTS:
        if (x - cx) ** 2 + (y - cy) ** 2 <= rad * rad:
            return col + (255,)
    cx, cy, rad, width, col = RING
    d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
    if abs(d - rad) <= width / 2:
        return col + (255,)
    return BG + (255,)


def pixel(px, py):
    acc = [0, 0, 0, 0]
    for i in range(SS):
        for j in range(SS):
            r, g, b, a = sample(px + (i + 0.5) / SS, py + (j + 0.5) / SS)
            acc[0] += r * a
            acc[1] += g * a
            acc[2] += b * a
            acc[3] += a
    n = SS * SS
    if acc[3] == 0:
        return (0, 0, 0, 0)
    return (round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(acc[3] / n))


def png(rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(v for p in row for v in p) for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "icon.png"
    rows = [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]
    with open(out, "wb") as f:
        f.write(png(rows))


if __name__ == "__main__":
    main()

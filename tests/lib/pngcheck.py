#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a PNG's structure and that given colors are drawn in it.

  pngcheck.py FILE.png [--min-size WxH] [--color NAME=#rrggbb[:MINPIXELS]]...

Tests use it on plots (tools/ccalog-plot draws every series in a fixed
color, without antialiasing) to see that each series is really drawn,
without an imaging library: the PNG is decoded here with zlib alone.

Checks the signature, IHDR, the CRC of every chunk, the chunk order and
IEND; decodes the image (8-bit RGB or RGBA, or palette with PLTE at any
bit depth; tRNS is ignored; all five filter types; not interlaced) and
counts the pixels exactly equal to each color (RGBA pixels only when
opaque).  Prints "WxH" first, then "NAME: N pixels" per color, then
"FAIL: <reason>" for every failed check (an undecodable file gets just
one, after its size if IHDR has one).  Exits 0 if all passed: a valid
PNG at least the minimum size with at least MINPIXELS (default 50) pixels
of every color; 1 otherwise; 2 on usage errors.
"""
import argparse
import re
import struct
import sys
import zlib
from collections import Counter

SIGNATURE = b"\x89PNG\r\n\x1a\n"
DEFAULT_MIN_PIXELS = 50

# (color type, bit depth) -> channels; what this checker decodes.
SUPPORTED = {(2, 8): 3, (6, 8): 4, (3, 1): 1, (3, 2): 1, (3, 4): 1, (3, 8): 1}


class BadPNG(Exception):
    """The file is not a PNG this checker can read."""


def chunks(data):
    """Yield (type, body, end offset) of every chunk, CRC checked."""
    pos = len(SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise BadPNG("truncated chunk header at offset %d" % pos)
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        if length > 0x7fffffff:
            raise BadPNG("chunk length %d too large at offset %d" % (length, pos))
        if not re.fullmatch(rb"[A-Za-z]{4}", ctype):
            raise BadPNG("invalid chunk type %r at offset %d" % (ctype, pos))
        end = pos + 8 + length
        if end + 4 > len(data):
            raise BadPNG("truncated %s chunk at offset %d" % (ctype.decode(), pos))
        body = data[pos + 8:end]
        crc, = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(ctype + body) != crc:
            raise BadPNG("CRC mismatch in %s chunk at offset %d"
                         % (ctype.decode(), pos))
        pos = end + 4
        yield ctype.decode(), body, pos


def parse(data):
    """Check the file's structure; return (ihdr fields, palette, IDAT data)."""
    if not data.startswith(SIGNATURE):
        raise BadPNG("not a PNG file (bad signature)")
    ihdr, palette, idat = None, None, []
    idat_done = iend = False
    for ctype, body, end in chunks(data):
        if ihdr is None and ctype != "IHDR":
            raise BadPNG("first chunk is %s, not IHDR" % ctype)
        if ctype == "IHDR":
            if ihdr is not None:
                raise BadPNG("more than one IHDR")
            if len(body) != 13:
                raise BadPNG("IHDR is %d bytes, not 13" % len(body))
            ihdr = struct.unpack(">IIBBBBB", body)
            w, h, depth, ctype_, comp, filt, interlace = ihdr
            if w == 0 or h == 0 or w > 0x7fffffff or h > 0x7fffffff:
                raise BadPNG("invalid dimensions %dx%d" % (w, h))
            if comp != 0 or filt != 0 or interlace not in (0, 1):
                raise BadPNG("invalid IHDR (compression %d, filter %d, "
                             "interlace %d)" % (comp, filt, interlace))
            if interlace:
                raise BadPNG("interlaced (Adam7) PNGs are not supported")
            if (ctype_, depth) not in SUPPORTED:
                raise BadPNG("color type %d at bit depth %d is not supported "
                             "(only 8-bit RGB/RGBA and palette)" % (ctype_, depth))
        elif ctype == "PLTE":
            if idat or palette is not None:
                raise BadPNG("misplaced PLTE chunk")
            if len(body) % 3 or not 3 <= len(body) <= 768:
                raise BadPNG("PLTE of %d bytes" % len(body))
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif ctype == "IDAT":
            if idat_done:
                raise BadPNG("IDAT chunks are not consecutive")
            idat.append(body)
        elif ctype == "IEND":
            if body:
                raise BadPNG("IEND chunk with data")
            if end != len(data):
                raise BadPNG("%d bytes after IEND" % (len(data) - end))
            iend = True
        elif ctype[0].isupper():
            raise BadPNG("unknown critical chunk %s" % ctype)
        if idat and ctype != "IDAT":
            idat_done = True
    if ihdr is None:
        raise BadPNG("no IHDR chunk")
    if not idat:
        raise BadPNG("no IDAT chunk")
    if not iend:
        raise BadPNG("no IEND chunk (truncated file?)")
    if ihdr[3] == 3 and palette is None:
        raise BadPNG("palette image without PLTE")
    return ihdr, palette, b"".join(idat)


def unfilter(raw, width, height, bits_per_pixel):
    """Undo the per-row filters of the inflated image; return the rows."""
    stride = (width * bits_per_pixel + 7) // 8
    bpp = max(1, bits_per_pixel // 8)  # bytes back to "the pixel to the left"
    if len(raw) != height * (stride + 1):
        raise BadPNG("image data is %d bytes, %dx%d needs %d"
                     % (len(raw), width, height, height * (stride + 1)))
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        pos = y * (stride + 1)
        ftype = raw[pos]
        cur = bytearray(raw[pos + 1:pos + 1 + stride])
        if ftype == 0:  # None
            pass
        elif ftype == 1:  # Sub
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 0xff
        elif ftype == 2:  # Up
            for i in range(stride):
                cur[i] = (cur[i] + prev[i]) & 0xff
        elif ftype == 3:  # Average
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 0xff
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
                cur[i] = (cur[i] + pred) & 0xff
        else:
            raise BadPNG("row %d has invalid filter type %d" % (y, ftype))
        rows.append(cur)
        prev = cur
    return rows


def color_histogram(path):
    """Return (width, height, Counter of opaque (r, g, b) pixels)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BadPNG(e.strerror or str(e))
    (w, h, depth, ctype, _, _, _), palette, idat = parse(data)
    try:
        raw = zlib.decompress(idat)
    except zlib.error as e:
        raise BadPNG("image data does not inflate: %s" % e)
    channels = SUPPORTED[(ctype, depth)]
    rows = unfilter(raw, w, h, channels * depth)

    hist = Counter()
    if ctype == 3:
        # Count palette indices, then map them to colors.
        idx = Counter()
        per_byte = 8 // depth
        mask = (1 << depth) - 1
        for row in rows:
            if depth == 8:
                idx.update(row)
                continue
            vals = [(byte >> (8 - depth * (k + 1))) & mask
                    for byte in row for k in range(per_byte)]
            idx.update(vals[:w])  # the last byte may have padding bits
        for i, n in idx.items():
            if i >= len(palette):
                raise BadPNG("pixel index %d beyond the %d-entry palette"
                             % (i, len(palette)))
            hist[palette[i]] += n
    elif ctype == 2:
        for row in rows:
            hist.update(zip(row[0::3], row[1::3], row[2::3]))
    else:  # RGBA: only opaque pixels are really that color
        for row in rows:
            hist.update((r, g, b) for r, g, b, a in
                        zip(row[0::4], row[1::4], row[2::4], row[3::4])
                        if a == 255)
    return w, h, hist


def peek_size(path):
    """WxH from a file's IHDR, or None: to report with a decoding failure."""
    try:
        with open(path, "rb") as f:
            head = f.read(33)
    except OSError:
        return None
    if (len(head) < 33 or not head.startswith(SIGNATURE)
            or head[8:16] != b"\0\0\0\x0dIHDR"
            or zlib.crc32(head[12:29]) != struct.unpack(">I", head[29:33])[0]):
        return None
    return "%dx%d" % struct.unpack(">II", head[16:24])


def size_arg(s):
    m = re.fullmatch(r"(\d+)[xX](\d+)", s)
    if not m:
        raise argparse.ArgumentTypeError("size must be WxH, not %r" % s)
    return int(m.group(1)), int(m.group(2))


def color_arg(s):
    m = re.fullmatch(r"([^=]+)=#?([0-9a-fA-F]{6})(?::(\d+))?", s)
    if not m:
        raise argparse.ArgumentTypeError(
            "color must be NAME=#rrggbb[:MINPIXELS], not %r" % s)
    rgb = bytes.fromhex(m.group(2))
    need = int(m.group(3)) if m.group(3) else DEFAULT_MIN_PIXELS
    return m.group(1), tuple(rgb), need


def main():
    p = argparse.ArgumentParser(
        description="Validate a PNG and count the pixels of given colors.")
    p.add_argument("file", metavar="FILE.png")
    p.add_argument("--min-size", type=size_arg, metavar="WxH",
                   help="fail if the image is narrower or lower than this")
    p.add_argument("--color", type=color_arg, action="append", default=[],
                   metavar="NAME=#rrggbb[:MINPIXELS]",
                   help="count pixels of exactly this color; fail if fewer "
                   "than MINPIXELS (default %d); repeatable" % DEFAULT_MIN_PIXELS)
    a = p.parse_args()

    try:
        w, h, hist = color_histogram(a.file)
    except BadPNG as e:
        size = peek_size(a.file)
        if size:
            print(size)
        print("FAIL: %s: %s" % (a.file, e))
        return 1

    print("%dx%d" % (w, h))
    fails = []
    if a.min_size and (w < a.min_size[0] or h < a.min_size[1]):
        fails.append("image is %dx%d, smaller than %dx%d"
                     % (w, h, a.min_size[0], a.min_size[1]))
    for name, rgb, need in a.color:
        n = hist.get(rgb, 0)
        print("%s: %d pixels" % (name, n))
        if n < need:
            fails.append("%s: %d pixels of #%02x%02x%02x, want at least %d"
                         % ((name, n) + rgb + (need,)))
    for f in fails:
        print("FAIL: %s" % f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

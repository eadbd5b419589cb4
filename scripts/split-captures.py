#!/usr/bin/env python3
"""Makes a folder of COUNT captures from classic pcap files: the files with the most records are
cut into pieces of consecutive frames (each piece a capture of its own, which starts mid-session
as a capture taken by someone arriving late does) until there are COUNT files; the others are
copied whole. Deterministic: the same inputs give the same folder.

    python3 scripts/split-captures.py --count 100 --out DIR captures/*.pcap
"""
import argparse
import os
import struct
import sys


def records(data):
    """The classic pcap header and each record's bytes (its 16-byte header included)."""
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        order = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        order = ">"
    else:
        raise ValueError("not a classic pcap file")
    out, o = [], 24
    while o + 16 <= len(data):
        (incl,) = struct.unpack(order + "I", data[o + 8:o + 12])
        if o + 16 + incl > len(data):
            break
        out.append(data[o:o + 16 + incl])
        o += 16 + incl
    return data[:24], out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    loaded = []
    for f in sorted(args.files):
        with open(f, "rb") as fh:
            header, recs = records(fh.read())
        loaded.append([os.path.splitext(os.path.basename(f))[0], header, recs, 1])
    if len(loaded) > args.count:
        sys.exit(f"{len(loaded)} files already: more than --count {args.count}")
    # One more piece at a time to the file whose pieces are the longest.
    for _ in range(args.count - len(loaded)):
        longest = max(loaded, key=lambda c: len(c[2]) / c[3])
        longest[3] += 1
    os.makedirs(args.out, exist_ok=True)
    for name, header, recs, pieces in loaded:
        step = -(-len(recs) // pieces) if recs else 1
        for k in range(pieces):
            part = recs[k * step:(k + 1) * step]
            suffix = f"-part{k + 1:02d}" if pieces > 1 else ""
            with open(os.path.join(args.out, f"{name}{suffix}.pcap"), "wb") as fh:
                fh.write(header)
                fh.writelines(part)


if __name__ == "__main__":
    main()

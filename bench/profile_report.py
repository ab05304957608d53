#!/usr/bin/env python3
"""Self and inclusive host time per function from a dmlrt_bench --profile file.

usage: profile_report.py PROFILE.txt [--binary PATH] [--top N]

PROFILE.txt is written by bench/sampling_profiler.h on the GPU machine; offsets inside
dmlrt's own executable are symbolised with addr2line against --binary (the same build, e.g.
build-gpu/carry/dmlrt_bench); library frames keep the exported symbol dladdr found there.
"""
import argparse
import collections
import os
import subprocess
import sys


def symbolise(binary, offsets):
    if not offsets:
        return {}
    proc = subprocess.run(["addr2line", "-f", "-C", "-e", binary],
                          input="\n".join(hex(o) for o in offsets), capture_output=True,
                          text=True, check=True)
    lines = proc.stdout.splitlines()
    return {o: lines[2 * i] for i, o in enumerate(offsets)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--binary", default="build-gpu/carry/dmlrt_bench")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    rows = []
    with open(a.profile) as f:
        for line in f:
            count, depth, module, offset, symbol = line.split(maxsplit=4)
            rows.append((int(count), int(depth), module, int(offset, 16), symbol.strip()))
    own = sorted({o for _, _, m, o, _ in rows if os.path.basename(m) == os.path.basename(a.binary)})
    names = symbolise(a.binary, own)
    total = sum(c for c, d, *_ in rows if d == 0)
    self_t = collections.Counter()
    incl = collections.Counter()
    for count, depth, module, offset, symbol in rows:
        base = os.path.basename(module)
        if base == os.path.basename(a.binary):
            fn = names.get(offset, "?")
        else:
            fn = f"{symbol} [{base}]" if symbol != "-" else f"? [{base}]"
        if depth == 0:
            self_t[fn] += count
        incl[fn] += count  # a recursive function counts once per frame: an upper bound
    print(f"{total} samples")
    print("== self ==")
    for fn, c in self_t.most_common(a.top):
        print(f"{100.0 * c / total:6.1f}%  {fn[:150]}")
    print("== inclusive (8 frames deep) ==")
    for fn, c in incl.most_common(a.top):
        print(f"{100.0 * c / total:6.1f}%  {fn[:150]}")


if __name__ == "__main__":
    sys.exit(main())

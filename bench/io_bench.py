#!/usr/bin/env python3
"""Input reading at speed: dmlrt's csv, text (ijv) and Matrix Market readers in MB/s, on one
thread and on every core, against numpy.loadtxt and pandas.read_csv (when installed) on the
same files. Host only (no GPU).

    python3 bench/io_bench.py --dmlrt build/runtime/dmlrt [--rows 600000] [--cols 10]
        [--formats csv,text,mm] [--repeat 3] [--dir /tmp/dmlrt_io_bench] [--keep]

dmlrt runs a plan that reads the file and prints its sum; its time is the wall time of the run
less that of the same plan on a one-line file (start-up), best of --repeat runs; its CPU time
(user + sys, whole run) is shown beside it. The sums are checked against NumPy's, so a fast
wrong reader shows up. On a shared machine compare the rows of one run only.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

try:
    import pandas as pd
except ImportError:  # optional anchor
    pd = None

PLAN = """PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-2) [recompile=false]
------CP°createvar°pREADX°{path}°false°MATRIX°{fmt}°{rows}°{cols}°-1°-1°copy{csv}
------CP°uak+°pREADX·MATRIX·FP64°_Var1·SCALAR·FP64°{threads}
------CP°print°_Var1·SCALAR·FP64·false°_Var2·SCALAR·STRING°2
------CP°rmvar°_Var1°_Var2
"""


def write_plan(path, data, fmt, rows, cols, threads):
    csv = "°false°,°true°0.0" if fmt == "csv" else ""
    with open(path, "w") as f:
        f.write(PLAN.format(path=data, fmt=fmt, rows=rows, cols=cols, csv=csv, threads=threads))


def write_files(d, rows, cols, formats):
    rng = np.random.default_rng(42)
    x = rng.random((rows, cols))
    x[x < 0.05] = 0.0  # a few zeros, as real data has
    out = {}
    if "csv" in formats:
        p = os.path.join(d, "x.csv")
        np.savetxt(p, x, delimiter=",", fmt="%.17g")
        out["csv"] = p
    if "text" in formats or "mm" in formats:
        r, c = np.nonzero(x)
        ijv = np.column_stack([r + 1, c + 1, x[r, c]])
        body = os.path.join(d, "x.ijv")
        np.savetxt(body, ijv, fmt=["%d", "%d", "%.17g"], delimiter=" ")
        if "text" in formats:
            out["text"] = body
        if "mm" in formats:
            p = os.path.join(d, "x.mtx")
            with open(p, "w") as f:
                f.write("%%MatrixMarket matrix coordinate real general\n")
                f.write(f"{rows} {cols} {len(r)}\n")
            with open(p, "ab") as f, open(body, "rb") as g:
                shutil.copyfileobj(g, f)
            out["mm"] = p
    return x, out


def tiny_file(d, fmt):
    p = os.path.join(d, "tiny." + fmt)
    with open(p, "w") as f:
        if fmt == "mm":
            f.write("%%MatrixMarket matrix coordinate real general\n1 1 1\n")
        f.write("1 1 1\n" if fmt in ("text", "mm") else "1\n")
    return p


def run_dmlrt(dmlrt, plan, threads):
    """(wall seconds, CPU seconds of the process, printed sum)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([dmlrt, "-threads", str(threads), "-f", plan], capture_output=True,
                       text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"dmlrt failed ({r.returncode}): {r.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, float(r.stdout.strip().splitlines()[-1])


def best(fn, repeat):
    times, val = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        val = fn()
        times.append(time.perf_counter() - t0)
    return min(times), val


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dmlrt", default="build/runtime/dmlrt")
    ap.add_argument("--rows", type=int, default=600_000)
    ap.add_argument("--cols", type=int, default=10)
    ap.add_argument("--formats", default="csv,text,mm")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/dmlrt_io_bench")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    a = ap.parse_args()
    formats = a.formats.split(",")
    os.makedirs(a.dir, exist_ok=True)
    cores = os.cpu_count() or 1
    print(f"writing {a.rows} x {a.cols} random doubles ({', '.join(formats)}) to {a.dir} ...",
          file=sys.stderr)
    x, files = write_files(a.dir, a.rows, a.cols, formats)
    ref = float(x.sum())
    rows_out = []

    def record(fmt, reader, secs, mb, total, cpu=None):
        ok = abs(total - ref) <= 1e-9 * abs(ref)
        note = "" if ok else f"WRONG sum {total!r}"
        if cpu is not None:  # a busy machine shows here: CPU seconds well above wall x threads
            note = f"cpu {cpu:.2f} s " + note
        rows_out.append((fmt, reader, secs, mb / secs, note))

    for fmt in formats:
        path = files[fmt]
        mb = os.path.getsize(path) / 1e6
        for threads in sorted({1, cores}):
            plan = os.path.join(a.dir, f"read_{fmt}.plan")
            tiny_plan = os.path.join(a.dir, f"tiny_{fmt}.plan")
            write_plan(plan, path, fmt, a.rows, a.cols, threads)
            write_plan(tiny_plan, tiny_file(a.dir, fmt), fmt, 1, 1, threads)
            start = min(run_dmlrt(a.dmlrt, tiny_plan, threads)[0] for _ in range(a.repeat))
            runs = [run_dmlrt(a.dmlrt, plan, threads) for _ in range(a.repeat)]
            fastest = min(runs)
            secs = max(fastest[0] - start, 1e-6)
            record(fmt, f"dmlrt -threads {threads}", secs, mb, fastest[2], fastest[1])
        if fmt == "csv":
            secs, v = best(lambda: np.loadtxt(path, delimiter=",").sum(), 1)
            record(fmt, "numpy.loadtxt", secs, mb, float(v))
            if pd is not None:
                secs, v = best(lambda: pd.read_csv(path, header=None).to_numpy().sum(), a.repeat)
                record(fmt, "pandas.read_csv", secs, mb, float(v))
        else:
            cols = (0, 1, 2)
            skip = 2 if fmt == "mm" else 0
            if pd is not None:
                secs, v = best(lambda: pd.read_csv(path, sep=" ", header=None, skiprows=skip,
                                                   usecols=cols)[2].sum(), a.repeat)
                record(fmt, "pandas.read_csv (ijv)", secs, mb, float(v))
            else:
                secs, v = best(lambda: np.loadtxt(path, skiprows=skip)[:, 2].sum(), 1)
                record(fmt, "numpy.loadtxt (ijv)", secs, mb, float(v))

    print(f"{'format':6}  {'reader':28} {'seconds':>8} {'MB/s':>8}  ({cores} cores)")
    for fmt, reader, secs, rate, note in rows_out:
        print(f"{fmt:6}  {reader:28} {secs:8.3f} {rate:8.1f}  {note}")
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)
    return 1 if any(r[4] for r in rows_out) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The paramserv section of the bench (issue #20): LeNet trained data-parallel with paramserv()
(bench/paramserv/lenet_ps.dml: BSP, freq=BATCH, 64-row batches per worker, one epoch over N
synthetic images; plans captured for N=512 and k = 1, 2, 4, 8), run by `dmlrt -f`: k=1 (one worker,
the same N rows in 64-row batches, in order) against k workers, on the CPU (each worker's kernels
on one core) and with -gpu (the workers sharing the GPU, each on a session of its own). The time is
the paramserv call's own, printed by the script's time() calls around it; best of --repeat runs.
Speed-up = k=1 / k workers, efficiency = speed-up / k. The k-worker run does the same gradient
work in 1/k as many BSP rounds (k times the examples per model update).

    python3 bench/paramserv_bench.py run --dmlrt build/runtime/dmlrt --out ps.json \\
        [--cpu-k 2] [--gpu-k 4] [--machine LABEL]
    python3 bench/paramserv_bench.py markdown ps.json --date ... --device ... --commit ... \\
        --command ...        (its section of bench/RESULTS.md)
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from algo_bench import run_and_markdown_parsers, write_markdown_section  # noqa: E402
PLANS = os.path.join(HERE, "paramserv")
TIME = re.compile(r"ps ms: ([0-9.eE+-]+)")
BEGIN, END = "<!-- paramserv:begin -->", "<!-- paramserv:end -->"


def ps_seconds(dmlrt, k, repeat, extra):
    plan = os.path.join(PLANS, f"lenet_ps_n512_k{k}.plan")
    best = None
    for _ in range(repeat):
        r = subprocess.run([dmlrt, "-f", plan, *extra], capture_output=True, text=True)
        m = TIME.search(r.stdout)
        if r.returncode != 0 or not m:
            raise RuntimeError(f"{plan} {extra}: {(r.stderr or r.stdout)[-400:]}")
        t = float(m.group(1)) / 1e3
        best = t if best is None else min(best, t)
    return best


def run(args):
    records = []
    for where, k, extra in [("CPU", args.cpu_k, ["-threads", str(args.cpu_k)]),
                            ("GPU", args.gpu_k, ["-gpu"])]:
        if k <= 0:
            continue
        one = ps_seconds(args.dmlrt, 1, args.repeat, extra)
        many = ps_seconds(args.dmlrt, k, args.repeat, extra)
        rec = {"machine": args.machine, "where": where, "k": k, "one_worker_s": one,
               "k_workers_s": many, "speedup": one / many, "efficiency": one / many / k}
        records.append(rec)
        print(json.dumps(rec), flush=True)
    with open(args.out, "w") as f:
        json.dump(records, f, indent=1)
    return 0


def markdown_block(records, header):
    lines = [BEGIN, "## paramserv: LeNet data-parallel (issue #20)", ""]
    lines += [f"- {h}" for h in header] + [""]
    lines += ["Seconds of one paramserv() epoch over 512 synthetic 28x28 images (BSP, freq=BATCH, "
              "64-row batches per worker; the script's time() calls around the call): one worker "
              "against k workers, on the CPU (each worker's kernels on one core) and with -gpu "
              "(the workers sharing one GPU, each on a session of its own). Written by "
              "`bench/paramserv_bench.py markdown`.", "",
              "| machine | where | k | 1 worker | k workers | speed-up | efficiency |",
              "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r.get('machine', '')} | {r['where']} | {r['k']} | "
                     f"{r['one_worker_s']:.3f} s | {r['k_workers_s']:.3f} s | "
                     f"{r['speedup']:.2f}x | {100 * r['efficiency']:.0f}% |")
    lines.append(END)
    return "\n".join(lines)


def main(argv):
    ap, _, r = run_and_markdown_parsers(__doc__, os.path.join(HERE, "RESULTS.md"))
    r.add_argument("--cpu-k", type=int, default=2, choices=[0, 2, 4, 8],
                   help="workers of the CPU row (0: none)")
    r.add_argument("--gpu-k", type=int, default=0, choices=[0, 2, 4, 8],
                   help="workers of the -gpu row (0: none)")
    r.add_argument("--repeat", type=int, default=1)
    r.add_argument("--machine", default="", help="a label for the machine column")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        a.dmlrt = os.path.abspath(a.dmlrt)
        return run(a)
    return write_markdown_section(a, BEGIN, END, markdown_block)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The parfor section of the bench (issue #20): grid searches whose iterations are independent
fits (bench/parfor/: 16 lmDS and 16 l2svm fits on the same X, plans captured with
`-nvargs rows=20000 cols=200`), each run by `dmlrt -f` with one thread (the loop in order, every
kernel on one core) and with N threads (the PARFOR on N workers, Note [Parallel PARFOR]). The
time is the loop's own, printed by the script's time() calls around it (data generation
excluded); best of --repeat runs. Speed-up = one thread / N threads, efficiency = speed-up / N.

    python3 bench/parfor_bench.py run --dmlrt build/runtime/dmlrt --out parfor.json [--threads N]
        [--gpu-workers W]   (also -gpu: one worker on the GPU, i.e. in order, against W workers
                             sharing it, dmlrt.gpu.parfor.workers.per.gpu; Note [PARFOR on GPUs])
        [--mpi-ranks R]     (also `mpirun -np R` with one thread per rank, against one thread;
                             Note [MPI ranks])
    python3 bench/parfor_bench.py markdown parfor.json --date ... --device ... --commit ... \\
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
PLANS = os.path.join(HERE, "parfor")
LOOP = re.compile(r"loop ms: ([0-9.eE+-]+)")
BEGIN, END = "<!-- parfor:begin -->", "<!-- parfor:end -->"


def gpu_config(workers, folder):
    path = os.path.join(folder, f"parfor_gpu_{workers}.xml")
    with open(path, "w") as f:
        f.write(f"<root>\n<dmlrt.gpu.parfor.workers.per.gpu>{workers}"
                f"</dmlrt.gpu.parfor.workers.per.gpu>\n</root>\n")
    return path


def mpirun(ranks):
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd + ["--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo"]


def loop_seconds(dmlrt, plan, threads, repeat, extra=(), prefix=()):
    best = None
    for _ in range(repeat):
        r = subprocess.run([*prefix, dmlrt, "-f", plan, "-threads", str(threads), *extra],
                           capture_output=True, text=True)
        m = LOOP.search(r.stdout)
        if r.returncode != 0 or not m:
            raise RuntimeError(f"{plan} with {threads} threads: {(r.stderr or r.stdout)[-300:]}")
        t = float(m.group(1)) / 1e3
        best = t if best is None else min(best, t)
    return best


def run(args):
    n = args.threads or os.cpu_count() or 1
    records = []
    for name in sorted(f[:-5] for f in os.listdir(PLANS) if f.endswith(".plan")):
        plan = os.path.join(PLANS, name + ".plan")
        one = loop_seconds(args.dmlrt, plan, 1, args.repeat)
        many = loop_seconds(args.dmlrt, plan, n, args.repeat)
        rec = {"machine": args.machine, "case": name, "threads": n, "one_thread_s": one, "n_threads_s": many,
               "speedup": one / many, "efficiency": one / many / n}
        if args.gpu_workers:
            w = args.gpu_workers
            cfg_dir = os.path.dirname(os.path.abspath(args.out))
            g1 = loop_seconds(args.dmlrt, plan, n, args.repeat,
                              ["-gpu", "-config", gpu_config(1, cfg_dir)])
            gw = loop_seconds(args.dmlrt, plan, n, args.repeat,
                              ["-gpu", "-config", gpu_config(w, cfg_dir)])
            rec.update({"gpu_workers": w, "gpu_one_worker_s": g1, "gpu_w_workers_s": gw,
                        "gpu_speedup": g1 / gw})
        if args.mpi_ranks:
            m = loop_seconds(args.dmlrt, plan, 1, args.repeat, prefix=mpirun(args.mpi_ranks))
            rec.update({"mpi_ranks": args.mpi_ranks, "mpi_s": m, "mpi_speedup": one / m})
        records.append(rec)
        print(json.dumps(rec), flush=True)
    with open(args.out, "w") as f:
        json.dump(records, f, indent=1)
    return 0


def markdown_block(records, header):
    lines = [BEGIN, "## PARFOR on the cores and on the GPU (issue #20)", ""]
    lines += [f"- {h}" for h in header] + [""]
    lines += ["Seconds of the PARFOR loop (the script's time() calls around it, data generation "
              "excluded), best of the repeats: one thread (the loop in order, every kernel on "
              "one core) against N threads (N workers, each running its kernels and BLAS calls "
              "on its own thread). Written by `bench/parfor_bench.py markdown`.", "",
              "| machine | case | N | 1 thread | N threads | speed-up | efficiency |",
              "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r.get('machine', '')} | {r['case']} | {r['threads']} | "
                     f"{r['one_thread_s']:.3f} s | "
                     f"{r['n_threads_s']:.3f} s | {r['speedup']:.2f}x | "
                     f"{100 * r['efficiency']:.0f}% |")
    ranks = [r for r in records if "mpi_ranks" in r]
    if ranks:
        lines += ["", "Under `mpirun -np R` (Note [MPI ranks]), one thread per rank, against one "
                  "process with one thread.", "",
                  "| machine | case | R | 1 process | R ranks | speed-up | efficiency |",
                  "|---|---|---|---|---|---|---|"]
        for r in ranks:
            lines.append(f"| {r.get('machine', '')} | {r['case']} | {r['mpi_ranks']} | "
                         f"{r['one_thread_s']:.3f} s | {r['mpi_s']:.3f} s | "
                         f"{r['mpi_speedup']:.2f}x | "
                         f"{100 * r['mpi_speedup'] / r['mpi_ranks']:.0f}% |")
    gpu = [r for r in records if "gpu_workers" in r]
    if gpu:
        lines += ["", "With `-gpu` (every iteration's operators on the one GPU): one worker (SystemDS's "
                  "rule for one GPU: the loop in order) against W workers sharing the GPU, each on "
                  "a session and stream of its own (`dmlrt.gpu.parfor.workers.per.gpu`).", "",
                  "| case | W | 1 worker | W workers | speed-up | efficiency |",
                  "|---|---|---|---|---|---|"]
        for r in gpu:
            lines.append(f"| {r['case']} | {r['gpu_workers']} | {r['gpu_one_worker_s']:.3f} s | "
                         f"{r['gpu_w_workers_s']:.3f} s | {r['gpu_speedup']:.2f}x | "
                         f"{100 * r['gpu_speedup'] / r['gpu_workers']:.0f}% |")
    lines.append(END)
    return "\n".join(lines)


def main(argv):
    ap, _, r = run_and_markdown_parsers(__doc__, os.path.join(HERE, "RESULTS.md"))
    r.add_argument("--threads", type=int, default=0, help="N (default: every core)")
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--machine", default="", help="a label for the machine column")
    r.add_argument("--mpi-ranks", type=int, default=0,
                   help="also time `mpirun -np R` with one thread per rank")
    r.add_argument("--gpu-workers", type=int, default=0,
                   help="also time -gpu with 1 and with this many workers sharing the GPU")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        a.dmlrt = os.path.abspath(a.dmlrt)
        return run(a)
    return write_markdown_section(a, BEGIN, END, markdown_block)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

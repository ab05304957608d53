#!/usr/bin/env python3
"""Times the LeNet training plan of bench/lenet/ through the dmlrt CLI
(`dmlrt -f lenet.plan -gpu force -stats 100`, FP64 and `-precision single`) and writes ms per
training step as report.py's input (section "lenet", name "train_step_b64").

    python3 bench/lenet_time.py --dmlrt build-gpu/carry/dmlrt --out lenet.json

How (bench/lenet/README.md describes the plan): the plan's header names the batch and the
iteration count it was captured for (`# arguments: -nvargs ... iters=20 batch=64 ...`);
make_inputs.py writes inputs for them into a scratch folder, which is the working directory of
every run (the plan reads in/ and writes out/). A second plan is the same text with the training
loop's trip count (the FOR's TO literal) raised by --extra-steps (batches wrap around X, as in
mnist_lenet). ms per step = (execution time of the long run - that of the short run) / extra
steps, the best of --repeat runs each, so reading the inputs and start-up cancel. Every run of a
precision shares one fresh cuDNN algorithm cache (XDG_CACHE_HOME in the scratch folder), filled by
an untimed warm-up run of the short plan first: no timed run autotunes. (Before 2026-11-30 the
short run autotuned while the long one found the cache, which subtracted the autotuning from the
long run; with 200 extra steps and one run each that moved the result by up to 1 ms per step.)
-stats confirms the step counts (two conv2d_backward_filter per step). The timed runs count GPU
instructions without timing each by a pair of CUDA events (dmlrt.stats.gpu.events=false: PyTorch
eager pays no such cost); one more run of each plan with the events gives the per-instruction
breakdown (per_step_ms) and with_gpu_events_ms. Without the folder or its plan: a record saying
so, exit 0.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

NAME = "train_step_b64"
HEAVY = re.compile(r"^\s*\d+\s+(\S+)\s+([0-9.]+)\s+(\d+)\s*$")
EXEC = re.compile(r"Total execution time:\s*([0-9.]+)\s*sec")
ARGS = re.compile(r"^#\s*arguments:\s*-nvargs\s+(.*)$", re.M)


def parse_stats(text):
    """(execution seconds or None, [(instruction, seconds, count)]) from dmlrt -stats output."""
    m = EXEC.search(text)
    heavy = []
    in_table = False
    for line in text.splitlines():
        if line.startswith("Heavy hitter instructions"):
            in_table = True
            continue
        if in_table:
            h = HEAVY.match(line)
            if h:
                heavy.append((h.group(1), float(h.group(2)), int(h.group(3))))
    return (float(m.group(1)) if m else None), heavy


def plan_arguments(text):
    """The -nvargs the plan was captured with, from its '# arguments:' header line."""
    m = ARGS.search(text)
    if not m:
        return {}
    return dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)


def with_trip_count(text, old, new):
    """The plan with the training loop's TO literal `old` replaced by `new`; exactly one FOR may
    have that TO predicate, else ValueError."""
    pat = re.compile(r"(\n-+TO\n-+CP°assignvar°)" + str(old) + r"(·SCALAR·INT64·true°__pred·SCALAR·INT64\n)")
    found = pat.findall(text)
    if len(found) != 1:
        raise ValueError(f"expected one FOR loop with TO literal {old}, found {len(found)}")
    return pat.sub(lambda m: m.group(1) + str(new) + m.group(2), text)


def prepare_work(work, extra_steps, lenet_dir=os.path.join(os.path.dirname(os.path.abspath(__file__)), "lenet")):
    """A scratch folder for the LeNet plan: inputs in work/in (make_inputs.py), work/out, and
    short.plan (as captured) and long.plan (extra_steps more training steps). Returns the captured
    (iterations, batch). For the probes (lenet_graphs_probe.py, lenet_kernels.py, hostprof.sh)."""
    text = open(os.path.join(lenet_dir, "lenet.plan")).read()
    nv = plan_arguments(text)
    iters, batch = int(nv["iters"]), int(nv["batch"])
    subprocess.run([sys.executable, os.path.join(lenet_dir, "make_inputs.py"), "--batch", str(batch),
                    "--iters", str(iters), "--dir", os.path.join(work, "in")],
                   check=True, capture_output=True, timeout=120)
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    with open(os.path.join(work, "short.plan"), "w") as f:
        f.write(text)
    with open(os.path.join(work, "long.plan"), "w") as f:
        f.write(with_trip_count(text, iters, iters + extra_steps))
    return iters, batch


def backward_filter_count(heavy):
    return sum(c for name, _, c in heavy if name in ("conv2d_backward_filter", "gpu_conv2d_backward_filter"))


def gpu_share(heavy):
    tot = sum(s for _, s, _ in heavy)
    gpu = sum(s for n, s, _ in heavy if n.startswith("gpu_"))
    return gpu / tot if tot > 0 else None


# -config for the timed runs: GPU instructions counted by -stats but not timed by CUDA events.
NO_EVENTS_XML = "no_gpu_events.xml"
# --graphs: the same, and one for the runs with events, with dmlrt.gpu.graphs on (issue #19);
# without it both set graphs off.
GRAPHS_XML = "graphs.xml"


def run_plan(dmlrt, plan, dtype, work, timeout, events=False, graphs=False):
    cmd = [os.path.abspath(dmlrt), "-f", plan, "-gpu", "force", "-stats", "100"]
    if dtype == "fp32":
        cmd += ["-precision", "single"]
    # Both files name dmlrt.gpu.graphs as --graphs asks (`graphs` only says which record it is).
    cmd += ["-config", NO_EVENTS_XML if not events else GRAPHS_XML]
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache-" + dtype))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t0
    exec_s, heavy = parse_stats(p.stdout)
    if p.returncode != 0 or exec_s is None:
        raise RuntimeError(f"dmlrt exited {p.returncode}: {p.stderr[-600:]}")
    return {"cmd": " ".join(cmd), "wall_s": wall, "exec_s": exec_s, "heavy": heavy}


def per_step_breakdown(short_heavy, long_heavy, extra_steps):
    """[(instruction, ms per step, calls per step)] from the heavy hitters of the short and the
    long run: the difference over the extra steps, so that start-up and autotuning cancel."""
    short = {name: (sec, count) for name, sec, count in short_heavy}
    rows = []
    for name, sec, count in long_heavy:
        s_sec, s_count = short.get(name, (0.0, 0))
        rows.append((name, round((sec - s_sec) * 1e3 / extra_steps, 4),
                     round((count - s_count) / extra_steps, 2)))
    rows.sort(key=lambda r: -r[1])
    return rows[:25]


def measure(args, work, plans, steps, dtype):
    """One record: ms per step from the short and the long plan (best of args.repeat each)."""
    short, long_ = plans
    g = args.graphs
    rec = {"section": "lenet", "name": NAME + ("_graphs" if g else ""), "dtype": dtype,
           "dmlrt_ms": None, "extra": {"batch": args.batch, "steps": list(steps), "graphs": g}}
    def checked(r, n):
        got = backward_filter_count(r["heavy"])
        if got != 2 * n:
            raise RuntimeError(f"-stats shows {got} conv2d_backward_filter for {n} steps (expected {2 * n})")
        return r

    try:
        run_plan(args.dmlrt, short, dtype, work, args.timeout, graphs=g)  # fills the algorithm cache
        best, timed = [], []
        for plan, n in ((short, steps[0]), (long_, steps[1])):
            runs = [checked(run_plan(args.dmlrt, plan, dtype, work, args.timeout, graphs=g), n)
                    for _ in range(args.repeat)]
            best.append(min(runs, key=lambda x: x["exec_s"]))
            # The breakdown: one more run with every GPU instruction timed by CUDA events.
            timed.append(checked(run_plan(args.dmlrt, plan, dtype, work, args.timeout, events=True,
                                          graphs=g), n))
        extra_steps = steps[1] - steps[0]
        rec["dmlrt_ms"] = (best[1]["exec_s"] - best[0]["exec_s"]) * 1e3 / extra_steps
        rec["extra"].update(
            method=f"(execution time of {steps[1]} steps - of {steps[0]} steps) / {extra_steps}",
            exec_s=[b["exec_s"] for b in best], wall_s=[b["wall_s"] for b in best],
            whole_run_ms_per_step=best[0]["exec_s"] * 1e3 / steps[0],
            with_gpu_events_ms=(timed[1]["exec_s"] - timed[0]["exec_s"]) * 1e3 / extra_steps,
            gpu_time_share=gpu_share(timed[1]["heavy"]), cmd=best[1]["cmd"], top=timed[1]["heavy"][:12],
            per_step_ms=per_step_breakdown(timed[0]["heavy"], timed[1]["heavy"], extra_steps))
    except subprocess.TimeoutExpired:
        rec["extra"]["error"] = f"a dmlrt run took longer than {args.timeout} s"
    except Exception as e:  # noqa: BLE001 - recorded; the other precision still runs
        rec["extra"]["error"] = f"{type(e).__name__}: {e}"
    return rec


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dmlrt", required=True)
    ap.add_argument("--out", default="lenet.json")
    ap.add_argument("--lenet-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "lenet"))
    ap.add_argument("--dtypes", default="fp64,fp32")
    # The runs' start-up (CUDA context, inputs, first kernel loads: ~0.8 s on the H200) varies by
    # ~0.1 s between runs; over 500 extra steps that moved FP32 results by 0.4 ms per step.
    ap.add_argument("--extra-steps", type=int, default=2000, help="steps the long run adds (default 2000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each plan; the fastest counts")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per dmlrt run")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--graphs", action="store_true",
                    help="runs with dmlrt.gpu.graphs on (records named train_step_b64_graphs)")
    args = ap.parse_args(argv)
    doc = {"tool": "lenet_time", "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "records": []}

    def write():
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")

    def skip(why, rc=0):
        doc["skipped"] = why
        print(f"lenet_time: {why}", file=sys.stderr)
        write()
        return rc

    write()  # a run stopped by its time limit leaves at least this
    plan_path = os.path.join(args.lenet_dir, "lenet.plan")
    maker = os.path.join(args.lenet_dir, "make_inputs.py")
    if not os.path.isdir(args.lenet_dir):
        return skip(f"{args.lenet_dir} is not there yet: LeNet plan timing skipped")
    if not os.path.isfile(plan_path) or not os.path.isfile(maker):
        return skip(f"{args.lenet_dir} has no lenet.plan and make_inputs.py: LeNet plan timing skipped")
    if not os.access(args.dmlrt, os.X_OK):
        return skip(f"no dmlrt executable at {args.dmlrt}", rc=1)
    with open(plan_path) as f:
        text = f.read()
    nv = plan_arguments(text)
    try:
        iters, args.batch = int(nv["iters"]), int(nv["batch"])
        long_text = with_trip_count(text, iters, iters + args.extra_steps)
    except (KeyError, ValueError) as e:
        return skip(f"cannot read the iteration count and batch of {plan_path}: {e}", rc=1)
    doc["plan"] = os.path.relpath(plan_path)
    work = tempfile.mkdtemp(prefix="dmlrt-lenet-")
    try:
        s = subprocess.run([sys.executable, maker, "--batch", str(args.batch), "--iters", str(iters),
                            "--dir", os.path.join(work, "in")], capture_output=True, text=True, timeout=120)
        if s.returncode != 0:
            return skip(f"make_inputs.py failed: {s.stderr[-600:]}", rc=1)
        os.makedirs(os.path.join(work, "out"), exist_ok=True)
        # Explicit either way (on is the CLI's default since 2026-12-03): train_step_b64 stays the
        # eager step, train_step_b64_graphs the replayed one.
        graphs_key = f"<dmlrt.gpu.graphs>{'on' if args.graphs else 'off'}</dmlrt.gpu.graphs>"
        with open(os.path.join(work, NO_EVENTS_XML), "w") as f:
            f.write(f"<root><dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events>{graphs_key}</root>\n")
        with open(os.path.join(work, GRAPHS_XML), "w") as f:
            f.write(f"<root>{graphs_key}</root>\n")
        shutil.copy(plan_path, os.path.join(work, "short.plan"))
        with open(os.path.join(work, "long.plan"), "w") as f:
            f.write(long_text)
        for dt in [d for d in args.dtypes.split(",") if d]:
            rec = measure(args, work, ("short.plan", "long.plan"), (iters, iters + args.extra_steps), dt)
            doc["records"].append(rec)
            ms = rec["dmlrt_ms"]
            print(f"[lenet] {dt}: {'-' if ms is None else f'{ms:.4g}'} ms/step"
                  + (f" [error: {rec['extra']['error']}]" if "error" in rec["extra"] else ""), file=sys.stderr)
            write()
    finally:
        if args.keep:
            print(f"lenet_time: scratch folder kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Where the LeNet step's time goes with CUDA graphs (issue #19): the LeNet plan of bench/lenet
through the dmlrt CLI (`-gpu force`, no CUDA events), run with the training loop at its captured
trip count and at that plus --extra-steps, in several variants, each the best of --repeat runs:

  eager        dmlrt.gpu.graphs off
  graphs       dmlrt.gpu.graphs on
  graphs+ev    graphs on with every GPU instruction and graph launch timed by CUDA events
  eager+ev     graphs off, CUDA events on (the heavy hitters give each instruction's GPU time)
  graphs+env   graphs on with environment variables given by --env NAME=VALUE (an experiment)
  graphs+cfg   graphs on with more configuration (--graphs-config XML, an experiment)

ms per step = (long run - short run) / extra steps, as bench/lenet_time.py computes it. From the
long run it also keeps the "CUDA graphs" lines of -stats (replays, the host time per walked
instruction, fallbacks). Prints one line per variant and precision and writes --out as JSON.

    python3 bench/lenet_graphs_probe.py --dmlrt build-gpu/carry/dmlrt --out probe.json
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lenet_time  # noqa: E402


def run(dmlrt, plan, dtype, work, config, env_extra, timeout):
    cmd = [dmlrt, "-f", plan, "-gpu", "force", "-stats", "40", "-config", config]
    if dtype == "fp32":
        cmd += ["-precision", "single"]
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache-" + dtype), **env_extra)
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout, env=env)
    exec_s, _ = lenet_time.parse_stats(p.stdout)
    if p.returncode != 0 or exec_s is None:
        raise RuntimeError(f"dmlrt exited {p.returncode}: {p.stderr[-600:]}")
    lines = p.stdout.splitlines()
    graph_lines = [l.strip() for l in lines
                   if l.startswith("CUDA graphs") or l.startswith("  graph ") or l.startswith("graph ")]
    # The heavy hitters (with CUDA events, the GPU time of each instruction): where a step's
    # device time goes.
    top = next((k for k, l in enumerate(lines) if l.startswith("Heavy hitter")), None)
    if top is not None:
        graph_lines += [l.rstrip() for l in lines[top:top + 42]]
    return exec_s, graph_lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dmlrt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--extra-steps", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dtypes", default="fp64,fp32")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the graphs+env variant")
    ap.add_argument("--graphs-config", default="",
                    help="configuration XML added to graphs on for a graphs+cfg variant, "
                         "e.g. '<dmlrt.gpu.graphs.chunk>1M</dmlrt.gpu.graphs.chunk>'")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args(argv)
    dmlrt = os.path.abspath(args.dmlrt)
    work = tempfile.mkdtemp(prefix="dmlrt-probe-")
    results = []
    try:
        lenet_time.prepare_work(work, args.extra_steps)
        configs = {
            "eager": ("<dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events>"
                      "<dmlrt.gpu.graphs>off</dmlrt.gpu.graphs>", {}),
            "graphs": ("<dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events>"
                       "<dmlrt.gpu.graphs>on</dmlrt.gpu.graphs>", {}),
            "graphs+ev": ("<dmlrt.gpu.graphs>on</dmlrt.gpu.graphs>", {}),
            # each instruction's GPU time in the heavy hitters
            "eager+ev": ("<dmlrt.gpu.graphs>off</dmlrt.gpu.graphs>", {}),
        }
        if args.graphs_config:
            configs["graphs+cfg"] = (configs["graphs"][0] + args.graphs_config, {})
        if args.env:
            configs["graphs+env"] = (configs["graphs"][0], dict(e.split("=", 1) for e in args.env))
        for name, (xml, _) in configs.items():
            with open(os.path.join(work, name + ".xml"), "w") as f:
                f.write(f"<root>{xml}</root>\n")
        for dtype in [d for d in args.dtypes.split(",") if d]:
            run(dmlrt, "short.plan", dtype, work, "eager.xml", {}, args.timeout)  # algorithm cache
            for name, (_, env_extra) in configs.items():
                rec = {"variant": name, "dtype": dtype, "env": env_extra}
                try:
                    shorts = [run(dmlrt, "short.plan", dtype, work, name + ".xml", env_extra, args.timeout)
                              for _ in range(args.repeat)]
                    longs = [run(dmlrt, "long.plan", dtype, work, name + ".xml", env_extra, args.timeout)
                             for _ in range(args.repeat)]
                    s = min(x[0] for x in shorts)
                    best = min(longs, key=lambda x: x[0])
                    rec.update(ms_per_step=(best[0] - s) * 1e3 / args.extra_steps,
                               short_s=s, long_s=best[0], graph_lines=best[1])
                except Exception as e:  # noqa: BLE001 - recorded; the other variants still run
                    rec["error"] = f"{type(e).__name__}: {e}"
                results.append(rec)
                ms = rec.get("ms_per_step")
                print(f"[probe] {dtype} {name}: {'-' if ms is None else f'{ms:.3f}'} ms/step "
                      + " | ".join(l for l in rec.get("graph_lines", []) if "host time" in l)
                      + rec.get("error", ""), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        with open(args.out, "w") as f:
            json.dump({"extra_steps": args.extra_steps, "records": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

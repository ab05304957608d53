#!/usr/bin/env python3
"""The device time of a LeNet step, kernel by kernel, in dmlrt and in PyTorch (issue #19: is the
gap to PyTorch's CUDA-graph step in the kernels or in the time between them?). Both run under
Nsight Compute (`ncu --metrics gpu__time_duration.sum`), which serialises kernels and measures
each one's duration alone:

  dmlrt    the LeNet plan of bench/lenet through the CLI (-gpu force, graphs off: the same
           kernels a replay launches), a window of --count kernels after --skip (past the
           warm-up steps); the steps in the window are counted by the softmax's row max
           (a reduce_rows kernel with Agg<4>), which runs once per step.
  torch    bench/torch_anchor.py's step with the plan's work (L2 terms, loss read every step),
           eager, --steps steps between cudaProfilerStart and Stop.

Prints, per precision and side, the kernels' total time per step and the ten largest kernel
names, and writes --out as JSON (every kernel name: launches, total us).

    python3 bench/lenet_kernels.py --dmlrt build-gpu/carry/dmlrt --out kernels.json
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lenet_time  # noqa: E402

TORCH_STEP = r'''
import sys, torch, torch.nn as nn, torch.nn.functional as F
dt = torch.float64 if sys.argv[1] == "fp64" else torch.float32
steps = int(sys.argv[2])
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
torch.manual_seed(42)
model = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, 10)).to(device=dev, dtype=dt)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
weights = [m.weight for m in model if isinstance(m, (nn.Conv2d, nn.Linear))]
batches = [(torch.rand(64, 1, 28, 28, device=dev, dtype=dt), torch.randint(0, 10, (64,), device=dev))
           for _ in range(4)]
def step(i):
    x, y = batches[i % 4]
    opt.zero_grad(set_to_none=True)
    loss_data = F.cross_entropy(model(x), y)
    loss = loss_data + sum(0.5 * 5e-4 * (w * w).sum() for w in weights)
    line = f"iteration {i}: loss {loss.item()}, data loss {loss_data.item()}"
    loss.backward()
    opt.step()
for i in range(20):
    step(i)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for i in range(steps):
    step(i)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
'''


def ncu_table(cmd, env, cwd, timeout):
    """{kernel name: [launches, total us]} from ncu's CSV of gpu__time_duration.sum."""
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    start = p.stdout.find('"ID"')
    if start < 0:
        raise RuntimeError(f"no ncu table (rc {p.returncode}): {p.stdout[-800:]} {p.stderr[-800:]}")
    table = {}
    seq = []  # (name, us) in launch order
    for row in csv.DictReader(io.StringIO(p.stdout[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        us = value / 1e3 if unit == "ns" else value * 1e3 if unit == "msecond" else value
        name = row["Kernel Name"][:120]
        e = table.setdefault(name, [0, 0.0])
        e[0] += 1
        e[1] += us
        seq.append((name, us))
    return table, seq


def summary(table, steps):
    total = sum(us for _, us in table.values())
    top = sorted(table.items(), key=lambda kv: -kv[1][1])[:12]
    return {"steps": steps, "kernels_per_step": sum(n for n, _ in table.values()) / steps,
            "us_per_step": total / steps,
            "top": [(name, n / steps, us / steps) for name, (n, us) in top]}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dmlrt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--skip", type=int, default=3000)
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--dtypes", default="fp64,fp32")
    ap.add_argument("--timeout", type=int, default=240)
    args = ap.parse_args(argv)
    dmlrt = os.path.abspath(args.dmlrt)
    work = tempfile.mkdtemp(prefix="dmlrt-kernels-")
    results = {}
    try:
        lenet_time.prepare_work(work, 60)
        with open(os.path.join(work, "eager.xml"), "w") as f:  # graphs are on by default
            f.write("<root><dmlrt.gpu.graphs>off</dmlrt.gpu.graphs></root>\n")
        with open(os.path.join(work, "torch_step.py"), "w") as f:
            f.write(TORCH_STEP)
        for dt in [d for d in args.dtypes.split(",") if d]:
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache-" + dt))
            cmd = [dmlrt, "-f", "long.plan", "-gpu", "force", "-config", "eager.xml"] + (
                ["-precision", "single"] if dt == "fp32" else [])
            try:
                subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=args.timeout, check=True)
                t, seq = ncu_table([args.ncu, "--csv", "--metrics", "gpu__time_duration.sum",
                                    "--launch-skip", str(args.skip), "--launch-count", str(args.count)]
                                   + cmd, env, work, args.timeout)
                # The softmax's row max (uarmax: reduce_rows with Agg<4>) runs once per step.
                marks = [k for k, (name, _) in enumerate(seq) if "reduce_rows" in name and "Agg<4>" in name]
                steps = max(1, len(marks))
                one = seq[marks[0]:marks[1]] if len(marks) >= 2 else []
                results[f"dmlrt_{dt}"] = dict(summary(t, steps), table=t, one_step=one)
                print(f"[kernels] dmlrt {dt}: one step in launch order ({len(one)} kernels):")
                for name, us in one:
                    print(f"    {us:8.1f} us  {name[:90]}")
            except Exception as e:  # noqa: BLE001 - recorded; the other runs still go
                results[f"dmlrt_{dt}"] = {"error": f"{type(e).__name__}: {e}"}
            try:
                t, _ = ncu_table([args.ncu, "--csv", "--profile-from-start", "off", "--metrics",
                               "gpu__time_duration.sum", sys.executable, "torch_step.py", dt,
                               str(args.steps)], env, work, args.timeout)
                results[f"torch_{dt}"] = dict(summary(t, args.steps), table=t)
            except Exception as e:  # noqa: BLE001
                results[f"torch_{dt}"] = {"error": f"{type(e).__name__}: {e}"}
            for side in ("dmlrt", "torch"):
                r = results[f"{side}_{dt}"]
                if "error" in r:
                    print(f"[kernels] {side} {dt}: {r['error'][:300]}")
                    continue
                print(f"[kernels] {side} {dt}: {r['us_per_step']:.1f} us/step in "
                      f"{r['kernels_per_step']:.1f} kernels (steps in window {r['steps']})")
                for name, n, us in r["top"]:
                    print(f"    {us:8.1f} us  {n:5.2f}x  {name[:100]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

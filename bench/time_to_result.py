#!/usr/bin/env python3
"""Time to result from a fresh process (issue #22): the LeNet 20-step plan of bench/lenet/ and
lmCG on X read from CSV (bench/ttr/), through `dmlrt -f ... -gpu force -stats`, cold (an empty
tuning cache: cuDNN finds and GEMM plans are timed) and warm (a second run finds both persisted),
against PyTorch doing the same work from a fresh `python3` process: import torch, read the same
CSV files, cudnn.benchmark on, train / solve, write the same outputs.

    python3 bench/time_to_result.py run --dmlrt build-gpu/carry/dmlrt --out ttr.json
    python3 bench/time_to_result.py markdown ttr.json --date ... --device ... --commit ... \
        --command ...          (the section of bench/RESULTS.md)

Each row is the wall time of the whole process (start to exit) and, for dmlrt, the -stats lines
that split it: execution, input reading (Note [Read time]) and autotuning (the GPU block's
"GPU autotuning time" line). `tuning_share` is autotuning / execution: the target is <= 5% warm.
PyTorch has no persisted tuning, so its cold and warm runs do the same work (the second one
with the files in the page cache, as dmlrt's warm run has them). FP64 throughout, the plans'
precision. Inputs are written once per run into a scratch folder by the inputs' generators.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from algo_bench import run_and_markdown_parsers, write_markdown_section  # noqa: E402
EXEC = re.compile(r"Total execution time:\s*([0-9.]+)\s*sec")
READ = re.compile(r"Input read time:\s*([0-9.]+)\s*sec")
TUNE = re.compile(r"GPU autotuning time \(conv find / gemm plans\):\s*([0-9.]+) / ([0-9.]+) sec, "
                  r"shapes timed (\d+) / (\d+), from the tuning cache (\d+) / (\d+)")


def parse_dmlrt_stats(text):
    """The -stats lines this bench reads; None where a line is missing."""
    out = {"exec_s": None, "read_s": 0.0, "tune_s": None, "timed": None, "from_cache": None}
    m = EXEC.search(text)
    if m:
        out["exec_s"] = float(m.group(1))
    m = READ.search(text)
    if m:
        out["read_s"] = float(m.group(1))
    m = TUNE.search(text)
    if m:
        out["tune_s"] = float(m.group(1)) + float(m.group(2))
        out["timed"] = int(m.group(3)) + int(m.group(4))
        out["from_cache"] = int(m.group(5)) + int(m.group(6))
    if out["exec_s"] and out["tune_s"] is not None:
        out["tuning_share"] = out["tune_s"] / out["exec_s"]
    return out


def timed_process(cmd, cwd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return wall, p


# ---- PyTorch from files (run in a fresh process by `run`) -------------------------------------

def read_csv(path):
    """pandas.read_csv where pandas is installed (the fast reader a PyTorch user would take),
    else numpy.loadtxt."""
    import numpy as np
    try:
        import pandas as pd
    except ImportError:
        return np.loadtxt(path, delimiter=",", ndmin=2)
    return pd.read_csv(path, header=None, dtype="float64").to_numpy()


def torch_lenet(folder, iters, batch):
    t_start = time.perf_counter()
    import numpy as np
    import torch
    F = torch.nn.functional
    t_import = time.perf_counter()
    torch.zeros(1, device="cuda")  # CUDA's context, timed apart from the reading
    t_cuda = time.perf_counter()
    torch.backends.cudnn.benchmark = True
    dev, dt = torch.device("cuda"), torch.float64
    inp = {n: read_csv(os.path.join(folder, "in", n + ".csv"))
           for n in ["X", "Y", "W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"]}
    t_read = time.perf_counter()
    g = {k: torch.tensor(v, device=dev, dtype=dt) for k, v in inp.items()}
    X = (g["X"] / 255).reshape(-1, 1, 28, 28)
    labels = g["Y"].argmax(dim=1)
    params = [g["W1"].reshape(32, 1, 5, 5), g["b1"].reshape(32), g["W2"].reshape(64, 32, 5, 5),
              g["b2"].reshape(64), g["W3"].t().contiguous(), g["b3"].reshape(512),
              g["W4"].t().contiguous(), g["b4"].reshape(10)]
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.9, nesterov=True)
    lam, n = 5e-4, X.shape[0]
    probs = None
    for i in range(iters):
        beg = (i * batch) % n
        xb, yb = X[beg:beg + batch], labels[beg:beg + batch]
        opt.zero_grad(set_to_none=True)
        h = F.max_pool2d(F.relu(F.conv2d(xb, params[0], params[1], padding=2)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, params[2], params[3], padding=2)), 2)
        h = F.relu(F.linear(h.flatten(1), params[4], params[5]))
        logits = F.linear(h, params[6], params[7])
        loss_data = F.cross_entropy(logits, yb)
        loss = loss_data + sum(0.5 * lam * (w * w).sum() for w in params[0::2])
        print(f"iteration {i + 1}: loss {loss.item()}, data loss {loss_data.item()}")
        probs = torch.softmax(logits, dim=1)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    t_train = time.perf_counter()
    out = os.path.join(folder, "out_torch")
    os.makedirs(out, exist_ok=True)
    np.savetxt(os.path.join(out, "probs.csv"), probs.detach().cpu().numpy(), delimiter=",")
    for name, p in zip(["W1", "b1", "b2", "b3", "b4"], [params[0], params[1], params[3],
                                                         params[5], params[7]]):
        np.savetxt(os.path.join(out, name + ".csv"), p.detach().reshape(p.shape[0], -1).cpu(),
                   delimiter=",")
    t_end = time.perf_counter()
    return {"import_s": t_import - t_start, "cuda_init_s": t_cuda - t_import,
            "read_s": t_read - t_cuda, "train_s": t_train - t_read, "write_s": t_end - t_train}


def torch_lmcg(folder, iters=20, reg=1e-3):
    t_start = time.perf_counter()
    import numpy as np
    import torch
    t_import = time.perf_counter()
    torch.zeros(1, device="cuda")  # CUDA's context, timed apart from the reading
    t_cuda = time.perf_counter()
    X = torch.tensor(read_csv(os.path.join(folder, "in", "X.csv")), device="cuda")
    y = torch.tensor(read_csv(os.path.join(folder, "in", "y.csv")), device="cuda")
    t_read = time.perf_counter()
    r = -(X.t() @ y)
    p = -r
    nr2 = (r * r).sum()
    beta = torch.zeros_like(p)
    for _ in range(iters):
        q = X.t() @ (X @ p) + reg * p
        alpha = nr2 / (p * q).sum()
        beta = beta + alpha * p
        r = r + alpha * q
        old, nr2 = nr2, (r * r).sum()
        p = -r + (nr2 / old) * p
    b = beta.cpu().numpy()
    t_solve = time.perf_counter()
    os.makedirs(os.path.join(folder, "out_torch"), exist_ok=True)
    np.savetxt(os.path.join(folder, "out_torch", "B.csv"), b, delimiter=",")
    print(f"lmCG: {b.sum()}")
    t_end = time.perf_counter()
    return {"import_s": t_import - t_start, "cuda_init_s": t_cuda - t_import,
            "read_s": t_read - t_cuda, "solve_s": t_solve - t_read, "write_s": t_end - t_solve}


# ---- the bench ---------------------------------------------------------------------------------

CASES = {
    # name -> (plan, inputs generator with its arguments, torch subcommand)
    "lenet_20steps": (os.path.join(HERE, "lenet", "lenet.plan"),
                      [os.path.join(HERE, "lenet", "make_inputs.py"), "--iters", "20",
                       "--batch", "64"], "torch-lenet"),
    "lmCG_csv_10000x1000": (os.path.join(HERE, "ttr", "lmcg_read.plan"),
                            [os.path.join(HERE, "ttr", "make_inputs.py")], "torch-lmcg"),
}


def run_case(name, args, records):
    plan, gen, torch_cmd = CASES[name]
    scratch = tempfile.mkdtemp(prefix="dmlrt_ttr_")
    try:
        subprocess.run([sys.executable] + gen + ["--dir", os.path.join(scratch, "in")], check=True,
                       capture_output=True)
        os.makedirs(os.path.join(scratch, "out"), exist_ok=True)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"))  # cold at first
        for mode in ["cold", "warm"]:
            wall, p = timed_process([os.path.abspath(args.dmlrt), "-f", plan, "-gpu", "force", "-stats", "20"],
                                    scratch, env)
            rec = {"case": name, "backend": "dmlrt -gpu", "mode": mode, "wall_s": wall,
                   "ok": p.returncode == 0}
            rec.update(parse_dmlrt_stats(p.stdout))
            if p.returncode != 0:
                rec["error"] = (p.stderr or p.stdout)[-500:]
            records.append(rec)
            print(json.dumps(rec), flush=True)
        for mode in ["cold", "warm"]:
            wall, p = timed_process([sys.executable, os.path.abspath(__file__), torch_cmd,
                                     "--dir", scratch], scratch, dict(os.environ))
            rec = {"case": name, "backend": "pytorch", "mode": mode, "wall_s": wall,
                   "ok": p.returncode == 0}
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            if p.returncode == 0 and last.startswith("{"):
                rec.update(json.loads(last))
            else:
                rec["error"] = (p.stderr or p.stdout)[-500:]
            records.append(rec)
            print(json.dumps(rec), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


BEGIN, END = "<!-- time-to-result:begin -->", "<!-- time-to-result:end -->"


def markdown_block(records, header):
    by = {}
    for r in records:
        by.setdefault((r["case"], r["backend"]), {})[r["mode"]] = r

    def sec(r, key):
        v = r.get(key) if r else None
        return f"{v:.3f} s" if isinstance(v, (int, float)) else "—"

    lines = [BEGIN, "## Time to result from a fresh process (issue #22)", ""]
    lines += [f"- {h}" for h in header] + [""]
    lines += ["Wall time of the whole process (start to exit; dmlrt: `-f plan -gpu force -stats`, "
              "PyTorch: `python3` importing torch, reading the same CSV files with pandas or "
              "numpy, cudnn.benchmark on, the same steps, the same outputs written). Cold: dmlrt's "
              "tuning cache empty (XDG_CACHE_HOME fresh); warm: the second run, which finds the "
              "cuDNN algorithms and GEMM plans the first one persisted. dmlrt's execution, input "
              "read and autotuning times are its -stats lines; the tuning share is autotuning / "
              "execution (target <= 5% warm). Written by `bench/time_to_result.py markdown`.", ""]
    lines.append("| case | backend | cold | warm | warm execution | warm read | warm autotuning "
                 "(share) | cold autotuning | warm / pytorch warm |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for (case, backend), m in sorted(by.items()):
        cold, warm = m.get("cold"), m.get("warm")
        torch_warm = by.get((case, "pytorch"), {}).get("warm")
        ratio = "—"
        if warm and torch_warm and warm.get("ok") and torch_warm.get("ok"):
            ratio = f"{warm['wall_s'] / torch_warm['wall_s']:.2f}x"
        share = warm.get("tuning_share") if warm else None
        tune = (sec(warm, "tune_s") + (f" ({100 * share:.1f}%)" if share is not None else "")
                if backend != "pytorch" else "—")
        lines.append(f"| {case} | {backend} | {sec(cold, 'wall_s')} | {sec(warm, 'wall_s')} | "
                     f"{sec(warm, 'exec_s') if backend != 'pytorch' else '—'} | "
                     f"{sec(warm, 'read_s')} | {tune} | "
                     f"{sec(cold, 'tune_s') if backend != 'pytorch' else '—'} | "
                     f"{ratio if backend != 'pytorch' else '—'} |")
    failed = [f"{r['case']} {r['backend']} {r['mode']}" for r in records if not r.get("ok")]
    if failed:
        lines += ["", "Failed runs: " + ", ".join(failed) + "."]
    lines.append(END)
    return "\n".join(lines)


def main(argv):
    ap, sub, r = run_and_markdown_parsers(__doc__, os.path.join(HERE, "RESULTS.md"))
    r.add_argument("--cases", nargs="*", default=list(CASES))
    for name in ["torch-lenet", "torch-lmcg"]:
        s = sub.add_parser(name)
        s.add_argument("--dir", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "markdown":
        return write_markdown_section(a, BEGIN, END, markdown_block)
    if a.cmd == "torch-lenet":
        print(json.dumps(torch_lenet(a.dir, 20, 64)))
        return 0
    if a.cmd == "torch-lmcg":
        print(json.dumps(torch_lmcg(a.dir)))
        return 0
    records = []
    for name in a.cases:
        run_case(name, a, records)
    with open(a.out, "w") as f:
        json.dump(records, f, indent=1)
    return 0 if all(r["ok"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

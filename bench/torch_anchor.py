#!/usr/bin/env python3
"""PyTorch anchors for bench: the ten conv layer shapes of reference/peers-and-perf.md §4
(forward, backward-data, backward-filter; FP64 and FP32 with TF32 off; cudnn.benchmark=True) and a
LeNet training step at batch 64 in eager mode (SGD with Nesterov momentum 0.9), each timed with
CUDA events after warm-up: the median of several loops, each at least --target-ms long.

    python3 bench/torch_anchor.py OUT.json [--dtypes fp64,fp32] [--dry-run]

--dry-run needs no torch and no GPU: it lists what would be measured and writes records without
times (report.py's input format). Exits 77 when torch or a CUDA device is missing (without
--dry-run), after writing OUT.json with the reason.
"""
import argparse
import json
import os
import sys
import time

# The ten layer shapes; dmlrt_bench.cpp holds the same list under the same names (report.py joins
# on section, name and dtype). (name, N, C, H, W, K, R, S, stride, pad)
CONV_SHAPES = [
    ("lenet.conv1", 64, 1, 28, 28, 32, 5, 5, 1, 2),
    ("lenet.conv2", 64, 32, 14, 14, 64, 5, 5, 1, 2),
    ("r50.conv1", 64, 3, 224, 224, 64, 7, 7, 2, 3),
    ("r50.s2_3x3", 64, 64, 56, 56, 64, 3, 3, 1, 1),
    ("r50.s2_1x1", 64, 64, 56, 56, 256, 1, 1, 1, 0),
    ("r50.s3_3x3s2", 64, 128, 56, 56, 128, 3, 3, 2, 1),
    ("r50.s4_3x3", 64, 256, 14, 14, 256, 3, 3, 1, 1),
    ("r50.s5_1x1", 64, 2048, 7, 7, 512, 1, 1, 1, 0),
    ("vgg.conv1_2", 64, 64, 224, 224, 64, 3, 3, 1, 1),
    ("vgg.conv4_2", 64, 512, 28, 28, 512, 3, 3, 1, 1),
]
PASSES = ("fwd", "bwd_data", "bwd_filter")
LENET_BATCH = 64


def out_size(h, r, stride, pad):
    return (h + 2 * pad - r) // stride + 1


def shape_dict(s):
    name, n, c, h, w, k, r, sz, stride, pad = s
    return {"N": n, "C": c, "H": h, "W": w, "K": k, "R": r, "S": sz, "stride": stride, "pad": pad}


def gflop(s):
    _, n, c, h, w, k, r, sz, stride, pad = s
    return 2.0 * n * k * out_size(h, r, stride, pad) * out_size(w, sz, stride, pad) * c * r * sz * 1e-9


class Writer:
    """Collects records and rewrites OUT.json after each, so a stopped run keeps what it measured."""

    def __init__(self, path, meta):
        self.path, self.meta, self.records = path, meta, []
        self.write()

    def add(self, rec):
        self.records.append(rec)
        t = rec.get("torch_ms")
        err = rec.get("extra", {}).get("error")
        print(f"[torch] {rec['section']} {rec['name']} {rec['dtype']}: "
              f"{'-' if t is None else f'{t:.4g}'} ms" + (f" [error: {err}]" if err else ""),
              file=sys.stderr, flush=True)
        for key in ("graph_ms", "graph_as_plan_ms"):  # issue #19's anchors, beside eager
            if rec.get("extra", {}).get(key) is not None:
                print(f"[torch] {rec['section']} {rec['name']} {rec['dtype']} {key}: "
                      f"{rec['extra'][key]:.4g} ms", file=sys.stderr, flush=True)
        self.write()

    def write(self):
        doc = dict(self.meta)
        doc["records"] = self.records
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.path)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", default="torch_anchor.json")
    p.add_argument("--dtypes", default="fp64,fp32")
    p.add_argument("--conv-shapes", default="", help="comma-separated shape names (default: all)")
    p.add_argument("--sections", default="conv,lenet")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--target-ms", type=float, default=20.0)
    p.add_argument("--lenet-warmup-steps", type=int, default=20)
    p.add_argument("--budget-s", type=float, default=150.0,
                   help="measurements starting later than this are skipped")
    p.add_argument("--dry-run", action="store_true",
                   help="list the measurements and write records without times (no torch needed)")
    a = p.parse_args(argv)
    a.dtypes = [d for d in a.dtypes.split(",") if d]
    for d in a.dtypes:
        if d not in ("fp64", "fp32"):
            p.error(f"unknown dtype '{d}' (expected fp64, fp32)")
    a.sections = [s for s in a.sections.split(",") if s]
    for s in a.sections:
        if s not in ("conv", "lenet"):
            p.error(f"unknown section '{s}' (expected conv, lenet)")
    names = {s[0] for s in CONV_SHAPES}
    a.conv_shapes = [s for s in a.conv_shapes.split(",") if s]
    for s in a.conv_shapes:
        if s not in names:
            p.error(f"unknown conv shape '{s}' (known: {', '.join(sorted(names))})")
    return a


def planned_records(args):
    """(section, name, dtype, extra) of every measurement, in run order."""
    out = []
    for dt in args.dtypes:
        if "conv" in args.sections:
            for s in CONV_SHAPES:
                if args.conv_shapes and s[0] not in args.conv_shapes:
                    continue
                for ps in PASSES:
                    out.append(("conv", f"{s[0]}.{ps}", dt, {"shape": shape_dict(s), "gflop": gflop(s)}))
        if "lenet" in args.sections:
            out.append(("lenet", f"train_step_b{LENET_BATCH}", dt, {"batch": LENET_BATCH}))
    return out


# ---- measurement (torch imported only here) ----------------------------------------------------

class Timer:
    """CUDA-event timing: warm-up calls, one timed call to size the loop, then `reps` loops of
    `iters` calls, each at least target_ms; the median ms per call (as dmlrt_bench's Timer)."""

    def __init__(self, torch, args):
        self.torch, self.args = torch, args

    def loop_ms(self, fn, iters):
        t = self.torch
        start, stop = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    def time(self, fn, warmup=None):
        for _ in range(self.args.warmup if warmup is None else warmup):
            fn()
        est = self.loop_ms(fn, 1)
        iters = int(min(20000, max(1, -(-self.args.target_ms // max(est, 1e-3)))))
        ms = sorted(self.loop_ms(fn, iters) / iters for _ in range(self.args.reps))
        mid = len(ms) // 2
        median = ms[mid] if len(ms) % 2 else 0.5 * (ms[mid - 1] + ms[mid])
        return median, {"min_ms": ms[0], "max_ms": ms[-1], "iters_per_rep": iters}


def fp64_distance(torch, call, x, wt, dy, stride, pad, ps):
    """||r32 - r64|| / ||r64||: how far the FP32 result of the algorithm cudnn.benchmark picked is
    from the same pass in FP64 on the same inputs (a GEMM-ordered FP32 result is ~1e-7 away; FFT
    and Winograd algorithms ~1e-3: dmlrt leaves those out in FP32, see the README)."""
    got = call().double()
    x64, w64, dy64 = x.double(), wt.double(), dy.double()
    if ps == "fwd":
        ref = torch.nn.functional.conv2d(x64, w64, None, stride, pad)
    else:
        want = [ps == "bwd_data", ps == "bwd_filter", False]
        ref = torch.ops.aten.convolution_backward(dy64, x64, w64, None, [stride, stride], [pad, pad], [1, 1],
                                                  False, [0, 0], 1, want)[0 if ps == "bwd_data" else 1]
    norm = torch.linalg.vector_norm(ref).item()
    diff = torch.linalg.vector_norm(got - ref).item()
    return diff / norm if norm > 0 else diff


def conv_records(torch, timer, s, dt, writer, over_budget):
    name, n, c, h, w, k, r, sz, stride, pad = s
    dtype = torch.float64 if dt == "fp64" else torch.float32
    dev = torch.device("cuda")
    p, q = out_size(h, r, stride, pad), out_size(w, sz, stride, pad)
    gen = torch.Generator(device=dev)
    gen.manual_seed(1234)

    def uniform(*shape):
        return torch.rand(*shape, generator=gen, device=dev, dtype=dtype) * 2 - 1

    x, wt, dy = uniform(n, c, h, w), uniform(k, c, r, sz), uniform(n, k, p, q)
    conv_bwd = torch.ops.aten.convolution_backward
    calls = {
        "fwd": lambda: torch.nn.functional.conv2d(x, wt, None, stride, pad),
        # Gradient of the input only / of the weight only: what torch.nn.grad.conv2d_input and
        # conv2d_weight run, and what autograd runs for each half of a conv's backward.
        "bwd_data": lambda: conv_bwd(dy, x, wt, None, [stride, stride], [pad, pad], [1, 1], False,
                                     [0, 0], 1, [True, False, False])[0],
        "bwd_filter": lambda: conv_bwd(dy, x, wt, None, [stride, stride], [pad, pad], [1, 1], False,
                                       [0, 0], 1, [False, True, False])[1],
    }
    for ps in PASSES:
        rec = {"section": "conv", "name": f"{name}.{ps}", "dtype": dt, "torch_ms": None,
               "extra": {"shape": shape_dict(s), "gflop": gflop(s)}}
        if over_budget():
            rec["extra"]["error"] = "skipped: time budget spent"
            writer.add(rec)
            continue
        try:
            t0 = time.perf_counter()
            calls[ps]()  # cudnn.benchmark's find runs here
            torch.cuda.synchronize()
            rec["extra"]["first_call_ms"] = (time.perf_counter() - t0) * 1e3
            ms, detail = timer.time(calls[ps])
            rec["torch_ms"] = ms
            rec["extra"].update(detail)
            rec["extra"]["tflops"] = gflop(s) / ms * 1e-6
            if dt == "fp32":
                rec["extra"]["rel_err_vs_fp64"] = fp64_distance(torch, calls[ps], x, wt, dy, stride, pad, ps)
        except Exception as e:  # noqa: BLE001 - a failing measurement is recorded, the rest go on
            rec["extra"]["error"] = f"{type(e).__name__}: {e}"
        writer.add(rec)
    del x, wt, dy
    torch.cuda.empty_cache()


def lenet_record(torch, timer, dt, args, writer):
    """One eager training step of the LeNet of bench/lenet/: conv 5x5/32 pad 2, relu,
    maxpool 2, conv 5x5/64 pad 2, relu, maxpool 2, affine 3136x512, relu, affine 512x10, softmax +
    cross-entropy, SGD Nesterov momentum 0.9; batch 64, inputs rotated over 4 batches. torch_ms is
    that step bare; extra.as_plan_ms the step with what lenet.dml does besides (L2 terms, the loss
    read every iteration), the anchor report.py uses."""
    nn, F = torch.nn, torch.nn.functional
    dtype = torch.float64 if dt == "fp64" else torch.float32
    dev = torch.device("cuda")
    rec = {"section": "lenet", "name": f"train_step_b{LENET_BATCH}", "dtype": dt, "torch_ms": None,
           "extra": {"batch": LENET_BATCH, "mode": "eager"}}
    try:
        torch.manual_seed(42)
        model = nn.Sequential(
            nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, 10),
        ).to(device=dev, dtype=dtype)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
        batches = [(torch.rand(LENET_BATCH, 1, 28, 28, device=dev, dtype=dtype),
                    torch.randint(0, 10, (LENET_BATCH,), device=dev)) for _ in range(4)]
        state = {"i": 0}

        def step():
            x, y = batches[state["i"] % 4]
            state["i"] += 1
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)  # log-softmax + negative log-likelihood
            loss.backward()
            opt.step()

        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        rec["extra"]["first_step_ms"] = (time.perf_counter() - t0) * 1e3
        ms, detail = timer.time(step, warmup=args.lenet_warmup_steps)
        rec["torch_ms"] = ms
        rec["extra"].update(detail)
    except Exception as e:  # noqa: BLE001
        rec["extra"]["error"] = f"{type(e).__name__}: {e}"
        writer.add(rec)
        return
    try:
        # The step of lenet.dml itself: its L2 terms (l2_reg::forward, 0.5 * lambda * sum(W^2) for
        # the four weights, lambda 5e-4; their gradient is l2_reg::backward's lambda * W) and the
        # loss and data loss read to the host every iteration for its print line.
        weights = [m.weight for m in model if isinstance(m, (nn.Conv2d, nn.Linear))]
        lam = 5e-4
        lines = []

        def step_as_plan():
            x, y = batches[state["i"] % 4]
            state["i"] += 1
            opt.zero_grad(set_to_none=True)
            loss_data = F.cross_entropy(model(x), y)
            loss = loss_data + sum(0.5 * lam * (w * w).sum() for w in weights)
            lines[:] = [f"iteration {state['i']}: loss {loss.item()}, data loss {loss_data.item()}"]
            loss.backward()
            opt.step()

        ms, detail = timer.time(step_as_plan, warmup=args.lenet_warmup_steps)
        rec["extra"]["as_plan_ms"] = ms
        rec["extra"]["as_plan_timing"] = detail
    except Exception as e:  # noqa: BLE001 - the bare step's time stands
        rec["extra"]["as_plan_error"] = f"{type(e).__name__}: {e}"
    # Issue #19's anchor: the whole step captured once in a CUDA graph (torch.cuda.graph) and
    # replayed, inputs copied into the graph's static tensors; bare (graph_ms) and with the
    # plan's work (graph_as_plan_ms: L2 terms, loss and data loss read after every replay).
    for key, with_plan in (("graph_ms", False), ("graph_as_plan_ms", True)):
        try:
            ms, detail = graph_step_ms(torch, timer, model, batches, state, with_plan, args)
            rec["extra"][key] = ms
            rec["extra"][key.replace("_ms", "_timing")] = detail
        except Exception as e:  # noqa: BLE001 - recorded beside the eager times
            rec["extra"][key.replace("_ms", "_error")] = f"{type(e).__name__}: {e}"
    writer.add(rec)


def graph_step_ms(torch, timer, model, batches, state, with_plan, args):
    """ms per replay of the LeNet step captured as one CUDA graph (PyTorch's documented
    whole-network capture: warm-up on a side stream, grads set to None before capture)."""
    nn, F = torch.nn, torch.nn.functional
    weights = [m.weight for m in model if isinstance(m, (nn.Conv2d, nn.Linear))]
    lam = 5e-4
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
    static_x = batches[0][0].clone()
    static_y = batches[0][1].clone()

    def body():
        loss_data = F.cross_entropy(model(static_x), static_y)
        loss = loss_data
        if with_plan:
            loss = loss_data + sum(0.5 * lam * (w * w).sum() for w in weights)
        loss.backward()
        opt.step()
        return loss, loss_data

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            body()
    torch.cuda.current_stream().wait_stream(side)
    opt.zero_grad(set_to_none=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss, static_data = body()
    lines = []

    def replay():
        x, y = batches[state["i"] % 4]
        state["i"] += 1
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
        if with_plan:
            lines[:] = [f"iteration {state['i']}: loss {static_loss.item()}, "
                        f"data loss {static_data.item()}"]

    return timer.time(replay, warmup=args.lenet_warmup_steps)


def main(argv):
    args = parse_args(argv)
    meta = {"tool": "torch_anchor", "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "dry_run": args.dry_run}
    if args.dry_run:
        meta["note"] = "dry run: nothing measured"
        w = Writer(args.out, meta)
        for section, name, dt, extra in planned_records(args):
            w.records.append({"section": section, "name": name, "dtype": dt, "torch_ms": None,
                              "extra": dict(extra, note="dry run")})
            print(f"[torch] would measure {section} {name} {dt}", file=sys.stderr)
        w.write()
        print(f"torch_anchor: dry run, {len(w.records)} measurements listed in {args.out}")
        return 0
    try:
        import torch
    except ImportError as e:
        meta["error"] = f"torch is not importable ({e}); nothing measured"
        Writer(args.out, meta)
        print(f"torch_anchor: {meta['error']}", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        meta["error"] = "no CUDA device visible to torch; nothing measured"
        Writer(args.out, meta)
        print(f"torch_anchor: {meta['error']}", file=sys.stderr)
        return 77
    # The anchor of DESIGN.md §9: cudnn.benchmark on, TF32 off everywhere (FP32 is FMA math, as
    # dmlrt's default), default benchmark_limit.
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    meta.update({
        "torch_version": torch.__version__,
        "cudnn_version": torch.backends.cudnn.version(),
        "cuda_version": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "cudnn_benchmark": True,
        "cudnn_benchmark_limit": getattr(torch.backends.cudnn, "benchmark_limit", None),
        "allow_tf32": False,
        "options": {"reps": args.reps, "warmup": args.warmup, "target_ms": args.target_ms,
                    "budget_s": args.budget_s},
    })
    w = Writer(args.out, meta)
    timer = Timer(torch, args)
    t_start = time.perf_counter()

    def over_budget():
        return time.perf_counter() - t_start > args.budget_s

    # Warm the clocks (METHOD.md): ~0.3 s of matrix products.
    a = torch.rand(4096, 4096, device="cuda")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        for _ in range(10):
            a @ a
        torch.cuda.synchronize()
    del a
    for dt in args.dtypes:
        if "conv" in args.sections:
            for s in CONV_SHAPES:
                if args.conv_shapes and s[0] not in args.conv_shapes:
                    continue
                conv_records(torch, timer, s, dt, w, over_budget)
        if "lenet" in args.sections:
            if over_budget():
                w.add({"section": "lenet", "name": f"train_step_b{LENET_BATCH}", "dtype": dt,
                       "torch_ms": None, "extra": {"error": "skipped: time budget spent"}})
            else:
                lenet_record(torch, timer, dt, args, w)
    w.meta["seconds"] = time.perf_counter() - t_start
    w.write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

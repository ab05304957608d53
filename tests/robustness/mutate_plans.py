#!/usr/bin/env python3
"""Mutation fuzz of the checked-in plans through the dmlrt CLI (issue 15: reliability in CI).

Each iteration picks a checked-in plan (tests/plans/cases, tests/conformance/cases, examples/plans,
tests/unit/data, fuzz/corpus/parser) with a seeded RNG, applies 1-4 mutations (numbers, operand
swaps, line drops/duplicates/moves, opcodes, data/value types, truncation, random bytes, unbalanced
blocks, dangerous write/read targets inside the scratch folder, -nvargs values, CLI options), copies
the case's inputs into a fresh scratch folder and runs `dmlrt -f mutant.plan ...` there with a
timeout and memory/file-size limits. A run must end with exit 0, 1 or 2 and no signal, print no
sanitizer report, leave every file outside its scratch folder unchanged, and keep the protected
objects inside it (inputs not named as a write target, a folder with files, a FIFO, a device node).
Every failing mutant is saved (plan, command, stderr tail, a repro.sh) under --out; the exit status
is 1 when anything was found. Python 3 standard library only. See tests/robustness/README.md.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRATCH = "@SCRATCH@"  # placeholder for the absolute scratch path, substituted at run time

# Checked-in folders that hold plans and their inputs; none of them may change during a run.
WATCHED_REPO_DIRS = ["tests/plans/cases", "tests/conformance/cases", "examples", "tests/unit/data",
                     "fuzz/corpus"]

# Plans whose unmutated run takes most of the per-run timeout (LeNet training, ~15 s).
DEFAULT_SKIP = ["dnn_lenet"]

FALLBACK_OPCODES = ["createvar", "rmvar", "cpvar", "mvvar", "assignvar", "write", "print", "rand",
                    "seq", "ba+*", "tsmm", "+", "-", "*", "/", "^", "uak+", "r'", "rightIndex",
                    "leftIndex", "append", "solve", "ctable", "rsort", "eigen", "ifelse"]
EXEC_TYPES = ["CP", "CP", "CP", "GPU", "CP_FILE", "SPARK", "FED", "OOC", "cp", "XX", ""]
DATA_TYPES = ["MATRIX", "SCALAR", "FRAME", "LIST", "TENSOR", "UNKNOWN", "matrix", "BOGUS"]
VALUE_TYPES = ["FP64", "FP32", "INT64", "INT32", "STRING", "BOOLEAN", "UNKNOWN", "CHARACTER",
               "HASH64", "BOGUS"]
FORMATS = ["csv", "text", "mm", "binary", "npy", "libsvm", "hdf5", "json", "unknown", ""]
NUMBERS = ["0", "-1", "1", "2", "-7", "3", "0.5", "1.5", "-0.0", "1000000", "2147483647",
           "2147483648", "-2147483649", "4294967296", "1099511627776", "4611686018427387904",
           "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "99999999999999999999999", "1e300", "1.0E300", "-1e300", "1e20", "1e-300", "4.9E-324",
           "NaN", "Infinity", "-Infinity", "nan", "inf", "", "abc", "1,5", "0x10", "1e", "--1"]
INTS = ["0", "-1", "1", "2", "3", "7", "-5", "46341", "1000000", "2147483647", "2147483648",
        "4294967296", "3037000500", "1099511627776", "4611686018427387904", "9223372036854775807",
        "-9223372036854775808"]
FLOATS = ["0.0", "-0.0", "0.5", "-1.5", "1e20", "1e300", "-1e300", "1.0E-300", "4.9E-324", "NaN",
          "Infinity", "-Infinity", "1.0E10", "2.0", "-1.0"]
STRINGS = ["", " ", "a b", "$X", "$1", "°", "·", "‡", "¶X¶", "\\", "\"", "'", "%s%n", "x" * 300,
           "true", "false", "TRUE", "NA", "é", "\t"]
RANDOM_BYTES = [b"\x00", b"\xff", b"\xc3", b"\xe2\x80", b"\r", b"\t", b"\n", b" ", b"-", b"--",
                "°".encode(), "·".encode(), "‡".encode(), "¶".encode(), b"$", b"$$", b"\\",
                b"\"", b"'", b"(", b")", b"[", b"]", b"=", b",", b"#", b"9", b"-1", b"E", b"e9"]
# Write/read targets, all inside the scratch folder ('..' is its parent, the run's own folder).
DANGEROUS_NAMES = [".", "..", "./", "out/../..", SCRATCH, SCRATCH + "/", "keep", "keep/", "in",
                   "fifo", "dev", "x" * 255, "y" * 256, "nodir/sub/o.csv", SCRATCH + "/nodir/o.csv",
                   "", "out/", "link_to_outside", "dangling", "keep/a.csv", "in/X.csv",
                   "o.csv.mtd", "out/o.csv", "o.mtx", "o.npy", "o.txt", " ", "-", "o.csv\ny"]
CLI_OPTIONS = [["-stats"], ["-stats", "3"], ["-stats", "0"], ["-explain"], ["-explain", "raw"],
               ["-explain", "runtime"], ["-seed", "7"], ["-seed", "-1"],
               ["-seed", "99999999999999999999"], ["-precision", "single"], ["-gpu"],
               ["-gpu", "force"], ["-gpu-mem-budget", "1K"], ["-config", "nonexistent.xml"]]

OPERAND_RE_RAW = re.compile(r"^(.*?)·(.*)$", re.S)
OPERAND_RE_EXPLAIN = re.compile(
    r"^(.*?)\.(MATRIX|SCALAR|FRAME|LIST|TENSOR|UNKNOWN)(\..*)?$", re.S)
NUMBER_RE = re.compile(r"^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|NaN|Infinity)$")
BLOCK_RE = re.compile(r"^(-*)(PROGRAM|MAIN PROGRAM|FUNCTIONS|FUNCTION|GENERIC|IF|ELSE|WHILE|FOR|"
                      r"PARFOR|FROM|TO|INCR|FUNCTION CALL GRAPH)\b")
DOLLAR_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*|\d+)")


# ---------------------------------------------------------------------------------------------
# Cases: a plan, the files to copy into the scratch folder, and how the CLI runs it.

class Case:
    def __init__(self, name, plan_path, inputs, cli, nvargs, args):
        self.name = name              # e.g. plans/lmcg
        self.plan_path = plan_path    # absolute
        self.inputs = inputs          # [(source absolute path, destination relative to scratch)]
        self.cli = cli                # options before -f
        self.nvargs = nvargs          # dict or None
        self.args = args              # list or None
        with open(plan_path, "rb") as f:
            self.text = f.read().decode("utf-8", "surrogateescape")


def _subst_out(v):
    v = str(v)
    if v == "OUT":
        return "out"
    if v.startswith("OUT/"):
        return "out/" + v[4:]
    return v


def _dir_inputs(src_dir, dest):
    items = []
    for root, _dirs, files in os.walk(src_dir):
        for fn in sorted(files):
            p = os.path.join(root, fn)
            items.append((p, os.path.join(dest, os.path.relpath(p, src_dir))))
    return items


def _json_case(case_dir, group):
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    plan = os.path.join(case_dir, spec.get("plan", "plan.plan"))
    if not os.path.isfile(plan):
        return None
    inputs = _dir_inputs(os.path.join(case_dir, "in"), "in") if os.path.isdir(
        os.path.join(case_dir, "in")) else []
    nvargs = {k: _subst_out(v) for k, v in spec["nvargs"].items()} if "nvargs" in spec else None
    args = [_subst_out(v) for v in spec["args"]] if "args" in spec else None
    return Case(f"{group}/{os.path.basename(case_dir)}", plan, inputs, list(spec.get("cli", [])),
                nvargs, args)


def _value_for(vt):
    return {"FP64": "1.5", "FP32": "1.5", "INT64": "2", "INT32": "2", "BOOLEAN": "true"}.get(
        vt, "hello")


def _gen_input(path, fmt, rows, cols):
    """A small matrix in `fmt` with its .mtd, for plans that come without inputs."""
    rows, cols = (rows if 0 < rows <= 50 else 3), (cols if 0 < cols <= 50 else 3)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    vals = [[(i * cols + j) % 7 + 0.5 for j in range(cols)] for i in range(rows)]
    with open(path, "w") as f:
        if fmt == "text":
            for i in range(rows):
                for j in range(cols):
                    f.write(f"{i + 1} {j + 1} {vals[i][j]}\n")
        elif fmt == "mm":
            f.write(f"%%MatrixMarket matrix array real general\n{rows} {cols}\n")
            for j in range(cols):
                for i in range(rows):
                    f.write(f"{vals[i][j]}\n")
        else:
            fmt = "csv"
            for row in vals:
                f.write(",".join(str(v) for v in row) + "\n")
    with open(path + ".mtd", "w") as f:
        json.dump({"data_type": "matrix", "value_type": "double", "rows": rows, "cols": cols,
                   "nnz": rows * cols, "format": fmt}, f)


def _free_plan_case(plan_path, group, gen_dir):
    """A plan without case.json: $name operands get values from their value type; a $name that is
    a createvar file gets a generated input (kept under gen_dir, copied to gen/ in the scratch)."""
    with open(plan_path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    names = {}
    files = {}
    for line in text.splitlines():
        if line.lstrip("-").startswith("#"):
            continue
        for instr in split_instructions(line)[1]:
            fields, sep, psep = split_fields(instr)
            if len(fields) > 3 and fields[1].lower() == "createvar" and fields[3].startswith("$"):
                fmt = fields[6] if len(fields) > 6 else "csv"
                try:
                    r, c = int(fields[7]), int(fields[8])
                except (IndexError, ValueError):
                    r = c = 3
                files[fields[3][1:]] = (fmt, r, c)
            for fld in fields:
                for m in DOLLAR_RE.finditer(fld):
                    parts = fld.split(psep)
                    vt = parts[2] if len(parts) > 2 else "STRING"
                    names.setdefault(m.group(1), vt)
    inputs, values = [], {}
    if group == "tests":  # tests/unit/data/<area>/: the data files beside the plan, by name
        folder = os.path.dirname(plan_path)
        inputs += [(os.path.join(folder, fn), fn) for fn in sorted(os.listdir(folder))
                   if not fn.endswith(".plan") and os.path.isfile(os.path.join(folder, fn))]
    for n, vt in names.items():
        if n in files:
            fmt, r, c = files[n]
            ext = {"text": ".txt", "mm": ".mtx"}.get(fmt, ".csv")
            src = os.path.join(gen_dir, group, os.path.basename(plan_path), n + ext)
            if not os.path.exists(src):
                _gen_input(src, fmt, r, c)
            inputs += [(src, f"gen/{n}{ext}"), (src + ".mtd", f"gen/{n}{ext}.mtd")]
            values[n] = f"gen/{n}{ext}"
        else:
            values[n] = _value_for(vt)
    nvargs = args = None
    if values and all(k.isdigit() for k in values):
        args = [values.get(str(i), "1") for i in range(1, max(int(k) for k in values) + 1)]
    elif values:
        nvargs = {k: v for k, v in values.items() if not k.isdigit()}
    # fuzz/corpus plans write to out/...: give them the folder.
    return Case(f"{group}/{os.path.relpath(plan_path, os.path.join(REPO, group))}", plan_path,
                inputs, [], nvargs, args)


def _example_case(plan_path, data_dir):
    with open(plan_path, encoding="utf-8", errors="replace") as f:
        header = [ln for ln in f if ln.startswith("#")]
    nvargs = {}
    for ln in header:
        m = re.search(r"Run:.*?-nvargs\s+(.*)$", ln)
        if m:
            for tok in m.group(1).split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    nvargs[k] = v
    inputs = _dir_inputs(data_dir, ".") if os.path.isdir(data_dir) else []
    return Case(f"examples/{os.path.basename(plan_path)}", plan_path, inputs, [], nvargs or None,
                None)


def collect_cases(gen_dir):
    cases = []
    for group, rel in (("plans", "tests/plans/cases"), ("conformance", "tests/conformance/cases")):
        base = os.path.join(REPO, rel)
        if not os.path.isdir(base):
            continue
        for d in sorted(os.listdir(base)):
            cd = os.path.join(base, d)
            if os.path.isfile(os.path.join(cd, "case.json")):
                try:
                    c = _json_case(cd, group)
                except (OSError, ValueError, KeyError):
                    c = None  # a case someone is editing right now
                if c:
                    cases.append(c)
    ex = os.path.join(REPO, "examples", "plans")
    if os.path.isdir(ex):
        for fn in sorted(os.listdir(ex)):
            if fn.endswith(".plan"):
                cases.append(_example_case(os.path.join(ex, fn), os.path.join(REPO, "examples",
                                                                              "data")))
    for rel in ("tests/unit/data", "fuzz/corpus/parser"):
        base = os.path.join(REPO, rel)
        for root, _dirs, files in sorted(os.walk(base)):
            for fn in sorted(files):
                if fn.endswith(".plan"):
                    cases.append(_free_plan_case(os.path.join(root, fn), rel.split("/")[0],
                                                 gen_dir))
    return cases


def load_opcodes():
    path = os.path.join(REPO, "instructions", "opcode_table.cpp")
    try:
        with open(path) as f:
            ops = re.findall(r'\{"([^"]+)",\s*(?:construct<\w+>|make_\w+)', f.read())
    except OSError:
        ops = []
    return ops or list(FALLBACK_OPCODES)


# ---------------------------------------------------------------------------------------------
# Plan text helpers. A line is `--...` depth dashes plus one or more instructions joined by '‡';
# raw instructions separate fields by '°' and operand parts by '·', explain-rendered ones by ' '
# and '.'.

def split_instructions(line):
    body = line.lstrip("-")
    return line[:len(line) - len(body)], body.split("‡")


def join_instructions(dashes, instrs):
    return dashes + "‡".join(instrs)


def split_fields(instr):
    if "°" in instr:
        return instr.split("°"), "°", "·"
    return instr.split(" "), " ", "."


def is_instruction(instr):
    fields, _sep, _psep = split_fields(instr)
    return len(fields) >= 2 and fields[0].upper() in ("CP", "GPU", "CP_FILE", "SPARK", "FED", "OOC")


def split_operand(field, psep):
    m = (OPERAND_RE_RAW if psep == "·" else OPERAND_RE_EXPLAIN).match(field)
    if not m:
        return field, ""
    if psep == "·":
        return m.group(1), "·" + m.group(2)
    return m.group(1), "." + m.group(2) + (m.group(3) or "")


class Mutant:
    """A plan being mutated: its lines plus the CLI arguments."""

    def __init__(self, case):
        self.case = case
        self.lines = case.text.split("\n")
        self.cli = list(case.cli)
        self.nvargs = dict(case.nvargs) if case.nvargs is not None else None
        self.args = list(case.args) if case.args is not None else None
        self.input_edits = []  # [(destination, edit, value)] applied to the scratch copies
        self.log = []

    def text(self):
        return "\n".join(self.lines)

    def instruction_sites(self):
        sites = []
        for li, line in enumerate(self.lines):
            if line.startswith("#"):
                continue
            _d, instrs = split_instructions(line)
            for ii, ins in enumerate(instrs):
                if is_instruction(ins):
                    sites.append((li, ii))
        return sites

    def get(self, site):
        li, ii = site
        return split_instructions(self.lines[li])[1][ii]

    def put(self, site, instr):
        li, ii = site
        d, instrs = split_instructions(self.lines[li])
        instrs[ii] = instr
        self.lines[li] = join_instructions(d, instrs)

    def code_lines(self):
        return [i for i, ln in enumerate(self.lines) if ln.strip() and not ln.startswith("#")]


def _pick_number(rng, cur, vt):
    """Mostly a value of the operand's own kind (so the plan still parses and the run reaches the
    instruction), sometimes anything."""
    r = rng.random()
    if r < 0.2:
        return rng.choice(NUMBERS)
    is_int = vt in ("INT64", "INT32") or (vt == "" and re.match(r"^-?\d+$", cur.strip()))
    return rng.choice(INTS if is_int else FLOATS)


def m_number(m, rng, ctx):
    """Replace a number in an operand or a plain field (dims, seeds, literals) by an extreme."""
    cands, weights = [], []
    for site in m.instruction_sites():
        fields, _s, psep = split_fields(m.get(site))
        for fi in range(2, len(fields)):
            name, rest = split_operand(fields[fi], psep)
            if NUMBER_RE.match(name.strip()):
                cands.append((site, fi))
                # createvar dims are metadata; the operands of the other instructions drive work
                weights.append(1 if fields[1].lower() in ("createvar", "rmvar") else 5)
    if not cands:
        return None
    site, fi = rng.choices(cands, weights)[0]
    fields, sep, psep = split_fields(m.get(site))
    name, rest = split_operand(fields[fi], psep)
    parts = rest[1:].split(psep) if rest else []
    vt = parts[1] if len(parts) > 1 else ""
    new = _pick_number(rng, name, vt)
    while new == name:
        new = _pick_number(rng, name, vt)
    fields[fi] = new + rest
    m.put(site, sep.join(fields))
    return f"number line {site[0] + 1} field {fi}: {name!r} -> {new!r}"


def m_swap_operands(m, rng, ctx):
    sites = [s for s in m.instruction_sites() if len(split_fields(m.get(s))[0]) > 2]
    if not sites:
        return None
    for _try in range(8):
        a, b = rng.choice(sites), rng.choice(sites)
        fa, sa, _ = split_fields(m.get(a))
        ia = rng.randrange(2, len(fa))
        if a == b:
            ib = rng.randrange(2, len(fa))
            if fa[ia] == fa[ib]:
                continue
            fa[ia], fa[ib] = fa[ib], fa[ia]
            m.put(a, sa.join(fa))
            return f"swap fields {ia},{ib} of line {a[0] + 1}"
        fb, sb, _ = split_fields(m.get(b))
        ib = rng.randrange(2, len(fb))
        if fa[ia] == fb[ib]:
            continue
        fa[ia], fb[ib] = fb[ib], fa[ia]
        m.put(a, sa.join(fa))
        m.put(b, sb.join(fb))
        return f"swap field {ia} of line {a[0] + 1} with field {ib} of line {b[0] + 1}"
    return None


def m_lines(m, rng, ctx):
    """Drop, duplicate, move or swap lines of code."""
    code = m.code_lines()
    if not code:
        return None
    i = rng.choice(code)
    op = rng.choice(["drop", "dup", "move", "swap", "drop-range"])
    if op == "drop":
        del m.lines[i]
    elif op == "dup":
        m.lines.insert(i, m.lines[i])
    elif op == "move":
        ln = m.lines.pop(i)
        j = rng.randrange(len(m.lines) + 1)
        while j == i and len(m.lines) > 1:
            j = rng.randrange(len(m.lines) + 1)
        m.lines.insert(j, ln)
        return f"move line {i + 1} to {j + 1}"
    elif op == "swap":
        others = [j for j in code if m.lines[j] != m.lines[i]]
        if not others:
            return None
        j = rng.choice(others)
        m.lines[i], m.lines[j] = m.lines[j], m.lines[i]
        return f"swap lines {i + 1} and {j + 1}"
    else:
        n = rng.randint(2, 8)
        del m.lines[i:i + n]
        return f"drop lines {i + 1}-{i + n}"
    return f"{op} line {i + 1}"


def m_opcode(m, rng, ctx):
    sites = m.instruction_sites()
    if not sites:
        return None
    site = rng.choice(sites)
    fields, sep, _ = split_fields(m.get(site))
    old = fields[1]
    r = rng.random()
    same = [o for o in ctx.get("by_arity", {}).get(len(fields), []) if o.lower() != old.lower()]
    if r < 0.6 and same:
        # an opcode seen with this many fields: the plan still parses, the instruction changes
        new = rng.choice(same)
        fields[1] = new
        desc = f"opcode line {site[0] + 1}: {old!r} -> {new!r}"
    elif r < 0.9:
        new = rng.choice(ctx["opcodes"])
        while new.lower() == old.lower():
            new = rng.choice(ctx["opcodes"])
        if rng.random() < 0.1:
            new = new.upper()
        fields[1] = new
        desc = f"opcode line {site[0] + 1}: {old!r} -> {new!r}"
    else:
        et = rng.choice([e for e in EXEC_TYPES if e != fields[0]])
        desc = f"exec type line {site[0] + 1}: {fields[0]!r} -> {et!r}"
        fields[0] = et
    m.put(site, sep.join(fields))
    return desc


def m_types(m, rng, ctx):
    """Change a data type, value type or literal flag of an operand, or a createvar's type or
    format."""
    cands = []
    for site in m.instruction_sites():
        fields, _s, psep = split_fields(m.get(site))
        for fi in range(2, len(fields)):
            if psep in fields[fi] or fields[fi] in DATA_TYPES or fields[fi] in FORMATS[:6]:
                cands.append((site, fi))
    if not cands:
        return None
    site, fi = rng.choice(cands)
    fields, sep, psep = split_fields(m.get(site))
    old = fields[fi]
    def other(pool, cur):
        return rng.choice([x for x in pool if x != cur])

    if fields[fi] in DATA_TYPES:
        fields[fi] = other(DATA_TYPES, fields[fi])
    elif fields[fi] in FORMATS:
        fields[fi] = other(FORMATS, fields[fi])
    else:
        name, rest = split_operand(fields[fi], psep)
        parts = rest[1:].split(psep) if rest else []
        k = rng.randrange(4)
        if k == 0 and parts:
            parts[0] = other(DATA_TYPES, parts[0])
        elif k == 1 and len(parts) > 1:
            parts[1] = other(VALUE_TYPES, parts[1])
        elif k == 2:
            if len(parts) > 2:
                parts[2] = {"true": "false"}.get(parts[2], "true")
            else:
                parts = (parts + ["SCALAR", "FP64"])[:2] + ["true"]
        else:
            parts = parts[:rng.randrange(len(parts))] if parts else ["MATRIX", "FP64"]
        fields[fi] = name + (psep + psep.join(parts) if parts else "")
    m.put(site, sep.join(fields))
    return f"type line {site[0] + 1} field {fi}: {old!r} -> {fields[fi]!r}"


def m_rename(m, rng, ctx):
    """Replace a variable name by another variable of the plan (keeping the type suffix): shape
    and kind mismatches, reads after rmvar, aliasing of inputs and outputs."""
    names, cands = set(), []
    for site in m.instruction_sites():
        fields, _s, psep = split_fields(m.get(site))
        for fi in range(2, len(fields)):
            name, rest = split_operand(fields[fi], psep)
            literal = rest.endswith(psep + "true")
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) and not literal and \
                    (rest or fields[1].lower() in ("rmvar", "cpvar", "mvvar", "createvar")):
                names.add(name)
                cands.append((site, fi))
    names = sorted(names)
    if len(names) < 2 or not cands:
        return None
    site, fi = rng.choice(cands)
    fields, sep, psep = split_fields(m.get(site))
    name, rest = split_operand(fields[fi], psep)
    new = rng.choice([n for n in names if n != name])
    fields[fi] = new + rest
    m.put(site, sep.join(fields))
    return f"rename line {site[0] + 1} field {fi}: {name!r} -> {new!r}"


def m_truncate(m, rng, ctx):
    code = m.code_lines()
    if not code:
        return None
    if rng.random() < 0.2:
        i = rng.choice(code)
        cut = rng.randrange(len(m.lines[i]) + 1)
        m.lines = m.lines[:i] + [m.lines[i][:cut]]
        return f"truncate plan at line {i + 1} column {cut}"
    i = rng.choice(code)
    cut = rng.randrange(len(m.lines[i]) + 1)
    m.lines[i] = m.lines[i][:cut]
    return f"truncate line {i + 1} at column {cut}"


def m_bytes(m, rng, ctx):
    code = m.code_lines()
    if not code:
        return None
    i = rng.choice(code)
    raw = m.lines[i].encode("utf-8", "surrogateescape")
    pos = rng.randrange(len(raw) + 1)
    ins = b"".join(rng.choice(RANDOM_BYTES) if rng.random() < 0.7 else
                   bytes([rng.choice([b for b in range(1, 256) if b not in (0x2f, 0x2e)])])
                   for _ in range(rng.randint(1, 6)))
    m.lines[i] = (raw[:pos] + ins + raw[pos:]).decode("utf-8", "surrogateescape")
    return f"insert bytes {ins!r} at line {i + 1} byte {pos}"


def m_unbalance(m, rng, ctx):
    blocks = [i for i, ln in enumerate(m.lines) if BLOCK_RE.match(ln)]
    code = m.code_lines()
    op = rng.choice(["drop-block-line", "depth", "insert-keyword", "drop-block-line"])
    if op == "drop-block-line" and blocks:
        i = rng.choice(blocks)
        old = m.lines.pop(i)
        return f"drop block line {i + 1}: {old.strip('-')[:40]!r}"
    if op == "depth" and code:
        i = rng.choice(code)
        d = rng.choice([-4, -2, 2, 4, 20])
        dashes = len(m.lines[i]) - len(m.lines[i].lstrip("-"))
        m.lines[i] = "-" * max(0, dashes + d) + m.lines[i].lstrip("-")
        return f"depth of line {i + 1} {d:+d}"
    if not code:
        return None
    i = rng.choice(code)
    dashes = len(m.lines[i]) - len(m.lines[i].lstrip("-"))
    kw = rng.choice(["ELSE", "END", "FROM", "TO", "INCR", "GENERIC (lines 1-1)", "IF (lines 1-1)",
                     "WHILE (lines 1-1)", "FOR (lines 1-1) [iter=i]", "MAIN PROGRAM", "PROGRAM",
                     "FUNCTIONS", "FUNCTION .defaultNS::f [in=] [out=]"])
    m.lines.insert(i, "-" * dashes + kw)
    return f"insert {kw!r} before line {i + 1}"


def _target_sites(m):
    """(site, field index) of write targets and of createvar file names."""
    out = []
    for site in m.instruction_sites():
        fields, _s, _p = split_fields(m.get(site))
        op = fields[1].lower()
        if op == "write" and len(fields) > 3:
            out.append((site, 3, "write"))
        elif op == "createvar" and len(fields) > 3:
            out.append((site, 3, "createvar"))
    return out


def m_target(m, rng, ctx):
    """Point a write target (or a createvar's file) at a dangerous name inside the scratch."""
    sites = _target_sites(m)
    if not sites:
        return None
    writes = [s for s in sites if s[2] == "write"]
    site, fi, kind = rng.choice(writes) if writes and rng.random() < 0.7 else rng.choice(sites)
    fields, sep, psep = split_fields(m.get(site))
    name, rest = split_operand(fields[fi], psep)
    new = rng.choice(DANGEROUS_NAMES)
    if name.startswith("$") and rng.random() < 0.5 and set_arg(m, name[1:], new):
        return f"{kind} target ${name[1:]} (line {site[0] + 1}) -> {new!r} via arguments"
    fields[fi] = new + rest
    m.put(site, sep.join(fields))
    return f"{kind} target line {site[0] + 1}: {name!r} -> {new!r}"


def set_arg(m, key, value):
    if m.nvargs is not None and key in m.nvargs:
        m.nvargs[key] = value
        return True
    if m.args is not None and key.isdigit() and 1 <= int(key) <= len(m.args):
        m.args[int(key) - 1] = value
        return True
    return False


def m_args(m, rng, ctx):
    """Change, drop, add or swap -nvargs/-args values."""
    vals = m.nvargs if m.nvargs is not None else None
    pool = NUMBERS + STRINGS + DANGEROUS_NAMES
    op = rng.choice(["change", "change", "drop", "add", "swap", "style"])
    if vals is not None and vals:
        keys = sorted(vals)
        k = rng.choice(keys)
        if op == "change":
            vals[k] = rng.choice([v for v in pool if v != vals[k]])
            return f"nvarg {k} -> {vals[k]!r}"
        if op == "drop":
            del vals[k]
            return f"drop nvarg {k}"
        if op == "swap":
            k2 = rng.choice([x for x in keys if vals[x] != vals[k]] or [k])
            vals[k], vals[k2] = vals[k2], vals[k]
            return f"swap nvargs {k} and {k2}"
        if op == "style":
            m.args, m.nvargs = [vals[x] for x in keys], None
            return "nvargs given as -args"
        key = rng.choice(["zz", "X", "1", "", "a=b", "$X", "out"])
        vals[key] = rng.choice(pool)
        return f"add nvarg {key!r}={vals[key]!r}"
    if m.args is not None and m.args:
        i = rng.randrange(len(m.args))
        if op == "drop":
            del m.args[i]
            return f"drop arg {i + 1}"
        if op == "add":
            m.args.append(rng.choice(pool))
            return f"add arg {m.args[-1]!r}"
        m.args[i] = rng.choice(pool)
        return f"arg {i + 1} -> {m.args[i]!r}"
    m.nvargs = {"X": rng.choice(pool)}
    return f"add nvarg X={m.nvargs['X']!r}"


INPUT_EDITS = ["empty", "truncate", "number", "number", "mtd-dims", "mtd-dims", "mtd-nnz",
               "mtd-drop", "mtd-format", "mtd-garbage", "append-row", "bytes"]


def m_input(m, rng, ctx):
    """Corrupt one input copied into the scratch (data or .mtd), as a user's bad file would be."""
    dests = [d for _s, d in m.case.inputs if not d.endswith(".mtd")]
    if not dests:
        return None
    dest = rng.choice(dests)
    edit = rng.choice(INPUT_EDITS)
    if edit == "number":
        value = rng.choice(FLOATS + INTS + ["", "abc", "1e999", "0x1p3", "- 1", "1 2"])
    elif edit == "mtd-dims":
        value = [rng.choice(["rows", "cols"]), rng.choice(INTS + ["-5", "1.5", "\"3\"", "null"])]
    elif edit == "mtd-nnz":
        value = rng.choice(INTS + ["-1"])
    elif edit == "mtd-format":
        value = rng.choice(FORMATS)
    else:
        value = rng.randrange(1 << 30)
    m.input_edits.append((dest, edit, value))
    return f"input {dest}: {edit} {value!r}"


def apply_input_edit(path, edit, value):
    """Applies one m_input edit to the file at `path` (in the scratch)."""
    mtd = path + ".mtd"
    rng = random.Random(value if isinstance(value, int) else str(value))
    if edit.startswith("mtd-"):
        try:
            with open(mtd) as f:
                j = json.load(f)
        except (OSError, ValueError):
            j = {"data_type": "matrix", "value_type": "double", "rows": 3, "cols": 3}
        if edit == "mtd-drop":
            if os.path.exists(mtd):
                os.remove(mtd)
            return
        if edit == "mtd-garbage":
            with open(mtd, "w") as f:
                f.write('{"rows": 3, "cols": ')
            return
        text = None
        if edit == "mtd-dims":
            key, v = value
            text = json.dumps(j).replace(f'"{key}": {json.dumps(j.get(key, 3))}', f'"{key}": {v}')
            if f'"{key}"' not in text:
                text = text[:-1] + f', "{key}": {v}}}'
        elif edit == "mtd-nnz":
            j["nnz"] = int(value)
        elif edit == "mtd-format":
            j["format"] = value
        with open(mtd, "w") as f:
            f.write(text if text is not None else json.dumps(j))
        return
    with open(path, "rb") as f:
        data = f.read()
    if edit == "empty":
        data = b""
    elif edit == "truncate":
        data = data[:rng.randrange(len(data) + 1)]
    elif edit == "append-row":
        data = data + b"1,2,3,4,5,6,7,8\n"
    elif edit == "bytes":
        pos = rng.randrange(len(data) + 1)
        data = data[:pos] + rng.choice(RANDOM_BYTES) + data[pos:]
    elif edit == "number":
        nums = list(re.finditer(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?", data))
        if nums:
            mm = rng.choice(nums)
            data = data[:mm.start()] + str(value).encode() + data[mm.end():]
    with open(path, "wb") as f:
        f.write(data)


def m_cli(m, rng, ctx):
    opt = rng.choice(CLI_OPTIONS)
    m.cli = m.cli + opt
    return f"cli {' '.join(opt)}"


MUTATIONS = [(m_number, 4), (m_rename, 3), (m_opcode, 3), (m_swap_operands, 2), (m_lines, 2),
             (m_target, 2), (m_types, 1.5), (m_args, 1), (m_unbalance, 0.7), (m_bytes, 0.5),
             (m_truncate, 0.5), (m_cli, 1), (m_input, 1)]


def opcodes_by_arity(cases):
    """{field count: sorted opcodes seen with it in the checked-in plans}."""
    seen = {}
    for c in cases:
        for line in c.text.split("\n"):
            if line.startswith("#"):
                continue
            for ins in split_instructions(line)[1]:
                if is_instruction(ins):
                    fields = split_fields(ins)[0]
                    seen.setdefault(len(fields), set()).add(fields[1])
    return {k: sorted(v) for k, v in seen.items()}


def make_mutant(cases, seed, iteration, ctx):
    """Deterministic: the same (seed, iteration) gives the same case, mutations and text."""
    rng = random.Random(f"{seed}:{iteration}")
    case = cases[rng.randrange(len(cases))]
    m = Mutant(case)
    funcs = [f for f, _w in MUTATIONS]
    weights = [w for _f, w in MUTATIONS]
    want = rng.randint(1, 4)
    tries = 0
    while len(m.log) < want and tries < 20:
        tries += 1
        f = rng.choices(funcs, weights)[0]
        desc = f(m, rng, ctx)
        if desc:
            m.log.append(desc)
    return m


# ---------------------------------------------------------------------------------------------
# Running one mutant in its own folder:
#   <base>/run-<n>/            the run's own folder (the scratch's parent)
#     sentinel.txt, sentinel/  files outside the scratch that must not change
#     scratch/                 cwd of dmlrt: the inputs, out/, keep/ (a folder with files),
#                              fifo, dev (a char device when mknod is allowed), link_to_outside
#                              (-> ../sentinel.txt), dangling (-> ../dangling_target)
#   <base>/log-<n>/            plan, stdout and stderr (outside the run folder)

def snapshot(root, skip=None):
    """{relpath: (kind, size, mtime_ns, mode, inode)} of everything under root (not following
    links); `skip` is a relative path left out (the scratch)."""
    snap = {}
    if not os.path.lexists(root):
        return snap
    stack = [""]
    while stack:
        rel = stack.pop()
        p = os.path.join(root, rel) if rel else root
        try:
            st = os.lstat(p)
        except OSError:
            continue
        snap[rel] = (stat.S_IFMT(st.st_mode), st.st_size if not stat.S_ISDIR(st.st_mode) else 0,
                     st.st_mtime_ns, st.st_mode, st.st_ino)
        if stat.S_ISDIR(st.st_mode):
            try:
                names = os.listdir(p)
            except OSError:
                continue
            for n in names:
                r = os.path.join(rel, n) if rel else n
                if r != skip:
                    stack.append(r)
    return snap


def diff_snapshots(before, after):
    changes = []
    for k in sorted(set(before) | set(after)):
        b, a = before.get(k), after.get(k)
        if b is None:
            changes.append(f"created {k or '.'}")
        elif a is None:
            changes.append(f"deleted {k or '.'}")
        elif b != a:
            # A folder's mtime changes when an entry in it changes; the entry is reported itself.
            if b[0] == a[0] == stat.S_IFDIR and b[3:] == a[3:]:
                continue
            changes.append(f"changed {k or '.'} (kind/size/mtime/mode/inode {b} -> {a})")
    return changes


def sha1(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


class Runner:
    def __init__(self, binary, base, timeout, mem_mb, fsize_mb, drop_to):
        self.binary = os.path.abspath(binary)
        self.base = base
        self.timeout = timeout
        self.mem = mem_mb * (1 << 20)
        self.fsize = fsize_mb * (1 << 20)
        self.live = {}  # pid -> Popen of the runs in progress (killed on interrupt)
        self.live_lock = threading.Lock()
        self.uid = self.gid = None
        if drop_to is not None:
            self.uid, self.gid = drop_to

    def _own(self, path):
        if self.uid is None:
            return
        for root, dirs, files in os.walk(path):
            os.lchown(root, self.uid, self.gid)
            for n in dirs + files:
                os.lchown(os.path.join(root, n), self.uid, self.gid)

    def setup(self, tag, m):
        case = m.case
        run = os.path.join(self.base, f"run-{tag}")
        scratch = os.path.join(run, "scratch")
        os.makedirs(os.path.join(scratch, "out"))
        os.makedirs(os.path.join(run, "sentinel"))
        for p, text in (("sentinel.txt", "outside\n"), ("sentinel/a.csv", "1,2\n3,4\n")):
            with open(os.path.join(run, p), "w") as f:
                f.write(text)
        for src, dst in case.inputs:
            d = os.path.normpath(os.path.join(scratch, dst))
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copyfile(src, d)
        for dest, edit, value in m.input_edits:
            apply_input_edit(os.path.normpath(os.path.join(scratch, dest)), edit, value)
        os.makedirs(os.path.join(scratch, "keep"))
        with open(os.path.join(scratch, "keep", "a.csv"), "w") as f:
            f.write("1,2\n3,4\n")
        with open(os.path.join(scratch, "keep", "a.csv.mtd"), "w") as f:
            f.write('{"data_type": "matrix", "rows": 2, "cols": 2, "format": "csv"}\n')
        os.mkfifo(os.path.join(scratch, "fifo"))
        try:
            os.mknod(os.path.join(scratch, "dev"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except OSError:
            pass  # no mknod here: the device case is skipped
        os.symlink("../sentinel.txt", os.path.join(scratch, "link_to_outside"))
        os.symlink("../dangling_target", os.path.join(scratch, "dangling"))
        self._own(run)
        return run, scratch

    def protected(self, scratch):
        """Objects inside the scratch that dmlrt did not create: {relpath: identity}."""
        prot = {}
        for root, dirs, files in os.walk(scratch):
            for n in dirs + files:
                p = os.path.join(root, n)
                rel = os.path.relpath(p, scratch)
                if rel == "out":
                    continue
                st = os.lstat(p)
                kind = stat.S_IFMT(st.st_mode)
                ident = sha1(p) if stat.S_ISREG(st.st_mode) else (
                    os.readlink(p) if stat.S_ISLNK(st.st_mode) else "")
                prot[rel] = (kind, ident)
        return prot

    def wrapper(self):
        """Limits are set by a tiny sh that then execs dmlrt (no preexec_fn: the runs start from
        threads); an ignored SIGXFSZ stays ignored across exec, so a too-large write fails with
        EFBIG instead of killing dmlrt."""
        vmem = f"ulimit -v {self.mem // 1024} && " if self.mem > 0 else ""
        return ["/bin/sh", "-c",
                f"{vmem}ulimit -f {self.fsize // 512} && ulimit -c 0 "
                "&& trap '' XFSZ && exec \"$@\"", "dmlrt-limits"]

    def command(self, m, plan_path, scratch):
        def sub(v):
            return v.replace(SCRATCH, scratch)
        cmd = [self.binary] + [sub(c) for c in m.cli] + ["-f", plan_path]
        if m.nvargs is not None:
            cmd.append("-nvargs")
            cmd += [f"{k}={sub(v)}" for k, v in m.nvargs.items()]
        if m.args is not None:
            cmd.append("-args")
            cmd += [sub(v) for v in m.args]
        return cmd

    def run(self, tag, m):
        """Runs mutant m; returns a result dict with 'findings' (list of (kind, detail))."""
        run, scratch = self.setup(tag, m)
        log = os.path.join(self.base, f"log-{tag}")
        os.makedirs(log)
        plan_text = m.text().replace(SCRATCH, scratch)
        plan_path = os.path.join(log, "mutant.plan")
        with open(plan_path, "wb") as f:
            f.write(plan_text.encode("utf-8", "surrogateescape"))
        os.chmod(log, 0o755)
        os.chmod(plan_path, 0o644)
        cmd = self.command(m, plan_path, scratch)
        before_run = snapshot(run, skip="scratch")
        before_base = set(n for n in os.listdir(self.base) if not n.startswith(("run-", "log-")))
        prot = self.protected(scratch)
        resolved_targets = set()
        for t in write_targets(plan_text, m, scratch):
            r = os.path.realpath(t)
            if r != t:
                resolved_targets |= {r, r + ".mtd"}
        env = dict(os.environ, DMLRT_LOG_LEVEL="error", OPENBLAS_NUM_THREADS="1")
        # For ASan builds (which need --mem-mb 0): a failed allocation throws as it would without
        # ASan, and the memory cap moves into ASan.
        env.setdefault("ASAN_OPTIONS", "allocator_may_return_null=1:detect_leaks=0:"
                       "hard_rss_limit_mb=4096:exitcode=86")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:exitcode=87")
        t0 = time.monotonic()
        findings = []
        with open(os.path.join(log, "stdout"), "wb") as so, \
                open(os.path.join(log, "stderr"), "wb") as se:
            try:
                ids = {} if self.uid is None else {"user": self.uid, "group": self.gid,
                                                    "extra_groups": []}
                p = subprocess.Popen(self.wrapper() + cmd, cwd=scratch, stdin=subprocess.DEVNULL,
                                     stdout=so, stderr=se, env=env, start_new_session=True, **ids)
            except OSError as e:
                raise SystemExit(f"cannot run {self.binary}: {e}")
            with self.live_lock:
                self.live[p.pid] = p
            try:
                rc = p.wait(timeout=self.timeout)
                hung = False
            except subprocess.TimeoutExpired:
                hung = True
                cpu = _cpu_seconds(p.pid)
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                rc = p.wait()
            finally:
                with self.live_lock:
                    self.live.pop(p.pid, None)
        secs = time.monotonic() - t0
        full_err = _tail(os.path.join(log, "stderr"), 1 << 20)
        stderr = full_err[-4000:]
        capped = "hard rss limit exhausted" in full_err  # ASan's form of the memory cap
        if capped and rc == 86:
            rc = 1  # like the std::bad_alloc that --mem-mb gives a build without ASan
        if hung:
            # Blocked (little CPU: waiting on a FIFO, a lock, a pipe) is a hang; busy until the
            # timeout is a slow run, which a mutated loop bound or size legitimately makes.
            busy = cpu is not None and cpu > 0.25 * self.timeout
            findings.append(("slow" if busy else "hang",
                             f"killed after {self.timeout:g} s, "
                             f"{'?' if cpu is None else f'{cpu:.1f}'} s of CPU"))
        elif rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            findings.append(("signal", name))
        elif rc not in (0, 1, 2):
            findings.append(("exit-code", f"exit status {rc}"))
        if capped:
            pass
        elif "Sanitizer" in full_err or "runtime error:" in full_err:
            findings.append(("sanitizer", _first_line(full_err, ("Sanitizer", "runtime error:"))))
            stderr = full_err[:6000] + ("\n...\n" + stderr if len(full_err) > 6000 else "")
        outside = diff_snapshots(before_run, snapshot(run, skip="scratch"))
        # A symlink named as a write target is written through (Note [Safe writes]): the file it
        # names may change, wherever it is.
        through = {os.path.relpath(t, run) for t in resolved_targets if t.startswith(run + "/")}
        legit_out = [c for c in outside if c.split(" ")[1] in through]
        outside = [c for c in outside if c not in legit_out]
        if not os.path.isdir(scratch):
            outside.append("deleted the scratch folder itself")
        after_base = set(n for n in os.listdir(self.base) if not n.startswith(("run-", "log-")))
        outside += [f"created {os.path.join(self.base, n)}"
                    for n in sorted(after_base - before_base)]
        if outside:
            findings.append(("outside-change", "; ".join(outside[:6])))
        damaged, overwritten = self.check_protected(prot, scratch, m, plan_text)
        overwritten += [f"{c.split(' ')[1]} (outside, through a symlink named as the target)"
                        for c in legit_out]
        if damaged:
            findings.append(("damaged-in-scratch", "; ".join(damaged[:6])))
        leftovers = [os.path.relpath(os.path.join(r, n), scratch)
                     for r, _d, fs in os.walk(scratch) for n in fs if ".dmlrt-tmp-" in n]
        if leftovers:
            findings.append(("tmp-left", ", ".join(leftovers[:4])))
        return {"tag": tag, "case": m.case.name, "mutations": list(m.log), "cmd": cmd, "rc": rc,
                "input_edits": list(m.input_edits),
                "secs": secs, "stderr": stderr, "findings": findings, "overwritten": overwritten,
                "run": run, "log": log, "plan_text": plan_text, "scratch": scratch}

    def kill_all(self):
        with self.live_lock:
            for pid in list(self.live):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass

    def check_protected(self, prot, scratch, m, plan_text):
        targets = write_targets(plan_text, m, scratch)
        damaged, overwritten = [], []
        for rel, (kind, ident) in sorted(prot.items()):
            p = os.path.join(scratch, rel)
            norm = os.path.normpath(p)
            legit = kind == stat.S_IFREG and (norm in targets)
            try:
                st = os.lstat(p)
            except OSError:
                (overwritten if legit else damaged).append(f"{rel} deleted")
                continue
            nkind = stat.S_IFMT(st.st_mode)
            if nkind != kind:
                # A symlink named as the write target is replaced by the written file.
                if kind == stat.S_IFLNK and norm in targets and nkind == stat.S_IFREG:
                    overwritten.append(f"{rel} (symlink replaced by the written file)")
                    continue
                damaged.append(f"{rel} turned from {_kind(kind)} into {_kind(nkind)}")
                continue
            if kind == stat.S_IFREG and sha1(p) != ident:
                (overwritten if legit else damaged).append(f"{rel} content changed")
        return damaged, overwritten

    def cleanup(self, res):
        for p in (res["run"], res["log"]):
            _rmtree(p)


def write_targets(plan_text, m, scratch):
    """Absolute normalised paths a write in the plan may legitimately replace (target and .mtd);
    $names resolve through the run's arguments."""
    vals = {}
    if m.nvargs is not None:
        vals.update(m.nvargs)
    if m.args is not None:
        vals.update({str(i + 1): v for i, v in enumerate(m.args)})
    out = set()
    for line in plan_text.split("\n"):
        for instr in split_instructions(line)[1]:
            fields, _s, psep = split_fields(instr)
            if len(fields) > 3 and fields[1].lower() == "write":
                name, _rest = split_operand(fields[3], psep)
                name = DOLLAR_RE.sub(lambda mm: vals.get(mm.group(1), mm.group(0)), name)
                name = name.replace(SCRATCH, scratch)
                if not name:
                    continue
                t = os.path.normpath(os.path.join(scratch, name))
                out |= {t, t + ".mtd"}
    return out


def _owned_by(path, uid):
    try:
        return os.lstat(path).st_uid == uid
    except OSError:
        return False


def _cpu_seconds(pid):
    """User + system CPU seconds of a running process (all its threads), None if unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _kind(k):
    return {stat.S_IFREG: "a file", stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO",
            stat.S_IFLNK: "a symlink", stat.S_IFCHR: "a char device"}.get(k, f"kind {k:o}")


def _rmtree(p):
    def onerror(func, path, _exc):
        try:
            os.chmod(os.path.dirname(path), 0o755)
            func(path)
        except OSError:
            pass
    if os.path.lexists(p):
        shutil.rmtree(p, onerror=onerror)


def _tail(path, n):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _first_line(text, needles):
    for ln in text.splitlines():
        if any(n in ln for n in needles):
            return ln.strip()[:200]
    return text.strip().splitlines()[-1][:200] if text.strip() else ""


def _damage_classes(detail):
    """'in/X.csv deleted; keep/a.csv content changed' -> 'input deleted, keep deleted...'."""
    out = []
    for item in detail.split("; "):
        m = re.match(r"(created|deleted|changed) (\S+)|(\S+) (.*)$", item)
        if not m:
            continue
        if m.group(1):
            what, path = m.group(1), m.group(2)
        else:
            path, what = m.group(3), re.sub(r"\(.*", "", m.group(4)).strip()
        top = path.split("/")[0]
        if "scratch folder" in item:
            top, what = "scratch", "deleted"
        elif top in ("in", "gen") or top.endswith((".csv", ".mtd", ".txt", ".mtx")):
            top = "input" if top in ("in", "gen") else "file"
        elif ".dmlrt-tmp-" in path:
            top = "tmp"
        c = f"{top} {what}"
        if c not in out:
            out.append(c)
    return ", ".join(out)


def signature(kind, detail, stderr):
    """Groups findings: the kind, its detail, and the last error line with numbers blanked."""
    last = ""
    for ln in reversed(stderr.strip().splitlines()):
        if ln.strip():
            last = ln.strip()
            break
    san = [ln.strip() for ln in stderr.splitlines() if "Sanitizer" in ln or "runtime error:" in ln]
    if san:  # a sanitizer report: its first line names the defect; the stack's end does not
        last = re.sub(r"^==\d+==", "", san[0])
    last = re.sub(r"\d+", "N", last)
    last = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", last)[:120]
    if kind in ("outside-change", "damaged-in-scratch", "tmp-left", "repo-change"):
        detail = _damage_classes(detail)
        last = ""
    if kind in ("hang", "slow"):
        detail = last = ""
    if kind in ("sanitizer", "exit-code") and san:
        detail = ""
    return f"{kind}: {detail} | {last}"


# ---------------------------------------------------------------------------------------------
# Saving and minimising findings

def save_finding(out_dir, res, case, seed, iteration, minimized=None):
    d = os.path.join(out_dir, f"{res['findings'][0][0]}-{seed}-{iteration}")
    os.makedirs(d, exist_ok=True)
    scratch = res["scratch"]

    def rel(s):
        return s.replace(scratch, "$SCRATCH")

    with open(os.path.join(d, "mutant.plan"), "wb") as f:
        f.write(rel(res["plan_text"]).encode("utf-8", "surrogateescape"))
    inputs = os.path.join(d, "inputs")
    for src, dst in case.inputs:
        t = os.path.normpath(os.path.join(inputs, dst))
        os.makedirs(os.path.dirname(t), exist_ok=True)
        shutil.copyfile(src, t)
    for dest, edit, value in res["input_edits"]:
        apply_input_edit(os.path.normpath(os.path.join(inputs, dest)), edit, value)
    argv = [rel(a) for a in res["cmd"][1:]]
    argv[argv.index("-f") + 1] = "$RUN/mutant.plan"
    if minimized:
        with open(os.path.join(d, "minimized.plan"), "wb") as f:
            f.write(minimized["plan"].encode("utf-8", "surrogateescape"))
    with open(os.path.join(d, "repro.sh"), "w") as f:
        f.write("#!/usr/bin/env bash\n# Reproduces a robustness finding: " +
                "; ".join(k + ": " + v for k, v in res["findings"]) + "\n")
        f.write(f"# case {case.name}, seed {seed}, iteration {iteration}; mutations:\n")
        for mu in res["mutations"]:
            f.write(f"#   {mu}\n")
        f.write('# Usage: repro.sh <dmlrt> [plan, default mutant.plan; minimized.plan when saved]\n'
                '# (runs in a fresh scratch folder; $SCRATCH in the plan is that folder)\n'
                'HERE="$(cd "$(dirname "$0")" && pwd)"\nDMLRT="${1:-dmlrt}"\n'
                'PLAN="${2:-$HERE/mutant.plan}"\n'
                'RUN="$(mktemp -d)"; SCRATCH="$RUN/scratch"\n'
                'mkdir -p "$SCRATCH/out" "$SCRATCH/keep"\n'
                'echo outside > "$RUN/sentinel.txt"\n'
                'cp -r "$HERE/inputs/." "$SCRATCH/" 2>/dev/null\n'
                'printf "1,2\\n3,4\\n" > "$SCRATCH/keep/a.csv"; mkfifo "$SCRATCH/fifo"\n'
                'mknod "$SCRATCH/dev" c 1 3 2>/dev/null\n'
                'ln -s ../sentinel.txt "$SCRATCH/link_to_outside"; '
                'ln -s ../dangling_target "$SCRATCH/dangling"\n'
                'sed "s#\\$SCRATCH#$SCRATCH#g" "$PLAN" > "$RUN/mutant.plan"\n'
                'cd "$SCRATCH" && DMLRT_LOG_LEVEL=error timeout 60 "$DMLRT" ' +
                " ".join(_shq(a) for a in argv) + '\necho "exit status $?  (scratch $SCRATCH)"\n')
    os.chmod(os.path.join(d, "repro.sh"), 0o755)
    with open(os.path.join(d, "finding.json"), "w") as f:
        json.dump({"seed": seed, "iteration": iteration, "case": case.name,
                   "findings": res["findings"], "mutations": res["mutations"], "rc": res["rc"],
                   "secs": round(res["secs"], 2), "cmd": [rel(a) for a in res["cmd"]],
                   "overwritten": res["overwritten"], "minimized": minimized}, f, indent=1)
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(rel(res["stderr"]))
    return d


def _shq(a):
    if "$SCRATCH" in a or "$RUN" in a:
        return '"' + a.replace('"', '\\"') + '"'
    return shlex.quote(a)


def minimize(runner, m, kind, budget, counter):
    """Greedy line removal keeping the finding's kind; returns the smaller mutant."""
    best = m
    runs = 0
    changed = True
    while changed and runs < budget:
        changed = False
        i = len(best.lines) - 1
        while i >= 0 and runs < budget:
            if not best.lines[i].strip() or best.lines[i].startswith("#"):
                cand = _copy_mutant(best)
                del cand.lines[i]
                best = cand
                i -= 1
                continue
            cand = _copy_mutant(best)
            del cand.lines[i]
            runs += 1
            res = runner.run(f"min{next(counter)}", cand)
            runner.cleanup(res)
            if any(k == kind for k, _d in res["findings"]):
                best = cand
                changed = True
            i -= 1
    return best, runs


def _copy_mutant(m):
    c = Mutant.__new__(Mutant)
    c.case, c.lines, c.cli, c.log = m.case, list(m.lines), list(m.cli), list(m.log)
    c.nvargs = dict(m.nvargs) if m.nvargs is not None else None
    c.args = list(m.args) if m.args is not None else None
    c.input_edits = list(m.input_edits)
    return c


# ---------------------------------------------------------------------------------------------

def drop_target():
    """When run as root, dmlrt runs as 'nobody': a mutated path cannot reach beyond the run
    folder (which it owns) however wrong the target is. Returns (uid, gid) or None."""
    if os.geteuid() != 0:
        return None
    try:
        import pwd
        pw = pwd.getpwnam("nobody")
        return pw.pw_uid, pw.pw_gid
    except (KeyError, ImportError):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "runtime", "dmlrt"))
    ap.add_argument("--iterations", type=int, default=None, help="number of mutants to run")
    ap.add_argument("--seconds", type=float, default=None, help="run for this long instead")
    ap.add_argument("--seed", type=int, default=None, help="default: a random seed, printed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None, help="folder for failing mutants (default: a temp dir)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run (a kill: 'hang')")
    ap.add_argument("--mem-mb", type=int, default=4096,
                    help="address-space limit per run (0: none, for ASan builds)")
    ap.add_argument("--fsize-mb", type=int, default=256, help="file-size limit per run")
    ap.add_argument("--case", action="append", default=[],
                    help="only cases whose name contains this (repeatable)")
    ap.add_argument("--skip", action="append", default=None,
                    help="leave out cases whose name contains this (repeatable; default: "
                         f"{', '.join(DEFAULT_SKIP)}, whose unmutated runs take over 10 s)")
    ap.add_argument("--minimize", type=int, default=0, metavar="RUNS",
                    help="minimise the first mutant of each finding group with up to RUNS runs")
    ap.add_argument("--no-drop-privileges", action="store_true",
                    help="as root, run dmlrt as root too (default: as nobody)")
    ap.add_argument("--list-cases", action="store_true")
    ap.add_argument("--print-mutant", type=int, metavar="ITERATION",
                    help="print the mutant of this iteration (with --seed) and exit")
    ap.add_argument("--keep", action="store_true", help="keep every run's folder")
    ap.add_argument("--error-stats", action="store_true",
                    help="print how often each (normalised) error message ended a run")
    ap.add_argument("--baseline", action="store_true",
                    help="run every plan once unmutated (checks the harness; prints slow plans)")
    a = ap.parse_args(argv)

    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    if a.iterations is None and a.seconds is None:
        a.iterations = 100
    gen_dir = tempfile.mkdtemp(prefix="dmlrt-robust-gen-")
    try:
        cases = collect_cases(gen_dir)
        if a.case:
            cases = [c for c in cases if any(s in c.name for s in a.case)]
        skip = DEFAULT_SKIP if a.skip is None else a.skip
        cases = [c for c in cases if not any(s and s in c.name for s in skip)]
        if not cases:
            print("no cases found", file=sys.stderr)
            return 2
        if a.list_cases:
            for c in cases:
                print(c.name, c.plan_path)
            return 0
        ctx = {"opcodes": load_opcodes(), "by_arity": opcodes_by_arity(cases)}
        if a.print_mutant is not None:
            m = make_mutant(cases, seed, a.print_mutant, ctx)
            print(f"# case {m.case.name}; mutations: {m.log}; cli {m.cli}; nvargs {m.nvargs}; "
                  f"args {m.args}")
            sys.stdout.write(m.text())
            return 0
        return fuzz(a, seed, cases, ctx)
    finally:
        shutil.rmtree(gen_dir, ignore_errors=True)


def fuzz(a, seed, cases, ctx):
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        print(f"dmlrt executable not found: {binary}", file=sys.stderr)
        return 2
    out_dir = a.out or tempfile.mkdtemp(prefix="dmlrt-robust-findings-")
    marker = os.path.join(out_dir, ".robustness-findings")
    if os.path.exists(marker):  # a folder of an earlier run of this script: start it afresh
        _rmtree(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    open(marker, "w").close()
    base = tempfile.mkdtemp(prefix="dmlrt-robust-runs-")
    os.chmod(base, 0o755)
    drop = None if a.no_drop_privileges else drop_target()
    runner = Runner(binary, base, a.timeout, a.mem_mb, a.fsize_mb, drop)
    bound = f"{a.iterations} iterations" if a.seconds is None else f"{a.seconds:g} s"
    print(f"robustness: seed {seed}, {bound}, {len(cases)} plans, jobs {a.jobs}, "
          f"binary {binary}, findings -> {out_dir}" + (", dmlrt runs as nobody" if drop else ""),
          flush=True)
    repo_before = {d: snapshot(os.path.join(REPO, d)) for d in WATCHED_REPO_DIRS}
    lock = threading.Lock()
    groups = {}     # signature -> [iterations]
    saved = []
    overwrites = []
    stats = {"runs": 0, "rc": {}, "secs": 0.0}
    deadline = time.monotonic() + a.seconds if a.seconds is not None else None
    t_start = time.monotonic()
    counter = iter(range(10 ** 9))
    baseline_secs = {}
    errors = {}
    slows = []

    if a.baseline:
        a.iterations, deadline = len(cases), None

    def one(i):
        m = Mutant(cases[i]) if a.baseline else make_mutant(cases, seed, i, ctx)
        res = runner.run(str(i), m)
        return i, m, res

    def handle(i, m, res):
        nonlocal repo_before
        stats["runs"] += 1
        stats["secs"] += res["secs"]
        key = "timeout" if any(k in ("hang", "slow") for k, _ in res["findings"]) else \
            str(res["rc"])
        stats["rc"][key] = stats["rc"].get(key, 0) + 1
        if a.error_stats:
            msg = signature("rc" + str(res["rc"]), "", res["stderr"]).split("| ", 1)[-1]
            msg = re.sub(r"^dmlrt: error: \S+?:N: ", "", msg)[:90]
            errors[msg] = errors.get(msg, 0) + 1
        if a.baseline:
            print(f"  baseline {m.case.name}: exit {res['rc']}, {res['secs']:.2f} s", flush=True)
        if res["overwritten"]:
            overwrites.append((i, m.case.name, res["overwritten"]))
        # A hang counts only when the unmutated plan runs well within the timeout.
        if any(k == "hang" for k, _ in res["findings"]) and not a.baseline:
            base_secs = baseline_secs.get(m.case.name)
            if base_secs is None:
                b = runner.run(f"base{next(counter)}", Mutant(m.case))
                runner.cleanup(b)
                base_secs = baseline_secs[m.case.name] = b["secs"]
            if base_secs > a.timeout / 3:
                res["findings"] = [f for f in res["findings"] if f[0] != "hang"]
                print(f"  note: iteration {i} [{m.case.name}] timed out, but the unmutated plan "
                      f"takes {base_secs:.1f} s: not counted", flush=True)
        # A run busy until the timeout is listed, saved, and not counted as a failure.
        slow = [f for f in res["findings"] if f[0] == "slow"]
        if slow:
            d = save_finding(a.out or out_dir, dict(res, findings=slow), m.case, seed, i)
            slows.append(i)
            print(f"  slow (not counted): iteration {i} [{m.case.name}] {slow[0][1]}: "
                  f"{'; '.join(res['mutations'])} -> {d}", flush=True)
            res["findings"] = [f for f in res["findings"] if f[0] != "slow"]
        # The checked-in folders: a change is confirmed by re-running the mutant alone (other
        # people may be editing the tree).
        repo_now = {d: snapshot(os.path.join(REPO, d)) for d in WATCHED_REPO_DIRS}
        def repo_diff(before, after):  # ["created tests/unit/data/x.plan", ...]
            return [f"{c.split(' ', 1)[0]} {d}/{c.split(' ', 1)[1]}" for d in WATCHED_REPO_DIRS
                    for c in diff_snapshots(before[d], after[d])]

        changes = repo_diff(repo_before, repo_now)
        if changes:
            repo_before = repo_now
            again = runner.run(f"confirm{next(counter)}", m)
            runner.cleanup(again)
            repo_after = {d: snapshot(os.path.join(REPO, d)) for d in WATCHED_REPO_DIRS}
            # Confirmed: the same path changed again, and (when dmlrt runs as another user) the
            # entry belongs to that user, as nothing else of the tree can.
            first = {c.split(" ")[1] for c in changes}
            confirmed = [c for c in repo_diff(repo_now, repo_after)
                         if c.split(" ")[1] in first and
                         (drop is None or _owned_by(os.path.join(REPO, c.split(" ")[1]), drop[0]))]
            repo_before = repo_after
            if confirmed:
                res["findings"].append(("repo-change", "; ".join(confirmed[:6])))
            else:
                print(f"  note: checked-in files changed during iteration {i} but not when it was "
                      f"re-run alone (someone editing the tree?): {'; '.join(changes[:3])}",
                      flush=True)
        if res["findings"]:
            new_groups = []
            for kind, detail in res["findings"]:
                sig = signature(kind, detail, res["stderr"])
                if sig not in groups:
                    new_groups.append(sig)
                groups.setdefault(sig, []).append(i)
            minimized = None
            if new_groups and a.minimize:
                kind = res["findings"][0][0]
                mrunner = runner
                if kind == "hang":  # a blocked run shows within seconds
                    mrunner = Runner(binary, base, min(a.timeout, 3.0), a.mem_mb, a.fsize_mb, drop)
                small, n = minimize(mrunner, m, kind, a.minimize, counter)
                minimized = {"runs": n, "lines": len(small.lines),
                             "plan": small.text().replace(SCRATCH, "$SCRATCH")}
            d = save_finding(a.out or out_dir, res, m.case, seed, i, minimized)
            saved.append(d)
            for kind, detail in res["findings"]:
                print(f"FINDING iteration {i} [{m.case.name}] {kind}: {detail} "
                      f"(rc {res['rc']}, {res['secs']:.1f} s) -> {d}", flush=True)
            for mu in res["mutations"]:
                print(f"    {mu}", flush=True)
        if not a.keep:
            runner.cleanup(res)

    def interrupt(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, interrupt)

    i = 0
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs))
    try:
        pending = set()
        while True:
            more = (a.iterations is None or i < a.iterations) and \
                   (deadline is None or time.monotonic() < deadline)
            while more and len(pending) < max(1, a.jobs):
                pending.add(pool.submit(one, i))
                i += 1
                more = (a.iterations is None or i < a.iterations) and \
                       (deadline is None or time.monotonic() < deadline)
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                with lock:
                    try:
                        handle(*fut.result())
                    except (OSError, ValueError) as e:  # the harness, not dmlrt: say so, go on
                        stats["harness_errors"] = stats.get("harness_errors", 0) + 1
                        print(f"  harness error (not a finding): {e!r}", flush=True)
            if stats["runs"] % 100 == 0 and stats["runs"]:
                print(f"  ... {stats['runs']} runs, {time.monotonic() - t_start:.0f} s, "
                      f"{len(saved)} failing mutants", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        pool.shutdown(wait=False, cancel_futures=True)
        runner.kill_all()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        runner.kill_all()
        if not a.keep:
            _rmtree(base)

    wall = time.monotonic() - t_start
    print(f"\nrobustness summary: seed {seed}, {stats['runs']} runs in {wall:.0f} s "
          f"(mean run {stats['secs'] / max(1, stats['runs']):.2f} s); exit statuses "
          f"{dict(sorted(stats['rc'].items()))}")
    if a.error_stats:
        print("messages that ended the runs:")
        for msg, n in sorted(errors.items(), key=lambda kv: -kv[1]):
            print(f"  {n:5d} {msg}")
    if overwrites:
        print(f"inputs legitimately overwritten by a regular-file write of the plan: "
              f"{len(overwrites)} runs, e.g. iteration {overwrites[0][0]} [{overwrites[0][1]}]: "
              f"{overwrites[0][2]}")
    if slows:
        print(f"{len(slows)} runs were still busy at the {a.timeout:g} s timeout (a mutated loop "
              f"bound or size; not counted): iterations {', '.join(map(str, slows[:10]))}")
    if not groups:
        print("no findings")
        return 0
    print(f"{len(saved)} failing mutants in {len(groups)} groups (saved under {out_dir}):")
    for sig, its in sorted(groups.items()):
        print(f"  {len(its):4d} x {sig}   (iterations {', '.join(map(str, its[:5]))}"
              f"{', ...' if len(its) > 5 else ''})")
    print(f"reproduce one: {out_dir}/<finding>/repro.sh {binary}; "
          f"or rerun: {os.path.relpath(__file__)} --seed {seed} --print-mutant <iteration>")
    return 1


if __name__ == "__main__":
    sys.exit(main())

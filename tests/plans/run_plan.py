#!/usr/bin/env python3
"""Runs one script-driven integration case (tests/plans/cases/<name>/) through the dmlrt CLI.

Reads the case's case.json, runs `dmlrt -f plan.plan [-nvargs k=v ... | -args v ...]` in a fresh
temporary directory, and checks the exit code, stdout (expected_stdout.txt), stderr
(expected_stderr_contains) and every declared output matrix/scalar against expected/<name>,
cell by cell with |got - ref| <= atol + rtol*|ref|. Python standard library only.
See tests/plans/README.md for the case layout and the case.json keys.
"""
import argparse
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

DEFAULT_RTOL = 1e-9
DEFAULT_ATOL = 1e-9


class CaseFailure(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Matrix readers. Each returns (rows, cols, cells) where cells is {(i, j): value}, 0-based,
# zeros may be omitted. rows/cols may be None when the file does not say (text without .mtd).

def parse_number(tok, where):
    t = tok.strip()
    try:
        return float(t)  # accepts NaN, Infinity, -Infinity, 1.0E-20 as Java prints them
    except ValueError:
        raise CaseFailure(f"{where}: not a number: {tok!r}")


def read_mtd(path):
    mtd = path + ".mtd"
    if not os.path.exists(mtd):
        return None
    with open(mtd) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as e:
            raise CaseFailure(f"{mtd}: malformed JSON: {e}")


def read_csv(path, sep=",", header=False):
    cells = {}
    rows = 0
    cols = None
    with open(path) as f:
        lines = [ln.rstrip("\r\n") for ln in f]
    if header and lines:
        lines = lines[1:]
    for ln in lines:
        if ln.strip() == "":
            continue
        toks = ln.split(sep)
        if cols is None:
            cols = len(toks)
        elif len(toks) != cols:
            raise CaseFailure(f"{path}:{rows + 1}: {len(toks)} fields, expected {cols}")
        for j, t in enumerate(toks):
            v = parse_number(t, f"{path}:{rows + 1}")
            if v != 0.0 or math.isnan(v):
                cells[(rows, j)] = v
        rows += 1
    return rows, (cols or 0), cells


def read_text(path):
    cells = {}
    mtd = read_mtd(path)
    max_i = max_j = 0
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            if ln.strip() == "":
                continue
            toks = ln.split()
            if len(toks) != 3:
                raise CaseFailure(f"{path}:{n}: expected 'i j v', got {ln.strip()!r}")
            i, j = int(toks[0]), int(toks[1])
            if i < 1 or j < 1:
                raise CaseFailure(f"{path}:{n}: indices are 1-based, got {i} {j}")
            cells[(i - 1, j - 1)] = parse_number(toks[2], f"{path}:{n}")
            max_i, max_j = max(max_i, i), max(max_j, j)
    if mtd is not None and "rows" in mtd and "cols" in mtd:
        return int(mtd["rows"]), int(mtd["cols"]), cells
    return None, None, cells  # dims unknown: compared on cells only (see compare_matrices)


def read_mm(path):
    cells = {}
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].lower().startswith("%%matrixmarket"):
        raise CaseFailure(f"{path}: missing %%MatrixMarket header")
    banner = lines[0].lower().split()
    layout = banner[2] if len(banner) > 2 else "coordinate"
    symmetric = len(banner) > 4 and banner[4] == "symmetric"
    body = [ln for ln in lines[1:] if ln.strip() and not ln.startswith("%")]
    if not body:
        raise CaseFailure(f"{path}: missing size line")
    size = body[0].split()
    rows, cols = int(size[0]), int(size[1])
    if layout == "array":
        vals = [parse_number(t, path) for t in body[1:]]
        if len(vals) != rows * cols:
            raise CaseFailure(f"{path}: array with {len(vals)} values, expected {rows * cols}")
        for k, v in enumerate(vals):  # column-major
            if v != 0.0:
                cells[(k % rows, k // rows)] = v
        return rows, cols, cells
    for n, ln in enumerate(body[1:], 2):
        toks = ln.split()
        i, j = int(toks[0]) - 1, int(toks[1]) - 1
        v = parse_number(toks[2], f"{path}") if len(toks) > 2 else 1.0
        cells[(i, j)] = v
        if symmetric and i != j:
            cells[(j, i)] = v
    return rows, cols, cells


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise CaseFailure(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = data[start:start + hlen].decode("latin1")
    descr = re.search(r"'descr':\s*'([^']+)'", header).group(1)
    fortran = "True" in re.search(r"'fortran_order':\s*(\w+)", header).group(1)
    shape = tuple(int(s) for s in re.findall(r"\d+", re.search(r"'shape':\s*\(([^)]*)\)", header).group(1)))
    rows, cols = (shape + (1, 1))[:2] if len(shape) < 2 else shape[:2]
    if len(shape) == 1:
        rows, cols = shape[0], 1
    fmt = {"<f8": "d", "<f4": "f", "<i8": "q", "<i4": "i", "|b1": "?"}.get(descr)
    if fmt is None:
        raise CaseFailure(f"{path}: unsupported dtype {descr}")
    n = rows * cols
    vals = struct.unpack("<" + fmt * n, data[start + hlen:start + hlen + n * struct.calcsize(fmt)])
    cells = {}
    for k, v in enumerate(vals):
        i, j = (k % rows, k // rows) if fortran else (k // cols, k % cols)
        if v != 0:
            cells[(i, j)] = float(v)
    return rows, cols, cells


def read_matrix(path, fmt, spec):
    if not os.path.exists(path):
        raise CaseFailure(f"output not written: {path}")
    if fmt == "csv":
        mtd = read_mtd(path) or {}
        sep = spec.get("sep", mtd.get("sep", ","))
        header = spec.get("header", mtd.get("header", False))
        return read_csv(path, sep, header)
    if fmt == "text":
        return read_text(path)
    if fmt == "mm":
        return read_mm(path)
    if fmt == "npy":
        return read_npy(path)
    raise CaseFailure(f"unknown matrix format {fmt!r}")


def format_of(name, spec):
    if "format" in spec:
        return spec["format"]
    ext = os.path.splitext(name)[1].lower()
    return {".csv": "csv", ".txt": "text", ".ijv": "text", ".text": "text", ".mtx": "mm",
            ".mm": "mm", ".npy": "npy", ".scalar": "scalar"}.get(ext, "csv")


# ---------------------------------------------------------------------------------------------
# Comparisons

def close(got, ref, rtol, atol):
    if math.isnan(ref) or math.isnan(got):
        return math.isnan(ref) and math.isnan(got)
    if math.isinf(ref) or math.isinf(got):
        return got == ref
    return abs(got - ref) <= atol + rtol * abs(ref)


def compare_matrices(label, got, ref, rtol, atol):
    grows, gcols, gcells = got
    rrows, rcols, rcells = ref
    if None not in (grows, gcols, rrows, rcols) and (grows, gcols) != (rrows, rcols):
        raise CaseFailure(f"{label}: shape {grows}x{gcols}, expected {rrows}x{rcols}")
    keys = sorted(set(gcells) | set(rcells))
    bad = []
    max_err = 0.0
    for key in keys:
        g, r = gcells.get(key, 0.0), rcells.get(key, 0.0)
        if not (math.isnan(g) or math.isnan(r) or math.isinf(g) or math.isinf(r)):
            max_err = max(max_err, abs(g - r))
        if not close(g, r, rtol, atol):
            bad.append((key, g, r))
    if bad:
        lines = [f"{label}: {len(bad)} of {rrows}x{rcols} cells differ "
                 f"(rtol={rtol:g}, atol={atol:g}, max |got-ref| = {max_err:.3e}); first ones:"]
        for (i, j), g, r in bad[:8]:
            lines.append(f"  [{i + 1},{j + 1}] got {g!r} expected {r!r} (|diff| {abs(g - r):.3e})")
        raise CaseFailure("\n".join(lines))
    return max_err


def check_properties(label, got, props, rtol, atol):
    rows, cols, cells = got
    vals = list(cells.values())
    n = (rows or 0) * (cols or 0)
    errs = []
    if "rows" in props and rows != props["rows"]:
        errs.append(f"rows {rows}, expected {props['rows']}")
    if "cols" in props and cols != props["cols"]:
        errs.append(f"cols {cols}, expected {props['cols']}")
    lo = min(vals + ([0.0] if len(vals) < n else [])) if n else None
    hi = max(vals + ([0.0] if len(vals) < n else [])) if n else None
    if "min_at_least" in props and lo is not None and lo < props["min_at_least"]:
        errs.append(f"min value {lo!r} < {props['min_at_least']}")
    if "max_at_most" in props and hi is not None and hi > props["max_at_most"]:
        errs.append(f"max value {hi!r} > {props['max_at_most']}")
    if "sum" in props and not close(sum(vals), props["sum"], rtol, atol):
        errs.append(f"sum {sum(vals)!r}, expected {props['sum']!r}")
    if "nnz" in props and len([v for v in vals if v != 0]) != props["nnz"]:
        errs.append(f"nnz {len([v for v in vals if v != 0])}, expected {props['nnz']}")
    if "nnz_between" in props:
        lo_n, hi_n = props["nnz_between"]
        nnz = len([v for v in vals if v != 0])
        if not lo_n <= nnz <= hi_n:
            errs.append(f"nnz {nnz} not in [{lo_n}, {hi_n}]")
    if errs:
        raise CaseFailure(f"{label}: " + "; ".join(errs))


NUM_RE = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|NaN|Infinity)")


def compare_stdout(got, ref, mode, rtol, atol):
    """mode 'exact': byte-for-byte; 'numeric': same text outside numbers, numbers within tolerance."""
    if mode == "exact":
        if got == ref:
            return
        gl, rl = got.splitlines(), ref.splitlines()
        for n in range(max(len(gl), len(rl))):
            g = gl[n] if n < len(gl) else "<missing>"
            r = rl[n] if n < len(rl) else "<missing>"
            if g != r:
                raise CaseFailure(f"stdout differs at line {n + 1}:\n  got      {g!r}\n  expected {r!r}\n"
                                  f"--- full stdout ---\n{got}")
        raise CaseFailure(f"stdout differs (line endings or trailing newline): got {got!r}, expected {ref!r}")
    gl, rl = got.splitlines(), ref.splitlines()
    if len(gl) != len(rl):
        raise CaseFailure(f"stdout has {len(gl)} lines, expected {len(rl)}\n--- full stdout ---\n{got}")
    for n, (g, r) in enumerate(zip(gl, rl), 1):
        gs, rs = NUM_RE.split(g), NUM_RE.split(r)
        gn, rn = NUM_RE.findall(g), NUM_RE.findall(r)
        ok = gs == rs and len(gn) == len(rn) and all(
            close(float(a), float(b), rtol, atol) for a, b in zip(gn, rn))
        if not ok:
            raise CaseFailure(f"stdout line {n} differs (numeric compare, rtol={rtol:g} atol={atol:g}):\n"
                              f"  got      {g!r}\n  expected {r!r}")


# ---------------------------------------------------------------------------------------------

def build_command(dmlrt, case_dir, spec, out_dir):
    def subst(v):
        v = str(v)
        if v == "OUT":
            return out_dir
        if v.startswith("OUT/"):
            return os.path.join(out_dir, v[4:])
        return v

    cmd = [dmlrt] + list(spec.get("cli", [])) + ["-f", os.path.join(case_dir, spec.get("plan", "plan.plan"))]
    if "nvargs" in spec:
        cmd.append("-nvargs")
        cmd += [f"{k}={subst(v)}" for k, v in spec["nvargs"].items()]
    if "args" in spec:
        cmd.append("-args")
        cmd += [subst(v) for v in spec["args"]]
    return cmd


def run_case(dmlrt, case_dir, keep):
    case_dir = os.path.abspath(case_dir)
    dmlrt = os.path.abspath(dmlrt)  # the run happens in a temporary cwd
    if not os.access(dmlrt, os.X_OK):
        raise CaseFailure(f"dmlrt executable not found: {dmlrt}")
    name = os.path.basename(case_dir.rstrip("/"))
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    tol = spec.get("tolerance", {})
    # A documented deviation from SystemDS (docs/deviations.md) checks dmlrt's own expected
    # results, kept beside SystemDS's: "expected_dir": "expected_dmlrt" and
    # "expected_stdout": "expected_stdout_dmlrt.txt".
    expected_dir = spec.get("expected_dir", "expected")
    rtol, atol = tol.get("rtol", DEFAULT_RTOL), tol.get("atol", DEFAULT_ATOL)

    work = tempfile.mkdtemp(prefix=f"dmlrt_plan_{name}_")
    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir)
    # Inputs are referenced as in/<file>: the case's in/ folder is linked into the working dir,
    # so nothing the run does can touch the source tree.
    if os.path.isdir(os.path.join(case_dir, "in")):
        os.symlink(os.path.join(case_dir, "in"), os.path.join(work, "in"))
    cmd = build_command(dmlrt, case_dir, spec, out_dir)
    shown = " ".join(cmd)
    print(f"[{name}] {shown}  (cwd {work})")
    try:
        proc = subprocess.run(cmd, cwd=work, capture_output=True, timeout=spec.get("timeout_s", 120))
    except subprocess.TimeoutExpired:
        raise CaseFailure(f"timed out after {spec.get('timeout_s', 120)} s")
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")

    try:
        want_rc = spec.get("exit_code", 0)
        rc_ok = (proc.returncode != 0) if want_rc == "nonzero" else (proc.returncode == want_rc)
        if not rc_ok:
            raise CaseFailure(f"exit code {proc.returncode}, expected {want_rc}\n--- stderr ---\n{stderr}"
                              f"--- stdout ---\n{stdout}")
        for needle in spec.get("expected_stderr_contains", []):
            if needle not in stderr:
                raise CaseFailure(f"stderr does not contain {needle!r}\n--- stderr ---\n{stderr}")

        stdout_mode = spec.get("stdout", "exact")
        ref_path = os.path.join(case_dir, spec.get("expected_stdout", "expected_stdout.txt"))
        if stdout_mode != "ignore" and os.path.exists(ref_path):
            with open(ref_path, encoding="utf-8") as f:
                compare_stdout(stdout, f.read(), stdout_mode,
                               spec.get("stdout_rtol", rtol), spec.get("stdout_atol", atol))

        for out in spec.get("outputs", []):
            oname = out["name"]
            fmt = format_of(oname, out)
            o_rtol, o_atol = out.get("rtol", rtol), out.get("atol", atol)
            got_path = os.path.join(out_dir, oname)
            if fmt == "scalar":
                if not os.path.exists(got_path):
                    raise CaseFailure(f"output not written: {got_path}")
                with open(got_path) as f:
                    got = f.read().strip()
                with open(os.path.join(case_dir, expected_dir, out.get("expected", oname))) as f:
                    ref = f.read().strip()
                try:
                    if not close(float(got), float(ref), o_rtol, o_atol):
                        raise CaseFailure(f"{oname}: got {got}, expected {ref}")
                except ValueError:
                    if got != ref:
                        raise CaseFailure(f"{oname}: got {got!r}, expected {ref!r}")
                continue
            got = read_matrix(got_path, fmt, out)
            if out.get("mtd", False):
                mtd = read_mtd(got_path)
                if mtd is None:
                    raise CaseFailure(f"{oname}: no .mtd written next to it")
                if (got[0] is not None and int(mtd.get("rows", -1)) != got[0]) or \
                        (got[1] is not None and int(mtd.get("cols", -1)) != got[1]):
                    raise CaseFailure(f"{oname}.mtd: rows/cols {mtd.get('rows')}x{mtd.get('cols')} "
                                      f"disagree with the data {got[0]}x{got[1]}")
            if "properties" in out:
                check_properties(oname, got, out["properties"], o_rtol, o_atol)
                continue
            ref_name = out.get("expected", oname)
            ref_path = os.path.join(case_dir, expected_dir, ref_name)
            ref = read_matrix(ref_path, format_of(ref_name, out.get("expected_spec", {})), {})
            if got[0] is None and ref[0] is not None:
                got = (ref[0], ref[1], got[2])
            err = compare_matrices(oname, got, ref, o_rtol, o_atol)
            print(f"[{name}] {oname}: ok ({got[0]}x{got[1]}, max |got-ref| = {err:.3e})")
        for absent in spec.get("absent_outputs", []):
            if os.path.exists(os.path.join(out_dir, absent)):
                raise CaseFailure(f"{absent} was written but must not be")
    except CaseFailure:
        if stderr:
            sys.stderr.write(f"--- dmlrt stderr ---\n{stderr}\n")
        keep = True
        raise
    finally:
        if keep:
            print(f"[{name}] outputs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dmlrt", required=True, help="path to the dmlrt executable")
    ap.add_argument("--case", required=True, help="case folder (tests/plans/cases/<name>)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary output folder")
    a = ap.parse_args()
    try:
        run_case(a.dmlrt, a.case, a.keep)
    except CaseFailure as e:
        print(f"FAIL {os.path.basename(a.case.rstrip('/'))}: {e}")
        return 1
    print(f"PASS {os.path.basename(a.case.rstrip('/'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

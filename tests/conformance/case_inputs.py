"""Writers and generators shared by the conformance cases' make_inputs.py scripts: matrices as csv,
text (ijv) and Matrix Market files with SystemDS's .mtd metadata, and seeded random matrices.
A case sets `rng` (its own fixed seed) before drawing: `rng = case_inputs.rng = default_rng(n)`."""
import json

import numpy as np

rng = None  # set by each case to its seeded generator


def mtd(path, A, fmt, **extra):
    meta = {"data_type": "matrix", "value_type": "double", "rows": int(A.shape[0]), "cols": int(A.shape[1]),
            "nnz": int(np.count_nonzero(A)), "format": fmt}
    meta.update(extra)
    with open(path + ".mtd", "w") as f:
        json.dump(meta, f, indent=1)


def java_number(v):
    """A cell as SystemDS's readers take it: NaN and Infinity spelled as Java does (not nan/inf)."""
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


def write_csv(name, A, sep=",", header=False):
    A = np.asarray(A, dtype=float)
    path = f"in/{name}"
    with open(path, "w") as f:
        if header:
            f.write(sep.join(f"C{j + 1}" for j in range(A.shape[1])) + "\n")
        for row in A:
            f.write(sep.join(java_number(v) for v in row) + "\n")
    mtd(path, A, "csv", header=header, sep=sep)


def write_text(name, A):
    path = f"in/{name}"
    with open(path, "w") as f:
        for i, j in zip(*np.nonzero(A)):
            f.write(f"{i + 1} {j + 1} {float(A[i, j])!r}\n")
    mtd(path, A, "text")


def write_mm(name, A):
    path = f"in/{name}"
    nz = list(zip(*np.nonzero(A)))
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{A.shape[0]} {A.shape[1]} {len(nz)}\n")
        for i, j in nz:
            f.write(f"{i + 1} {j + 1} {float(A[i, j])!r}\n")
    mtd(path, A, "mm")


def dense(m, n, lo=-1.0, hi=1.0, digits=3):
    return np.round(rng.uniform(lo, hi, size=(m, n)), digits)


def sparse(m, n, density, lo=-1.0, hi=1.0, digits=3):
    A = dense(m, n, lo, hi, digits)
    A[rng.random((m, n)) >= density] = 0.0
    return A


def normal(rows, cols, sparsity=1.0):
    A = np.round(rng.normal(size=(rows, cols)), 4)
    if sparsity < 1.0:
        A[rng.random(size=(rows, cols)) >= sparsity] = 0.0
    return A

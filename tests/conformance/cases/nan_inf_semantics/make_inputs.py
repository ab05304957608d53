# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os
import numpy as np

os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(126)


def mtd(path, A, fmt, **extra):
    meta = {"data_type": "matrix", "value_type": "double", "rows": int(A.shape[0]), "cols": int(A.shape[1]),
            "nnz": int(np.count_nonzero(A)), "format": fmt}
    meta.update(extra)
    with open(path + ".mtd", "w") as f:
        json.dump(meta, f, indent=1)


def write_csv(name, A, sep=",", header=False):
    path = f"in/{name}"
    with open(path, "w") as f:
        if header:
            f.write(sep.join(f"C{j + 1}" for j in range(A.shape[1])) + "\n")
        for row in A:
            f.write(sep.join(repr(float(v)) for v in row) + "\n")
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

inf, nan = float("inf"), float("nan")
X = np.array([[nan, 1.0, -2.5, inf], [0.0, -inf, nan, 2.5], [3.0, 0.0, -1.0, 0.5]])
Y = np.array([[1.0, nan, 0.0, -inf], [0.0, 2.0, 0.0, inf], [nan, 0.0, -1.0, 0.5]])
with open("in/X.csv", "w") as f:          # Java spells these NaN / Infinity / -Infinity
    for row in X:
        f.write(",".join({"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(repr(float(v)), repr(float(v))) for v in row) + "\n")
mtd("in/X.csv", np.nan_to_num(X, nan=1.0), "csv", header=False, sep=",")
with open("in/Y.csv", "w") as f:
    for row in Y:
        f.write(",".join({"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(repr(float(v)), repr(float(v))) for v in row) + "\n")
mtd("in/Y.csv", np.nan_to_num(Y, nan=1.0), "csv", header=False, sep=",")

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os
import numpy as np

os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(115)


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

write_csv("X.csv", dense(23, 7, -3, 3, 3))
write_csv("P.csv", dense(4, 3, 0.5, 1.5, 2))
write_csv("one.csv", np.array([[-2.75]]))
write_csv("r.csv", dense(1, 9, -3, 3, 2))
# Z's metadata leaves out the dimensions, so nrow/ncol/length stay in the plan (evaluated at run time).
Z = dense(5, 3, -3, 3, 2)
write_csv("Z.csv", Z)
with open("in/Z.csv.mtd", "w") as f:
    json.dump({"data_type": "matrix", "value_type": "double", "format": "csv", "header": False, "sep": ","}, f)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os
import numpy as np

os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(506)


def write_csv(name, A):
    A = np.asarray(A, dtype=float)
    path = f"in/{name}"
    with open(path, "w") as f:
        for row in A:
            f.write(",".join(repr(float(v)) for v in row) + "\n")
    meta = {"data_type": "matrix", "value_type": "double", "rows": int(A.shape[0]),
            "cols": int(A.shape[1]), "nnz": int(np.count_nonzero(A)), "format": "csv",
            "header": False, "sep": ","}
    with open(path + ".mtd", "w") as f:
        json.dump(meta, f, indent=1)


def normal(rows, cols, sparsity=1.0):
    A = np.round(rng.normal(size=(rows, cols)), 4)
    if sparsity < 1.0:
        A[rng.random(size=(rows, cols)) >= sparsity] = 0.0
    return A

write_csv("X.csv", normal(2, 3*7*5))
write_csv("dout.csv", normal(2, 3*4*2))
write_csv("dout2.csv", normal(2, 3*4*3))

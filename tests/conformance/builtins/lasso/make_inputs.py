import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(413)
X = np.round(rng.normal(size=(80, 10)), 4)
b = np.zeros(10); b[[0, 3, 6, 8]] = [2.0, -1.5, 1.0, 0.7]
save("X", X); save("y", np.round(X @ b + rng.normal(scale=0.2, size=80), 4).reshape(-1, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(412)
n = 60
X = np.zeros((n, 4))
X[:, 2] = rng.integers(1, 3, size=n)
X[:, 3] = rng.integers(1, 3, size=n)
X[:, 0] = rng.integers(1, 25, size=n) + 3 * X[:, 2]
X[:, 1] = (rng.uniform(size=n) < 0.7)
save("X", X)

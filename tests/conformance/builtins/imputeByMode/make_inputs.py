import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(402)
X = rng.integers(1, 6, size=(40, 5)).astype(float)
X[:, 3:] = np.round(rng.normal(loc=4, scale=2, size=(40, 2)), 3)
X[rng.uniform(size=X.shape) < 0.15] = np.nan
save("X", X)
X2 = rng.integers(1, 6, size=(10, 5)).astype(float)
X2[rng.uniform(size=X2.shape) < 0.3] = np.nan
save("X2", X2)

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(416)
X = rng.integers(1, 8, size=(50, 1)).astype(float)
Y = (X * 3 % 5 + 1).astype(float)
Y[rng.uniform(size=Y.shape) < 0.1] = 2
Y[rng.uniform(size=Y.shape) < 0.15] = np.nan
save("X", X); save("Y", Y)
save("X2", rng.integers(1, 9, size=(12, 1)))

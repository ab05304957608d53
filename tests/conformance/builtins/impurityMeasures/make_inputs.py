import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(411)
X = np.zeros((60, 4))
X[:, 0:2] = np.round(rng.normal(size=(60, 2)), 3)
X[:, 2:4] = rng.integers(1, 4, size=(60, 2))
Y = ((X[:, 0] + (X[:, 2] == 2) + rng.normal(scale=0.5, size=60)) > 0.5).astype(float)
save("X", X); save("Y", Y.reshape(-1, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(414)
Y = rng.integers(1, 4, size=90)
C = np.array([[2, 0, 0, 1], [0, 2, 0, -1], [0, 0, 2, 0]])
X = np.round(C[Y - 1] + rng.normal(scale=0.8, size=(90, 4)), 3) * (rng.uniform(size=(90, 4)) < 0.9)
save("X", X); save("Y", Y.reshape(-1, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(308)
X = np.column_stack([rng.integers(1, 4, size=200), rng.integers(1, 5, size=200), rng.integers(1, 3, size=200), rng.integers(1, 4, size=200)]).astype(float)
e = np.round(rng.uniform(0, 0.3, size=200), 3)
e[(X[:, 0] == 2) & (X[:, 1] == 3)] += 1.0
e[X[:, 3] == 1] += 0.3
save("X", X)
save("e", e.reshape(200, 1))

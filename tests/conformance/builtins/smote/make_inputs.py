import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(601)
C = np.array([[0, 0, 10], [10, 0, 0], [0, 10, 0], [20, 10, 10], [10, 20, 30]], dtype=float)
X = np.vstack([C, C + np.round(rng.uniform(-0.1, 0.1, size=C.shape), 3)])
save("X", X[rng.permutation(10)])

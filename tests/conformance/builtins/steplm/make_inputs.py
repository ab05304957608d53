import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(307)
X = np.round(rng.normal(size=(80, 6)), 3)
y = 3 * X[:, [1]] - 2 * X[:, [4]] + 0.5 * X[:, [0]] + 1.5 + rng.normal(0, 0.3, size=(80, 1))
save("X", X)
save("y", np.round(y, 4))

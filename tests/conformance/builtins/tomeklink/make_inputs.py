import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(304)
X = np.vstack([rng.normal(0, 1, size=(28, 2)), rng.normal(1.2, 1, size=(12, 2))])
y = np.array([0] * 28 + [1] * 12, dtype=float).reshape(40, 1)
p = rng.permutation(40)
save("X", np.round(X[p], 4))
save("y", y[p])

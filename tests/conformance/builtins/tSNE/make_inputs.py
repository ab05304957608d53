import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(602)
centres = np.array([[0, 0, 0, 0], [20, 0, 0, 0], [0, 20, 0, 20]], dtype=float)
X = np.vstack([c + rng.normal(scale=0.5, size=(10, 4)) for c in centres])
L = np.repeat([1.0, 2.0, 3.0], 10)
p = rng.permutation(30)
save("X", np.round(X[p], 4))
save("L", L[p].reshape(30, 1))

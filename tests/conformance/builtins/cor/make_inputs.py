import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(112)
Z = rng.normal(size=(35, 4))
X = np.round(Z @ [[1, 0.5, 0, 0], [0, 1, 0.3, 0], [0, 0, 1, -0.8], [0, 0, 0, 1]], 4)
X[7, 2] = 9.0
save("X", X)

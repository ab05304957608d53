import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(208)
X = np.round(rng.normal(0, 1, size=(30, 6)), 3)
X[:, 1] = 2.5; X[:, 3] *= 3; X[:, 4] *= 0.3; X[:, 5] = 0
save("X", X)

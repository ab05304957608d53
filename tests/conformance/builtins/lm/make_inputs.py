import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(101)
X = np.round(rng.normal(size=(100, 5)) * [1, 2, 0.5, 3, 1] + [0, 1, -2, 0, 5], 4)
y = np.round(X @ [1.5, -2, 0.3, 0.7, 2] + 3 + rng.normal(scale=0.1, size=100), 4)[:, None]
save("X", X); save("y", y)

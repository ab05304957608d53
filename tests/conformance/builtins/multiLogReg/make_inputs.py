import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(106)
X = np.round(rng.normal(size=(90, 4)) * [1, 2, 1, 0.5] + [0, 1, 0, 0], 4)
W = np.array([[1, -1, 0], [0, 1, -1], [2, 0, -2], [0, 0, 1]])
Y = (np.argmax(X @ W + rng.gumbel(size=(90, 3)), axis=1) + 1).astype(float)[:, None]
save("X", X); save("Y", Y)

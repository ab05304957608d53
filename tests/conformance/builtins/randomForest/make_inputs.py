import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(401)
X = np.column_stack([rng.integers(1, 6, size=80), rng.integers(1, 4, size=80), rng.integers(1, 3, size=80)]).astype(float)
y = ((X[:, 0] >= 3) & (X[:, 1] != 2)).astype(float) + 1
flip = rng.uniform(size=80) < 0.1
y[flip] = 3 - y[flip]
save("X", X)
save("y", y.reshape(80, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(309)
X = np.column_stack([np.round(rng.normal(size=60), 3), np.round(rng.uniform(0, 5, size=60), 3), rng.integers(0, 2, size=60)])  # categorical features are one-hot (0/1) in xgboost
y = 2 * X[:, 0] + X[:, 2] * 3 + np.round(rng.normal(0, 0.2, size=60), 3)
c = ((X[:, 0] + 0.5 * X[:, 2]) > 0.2).astype(float)
save("X", X)
save("y", np.round(y, 4).reshape(60, 1))
save("c", c.reshape(60, 1))

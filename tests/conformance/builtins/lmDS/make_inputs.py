import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(102)
X = np.round(rng.uniform(-3, 3, size=(60, 7)), 4)
y = np.round(X @ rng.normal(size=7) - 1 + rng.normal(scale=0.2, size=60), 4)[:, None]
save("X", X); save("y", y)

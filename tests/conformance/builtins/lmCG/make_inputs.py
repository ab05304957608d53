import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(103)
X = np.round(rng.normal(size=(150, 12)), 4) * (rng.uniform(size=(150, 12)) < 0.3)
y = np.round(X @ rng.normal(size=12) + 0.5 + rng.normal(scale=0.05, size=150), 4)[:, None]
save("X", X); save("y", y)

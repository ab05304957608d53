import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(205)
X = rng.integers(1, 6, size=(60, 4)).astype(float)
X[:, 3] = rng.integers(1, 3, size=60)
X[7, 0] = np.nan
Y = ((X[:, 0] + rng.integers(0, 3, size=60)) % 3 + 1).astype(float)
save("X", X); save("Y", Y[:, None])

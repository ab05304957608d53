import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(206)
X = rng.integers(1, 7, size=(50, 4)).astype(float)
X[:, 1] = rng.integers(1, 3, size=50)
X[4, 3] = np.nan
save("X", X)

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(402)
X = np.round(rng.normal(size=(100, 3)), 4)
yg = np.round(X @ [1, -0.5, 2] + 3 + rng.normal(scale=0.4, size=100), 4)
yp = rng.poisson(np.exp(X @ [0.3, -0.2, 0.5] + 0.5)).astype(float)
yb = (rng.uniform(size=100) < 1 / (1 + np.exp(-(X @ [1.5, -1, 0.5])))).astype(float)
save("X", X); save("yg", yg[:, None]); save("yp", yp[:, None]); save("yb", yb[:, None])

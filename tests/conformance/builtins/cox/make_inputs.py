import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(403)
n = 60
Z = np.round(rng.normal(size=(n, 3)), 3)
f = rng.integers(0, 3, size=n)
t = np.ceil(rng.exponential(8 * np.exp(-(Z @ [0.5, -0.3, 0.2] + 0.4 * f)))).clip(1, 30)
e = (rng.uniform(size=n) > 0.25).astype(float)
save("X", np.column_stack([t, e, Z, np.eye(3)[f]]))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(309)
n = 80
x1 = np.round(rng.normal(size=n), 3)
x2 = np.round(5 + 0.7 * x1 + rng.normal(scale=0.5, size=n), 3)  # >= 1: SystemDS checks columns T[k] (the kind codes 2, 3) for min >= 1
x3 = rng.integers(1, 4, size=n)
x4 = np.clip(np.round(x1 + 2.5 + rng.normal(scale=0.7, size=n)), 1, 5)
x5 = np.where(rng.uniform(size=n) < 0.6, x3, rng.integers(1, 4, size=n))
x6 = np.clip(x4 + rng.integers(-1, 2, size=n), 1, 5)
save("X", np.column_stack([x1, x2, x3, x4, x5, x6]).astype(float))

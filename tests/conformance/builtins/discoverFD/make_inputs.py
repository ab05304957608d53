import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(305)
a = rng.integers(1, 7, size=40)
b = (a % 3) + 1
c = np.where(rng.uniform(size=40) < 0.85, (a * 2) % 5 + 1, rng.integers(1, 6, size=40))
d = rng.integers(1, 4, size=40)
X = np.column_stack([a, b, c, d, np.full(40, 2), np.arange(1, 41)]).astype(float)
save("X", X)

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(419)
x = np.round(np.sin(np.arange(120) / 3.0) + rng.normal(scale=0.3, size=120), 4)
x[30:38] = x[90:98] = np.round(np.linspace(-2, 2, 8), 4)
save("X", x.reshape(-1, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(418)
x = np.zeros(100)
for t in range(2, 100): x[t] = 0.6 * x[t-1] - 0.2 * x[t-2] + rng.normal()
x[[20, 55, 80]] += [8, -9, 7]
save("X", np.round(x, 4).reshape(-1, 1))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    with open("in/" + name + ".csv", "w") as f:
        for row in A:
            f.write(",".join("NaN" if np.isnan(v) else "%.6g" % v for v in row) + "\n")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(421)
save("X", np.round(rng.uniform(size=(20, 64)), 4))
save("W1", np.round(rng.normal(scale=0.3, size=(4, 25)), 4))
save("W2", np.round(rng.normal(scale=0.1, size=(6, 100)), 4))
save("W3", np.round(rng.normal(scale=0.3, size=(24, 10)), 4))
save("W4", np.round(rng.normal(scale=0.5, size=(10, 3)), 4))

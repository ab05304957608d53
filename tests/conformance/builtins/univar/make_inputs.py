import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(220)
X = np.column_stack([np.round(rng.normal(3, 2, size=50), 3), np.round(rng.exponential(size=50), 3), rng.integers(1, 5, size=50), rng.integers(1, 4, size=50)])
save("X", X)

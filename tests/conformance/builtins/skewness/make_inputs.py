import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(211)
X = np.round(np.column_stack([rng.normal(size=50), rng.exponential(size=50), -rng.exponential(2, size=50), rng.uniform(size=50)]), 4)
save("X", X)
save("S", np.round(rng.uniform(1, 3, size=(50, 3)), 3) * (rng.uniform(size=(50, 3)) < 0.3))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(217)
A = np.column_stack([rng.integers(1, 8, size=12), np.round(rng.uniform(size=(12, 2)), 3)])
B = np.column_stack([np.round(rng.uniform(size=10), 3), rng.integers(3, 10, size=10), np.arange(1, 11)])
save("A", A)
save("B", B)
# hash join: A's keys unique, and exactly B's keys (the builtin cbinds P %*% A with all of B)
k = np.unique(B[:, 1])
save("U", np.column_stack([rng.permutation(k), np.round(rng.uniform(size=len(k)), 3)]))

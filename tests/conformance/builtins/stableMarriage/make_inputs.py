import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(305)
n = 6
save("P", np.array([rng.permutation(n) + 1 for _ in range(n)], dtype=float))
save("A", np.array([rng.permutation(n) + 1 for _ in range(n)], dtype=float))
save("Ps", np.array([rng.permutation(n) + 1 for _ in range(n)], dtype=float) * 1.5)
save("As", np.array([rng.permutation(n) + 1 for _ in range(n)], dtype=float) * 0.5)

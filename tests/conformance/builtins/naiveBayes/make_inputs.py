import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(111)
C = rng.integers(1, 4, size=60).astype(float)
rates = np.array([[5, 1, 1, 2, 0.5], [1, 5, 1, 2, 0.5], [1, 1, 5, 0.5, 2]])
D = rng.poisson(rates[C.astype(int) - 1]).astype(float)
save("D", D); save("C", C[:, None])

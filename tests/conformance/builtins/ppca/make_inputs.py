import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(404)
Z = rng.normal(size=(60, 2)) * np.array([5.0, 3.0])
Bs = np.linalg.qr(rng.normal(size=(5, 2)))[0]
save("X", np.round(Z @ Bs.T + rng.normal(0, 0.05, size=(60, 5)), 4))

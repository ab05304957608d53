import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(201)
X = np.round(rng.normal(size=(60, 4)), 3)
X[3, 0] = 9.5; X[17, 1] = -8.25; X[40, 2] = 12.0; X[41, 3] = -7.5; X[50, 0] = 5.5
save("X", X)
S = np.round(rng.normal(3, 1, size=(60, 4)), 3) * (rng.uniform(size=(60, 4)) < 0.3)
S[5, 1] = 40.0
save("S", S)

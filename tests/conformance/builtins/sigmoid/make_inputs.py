import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(210)
X = np.round(rng.normal(0, 4, size=(20, 5)), 3); X[2, 3] = 40; X[7, 1] = -35
save("X", X)
save("S", np.round(rng.normal(0, 2, size=(20, 5)), 3) * (rng.uniform(size=(20, 5)) < 0.3))

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(109)
X = np.round(rng.uniform(-5, 5, size=(40, 6)), 4) * (rng.uniform(size=(40, 6)) < 0.25)
save("X", X)

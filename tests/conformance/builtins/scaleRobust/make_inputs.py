import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(207)
save("X", np.round(rng.normal(1, 4, size=(41, 4)), 3))
save("S", np.round(rng.uniform(1, 3, size=(30, 3)), 3) * (rng.uniform(size=(30, 3)) < 0.6))

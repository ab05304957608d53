import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(303)
save("X", np.round(rng.normal(size=(45, 3)), 3))
save("Y", rng.permutation(np.array([1] * 25 + [2] * 13 + [3] * 7)).reshape(45, 1).astype(float))

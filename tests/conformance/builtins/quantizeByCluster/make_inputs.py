import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(402)
centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
A = np.vstack([c + rng.normal(scale=0.5, size=(20, 2)) for c in centres])
B = np.vstack([c + rng.normal(scale=0.5, size=(20, 2)) for c in centres[[2, 0, 1]]])
X = np.round(np.hstack([A, B]), 4)
save("X", X[rng.permutation(60)])

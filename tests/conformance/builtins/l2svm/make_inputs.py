import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(105)
X = np.round(rng.normal(size=(80, 4)), 4)
Y = ((X @ [1, -1, 0.5, 2] + 0.3 + rng.normal(scale=0.5, size=80)) > 0).astype(float)[:, None]
save("X", X); save("Y", Y)

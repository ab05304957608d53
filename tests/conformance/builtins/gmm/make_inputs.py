import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(503)
c = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
X = np.round(np.vstack([c[i] + rng.normal(scale=[0.5 + 0.2 * i, 0.6], size=(20, 2)) for i in range(3)]), 4)
X = X[rng.permutation(60)]
T = np.round(np.vstack([c[i] + rng.normal(scale=0.5, size=(3, 2)) for i in range(3)]), 4)
save("X", X); save("T", T)

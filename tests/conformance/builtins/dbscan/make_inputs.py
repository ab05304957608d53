import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(307)
X = np.vstack([rng.normal(scale=0.3, size=(20, 2)), [5, 5] + rng.normal(scale=0.3, size=(20, 2)), rng.uniform(-8, 12, size=(5, 2))])
X = np.round(X, 4)
T = np.round(np.vstack([rng.normal(scale=0.3, size=(4, 2)), [5, 5] + rng.normal(scale=0.3, size=(3, 2)), [[20, 20], [-10, 3], [2.5, 2.5]]]), 4)
save("X", X); save("T", T)

import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(205)
X = np.round(rng.normal(5, 2, size=(40, 3)), 3)
save("X", X)
save("Y", np.round(X + rng.normal(0, 0.5, size=X.shape), 3))
save("P", np.array([[0.5], [0.25], [0.75]]))

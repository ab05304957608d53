import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(301)
def stoch(A):
    A = A.copy(); A[:, A.sum(0) == 0] = 1
    return A / A.sum(0)
save("G", np.round(stoch(rng.uniform(size=(30, 30)) < 0.3), 6))
save("S", np.round(stoch(rng.uniform(size=(30, 30)) < 0.05), 6))

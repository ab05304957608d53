import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(301)
n = 40
G = np.zeros((n, n))
for i in range(10, 19):
    G[i, i + 1] = 1
E = rng.integers(20, 40, size=(12, 2))
for a, b in E:
    if a != b: G[a, b] = 1
G = ((G + G.T) > 0).astype(float)
save("G", G)

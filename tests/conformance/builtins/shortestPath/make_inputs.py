import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(801)
n = 30
G = np.round(rng.uniform(1, 10, size=(n, n)), 2) * (rng.uniform(size=(n, n)) < 0.12)
np.fill_diagonal(G, 0)
G[:, 29] = 0; G[29, :] = 0
G[29, 3] = 2.5  # node 30 has an out-edge only: unreachable from the sources
save("G", G)

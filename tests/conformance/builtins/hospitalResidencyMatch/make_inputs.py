import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(308)
m, n = 8, 4
R = np.zeros((m, n))
for i in range(m):
    R[i, :] = rng.permutation(n) + 1
H = np.vstack([rng.permutation(m) + 1 for _ in range(n)]).astype(float)
cap = np.array([[2], [1], [3], [2]], dtype=float)
save("R", R); save("H", H); save("cap", cap)

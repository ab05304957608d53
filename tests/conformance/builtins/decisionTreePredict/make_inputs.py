import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(601)
X = np.column_stack([rng.integers(0, 5, 40), rng.integers(0, 7, 40), rng.integers(0, 9, 40), rng.integers(0, 2, 40)]).astype(float)
M = np.zeros(30)
M[0:2] = [2, 3]; M[2:4] = [1, 2]; M[4:6] = [3, 4]     # nodes 1..3: splits
M[6:8] = [0, 1]; M[8:10] = [0, 2]; M[10:12] = [0, 2]  # nodes 4..6: leaves
M[12:14] = [4, 0.5]                                   # node 7: split
M[26:28] = [0, 1]; M[28:30] = [0, 2]                  # nodes 14, 15: leaves
save("X", X); save("M", M[None, :])

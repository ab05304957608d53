import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(304)
I = np.round(rng.uniform(1, 5, size=(15, 10))) * (rng.uniform(size=(15, 10)) < 0.3)
L = np.round(rng.uniform(0, 1.5, size=(15, 3)), 3)
R = np.round(rng.uniform(0, 1.5, size=(3, 10)), 3)
R[:, 6] = 0
users = np.array([3, 1, 15, 7, 3, 10], dtype=float)
save("users", users[:, None]); save("I", I); save("L", L); save("R", R)

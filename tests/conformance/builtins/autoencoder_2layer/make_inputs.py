import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(505)
X = np.round(rng.normal(size=(40, 8)), 4)
save("X", X)
save("W1r", np.round(rng.uniform(-1, 1, (5, 8)), 4)); save("W2r", np.round(rng.uniform(-1, 1, (3, 5)), 4))
save("W3r", np.round(rng.uniform(-1, 1, (5, 3)), 4)); save("W4r", np.round(rng.uniform(-1, 1, (8, 5)), 4))
save("ordr", np.round(rng.uniform(size=(40, 1)), 6))

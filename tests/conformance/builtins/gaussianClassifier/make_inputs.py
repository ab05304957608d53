import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(405)
C = np.repeat([1.0, 2.0, 3.0], [25, 35, 30])
D = np.vstack([rng.normal(loc=m, scale=s, size=(k, 3)) for m, s, k in [(0, 1, 25), (3, 0.5, 35), (-2, 2, 30)]])
save("D", np.round(D, 4)); save("C", C[:, None])

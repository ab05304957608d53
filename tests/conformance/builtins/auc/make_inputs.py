import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    txt = open("in/" + name + ".csv").read()
    open("in/" + name + ".csv", "w").write(txt.replace("nan", "NaN"))  # SystemDS reads NaN only
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(201)
Y = (rng.uniform(size=60) < 0.4).astype(float)
P = np.round(0.5 * Y + rng.uniform(size=60) * 0.8, 3)
save("Y", Y[:, None]); save("P", P[:, None])

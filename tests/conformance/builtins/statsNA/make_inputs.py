import numpy as np, os
os.makedirs("in", exist_ok=True)
def save(name, A):
    A = np.atleast_2d(A)
    np.savetxt("in/" + name + ".csv", A, delimiter=",", fmt="%.6g")
    with open("in/" + name + ".csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, "format": "csv", "header": false, "sep": ","}\n' % A.shape)
rng = np.random.default_rng(219)
X = np.round(rng.normal(size=(40, 1)), 3)
for i in [2, 3, 4, 10, 11, 20, 25, 26, 27, 28, 39]: X[i, 0] = np.nan
# SystemDS's csv reader wants NaN spelled "NaN"
with open("in/X.csv", "w") as f:
    f.write("".join(("NaN" if np.isnan(v) else "%.6g" % v) + "\n" for v in X[:, 0]))
with open("in/X.csv.mtd", "w") as f:
    f.write('{"data_type": "matrix", "value_type": "double", "rows": 40, "cols": 1, "format": "csv", "header": false, "sep": ","}\n')

import numpy as np, os
os.makedirs("in", exist_ok=True)
X = np.round(np.random.default_rng(11).normal(size=(6, 3)), 4)
np.savetxt("in/X.csv", X, delimiter=",", fmt="%.4f")
with open("in/X.csv.mtd", "w") as f:
    f.write('{"data_type": "matrix", "value_type": "double", "rows": 6, "cols": 3, "format": "csv", "header": false, "sep": ","}\n')

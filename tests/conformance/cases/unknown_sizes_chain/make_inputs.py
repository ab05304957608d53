# X: 40x6 with all-zero rows and an all-zero column; its .mtd has no dims (SystemDS and dmlrt must
# take them from the data). y: 40 labels in 1..4 with repeats.
import json, os
import numpy as np
os.makedirs("in", exist_ok=True)
rng = np.random.default_rng(1717)
X = np.round(rng.uniform(-2, 2, size=(40, 6)), 3)
X[rng.random(40) < 0.3, :] = 0.0
X[:, 4] = 0.0
y = rng.integers(1, 5, size=(40, 1)).astype(float)
np.savetxt("in/X.csv", X, delimiter=",", fmt="%.3f")
np.savetxt("in/y.csv", y, delimiter=",", fmt="%.0f")
for name in ("X", "y"):
    with open(f"in/{name}.csv.mtd", "w") as f:
        json.dump({"data_type": "matrix", "value_type": "double", "format": "csv", "header": False, "sep": ","}, f)

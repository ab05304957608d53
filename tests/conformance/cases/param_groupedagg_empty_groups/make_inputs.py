# X: 30x3 values with a NaN; G: group ids in {1, 2, 4, 6} (3 and 5 never occur), ngroups = 7.
import os
import sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
os.makedirs("in", exist_ok=True)
rng = case_inputs.rng = np.random.default_rng(3131)
X = case_inputs.dense(30, 3, -5, 5)
X[7, 2] = np.nan
G = rng.choice([1.0, 2.0, 4.0, 6.0], size=(30, 1))

case_inputs.write_csv("X.csv", X)
case_inputs.write_csv("G.csv", G)


# X: 60 points around 4 centres (and one sparse copy at 30% density); C: the 4 centres, perturbed.
import os
import sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
os.makedirs("in", exist_ok=True)
rng = case_inputs.rng = np.random.default_rng(2024)
C = np.array([[0.0, 0.0, 1.0], [5.0, 0.0, -1.0], [0.0, 5.0, 2.0], [5.0, 5.0, 0.0]])
X = np.round(np.vstack([c + rng.normal(scale=1.0, size=(15, 3)) for c in C]), 3)
X = X[rng.permutation(len(X))]
S = case_inputs.sparse(60, 3, 0.3, -6, 6)
case_inputs.write_csv("X.csv", X)
case_inputs.write_csv("S.csv", S)
case_inputs.write_csv("C.csv", np.round(C + rng.normal(scale=0.1, size=C.shape), 3))

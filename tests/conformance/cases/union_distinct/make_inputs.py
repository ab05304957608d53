# Writes this case's inputs into in/ (fixed seed): matrices with repeated rows (dense, sparse, a
# single column with repeats across both inputs).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1707)
A = np.round(rng.integers(0, 3, size=(12, 3)) * 0.5, 1)          # many repeated rows
B = np.round(rng.integers(0, 3, size=(9, 3)) * 0.5, 1)
S = np.where(rng.random((15, 3)) < 0.15, 1.5, 0.0)               # sparse: mostly zero rows
v = rng.integers(0, 6, size=(10, 1)).astype(float)
w = rng.integers(3, 9, size=(8, 1)).astype(float)
write_csv("A.csv", A)
write_csv("B.csv", B)
write_csv("S.csv", S)
write_csv("v.csv", v)
write_csv("w.csv", w)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1719)

write_csv("A.csv", dense(6, 4, -1, 1, 3))
write_csv("W.csv", dense(3, 5, -1, 1, 3))
X = sparse(8, 5, 0.3, -1, 1, 3)
X[np.arange(5), np.arange(5)] += np.array([2.0, 1.5, 1.0, 0.5, 0.25])  # distinct singular values
write_mm("X.mtx", X)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1717)
X = dense(20, 15, -0.5, 3, 3)
X[rng.random(X.shape) < 0.3] = 0.0  # zeros: 0 rather than -Infinity
write_csv("X.csv", X)
write_mm("S.mtx", sparse(50, 40, 0.05, 0, 2, 3))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(112)


X = dense(7, 6, -3, 3, 2)
X[0, :] = [-2.5, 2.5, -0.5, 0.5, 0.0, -1.5]
X[1, :] = [1.0, -1.0, 0.99, -0.99, 3.5, -3.5]
write_csv("X.csv", X)
write_csv("r.csv", dense(1, 9, -1, 1, 2))
write_csv("c.csv", dense(11, 1, 0, 4, 2))

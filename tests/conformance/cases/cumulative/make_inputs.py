# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(114)


X = dense(9, 5, -2, 2, 1)
X[3, 1] = 0.0
write_csv("X.csv", X)
write_csv("r.csv", dense(1, 7, -2, 2, 1))
write_csv("c.csv", dense(12, 1, 0.5, 1.5, 2))
write_mm("S.mtx", sparse(40, 6, 0.1, -2, 2, 1))
W = np.hstack([dense(10, 1, -1, 1, 2), dense(10, 1, 0, 1, 2)])
write_csv("W.csv", W)

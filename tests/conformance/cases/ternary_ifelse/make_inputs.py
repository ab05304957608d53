# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(111)


X = dense(8, 5, -2, 2, 2)
Y = dense(8, 5, -2, 2, 2)
M = (dense(8, 5, 0, 1, 2) > 0.5).astype(float)
M[0, 0] = 0.0; M[0, 1] = 1.0
write_csv("X.csv", X)
write_csv("Y.csv", Y)
write_csv("M.csv", M)
write_csv("s.csv", np.array([[0.75, 1.0]]))
write_mm("S.mtx", sparse(30, 20, 0.1))
write_mm("T.mtx", sparse(30, 20, 0.1))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1709)

X = dense(6, 5, -3, 3)
X[0, :2] = 0.0                      # exact zeros: the kink of relu-like layers
write_csv("X.csv", X)
write_csv("dout.csv", dense(6, 5, -1, 1))
write_csv("S.csv", sparse(30, 20, 0.1, -3, 3))   # 90% zeros: SystemDS reads it as a sparse block
write_csv("doutS.csv", dense(30, 20, -1, 1))
write_csv("Z.csv", np.zeros((4, 3)))               # empty (all zeros)
write_csv("doutZ.csv", dense(4, 3, -1, 1))

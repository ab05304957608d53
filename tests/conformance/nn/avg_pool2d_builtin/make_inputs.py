# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1708)

X = dense(2, 32, -2, 2)
X[0, 0:4] = 0.0                               # a window of zeros (ties)
write_csv("X.csv", X)
write_csv("dout1.csv", dense(2, 8, -1, 1))    # C*2*2
write_csv("dout2.csv", dense(2, 32, -1, 1))   # C*4*4

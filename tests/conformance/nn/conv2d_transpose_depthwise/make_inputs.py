# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1705)

write_csv("X.csv", dense(2, 36, -2, 2))      # C=4, 3x3
write_csv("W.csv", dense(2, 18, -1, 1))      # (C/M, M*Hf*Wf)
write_csv("b.csv", dense(2, 1, -1, 1))       # (C/M, 1)
write_csv("dout.csv", dense(2, 72, -1, 1))   # C/M*6*6

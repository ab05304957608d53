# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1718)
A = dense(8, 6, -40, 40, 1)
A[0, 0] = 13.7
A[rng.random(A.shape) < 0.25] = 0.0
B = np.round(dense(8, 6, 0, 30, 0))
B[1, 1] = 11.0
write_csv("A.csv", A)
write_csv("B.csv", B)

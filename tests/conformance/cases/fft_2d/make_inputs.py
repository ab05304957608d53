# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1717)

write_csv("X.csv", dense(4, 8, -2, 2, 3))      # real 4x8
write_csv("Re.csv", dense(8, 4, -1, 1, 3))     # complex 8x4
write_csv("Im.csv", dense(8, 4, -1, 1, 3))
write_mm("S.mtx", sparse(16, 8, 0.1, -3, 3, 3))  # sparse 16x8
write_csv("R.csv", dense(1, 16, -1, 1, 3))     # one row
write_csv("C.csv", dense(8, 1, -1, 1, 3))      # one column

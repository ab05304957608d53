# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1718)

write_csv("X.csv", dense(5, 8, -2, 2, 3))       # 5 rows (not a power of two): row-wise is fine
write_csv("Re.csv", dense(3, 16, -1, 1, 3))     # complex 3x16
write_csv("Im.csv", dense(3, 16, -1, 1, 3))
write_mm("S.mtx", sparse(7, 32, 0.08, -3, 3, 3))  # sparse 7x32
write_csv("C.csv", dense(6, 1, -1, 1, 3))       # one column: each row its own 1-point DFT

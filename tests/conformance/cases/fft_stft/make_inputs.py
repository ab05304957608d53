# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1720)

write_csv("X.csv", dense(3, 10, -2, 2, 3))    # 10 columns: the last frames are zero-padded
write_csv("Re.csv", dense(2, 9, -1, 1, 3))    # complex 2x9
write_csv("Im.csv", dense(2, 9, -1, 1, 3))
write_mm("S.mtx", sparse(4, 20, 0.15, -3, 3, 3))  # sparse 4x20

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(171)

write_csv("X.csv", dense(6, 4, -3, 3, 2))
write_csv("v.csv", dense(7, 1, -3, 3, 2))
write_mm("S.mtx", sparse(40, 24, 0.1, -3, 3, 2))

# Writes this case's inputs into in/ (fixed seed): A 5x4 and B 4x3 dense, S 5x4 sparse, v 4x1,
# Q 4x4 (for a diagonal).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1721)
write_csv("A.csv", np.round(rng.uniform(-2, 2, (5, 4)), 3))
write_csv("B.csv", np.round(rng.uniform(-2, 2, (4, 3)), 3))
write_mm("S.mtx", np.round(rng.uniform(1, 3, (5, 4)), 2) * (rng.uniform(size=(5, 4)) < 0.3))
write_csv("v.csv", np.round(rng.uniform(-1, 1, (4, 1)), 3))
write_csv("Q.csv", np.round(rng.uniform(-1, 1, (4, 4)), 3))

# Writes this case's inputs into in/ (fixed seed): X 60x1 small integers with ties and zeros, Y
# 1x25 from the same range (ties with X), S 80x1 mostly zeros (a sparse column).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1719)
write_csv("X.csv", rng.integers(-3, 8, (60, 1)).astype(float))
write_csv("Y.csv", rng.integers(-3, 8, (1, 25)).astype(float))
S = rng.integers(1, 5, (80, 1)) * (rng.uniform(size=(80, 1)) < 0.1)
write_mm("S.mtx", S.astype(float))

# Writes this case's inputs into in/ (fixed seed): X 40x6 dense integers with duplicates and zeros
# (and a -0.0-free real column), S a sparse 30x8, L 40x60 integers (2400 non-zeros: past the 1024
# where countDistinctApprox switches to its KMV sketch), W 3x1200 integers (1024+ non-zeros per row).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1718)
X = rng.integers(0, 6, (40, 6)).astype(float)
X[:, 4] = np.round(rng.uniform(-3, 3, 40), 1)
X[:, 5] = rng.integers(-2, 3, 40)
write_csv("X.csv", X)
S = rng.integers(1, 5, (30, 8)) * (rng.uniform(size=(30, 8)) < 0.15)
S[3, 2] = 7.5
write_mm("S.mtx", S.astype(float))
write_csv("L.csv", rng.integers(1, 700, (40, 60)).astype(float))
write_csv("W.csv", rng.integers(1, 300, (3, 1200)).astype(float))

# Writes this case's inputs into in/ (fixed seed): X 60x5 with integer columns (duplicates, up to
# 100) and real columns (3 decimals), zeros; S a sparse 30x8 with integer and real values.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1717)
X = np.zeros((60, 5))
X[:, 0] = rng.integers(0, 8, 60)
X[:, 1] = rng.integers(-20, 101, 60)
X[:, 2] = np.round(rng.normal(0, 50, 60), 3)
X[:, 3] = np.round(rng.uniform(-1, 1, 60), 3) * (rng.uniform(size=60) < 0.7)
X[:, 4] = rng.integers(1, 4, 60) * 0.5
write_csv("X.csv", X)
S = np.round(rng.uniform(-5, 5, (30, 8)), 1) * (rng.uniform(size=(30, 8)) < 0.15)
S[3, 2] = 7.0
write_mm("S.mtx", S)

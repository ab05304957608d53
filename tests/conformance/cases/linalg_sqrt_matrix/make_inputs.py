# Writes this case's inputs into in/ (fixed seed): A 6x6 dense symmetric positive definite
# (B^T B + I), S 30x30 sparse tridiagonal, diagonally dominant (positive definite).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1720)
B = rng.uniform(-1, 1, (6, 6))
write_csv("A.csv", B.T @ B + np.eye(6))
S = np.diag(np.full(30, 4.0)) + np.diag(np.full(29, -1.0), 1) + np.diag(np.full(29, -1.0), -1)
write_mm("S.mtx", S)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1717)

B = dense(6, 6, -1, 1, 3)
write_csv("S.csv", np.round(B @ B.T + 6 * np.eye(6), 6))    # symmetric positive definite
T = 4 * np.eye(12) - np.eye(12, k=1) - np.eye(12, k=-1)     # tridiagonal SPD, sparse
write_mm("T.mtx", T)
G = dense(5, 5, -1, 1, 3) + np.diag([0.5, -0.3, 0.4, 0.2, -0.6])  # general; partial pivoting swaps
write_csv("G.csv", G)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1811)

# Symmetric dense 7x7.
B = dense(7, 7, -1, 1, 3)
write_csv("S.csv", B + B.T)
# Symmetric sparse 9x9 (about 30% nonzero) with a distinct diagonal, so that no eigenvalue repeats.
C = sparse(9, 9, 0.15, -1, 1, 3)
C = C + C.T
C[np.arange(9), np.arange(9)] += np.arange(1, 10) * 0.75
write_mm("P.mtx", C)
# Non-symmetric 5x5 with real, well separated eigenvalues: T (upper triangular, diagonal
# -2 -0.5 1 2.5 4) moved by a well-conditioned similarity, rounded to 4 digits.
T = np.triu(dense(5, 5, -1, 1, 3), 1) + np.diag([-2, -0.5, 1, 2.5, 4])
Q = np.eye(5) + 0.3 * dense(5, 5, -1, 1, 3)
G = np.round(Q @ T @ np.linalg.inv(Q), 4)
assert np.all(np.abs(np.linalg.eigvals(G).imag) == 0)
write_csv("G.csv", G)

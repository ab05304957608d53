# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv, write_mm  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1718)

write_csv("A.csv", dense(5, 5, -1, 1, 3))
write_csv("T.csv", dense(7, 4, -1, 1, 3))
write_csv("W.csv", dense(3, 5, -1, 1, 3))
S = sparse(9, 6, 0.2, -1, 1, 3)
S[np.arange(6), np.arange(6)] = 1.5      # a nonzero diagonal: no exactly-zero leading entry
write_mm("S.mtx", S)
# Upper triangular: columns 1 and 2 are zero below the diagonal, so LAPACK skips their
# reflections and commons-math does not (H(j,j) = 2, R's row negated).
Z = np.array([[2.0, 1.0, 0.5], [0.0, -3.0, 1.25], [0.0, 0.0, 0.75], [0.0, 0.0, -2.0]])
write_csv("Z.csv", Z)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(122)


A = dense(7, 7, -1, 1, 3) + 4 * np.eye(7)    # diagonally dominant: well conditioned
write_csv("A.csv", A)
write_csv("b.csv", dense(7, 1, -2, 2, 3))
write_csv("B.csv", dense(7, 3, -2, 2, 3))
write_csv("a.csv", np.array([[2.5]]))
write_csv("c.csv", np.array([[-1.25]]))
R = dense(9, 4, -1, 1, 3)                     # overdetermined: least squares
write_csv("R.csv", R)
write_csv("y.csv", dense(9, 1, -2, 2, 3))

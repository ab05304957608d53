# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(116)


X = dense(11, 7, -3, 3, 1)
X[2, :] = 1.5          # ties for rowIndexMax/Min
X[4, 3] = X[4, 5] = 2.9
write_csv("X.csv", X)
write_csv("P.csv", dense(5, 4, 0.5, 1.5, 2))
write_csv("r.csv", dense(1, 8, -3, 3, 2))
write_csv("c.csv", dense(9, 1, -3, 3, 2))

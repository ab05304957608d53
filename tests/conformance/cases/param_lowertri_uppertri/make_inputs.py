# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1701)

D = dense(7, 5, -2, 2)
D[3, :] = 0.0                       # a zero row of a dense input still gets the values=FALSE ones
write_csv("D.csv", D)
write_csv("W.csv", dense(4, 6, -2, 2))
S = sparse(30, 30, 0.1, -3, 3)
S[4, :] = 0.0                       # empty rows: no values=FALSE ones in a sparse input
S[20, :] = 0.0
S[0, 0] = 1.5                       # the first row is not empty
write_mm("S.mtx", S)

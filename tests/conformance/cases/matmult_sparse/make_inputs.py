# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(101)


S = sparse(37, 23, 0.1)            # sparse (0.1)
U = sparse(300, 200, 0.001)        # ultra-sparse (0.001)
D = dense(23, 9)
E = dense(11, 37)
V = sparse(200, 1, 0.05)
write_mm("S.mtx", S)
write_text("U.txt", U)
write_csv("D.csv", D)
write_csv("E.csv", E)
write_mm("V.mtx", V)

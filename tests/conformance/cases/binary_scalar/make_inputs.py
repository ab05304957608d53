# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(109)


X = dense(6, 7, -5, 5, 2)
X[0, 0:4] = [0.0, -2.5, 2.5, -7.0]
write_csv("X.csv", X)
write_mm("S.mtx", sparse(60, 25, 0.1))
write_text("U.txt", sparse(500, 400, 0.001))
write_csv("s.csv", np.array([[3.0, -2.0, 0.0, 0.5]]))

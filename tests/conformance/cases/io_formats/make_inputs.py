# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(125)


X = dense(6, 4, -3, 3, 3)
X[1, 2] = 0.0
write_csv("Xh.csv", X, sep=";", header=True)
write_csv("Xp.csv", dense(3, 5, -3, 3, 3), sep="|")
write_text("T.txt", sparse(25, 12, 0.1, -3, 3, 3))
write_mm("M.mtx", sparse(30, 9, 0.1, -3, 3, 3))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(121)


write_csv("A.csv", dense(5, 3, -3, 3, 2))
write_csv("B.csv", dense(5, 4, -3, 3, 2))
write_csv("C.csv", dense(2, 3, -3, 3, 2))
write_csv("v.csv", dense(5, 1, -3, 3, 2))
write_mm("S.mtx", sparse(40, 25, 0.1, -3, 3, 2))
write_mm("T.mtx", sparse(40, 15, 0.1, -3, 3, 2))
write_text("U.txt", sparse(500, 25, 0.001, -3, 3, 2))

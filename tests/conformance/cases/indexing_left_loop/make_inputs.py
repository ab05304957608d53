# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(120)


write_csv("X.csv", dense(7, 6, -3, 3, 2))
write_csv("r.csv", dense(1, 6, -3, 3, 2))
write_csv("c.csv", dense(7, 1, -3, 3, 2))
write_csv("B.csv", dense(3, 2, -3, 3, 2))
write_mm("S.mtx", sparse(30, 20, 0.1, -3, 3, 2))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(113)


rng = case_inputs.rng = np.random.default_rng(1702)

write_mm("W.mtx", sparse(60, 40, 0.1, 0.5, 2, 2))
write_csv("D.csv", dense(60, 40, 0.5, 2, 2))
write_mm("X.mtx", sparse(60, 40, 0.12, -2, 2, 2))
write_csv("U.csv", dense(60, 5, 0.1, 1, 3))
write_csv("V.csv", dense(40, 5, 0.1, 1, 3))

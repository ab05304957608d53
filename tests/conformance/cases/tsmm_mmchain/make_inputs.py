# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(106)


write_csv("X.csv", dense(29, 6))
write_mm("S.mtx", sparse(50, 8, 0.1))
write_text("U.txt", sparse(1000, 12, 0.001))
write_csv("v.csv", dense(6, 1))
write_csv("w.csv", dense(29, 1, 0, 2))
write_csv("v8.csv", dense(8, 1))

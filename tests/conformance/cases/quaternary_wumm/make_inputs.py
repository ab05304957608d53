# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(113)


rng = case_inputs.rng = np.random.default_rng(1705)

write_mm("W.mtx", sparse(30, 1100, 0.01, 0.5, 2, 2))
write_csv("D.csv", dense(4, 1100, 0.5, 2, 2))
write_csv("U.csv", dense(30, 3, -1, 1, 3))
write_csv("E.csv", dense(4, 3, -1, 1, 3))
for i in range(1, 7):
    write_csv(f"V{i}.csv", dense(1100, 3, -1, 1, 3))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(105)


write_csv("A.csv", dense(13, 7))
write_csv("B.csv", dense(7, 11))
write_csv("v.csv", dense(7, 1))
write_csv("r.csv", dense(1, 13))
write_csv("s.csv", dense(1, 1, 1, 3))

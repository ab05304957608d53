# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(108)


write_csv("X.csv", dense(9, 6, -3, 3, 2))
r = dense(1, 6, -2, 2, 1); r[0, 2] = 0.0
c = dense(9, 1, -2, 2, 1); c[4, 0] = 0.0
write_csv("r.csv", r)
write_csv("c.csv", c)
write_mm("S.mtx", sparse(40, 30, 0.1))
write_csv("c40.csv", dense(40, 1, -2, 2, 1))
write_csv("r30.csv", dense(1, 30, -2, 2, 1))

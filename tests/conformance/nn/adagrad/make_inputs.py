# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1704)

write_csv("X.csv", dense(5, 4, -1, 1))
write_csv("dX1.csv", dense(5, 4, -1, 1))
dX2 = dense(5, 4, -1, 1)
dX2[1, :] = 0.0                     # a row without gradient in the second step
write_csv("dX2.csv", dX2)

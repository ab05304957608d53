# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1702)

write_csv("X.csv", dense(3, 8, -1, 1))
write_csv("W.csv", dense(5, 12, -0.8, 0.8))
write_csv("b.csv", dense(1, 12, -0.5, 0.5))
write_csv("out0.csv", dense(3, 3, -0.5, 0.5))
write_csv("c0.csv", dense(3, 3, -0.5, 0.5))
write_csv("doutseq.csv", dense(3, 12, -1, 1))
write_csv("doutlast.csv", dense(3, 3, -1, 1))
write_csv("dc.csv", dense(3, 3, -1, 1))

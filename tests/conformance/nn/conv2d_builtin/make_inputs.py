# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1702)

write_csv("X.csv", dense(2, 50, -2, 2))
write_csv("W.csv", dense(3, 18, -1, 1))
write_csv("b.csv", dense(3, 1, -1, 1))
write_csv("dout1.csv", dense(2, 75, -1, 1))   # F*5*5 (stride 1, pad 1)
write_csv("dout2.csv", dense(2, 12, -1, 1))   # F*2*2 (stride 2, pad 0)

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1704)

write_csv("X.csv", dense(2, 18, -2, 2))
write_csv("W.csv", dense(2, 27, -1, 1))      # (C, F*Hf*Wf)
write_csv("b.csv", dense(3, 1, -1, 1))       # (F, 1)
write_csv("dout.csv", dense(2, 108, -1, 1))  # F*6*6: Hout = 2*(3-1) - 2*1 + 3 + 1 = 6

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1703)

write_csv("X.csv", dense(2, 50, -2, 2))
write_csv("W.csv", dense(2, 18, -1, 1))      # (C, M*Hf*Wf)
write_csv("b.csv", dense(4, 1, -1, 1))       # (C*M, 1)
write_csv("dout1.csv", dense(2, 100, -1, 1)) # C*M*5*5
write_csv("dout2.csv", dense(2, 16, -1, 1))  # C*M*2*2

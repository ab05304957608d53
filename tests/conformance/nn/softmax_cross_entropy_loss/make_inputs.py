# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1712)

write_csv("pred.csv", dense(6, 4, -3, 3))   # logits
Y = np.zeros((6, 4)); Y[np.arange(6), rng.integers(0, 4, 6)] = 1.0
write_csv("y.csv", Y)

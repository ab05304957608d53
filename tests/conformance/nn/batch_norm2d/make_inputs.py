# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1706)

write_csv("X.csv", dense(4, 18, -2, 3))
write_csv("gamma.csv", dense(2, 1, 0.5, 2))
write_csv("beta.csv", dense(2, 1, -1, 1))
write_csv("ema_mean.csv", dense(2, 1, -0.5, 0.5))
write_csv("ema_var.csv", dense(2, 1, 0.5, 1.5))
write_csv("dout.csv", dense(4, 18, -1, 1))

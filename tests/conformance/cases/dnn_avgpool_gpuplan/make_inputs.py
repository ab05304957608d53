# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import normal, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(500)


write_csv("X.csv", normal(2, 3*6*7))
write_csv("Xs.csv", normal(2, 3*6*7, 0.1))
write_csv("dout.csv", normal(2, 3*4*4))
write_csv("dout2.csv", normal(2, 3*2*2))

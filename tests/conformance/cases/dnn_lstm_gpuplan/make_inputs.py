# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import normal, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(505)


write_csv("X.csv", normal(3, 4*2))
write_csv("W.csv", normal(2+3, 4*3) * 0.5)
write_csv("b.csv", normal(1, 4*3) * 0.5)
write_csv("out0.csv", normal(3, 3) * 0.5)
write_csv("c0.csv", normal(3, 3) * 0.5)
write_csv("dout.csv", normal(3, 4*3))
write_csv("dc.csv", normal(3, 3))
write_csv("dout1.csv", normal(3, 3))

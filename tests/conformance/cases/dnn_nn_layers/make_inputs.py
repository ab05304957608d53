# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import normal, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(507)


write_csv("X.csv", normal(5, 7))
write_csv("W1.csv", normal(7, 6) * 0.5)
write_csv("b1.csv", normal(1, 6) * 0.1)
write_csv("W2.csv", normal(6, 3) * 0.5)
write_csv("b2.csv", normal(1, 3) * 0.1)
write_csv("y.csv", np.eye(3)[rng.integers(0, 3, size=5)])

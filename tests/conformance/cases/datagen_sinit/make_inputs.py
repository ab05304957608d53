# Writes this case's input into in/: a fixed 4x3 X with exactly one value above 0.5 (so the
# function's n is 3 and F is 3x2).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv  # noqa: E402

write_csv("X.csv", np.array([[0.25, -0.5, 0.125], [1.5, 0.0, -0.75], [0.5, 0.375, -1.25],
                             [-0.25, 0.0625, 0.2]]))

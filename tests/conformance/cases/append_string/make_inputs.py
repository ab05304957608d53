# Writes this case's input into in/: a fixed 2x3 X.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv  # noqa: E402

write_csv("X.csv", np.array([[0.25, -1.5, 3.0], [2.0, 0.125, -0.5]]))

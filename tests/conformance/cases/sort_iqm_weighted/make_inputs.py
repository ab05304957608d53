# Writes this case's inputs into in/: X with ties, duplicates and zeros; integer weights W with a 0.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv  # noqa: E402

X = np.array([[3.5], [1.0], [0.0], [7.25], [3.5], [-2.0], [3.5], [0.0], [9.0], [4.75], [1.0]])
W = np.array([[2.0], [1.0], [3.0], [1.0], [0.0], [4.0], [1.0], [2.0], [1.0], [3.0], [2.0]])
for name, M in (("X", X), ("W", W)):
    write_csv(f"{name}.csv", M)

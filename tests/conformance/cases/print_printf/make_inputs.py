# Writes in/X.csv: a small matrix whose sum (12.5) printf formats at run time.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv  # noqa: E402

write_csv("X.csv", np.array([[1.5, 2.0], [4.0, 5.0]]))

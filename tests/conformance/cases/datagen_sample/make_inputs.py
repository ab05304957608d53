# Writes in/B.csv: the population size 40, read at run time so the plan carries it as a variable.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from case_inputs import write_csv  # noqa: E402

write_csv("B.csv", np.array([[40.0]]))

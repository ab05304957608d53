# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(107)


X = dense(7, 5, -4, 4, 1)
Y = dense(7, 5, -3, 3, 0)     # small integers, some zeros: exercises /0, %%0, %/%0 and integral powers
X[0, :] = [5.5, -5.5, 0.0, 2.0, -7.25]
Y[0, :] = [2.0, 2.0, 0.0, -3.0, 0.0]
write_csv("X.csv", X)
write_csv("Y.csv", Y)
write_csv("s.csv", np.array([[1.5]]))

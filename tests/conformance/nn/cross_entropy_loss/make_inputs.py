# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1711)

P = rng.uniform(0.05, 1.0, size=(6, 4))
write_csv("pred.csv", np.round(P / P.sum(axis=1, keepdims=True), 4))
Y = np.zeros((6, 4)); Y[np.arange(6), rng.integers(0, 4, 6)] = 1.0
write_csv("y.csv", Y)                 # one-hot labels: a sparse-ish 0/1 matrix

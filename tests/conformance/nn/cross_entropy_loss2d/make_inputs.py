# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1713)

P = rng.uniform(0.05, 1.0, size=(3, 3, 4))    # N=3, C=3, H*W=4; probabilities over C
P = P / P.sum(axis=1, keepdims=True)
write_csv("pred.csv", np.round(P.reshape(3, 12), 4))
Y = np.zeros((3, 3, 4))
for n in range(3):
    for p in range(4):
        Y[n, rng.integers(0, 3), p] = 1.0
write_csv("y.csv", Y.reshape(3, 12))

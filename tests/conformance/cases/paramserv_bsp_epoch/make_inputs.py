# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
# Linear regression data: y = X w + 0.5 + noise, and the initial model times 2 (the script halves it).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(4711)

N = 200
X = dense(N, 5, -1, 1)
w = dense(5, 1, -2, 2)
y = np.round(X @ w + 0.5 + rng.normal(0, 0.1, size=(N, 1)), 4)
write_csv("X.csv", X)
write_csv("y.csv", y)
write_csv("W.csv", 2 * dense(5, 1, -0.1, 0.1))
write_csv("b.csv", np.zeros((1, 1)))

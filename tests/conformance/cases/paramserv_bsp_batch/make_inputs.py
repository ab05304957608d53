# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
# 240 rows, 6 features, 3 classes (one-hot labels from a noisy linear rule) and a fixed initial
# model for a 6-8-3 affine/relu/affine/softmax network (no rand in the script).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(2024)

X = dense(240, 6, -2, 2)
T = dense(6, 3, -1, 1)
cls = np.argmax(X @ T + rng.normal(0, 0.3, size=(240, 3)), axis=1)
Y = np.eye(3)[cls]
write_csv("X.csv", X)
write_csv("Y.csv", Y)
write_csv("W1.csv", 2 * dense(6, 8, -0.5, 0.5))  # the script halves the model inputs
write_csv("b1.csv", np.zeros((1, 8)))
write_csv("W2.csv", 2 * dense(8, 3, -0.5, 0.5))
write_csv("b2.csv", np.zeros((1, 3)))

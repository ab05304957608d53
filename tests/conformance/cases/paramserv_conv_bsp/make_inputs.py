# Writes this case's inputs into in/ (fixed seed): 48 single-channel 8x8 images, one-hot labels of
# 3 classes (a noisy rule on the image), and the initial model of a small conv net: 4 filters 3x3
# (conv, pad 1) -> relu -> 2x2 max pool -> affine 64x3 -> softmax. The script halves the model
# inputs (see case.dml).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(2026)

X = dense(48, 64, 0, 1)
T = dense(64, 3, -1, 1)
cls = np.argmax(X @ T + rng.normal(0, 0.3, size=(48, 3)), axis=1)
write_csv("X.csv", X)
write_csv("Y.csv", np.eye(3)[cls])
write_csv("W1.csv", 2 * dense(4, 9, -0.5, 0.5))
write_csv("b1.csv", np.zeros((4, 1)))
write_csv("W2.csv", 2 * dense(64, 3, -0.3, 0.3))
write_csv("b2.csv", np.zeros((1, 3)))

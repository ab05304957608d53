# Writes this case's inputs into in/ (fixed seed): N synthetic MNIST-shaped images (28x28 pixel
# values 0..255, about 18% non-zero, in the central 20x20 box; case.dml divides by 255), one-hot
# labels for 10 classes, and the initial LeNet weights (He-scaled normals rounded to 3 decimals).
# W3 (3136x512) is a 0.5%-dense sparse initialisation written as text (ijv) so the case stays
# small; the first update makes it dense. bench/lenet/make_inputs.py writes the dense
# variant for any batch size.
import os
import sys

import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import write_csv, write_text  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(5106)
N = 128  # two mini-batches of 64


def images(n):
    X = np.zeros((n, 28, 28))
    box = rng.random((n, 20, 20)) < 0.35
    X[:, 4:24, 4:24] = np.where(box, rng.integers(1, 256, size=(n, 20, 20)), 0)
    return X.reshape(n, 784)


def he(rows, cols, fan_in, digits=3):
    return np.round(rng.normal(size=(rows, cols)) * np.sqrt(2.0 / fan_in), digits)


write_text("X.txt", images(N))
write_csv("Y.csv", np.eye(10)[rng.integers(0, 10, size=N)])
write_csv("W1.csv", he(32, 25, 25))
write_csv("b1.csv", np.round(rng.normal(size=(32, 1)) * 0.1, 3))
write_csv("W2.csv", he(64, 800, 800))
write_csv("b2.csv", np.round(rng.normal(size=(64, 1)) * 0.1, 3))
W3 = he(3136, 512, 3136 * 0.005)
W3[rng.random(W3.shape) >= 0.005] = 0.0
write_text("W3.txt", W3)
write_csv("b3.csv", np.round(rng.normal(size=(1, 512)) * 0.1, 3))
write_csv("W4.csv", he(512, 10, 1024))
write_csv("b4.csv", np.round(rng.normal(size=(1, 10)) * 0.1, 3))

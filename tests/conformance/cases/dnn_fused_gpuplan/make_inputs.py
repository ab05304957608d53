# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import normal, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(611)


def sparse(rows, cols, density):
    A = normal(rows, cols) * 3 + 2
    return A * (rng.random((rows, cols)) < density)


# N=3 images of C=2 channels of 3x4 cells
write_csv("X.csv", normal(3, 2 * 12) * 2 + 1)
write_csv("Xs.csv", sparse(3, 2 * 12, 0.1))
write_csv("gamma.csv", normal(2, 1) + 1)
write_csv("beta.csv", normal(2, 1))
write_csv("ema_mean.csv", normal(2, 1) * 0.1)
write_csv("ema_var.csv", np.abs(normal(2, 1)) + 0.5)
write_csv("P.csv", normal(5, 4))
write_csv("dP.csv", normal(5, 4))
write_csv("v.csv", normal(5, 4) * 0.1)
write_csv("mu.csv", np.array([[0.9]]))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import normal, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(502)


def sparse(rows, cols, density):
    A = normal(rows, cols) * 3 + 2
    return A * (rng.random((rows, cols)) < density)


write_csv("X.csv", sparse(4, 3 * 5, 0.1))
write_csv("gamma.csv", normal(3, 1) + 1)
write_csv("beta.csv", normal(3, 1))
write_csv("ema_mean.csv", normal(3, 1) * 0.1)
write_csv("ema_var.csv", np.abs(normal(3, 1)) + 0.5)
write_csv("dout.csv", sparse(4, 3 * 5, 0.1))
write_csv("X1.csv", normal(5, 1) * 2 + 3)
write_csv("g1.csv", normal(1, 1) + 1)
write_csv("b1.csv", normal(1, 1))

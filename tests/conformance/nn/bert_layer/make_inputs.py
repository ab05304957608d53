# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1703)

D, I = 4, 5
write_csv("states.csv", dense(2, 12, -1, 1))
write_csv("dstates.csv", dense(2, 12, -1, 1))
for n, (r, c) in {"W_Q": (D, D), "W_K": (D, D), "W_V": (D, D), "W_context": (D, D),
                  "W_intermediate": (D, I), "W_out": (I, D)}.items():
    write_csv(n + ".csv", dense(r, c, -0.7, 0.7))
for n, c in {"b_Q": D, "b_K": D, "b_V": D, "b_context": D, "b_intermediate": I, "b_out": D,
             "beta_ln1": D, "beta_ln2": D}.items():
    write_csv(n + ".csv", dense(1, c, -0.3, 0.3))
write_csv("gamma_ln1.csv", dense(1, D, 0.5, 1.5))
write_csv("gamma_ln2.csv", dense(1, D, 0.5, 1.5))

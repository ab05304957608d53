# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(117)


S = sparse(45, 30, 0.1, -3, 3, 2)
S[5, :] = 0.0                       # an empty row
S[:, 7] = 0.0                       # an empty column
S[6, :] = 0.0; S[6, 4] = -1.0       # a row whose max is the implicit 0
write_mm("S.mtx", S)
write_text("U.txt", sparse(800, 500, 0.001, 0.5, 3, 2))

# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1702)

write_csv("A.csv", dense(9, 9, -5, 5))
S = sparse(60, 60, 0.05, -3, 3)
for i in range(10, 30):
    S[i, i] = 0.0                   # a stretch of implicit zeros on the diagonal
S[0, 0] = 2.25
write_mm("S.mtx", S)
N = dense(4, 4)
N[2, 2] = float("nan")
with open("in/N.csv", "w") as f:    # Java spells NaN as NaN
    for row in N:
        f.write(",".join("NaN" if np.isnan(v) else repr(float(v)) for v in row) + "\n")
mtd("in/N.csv", np.nan_to_num(N, nan=1.0), "csv", header=False, sep=",")

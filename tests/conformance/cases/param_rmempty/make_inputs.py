# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1702)

D = dense(8, 6, -2, 2)
D[[1, 4, 5], :] = 0.0               # empty rows
D[:, [2, 3]] = 0.0                  # empty columns
D[5, 3] = float("nan")              # a NaN alone keeps its row and column
with open("in/D.csv", "w") as f:    # Java spells NaN as NaN
    for row in D:
        f.write(",".join("NaN" if np.isnan(v) else repr(float(v)) for v in row) + "\n")
mtd("in/D.csv", np.nan_to_num(D, nan=1.0), "csv", header=False, sep=",")
S = sparse(40, 30, 0.05, -3, 3)
S[0, 0] = 1.5
write_mm("S.mtx", S)
write_csv("Z.csv", np.zeros((3, 4)))
write_csv("SR.csv", np.array([[1.0], [0.0], [2.0], [0.0], [0.0], [-1.0], [0.0], [1.0]]))
write_csv("SC.csv", np.array([[0.0, 1.0, 1.0, 0.0, 0.0, 3.0]]))
write_csv("S0.csv", np.zeros((8, 1)))
write_csv("S1.csv", np.ones((1, 6)))

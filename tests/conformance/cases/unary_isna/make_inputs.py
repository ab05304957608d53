# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1703)

inf, nan = float("inf"), float("nan")
X = np.array([[nan, 1.0, -2.5, inf], [0.0, -inf, nan, 2.5], [3.0, 0.0, -1.0, 0.5]])
with open("in/X.csv", "w") as f:          # Java spells these NaN / Infinity / -Infinity
    for row in X:
        f.write(",".join({"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(repr(float(v)), repr(float(v))) for v in row) + "\n")
mtd("in/X.csv", np.nan_to_num(X, nan=1.0), "csv", header=False, sep=",")
S = sparse(40, 25, 0.08, -2, 2)
S[3, 7] = nan
S[17, 0] = nan
S[39, 24] = nan
with open("in/S.txt", "w") as f:          # ijv; Java spells NaN as NaN
    for i, j in zip(*np.nonzero(S)):
        v = float(S[i, j])
        f.write(f"{i + 1} {j + 1} {'NaN' if np.isnan(v) else repr(v)}\n")
mtd("in/S.txt", S, "text")

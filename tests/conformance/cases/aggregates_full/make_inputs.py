# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import json, os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, mtd, sparse, write_csv, write_mm, write_text  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(115)


write_csv("X.csv", dense(23, 7, -3, 3, 3))
write_csv("P.csv", dense(4, 3, 0.5, 1.5, 2))
write_csv("one.csv", np.array([[-2.75]]))
write_csv("r.csv", dense(1, 9, -3, 3, 2))
# Z's metadata leaves out the dimensions, so nrow/ncol/length stay in the plan (evaluated at run time).
Z = dense(5, 3, -3, 3, 2)
write_csv("Z.csv", Z)
with open("in/Z.csv.mtd", "w") as f:
    json.dump({"data_type": "matrix", "value_type": "double", "format": "csv", "header": False, "sep": ","}, f)

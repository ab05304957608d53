# dmlrt's expected results for this deviation case (IEEE arithmetic, DESIGN.md §6), computed with
# NumPy from the same inputs; SystemDS's results stay in expected/ for comparison.
import os
import numpy as np

X = np.loadtxt("in/X.csv", delimiter=",", ndmin=2)
Y = np.loadtxt("in/Y.csv", delimiter=",", ndmin=2)
os.makedirs("expected_dmlrt", exist_ok=True)


def fmt(v):  # Java's Double.toString for the values that occur here
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


np.savetxt("expected_dmlrt/R.csv", X.sum(axis=1).reshape(-1, 1), delimiter=",", fmt="%.17g")
np.savetxt("expected_dmlrt/C.csv", Y.sum(axis=0).reshape(1, -1), delimiter=",", fmt="%.17g")
with open("expected_stdout_dmlrt.txt", "w") as f:
    f.write(f"sum(X) = {fmt(X.sum())}, sum(Y) = {fmt(Y.sum())}\n")

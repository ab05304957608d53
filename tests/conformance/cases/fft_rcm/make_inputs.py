# Writes this case's inputs into in/ (fixed seed). Labels are small integers with zeros (left
# out), plus a dense matrix with negative, fractional (truncated as Java's (int)) and large
# labels (the hash 31*(31+a)+b wraps around as Java's int).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import write_csv, write_mm  # noqa: E402

rng = np.random.default_rng(1721)


def labels(m, n, k, zero=0.2):
    L = rng.integers(1, k + 1, size=(m, n)).astype(float)
    L[rng.random((m, n)) < zero] = 0.0
    return L


write_csv("A.csv", labels(6, 12, 4))
write_csv("B.csv", labels(6, 12, 3))
# Row 1 has ~60 distinct pairs: the map grows to 128 buckets and keeps them for the next rows,
# whose few pairs then come out in another order than a fresh 16-bucket map gives.
W = labels(4, 64, 20, 0.0)
W[1:, :] = labels(3, 64, 3, 0.1)
write_csv("WA.csv", W)
write_csv("WB.csv", labels(4, 64, 3, 0.0))
write_csv("V.csv", labels(1, 12, 2, 0.0))   # B with one row: applies to every row of A
F = labels(5, 8, 3)
F[0, :] = [1.7, -1.2, 0.5, 2.0, -0.9, 3.0, 100000000.0, -7.0]
F[1, :] = [2.9, 2.1, -2.5, -2.0, 1e12, -1e12, 1e12, 7.0]
write_csv("F.csv", F)
write_csv("G.csv", labels(5, 10, 2))         # 10 columns: only the first 8 meet, output 5x10
write_mm("S.mtx", labels(8, 16, 3, 0.7))     # sparse A (integer labels)
write_csv("T.csv", labels(8, 16, 2, 0.3))

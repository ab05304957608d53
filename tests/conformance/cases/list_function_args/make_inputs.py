# Writes this case's inputs into in/ (fixed seed): a dense and a sparse matrix.
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, sparse, write_csv  # noqa: E402

rng = case_inputs.rng = np.random.default_rng(1704)
write_csv("X.csv", dense(4, 3))
write_csv("S.csv", sparse(6, 5, 0.2))

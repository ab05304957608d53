# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1705)

write_csv("X.csv", dense(2, 64, 0, 1))
write_csv("W1.csv", dense(2, 25, -0.5, 0.5))     # F1=2 filters 1x5x5
write_csv("b1.csv", dense(2, 1, -0.1, 0.1))
write_csv("W2.csv", dense(3, 50, -0.5, 0.5))     # F2=3 filters 2x5x5
write_csv("b2.csv", dense(3, 1, -0.1, 0.1))
write_csv("W3.csv", dense(12, 5, -0.5, 0.5))     # 3*2*2 -> 5
write_csv("b3.csv", dense(1, 5, -0.1, 0.1))
write_csv("W4.csv", dense(5, 4, -0.5, 0.5))      # 5 -> 4 classes
write_csv("b4.csv", dense(1, 4, -0.1, 0.1))

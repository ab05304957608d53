# Writes this case's inputs into in/ (fixed seed; values rounded so the files stay readable).
import os, sys
import numpy as np

os.makedirs("in", exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import case_inputs  # noqa: E402
from case_inputs import dense, normal, sparse, write_csv  # noqa: E402,F401

rng = case_inputs.rng = np.random.default_rng(1706)

E, S, Fin, Fout = 4, 2, 2, 4                     # expansion dim Fin*2, squeeze dim round(4*0.5)
shapes = [("W_expansion", E, Fin), ("b_expansion", E, 1), ("Gamma_expansion", E, 1), ("Beta_expansion", E, 1),
          ("EmaMean_expansion", E, 1), ("EmaVar_expansion", E, 1),
          ("W_depth", E, 9), ("b_depth", E, 1), ("Gamma_depth", E, 1), ("Beta_depth", E, 1),
          ("EmaMean_depth", E, 1), ("EmaVar_depth", E, 1),
          ("W_squeeze", S, E), ("b_squeeze", S, 1), ("W_excite", E, S), ("b_excite", E, 1),
          ("W_out", Fout, E), ("b_out", Fout, 1), ("Gamma_out", Fout, 1), ("Beta_out", Fout, 1),
          ("EmaMean_out", Fout, 1), ("EmaVar_out", Fout, 1)]
for i, (n, r, c) in enumerate(shapes):
    if n.startswith("Gamma") or n.startswith("EmaVar"):
        write_csv(f"p{i + 1:02d}.csv", dense(r, c, 0.5, 1.5))
    else:
        write_csv(f"p{i + 1:02d}.csv", dense(r, c, -0.7, 0.7))
write_csv("X.csv", dense(2, 32, -1, 1))          # N=2, Fin=2, 4x4
write_csv("dout.csv", dense(2, 64, -1, 1))       # Fout=4, 4x4

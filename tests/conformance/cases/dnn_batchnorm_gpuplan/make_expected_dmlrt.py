# dmlrt's expected results for this case, computed with NumPy from the same inputs (nn/layers/
# batch_norm2d_old.dml's formulas); SystemDS's outputs stay in expected/. They agree with SystemDS
# to 1e-9 everywhere except var_upd: SystemDS 3.4's CP kernel blends the batch MEAN into the
# running variance (docs/deviations.md, "The running variance of batch_norm2d"); dmlrt blends the
# batch's biased variance, as the DML layer does. This script checks both facts.
import os
import numpy as np

N, C, EPS, MU = 3, 2, 1e-5, 0.9


def read(name):
    return np.loadtxt(name, delimiter=",", ndmin=2)


X, gamma, beta = read("in/X.csv"), read("in/gamma.csv"), read("in/beta.csv")
ema_mean, ema_var, dout = read("in/ema_mean.csv"), read("in/ema_var.csv"), read("in/dout.csv")
HW = X.shape[1] // C
Xc = X.reshape(N, C, HW)  # (image, channel, cell)
Dc = dout.reshape(N, C, HW)
g, b = gamma.reshape(1, C, 1), beta.reshape(1, C, 1)

mean = Xc.mean(axis=(0, 2))
var = Xc.var(axis=(0, 2))  # biased (population) variance
inv_var = 1 / np.sqrt(var + EPS)
out = {}
out["Y"] = ((Xc - mean.reshape(1, C, 1)) * inv_var.reshape(1, C, 1) * g + b).reshape(N, -1)
out["mean_upd"] = (MU * ema_mean.ravel() + (1 - MU) * mean).reshape(C, 1)
out["var_upd"] = (MU * ema_var.ravel() + (1 - MU) * var).reshape(C, 1)
out["cache_mean"] = mean.reshape(C, 1)
out["cache_inv_var"] = inv_var.reshape(C, 1)
t_inv = 1 / np.sqrt(ema_var.ravel() + EPS)
out["Yt"] = ((Xc - ema_mean.reshape(1, C, 1)) * t_inv.reshape(1, C, 1) * g + b).reshape(N, -1)
# Backward (batch_norm2d_old.dml backward, with the cached mean and inverse variance).
M = N * HW
centered = Xc - mean.reshape(1, C, 1)
iv = inv_var.reshape(1, C, 1)
dnorm = Dc * g
dvar = (-0.5 * centered * iv**3 * dnorm).sum(axis=(0, 2)).reshape(1, C, 1)
dmean = (-dnorm * iv).sum(axis=(0, 2)).reshape(1, C, 1) + \
    (-2 / M * centered).sum(axis=(0, 2)).reshape(1, C, 1) * dvar
out["dX"] = (dnorm * iv + dmean / M + 2 / M * centered * dvar).reshape(N, -1)
out["dgamma"] = (Dc * centered * iv).sum(axis=(0, 2)).reshape(C, 1)
out["dbeta"] = Dc.sum(axis=(0, 2)).reshape(C, 1)

os.makedirs("expected_dmlrt", exist_ok=True)
for name, A in out.items():
    np.savetxt(f"expected_dmlrt/{name}.csv", A, delimiter=",", fmt="%.17g")
    sds = read(f"expected/{name}.csv")
    agrees = np.allclose(A, sds, rtol=1e-9, atol=1e-9)
    assert agrees == (name != "var_upd"), f"{name}: unexpected agreement {agrees} with SystemDS"
sds_var = read("expected/var_upd.csv").ravel()
assert np.allclose(sds_var, MU * ema_var.ravel() + (1 - MU) * mean, rtol=1e-12, atol=1e-12)
print("expected_dmlrt written; SystemDS agrees except var_upd (= mu*ema_var + (1-mu)*mean)")

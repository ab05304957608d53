#!/usr/bin/env python3
"""PyTorch anchors of the algorithm section (bench/algo_bench.py): each SystemDS builtin's
algorithm written directly in PyTorch on the GPU (FP64), with the same iteration budget as the
bench's DML, and its hardware floor.

The anchors follow the builtins' structure (what they read, how often), not their every detail:
lmCG is SystemDS's CG on t(X) X + reg I; lmDS the normal equations and a Cholesky solve; glm
Poisson/log IRLS with inner CG; l2svm the squared-hinge Newton step with a line search; multiLogReg
softmax Newton with inner CG; kmeans Lloyd iterations; pca the covariance eigendecomposition;
naiveBayes the class sums. Each counts its passes over X. The floor is passes x the measured time
of one X %*% v (X read once at the device's bandwidth) plus the FLOP time of its products with
more than a few columns at the FP64 peak measured on a large GEMM, the best a fused
implementation could do.
"""
import time

try:
    import torch
except ImportError:  # the host tests import this file without torch
    torch = None


def _timed(fn, repeat=3):
    fn()  # warm-up: allocations, cuSOLVER/cuBLAS handles
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


class Data:
    """X (n, m) in [-1, 1] at density s, planted b, y = X b; dense or CSR."""

    def __init__(self, n, m, s, dev):
        g = torch.Generator(device=dev).manual_seed(11)
        X = torch.rand(n, m, generator=g, device=dev, dtype=torch.float64) * 2 - 1
        if s < 1:
            X = X * (torch.rand(n, m, generator=g, device=dev, dtype=torch.float64) < s)
        self.sparse = s < 1
        self.dense = X
        b = torch.rand(m, 1, generator=g, device=dev, dtype=torch.float64) * 2 - 1
        self.y = X @ b
        if self.sparse:
            self.X = X.to_sparse_csr()
            self.Xt = X.t().contiguous().to_sparse_csr()
        else:
            self.X = X
            self.Xt = X.t()
        self.n, self.m = n, m
        self.passes = 0

    def mv(self, v):  # X %*% v
        self.passes += 1
        return self.X @ v

    def tmv(self, q):  # t(X) %*% q
        self.passes += 1
        return self.Xt @ q


def lmcg(d, iters=20, reg=1e-3):
    r = -d.tmv(d.y)
    p = -r
    nr2 = (r * r).sum()
    beta = torch.zeros_like(p)
    for _ in range(iters):
        q = d.tmv(d.mv(p)) + reg * p
        alpha = nr2 / (p * q).sum()
        beta = beta + alpha * p
        r = r + alpha * q
        old, nr2 = nr2, (r * r).sum()
        p = -r + (nr2 / old) * p
    return beta


def lmds(d, reg=1e-3):
    d.passes += 1
    A = d.Xt @ d.X if not d.sparse else (d.Xt @ d.dense)
    A = A + reg * torch.eye(d.m, device=A.device, dtype=A.dtype)
    b = d.tmv(d.y)
    return torch.cholesky_solve(b, torch.linalg.cholesky(A))


def _cg(hv, g, iters):
    x = torch.zeros_like(g)
    r = -g
    p = r.clone()
    rr = (r * r).sum()
    for _ in range(iters):
        q = hv(p)
        a = rr / (p * q).sum()
        x = x + a * p
        r = r - a * q
        old, rr = rr, (r * r).sum()
        p = r + (rr / old) * p
    return x


def glm(d, outer=5, inner=10):
    yp = torch.round(torch.exp(d.y / d.y.abs().max()) * 3)
    beta = torch.zeros(d.m, 1, device=d.y.device, dtype=d.y.dtype)
    for _ in range(outer):
        mu = torch.exp(d.mv(beta))
        g = d.tmv(mu - yp)
        beta = beta + _cg(lambda p: d.tmv(mu * d.mv(p)), g, inner)
    return beta


def l2svm(d, iters=10, reg=1.0):
    yb = (d.y > 0).double() * 2 - 1
    w = torch.zeros(d.m, 1, device=d.y.device, dtype=d.y.dtype)
    Xw = torch.zeros_like(d.y)
    g_old = d.tmv(yb)
    s = g_old
    for _ in range(iters):
        Xd = d.mv(s)
        step = torch.zeros((), device=d.y.device, dtype=d.y.dtype)
        for _ in range(5):  # Newton on the step size, vectors only (SystemDS's inner loop)
            out = 1 - yb * (Xw + step * Xd)
            sv = (out > 0).double()
            out = out * sv
            g = (w * s).sum() + step * (s * s).sum() - (out * yb * Xd).sum()
            h = (s * s).sum() + (Xd * sv * Xd).sum()
            step = step - g / h
        w = w + step * s
        Xw = Xw + step * Xd
        out = 1 - yb * Xw
        sv = (out > 0).double()
        g_new = d.tmv(out * sv * yb) - reg * w
        s = g_new + ((g_new * g_new).sum() / (g_old * g_old).sum()) * s
        g_old = g_new
    return w


def multilogreg(d, outer=5, inner=10, reg=1.0):
    yc = (1 + (d.y > -0.5).long() + (d.y > 0.5).long()).squeeze(1) - 1
    K = 2  # non-baseline classes of 3
    Y = torch.nn.functional.one_hot(yc, 3).double()[:, :K]
    B = torch.zeros(d.m, K, device=d.y.device, dtype=d.y.dtype)
    for _ in range(outer):
        LT = torch.cat([d.mv(B), torch.zeros(d.n, 1, device=B.device, dtype=B.dtype)], 1)
        P = torch.softmax(LT, 1)[:, :K]
        G = d.tmv(P - Y) + reg * B

        def hv(V, P=P):
            Q = P * d.mv(V)
            return d.tmv(Q - P * Q.sum(1, keepdim=True)) + reg * V
        B = B + _cg(hv, G, inner)
    return B


def kmeans(d, k=16, iters=10):
    Xd = d.dense
    C = Xd[:k].clone()
    for _ in range(iters):
        D = -2 * d.mv(C.t()) + (C * C).sum(1)
        lab = D.argmin(1)
        H = torch.nn.functional.one_hot(lab, k).double()
        counts = H.sum(0).clamp(min=1).unsqueeze(1)
        C = d.tmv(H).t() / counts
    return C


def pca(d, K=10):
    Xd = d.dense
    d.passes += 2  # column sums and sums of squares
    mu = Xd.mean(0)
    sd = Xd.std(0)
    d.passes += 2  # the scaled copy: read X, write Z
    Z = (Xd - mu) / sd
    d.passes += 1
    cov = Z.t() @ Z / (d.n - 1)
    evals, evecs = torch.linalg.eigh(cov)
    comp = evecs[:, -K:]
    d.passes += 1
    return Z @ comp


def naive_bayes(d):
    yc = (1 + (d.y > -0.5).long() + (d.y > 0.5).long()).squeeze(1) - 1
    H = torch.nn.functional.one_hot(yc, 3).double()
    d.passes += 1
    sums = H.t() @ d.dense.abs()
    cc = (sums + 1) / (sums.sum(1, keepdim=True) + d.m)
    return H.sum(0) / d.n, cc


ANCHORS = {"lmCG": lmcg, "lmDS": lmds, "glm": glm, "l2svm": l2svm, "multiLogReg": multilogreg,
           "kmeans": kmeans, "pca": pca, "naiveBayes": naive_bayes}
# Products with many columns whose FLOPs, not their reads, set the floor: (algorithm) -> FLOPs
# as a function of n, m.
FLOP_BOUND = {"lmDS": lambda n, m: n * m * m, "pca": lambda n, m: n * m * m}


def run_all(shape, variant, names):
    if torch is None or not torch.cuda.is_available():
        return [{"algorithm": n, "variant": variant, "backend": "pytorch", "error": "no torch/GPU"}
                for n in names]
    n, m, s = shape
    d = Data(n, m, s, "cuda")
    v = torch.rand(m, 1, device="cuda", dtype=torch.float64)
    t_pass = _timed(lambda: d.X @ v, repeat=10)
    A = torch.rand(8192, 8192, device="cuda", dtype=torch.float64)
    t_gemm = _timed(lambda: A @ A, repeat=3)
    peak = 2 * 8192 ** 3 / t_gemm
    out = []
    for name in names:
        fn = ANCHORS.get(name)
        if fn is None:
            continue
        d.passes = 0
        fn(d)  # count the passes of one run
        passes = d.passes
        sec = _timed(lambda: fn(d))
        floor = passes * t_pass + (2 * FLOP_BOUND[name](n, m) / peak if name in FLOP_BOUND else 0)
        out += [{"algorithm": name, "variant": variant, "backend": "pytorch", "seconds": sec,
                 "passes": passes},
                {"algorithm": name, "variant": variant, "backend": "floor", "seconds": floor,
                 "passes": passes, "t_pass_s": t_pass, "fp64_peak_flops": peak}]
        print(f"[torch] {name} {variant}: {sec:.4f} s, {passes} passes, floor {floor:.4f} s",
              flush=True)
    return out

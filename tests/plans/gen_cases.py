#!/usr/bin/env python3
"""Generates the inputs, expected outputs and case.json of every plan case (tests/plans/cases/).

    python3 tests/plans/gen_cases.py            # (re)write in/, expected/, case.json, case.dml
    python3 tests/plans/gen_cases.py --sds      # also run SystemDS on each case.dml: write
                                                # expected_stdout.txt from its output and check its
                                                # written matrices against the NumPy expectations
    python3 tests/plans/gen_cases.py --draft    # write plan.draft (SystemDS explain -> raw form)

Inputs come from fixed seeds; expected matrices are computed here with NumPy, never with dmlrt.
plan.plan files are checked in by hand (drafted with --draft, then annotated): this script never
overwrites them. Needs numpy; --sds and --draft need SystemDS (/tmp/sd/sds or $SDS).
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

np.seterr(invalid="ignore", divide="ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
SDS = os.environ.get("SDS", "/tmp/sd/sds")
SDS_OUT = os.environ.get("SDS_OUT", "/tmp/plans/sdsout")


# ---------------------------------------------------------------------------------------------
# Writers (inputs and expected files), with SystemDS-style .mtd files

def fmt_num(v):
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == int(v) and abs(v) < 1e15:
        return repr(float(v))
    return repr(v)


def mtd(path, rows, cols, nnz, fmt, extra=None):
    m = {"data_type": "matrix", "value_type": "double", "rows": rows, "cols": cols, "nnz": nnz,
         "format": fmt}
    if fmt == "csv":
        m.update({"header": False, "sep": ","})
    if extra:
        m.update(extra)
    with open(path + ".mtd", "w") as f:
        json.dump(m, f, indent=4)
        f.write("\n")


def write_matrix(path, A, fmt=None, with_mtd=True):
    A = np.atleast_2d(np.asarray(A, dtype=float))
    fmt = fmt or {".csv": "csv", ".txt": "text", ".mtx": "mm"}[os.path.splitext(path)[1]]
    rows, cols = A.shape
    nz = [(i, j, A[i, j]) for i in range(rows) for j in range(cols) if A[i, j] != 0]
    with open(path, "w") as f:
        if fmt == "csv":
            for i in range(rows):
                f.write(",".join(fmt_num(v) for v in A[i]) + "\n")
        elif fmt == "text":
            for i, j, v in nz:
                f.write(f"{i + 1} {j + 1} {fmt_num(v)}\n")
        elif fmt == "mm":
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{rows} {cols} {len(nz)}\n")
            for i, j, v in nz:
                f.write(f"{i + 1} {j + 1} {fmt_num(v)}\n")
    if with_mtd:
        mtd(path, rows, cols, len(nz), fmt)


def rng(seed):
    return np.random.default_rng(seed)


def rmat(seed, r, c, lo=-1.0, hi=1.0, digits=3):
    return np.round(rng(seed).uniform(lo, hi, (r, c)), digits)


def sparse_mat(seed, r, c, nnz, digits=3):
    g = rng(seed)
    A = np.zeros((r, c))
    idx = g.choice(r * c, nnz, replace=False)
    A.flat[idx] = np.round(g.uniform(0.5, 2.0, nnz), digits) * g.choice([-1, 1], nnz)
    return A


# ---------------------------------------------------------------------------------------------
# Case definitions

CASES = []


def case(name, desc, dml, inputs=None, nvargs=None, args=None, outputs=None, prints=None,
         stdout="exact", tolerance=None, exit_code=0, stderr=None, iters=None, extra=None):
    CASES.append(dict(name=name, desc=desc, dml=dml.strip() + "\n", inputs=inputs or {},
                      nvargs=nvargs, args=args, outputs=outputs or {}, prints=prints,
                      stdout=stdout, tolerance=tolerance, exit_code=exit_code, stderr=stderr,
                      iters=iters or [], extra=extra or {}))


def java_round(x):  # Java Math.round: floor(x + 0.5)
    return np.floor(x + 0.5)


# 1 -------------------------------------------------------------------------------------------
X1, Y1 = rmat(1, 4, 3), rmat(2, 3, 5)
Z1 = X1 @ Y1 + 1
case("generic_basic", "GENERIC block: createvar reads, ba+*, matrix-scalar +, uak+, string concat, print, write csv",
     """
X = read($X)
Y = read($Y)
Z = X %*% Y + 1
s = sum(Z)
print("sum(Z)=" + s)
write(Z, $out, format="csv")
""", inputs={"X.csv": X1, "Y.csv": Y1}, nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "out": "OUT/Z.csv"},
     outputs={"Z.csv": Z1}, prints=[Z1.sum()], stdout="numeric")

# 2 -------------------------------------------------------------------------------------------
X2 = np.array([[2.7, -1.0, 3.0], [0.0, 4.5, -2.25]])
case("variables", "variable instructions: cpvar, mvvar, rmvar, assignvar, castdts, castdtm, castvti, castvtd, castvtb",
     """
X = read($X)
Y = X
s = as.scalar(X[1,1])
i = as.integer(s * sum(X))
d = as.double(i) / 4
b = as.logical(s)
z = as.logical(as.scalar(X[2,1]))
M = as.matrix(d)
t = s
print("s=" + s + " i=" + i + " d=" + d + " b=" + b + " z=" + z + " t=" + t)
write(Y, $outY, format="csv")
write(M, $outM, format="csv")
""", inputs={"X.csv": X2}, nvargs={"X": "in/X.csv", "outY": "OUT/Y.csv", "outM": "OUT/M.csv"},
     outputs={"Y.csv": X2, "M.csv": np.array([[float(int(2.7 * X2.sum())) / 4]])})

# 3 -------------------------------------------------------------------------------------------
X3 = rmat(3, 3, 4)
s3 = X3.sum()
Y3 = X3 * 2 if s3 > 0 else X3 / 2
Y3 = Y3 + 100 if X3.min() > 100 else (Y3 - 1 if X3.max() > 0.5 else Y3 + 1)
case("if_else", "IF/ELSE blocks, both branches taken, nested IF in an ELSE",
     """
X = read($X)
if (sum(X) > 0) {
  Y = X * 2
} else {
  Y = X / 2
}
if (min(X) > 100) {
  Y = Y + 100
  print("then")
} else {
  if (max(X) > 0.5) {
    Y = Y - 1
    print("else-then")
  } else {
    Y = Y + 1
    print("else-else")
  }
}
write(Y, $out, format="csv")
""", inputs={"X.csv": X3}, nvargs={"X": "in/X.csv", "out": "OUT/Y.csv"}, outputs={"Y.csv": Y3})

# 4 -------------------------------------------------------------------------------------------
X4 = np.abs(rmat(4, 3, 3)) + 0.1
A4, it4 = X4.copy(), 0
while A4.sum() < 1000:
    A4 = A4 * 2 + 0.5
    it4 += 1
case("while_loop", "WHILE loop with a data-dependent predicate",
     """
X = read($X)
i = 0
while (sum(X) < 1000) {
  X = X * 2 + 0.5
  i = i + 1
}
print("iterations=" + i)
write(X, $out, format="csv")
""", inputs={"X.csv": X4}, nvargs={"X": "in/X.csv", "out": "OUT/X.csv"}, outputs={"X.csv": A4})

# 5 -------------------------------------------------------------------------------------------
X5 = np.array([[1.0, 2.0], [3.0, 4.0]])
n5 = int(X5.sum())  # 10
acc = []
for i in range(1, 5):
    acc.append(i)
for i in range(1, n5 + 1, 3):
    acc.append(10 * i)
for i in range(n5, 6, -1):
    acc.append(-i)
for i in range(n5, 0, -4):
    acc.append(100 * i)
case("for_loops", "FOR loops: implicit +1 increment, positive increment, implicit -1 (from > to), explicit negative increment, variable bounds",
     """
X = read($X)
n = as.integer(sum(X))
R = matrix(0, rows=1, cols=4)
s = 0
for (i in 1:4) {
  s = s + i
  print(i)
}
for (i in seq(1, n, 3)) {
  print(10 * i)
}
for (i in n:7) {
  print(-i)
}
for (i in seq(n, 1, -4)) {
  print(100 * i)
}
print("s=" + s)
""", inputs={"X.csv": X5}, nvargs={"X": "in/X.csv"}, iters=["i", "i", "i", "i"],
     prints=acc + [10])

# 6 -------------------------------------------------------------------------------------------
X6 = rmat(6, 5, 3)
R6 = X6 * np.arange(1, 6)[:, None]
case("parfor", "PARFOR with leftIndex into a result matrix (order-independent)",
     """
X = read($X)
R = matrix(0, rows=nrow(X), cols=ncol(X))
parfor (i in 1:nrow(X)) {
  R[i,] = X[i,] * i
}
write(R, $out, format="csv")
""", inputs={"X.csv": X6}, nvargs={"X": "in/X.csv", "out": "OUT/R.csv"}, outputs={"R.csv": R6},
     iters=["i"])

# 7 -------------------------------------------------------------------------------------------
X7 = rmat(7, 4, 2)
A7 = X7.copy()
for i in range(1, 5):
    j = 0
    while j < i:
        if j % 2 == 0:
            A7[i - 1, 0] += j
        else:
            A7[i - 1, 1] -= j
        j += 1
    for k in range(1, 3):
        A7[i - 1, k - 1] *= 2
case("nested_loops", "FOR containing WHILE containing IF/ELSE, and a nested FOR",
     """
X = read($X)
A = X
for (i in 1:nrow(A)) {
  j = 0
  while (j < i) {
    if (j %% 2 == 0) {
      A[i, 1] = A[i, 1] + j
    } else {
      A[i, 2] = A[i, 2] - j
    }
    j = j + 1
  }
  for (k in 1:2) {
    A[i, k] = A[i, k] * 2
  }
}
write(A, $out, format="csv")
""", inputs={"X.csv": X7}, nvargs={"X": "in/X.csv", "out": "OUT/A.csv"}, outputs={"A.csv": A7},
     iters=["i", "k"])

# 8 -------------------------------------------------------------------------------------------
X8 = rmat(8, 3, 3)
B8 = X8 @ X8 @ X8
case("function_multi_return", "user function with three returns (matrix, double, int), called via FCall",
     """
powstats = function(Matrix[Double] A, Integer k) return (Matrix[Double] B, Double m, Integer n) {
  B = A
  for (i in 1:k) {
    B = B %*% A
  }
  m = mean(B)
  n = nrow(B) * 10
}
X = read($X)
[B, m, n] = powstats(X, 2)
print("m=" + m)
print("n=" + n)
write(B, $out, format="csv")
""", inputs={"X.csv": X8}, nvargs={"X": "in/X.csv", "out": "OUT/B.csv"}, outputs={"B.csv": B8},
     prints=[B8.mean(), 30], stdout="numeric", iters=["i"])

# 9 -------------------------------------------------------------------------------------------
X9 = np.array([[5.0, 7.0]])
case("function_recursion", "recursive functions (factorial, fibonacci) through FCall",
     """
fact = function(Integer n) return (Integer r) {
  if (n <= 1) {
    r = 1
  } else {
    r = n * fact(n - 1)
  }
}
fib = function(Integer n) return (Integer r) {
  if (n < 2) {
    r = n
  } else {
    r = fib(n - 1) + fib(n - 2)
  }
}
X = read($X)
a = as.integer(as.scalar(X[1,1]))
b = as.integer(as.scalar(X[1,2]))
print("fact=" + fact(a))
print("fib=" + fib(b))
""", inputs={"X.csv": X9}, nvargs={"X": "in/X.csv"}, prints=[120, 13])

# 10 ------------------------------------------------------------------------------------------
X10 = np.array([[3.0, 4.0]])
case("datagen", "rand (constant, uniform range, sparse, normal) and seq: shapes and properties only for random values",
     """
X = read($X)
r = as.integer(as.scalar(X[1,1]))
c = as.integer(as.scalar(X[1,2]))
A = matrix(2.5, rows=r, cols=c)
U = rand(rows=50, cols=40, min=-1, max=2, seed=7)
S = rand(rows=100, cols=100, min=1, max=2, sparsity=0.05, seed=3)
N = rand(rows=2000, cols=1, pdf="normal", seed=11)
Q = seq(r, 20, c)
print("sumA=" + sum(A))
print("meanN_small=" + (abs(mean(N)) < 0.15))
write(U, $outU, format="csv")
write(S, $outS, format="text")
write(Q, $outQ, format="csv")
""", inputs={"X.csv": X10},
     nvargs={"X": "in/X.csv", "outU": "OUT/U.csv", "outS": "OUT/S.txt", "outQ": "OUT/Q.csv"},
     outputs={"U.csv": {"rows": 50, "cols": 40, "min_at_least": -1.0, "max_at_most": 2.0},
              "S.txt": {"rows": 100, "cols": 100, "nnz_between": [380, 620], "min_at_least": 0.0,
                        "max_at_most": 2.0},
              "Q.csv": np.arange(3.0, 21.0, 4.0)[:, None]})

# 11 ------------------------------------------------------------------------------------------
X11, Y11 = rmat(11, 6, 4), rmat(12, 4, 3)
v11, w11 = rmat(13, 4, 1), rmat(14, 6, 1)
case("matmult", "ba+*, tsmm LEFT/RIGHT, mmchain XtXv and XtwXv",
     """
X = read($X)
Y = read($Y)
v = read($v)
w = read($w)
C = X %*% Y
L = t(X) %*% X
R = X %*% t(X)
M1 = t(X) %*% (X %*% v)
M2 = t(X) %*% (w * (X %*% v))
write(C, $outC, format="csv")
write(L, $outL, format="csv")
write(R, $outR, format="csv")
write(M1, $outM1, format="csv")
write(M2, $outM2, format="csv")
""", inputs={"X.csv": X11, "Y.csv": Y11, "v.csv": v11, "w.csv": w11},
     nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "v": "in/v.csv", "w": "in/w.csv", "outC": "OUT/C.csv",
             "outL": "OUT/L.csv", "outR": "OUT/R.csv", "outM1": "OUT/M1.csv", "outM2": "OUT/M2.csv"},
     outputs={"C.csv": X11 @ Y11, "L.csv": X11.T @ X11, "R.csv": X11 @ X11.T,
              "M1.csv": X11.T @ (X11 @ v11), "M2.csv": X11.T @ (w11 * (X11 @ v11))})

# 12 ------------------------------------------------------------------------------------------
X12 = np.round(rng(15).uniform(-5, 5, (4, 3)), 1)
Y12 = np.round(rng(16).uniform(0.5, 3, (4, 3)), 1)
r12, c12 = np.array([[1.5, -2.0, 0.5]]), np.array([[2.0], [-1.0], [0.5], [3.0]])


def jmod(a, b):  # SystemDS CP %% on doubles: truncated (sign of the dividend), as Java's %
    return np.fmod(a, b)


case("binary_ops", "cell-wise binary ops: matrix-matrix, row/column-vector broadcasting, matrix-scalar, scalar-matrix, scalar-scalar (SystemDS CP: %% and %/% truncate toward zero on doubles)",
     """
X = read($X)
Y = read($Y)
r = read($r)
c = read($c)
s = as.scalar(Y[1,1])
A = cbind(X + Y, X - Y, X * Y, X / Y, X ^ Y)
B = cbind(X %% Y, X %/% Y, X == Y, X != Y, X < Y, X >= Y, min(X, Y), max(X, Y))
C = cbind(X + r, X * c, X - r, Y / c, (X > 0) & (Y > 1), (X > 0) | (Y > 1))
D = cbind(X * s, s - X, X / s, s ^ Y, X > s, X %% 3)
a = s * 3
b = a %% 4
q = a %/% 4
print(a + " " + b + " " + q + " " + (a > b) + " " + min(a, q) + " " + max(a, q) + " " + (a ^ 2) + " " + (a == 12.3))
write(A, $outA, format="csv")
write(B, $outB, format="csv")
write(C, $outC, format="csv")
write(D, $outD, format="csv")
""", inputs={"X.csv": X12, "Y.csv": Y12, "r.csv": r12, "c.csv": c12},
     nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "r": "in/r.csv", "c": "in/c.csv", "outA": "OUT/A.csv",
             "outB": "OUT/B.csv", "outC": "OUT/C.csv", "outD": "OUT/D.csv"},
     outputs={"A.csv": np.hstack([X12 + Y12, X12 - Y12, X12 * Y12, X12 / Y12, np.power(X12, Y12)]),
              "B.csv": np.hstack([jmod(X12, Y12), np.trunc(X12 / Y12), X12 == Y12, X12 != Y12, X12 < Y12,
                                  X12 >= Y12, np.minimum(X12, Y12), np.maximum(X12, Y12)]).astype(float),
              "C.csv": np.hstack([X12 + r12, X12 * c12, X12 - r12, Y12 / c12, (X12 > 0) & (Y12 > 1),
                                  (X12 > 0) | (Y12 > 1)]).astype(float),
              "D.csv": np.hstack([X12 * Y12[0, 0], Y12[0, 0] - X12, X12 / Y12[0, 0], Y12[0, 0] ** Y12,
                                  X12 > Y12[0, 0], jmod(X12, 3)]).astype(float)},
     stdout="numeric")

# 13 ------------------------------------------------------------------------------------------
P13 = np.round(rng(17).uniform(0.05, 0.95, (3, 4)), 3)
Z13 = np.array([[-2.5, -0.5, 0.5, 2.5], [-1.7, 0.0, 1.2, 3.49], [2.51, -3.5, 7.0, -0.2]])
case("unary_ops", "unary builtins on matrices and scalars (round is Java's half-up Math.round)",
     """
P = read($P)
Z = read($Z)
U1 = cbind(exp(P), log(P), abs(Z), sqrt(P), round(Z), floor(Z), ceil(Z), sign(Z))
U2 = cbind(sin(Z), cos(Z), tan(P), sinh(Z), cosh(Z), tanh(Z), asin(P), acos(P), atan(Z), sigmoid(Z))
U3 = cbind(!(Z > 0), log(P, 2), Z ^ 2, Z * 2)
x = as.scalar(Z[1,1])
print(abs(x) + " " + round(x) + " " + floor(x) + " " + ceil(x) + " " + sqrt(abs(x)) + " " + exp(x) + " " + (!(x > 0)))
write(U1, $out1, format="csv")
write(U2, $out2, format="csv")
write(U3, $out3, format="csv")
""", inputs={"P.csv": P13, "Z.csv": Z13},
     nvargs={"P": "in/P.csv", "Z": "in/Z.csv", "out1": "OUT/U1.csv", "out2": "OUT/U2.csv", "out3": "OUT/U3.csv"},
     outputs={"U1.csv": np.hstack([np.exp(P13), np.log(P13), np.abs(Z13), np.sqrt(P13), java_round(Z13),
                                   np.floor(Z13), np.ceil(Z13), np.sign(Z13)]),
              "U2.csv": np.hstack([np.sin(Z13), np.cos(Z13), np.tan(P13), np.sinh(Z13), np.cosh(Z13),
                                   np.tanh(Z13), np.arcsin(P13), np.arccos(P13), np.arctan(Z13),
                                   1 / (1 + np.exp(-Z13))]),
              "U3.csv": np.hstack([(Z13 <= 0).astype(float), np.log2(P13), Z13 ** 2, Z13 * 2])},
     stdout="numeric")

# 14 ------------------------------------------------------------------------------------------
X14 = rmat(18, 5, 3, -2, 2)
W14 = np.round(rng(19).uniform(0.5, 1.5, (5, 2)), 2)


def cumsumprod(W):  # SystemDS cumsumprod: y_i = a_i + b_i * y_{i-1}
    out = np.zeros(W.shape[0])
    prev = 0.0
    for i in range(W.shape[0]):
        prev = W[i, 0] + W[i, 1] * prev
        out[i] = prev
    return out[:, None]


def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


case("cumulative_softmax", "cumulative aggregates (ucumk+ ucum* ucummin ucummax ucumk+*) and softmax (hand-written CP softmax line, GPU layout)",
     """
X = read($X)
W = read($W)
C = cbind(cumsum(X), cumprod(X), cummin(X), cummax(X))
P = cumsumprod(W)
# softmax: the plan uses the fused CP softmax instruction; SystemDS's CP backend computes it as
S = exp(X - rowMaxs(X)) / rowSums(exp(X - rowMaxs(X)))
write(C, $outC, format="csv")
write(P, $outP, format="csv")
write(S, $outS, format="csv")
""", inputs={"X.csv": X14, "W.csv": W14},
     nvargs={"X": "in/X.csv", "W": "in/W.csv", "outC": "OUT/C.csv", "outP": "OUT/P.csv", "outS": "OUT/S.csv"},
     outputs={"C.csv": np.hstack([np.cumsum(X14, 0), np.cumprod(X14, 0), np.minimum.accumulate(X14, 0),
                                  np.maximum.accumulate(X14, 0)]),
              "P.csv": cumsumprod(W14), "S.csv": softmax(X14)})

# 15 ------------------------------------------------------------------------------------------
X15 = rmat(20, 5, 4, -3, 3, 2)
X15[2, 1] = X15[2, 3] = 3.5  # a tie: SystemDS's CP rowIndexMax returns the last maximal column


def last_arg(X, f):  # 1-based column of the last occurrence of the row max/min (SystemDS CP)
    return np.array([[float(np.flatnonzero(row == f(row))[-1] + 1)] for row in X])

case("aggregates", "full, row and column aggregates incl. sample variance, mean, sumsq, prod, rowIndexMax/Min, nrow/ncol/length",
     """
X = read($X)
k = as.integer(as.scalar(X[1,1]) * 0 + 4)
Y = X[1:k,]
print(nrow(Y) + " " + ncol(Y) + " " + length(Y))
print(sum(X) + " " + mean(X) + " " + var(X) + " " + max(X) + " " + min(X) + " " + sum(X^2) + " " + prod(X))
R = cbind(rowSums(X), rowMeans(X), rowVars(X), rowMaxs(X), rowMins(X), rowSums(X^2), rowIndexMax(X), rowIndexMin(X))
C = rbind(colSums(X), colMeans(X), colVars(X), colMaxs(X), colMins(X), colSums(X^2))
write(R, $outR, format="csv")
write(C, $outC, format="csv")
""", inputs={"X.csv": X15}, nvargs={"X": "in/X.csv", "outR": "OUT/R.csv", "outC": "OUT/C.csv"},
     outputs={"R.csv": np.hstack([X15.sum(1, keepdims=True), X15.mean(1, keepdims=True),
                                  X15.var(1, ddof=1, keepdims=True), X15.max(1, keepdims=True),
                                  X15.min(1, keepdims=True), (X15 ** 2).sum(1, keepdims=True),
                                  last_arg(X15, np.max), last_arg(X15, np.min)]),
              "C.csv": np.vstack([X15.sum(0), X15.mean(0), X15.var(0, ddof=1), X15.max(0), X15.min(0),
                                  (X15 ** 2).sum(0)])},
     prints=None, stdout="numeric")

# 16 ------------------------------------------------------------------------------------------
X16 = rmat(21, 3, 4)
v16 = np.array([[1.0], [-2.0], [3.0]])
case("reorg", "r', rshape (byrow TRUE and FALSE), rdiag (vector to matrix, matrix to vector), rev",
     """
X = read($X)
v = read($v)
T = t(X)
A = matrix(X, rows=2, cols=6)
B = matrix(X, rows=6, cols=2, byrow=FALSE)
D = diag(v)
d = diag(X[1:3, 1:3])
R = rev(X)
write(T, $outT, format="csv")
write(A, $outA, format="csv")
write(B, $outB, format="csv")
write(D, $outD, format="csv")
write(d, $outd, format="csv")
write(R, $outR, format="csv")
""", inputs={"X.csv": X16, "v.csv": v16},
     nvargs={"X": "in/X.csv", "v": "in/v.csv", "outT": "OUT/T.csv", "outA": "OUT/A.csv", "outB": "OUT/B.csv",
             "outD": "OUT/D.csv", "outd": "OUT/d.csv", "outR": "OUT/R.csv"},
     outputs={"T.csv": X16.T, "A.csv": X16.reshape(2, 6), "B.csv": X16.flatten(order="F").reshape(6, 2, order="F"),
              "D.csv": np.diag(v16[:, 0]), "d.csv": np.diag(X16[:3, :3])[:, None], "R.csv": X16[::-1]})

# 17 ------------------------------------------------------------------------------------------
X17 = rmat(22, 5, 4)
Z17 = np.array([[10.0, 20.0], [30.0, 40.0]])
Y17 = X17.copy()
Y17[1:3, 1:3] = Z17
Y17[4, 0] = 7.0
Y17[1:3, 3] = X17[0, 0:2]
case("indexing", "rightIndex (ranges, whole rows/columns, scalar cell, variable bounds) and leftIndex (matrix and scalar right-hand sides)",
     """
X = read($X)
Z = read($Z)
i = as.integer(as.scalar(Z[1,1]) / 10 + 1)
A = X[2:3, 1:2]
B = X[, 2]
C = X[i, ]
x = as.scalar(X[5, 4])
Y = X
Y[2:3, 2:3] = Z
Y[5, 1] = 7
Y[i:3, 4] = t(X[1, 1:2])
print("x=" + x)
write(A, $outA, format="csv")
write(B, $outB, format="csv")
write(C, $outC, format="csv")
write(Y, $outY, format="csv")
""", inputs={"X.csv": X17, "Z.csv": Z17},
     nvargs={"X": "in/X.csv", "Z": "in/Z.csv", "outA": "OUT/A.csv", "outB": "OUT/B.csv", "outC": "OUT/C.csv",
             "outY": "OUT/Y.csv"},
     outputs={"A.csv": X17[1:3, 0:2], "B.csv": X17[:, 1:2], "C.csv": X17[1:2, :], "Y.csv": Y17},
     prints=[X17[4, 3]], stdout="numeric")

# 18 ------------------------------------------------------------------------------------------
X18, Y18, Z18 = rmat(23, 3, 2), rmat(24, 3, 3), rmat(25, 2, 2)
case("append", "append (2-input cbind/rbind) and n-ary cbind/rbind",
     """
X = read($X)
Y = read($Y)
Z = read($Z)
A = cbind(X, Y)
B = rbind(X, Z)
C = cbind(X, Y, X)
D = rbind(X, Z, X)
write(A, $outA, format="csv")
write(B, $outB, format="csv")
write(C, $outC, format="csv")
write(D, $outD, format="csv")
""", inputs={"X.csv": X18, "Y.csv": Y18, "Z.csv": Z18},
     nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "Z": "in/Z.csv", "outA": "OUT/A.csv", "outB": "OUT/B.csv",
             "outC": "OUT/C.csv", "outD": "OUT/D.csv"},
     outputs={"A.csv": np.hstack([X18, Y18]), "B.csv": np.vstack([X18, Z18]),
              "C.csv": np.hstack([X18, Y18, X18]), "D.csv": np.vstack([X18, Z18, X18])})

# 19 ------------------------------------------------------------------------------------------
X19, Y19 = rmat(26, 4, 3), rmat(27, 4, 3)
s19 = 1.5
case("ternary_ifelse", "ifelse (matrix/scalar branches) and the ternary +* / -* ops",
     """
X = read($X)
Y = read($Y)
s = as.scalar(X[1,1]) * 0 + 1.5
A = ifelse(X > 0, X, Y)
B = ifelse(X > Y, 1, Y)
C = X + s * Y
D = X - s * Y
e = ifelse(s > 1, 10, 20)
print("e=" + e)
write(A, $outA, format="csv")
write(B, $outB, format="csv")
write(C, $outC, format="csv")
write(D, $outD, format="csv")
""", inputs={"X.csv": X19, "Y.csv": Y19},
     nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "outA": "OUT/A.csv", "outB": "OUT/B.csv", "outC": "OUT/C.csv",
             "outD": "OUT/D.csv"},
     outputs={"A.csv": np.where(X19 > 0, X19, Y19), "B.csv": np.where(X19 > Y19, 1.0, Y19),
              "C.csv": X19 + s19 * Y19, "D.csv": X19 - s19 * Y19})

# 20 ------------------------------------------------------------------------------------------
A20 = rmat(28, 6, 6) + 4 * np.eye(6)
b20 = rmat(29, 6, 1)
case("solve", "solve(A, b) for a well-conditioned 6x6 system (cond(A) < 10)",
     """
A = read($A)
b = read($b)
x = solve(A, b)
write(x, $out, format="csv")
""", inputs={"A.csv": A20, "b.csv": b20}, nvargs={"A": "in/A.csv", "b": "in/b.csv", "out": "OUT/x.csv"},
     outputs={"x.csv": np.linalg.solve(A20, b20)})

# 21 ------------------------------------------------------------------------------------------
X21 = np.array([[1.5, 2.0, 0.1, 0.2]])
case("print_assert", "print of INT64, FP64 (Java Double.toString), BOOLEAN and STRING values; assert that holds",
     """
X = read($X)
a = as.scalar(X[1,1])
n = as.integer(as.scalar(X[1,2]))
p = as.scalar(X[1,3])
q = as.scalar(X[1,4])
print(a)
print(n)
print(n * 3)
print(n / 4)
print(p + q)
print(a * 1e-22)
print(a * 1e22)
print(a > 1)
print("a=" + a + ", n=" + n + ", ok=" + (n == 2))
assert(a > 1)
print("done")
""", inputs={"X.csv": X21}, nvargs={"X": "in/X.csv"})

# 22 ------------------------------------------------------------------------------------------
case("fail_stop", "expected failure: stop() with a message; output printed before it is kept",
     """
X = read($X)
print("before stop")
if (sum(X) > 0) {
  stop("sum is positive: " + sum(X))
}
print("not reached")
""", inputs={"X.csv": np.array([[1.0, 2.0]])}, nvargs={"X": "in/X.csv"}, exit_code="nonzero",
     stderr=["sum is positive: 3.0"])

# 23 ------------------------------------------------------------------------------------------
case("fail_shape_mismatch", "expected failure: ba+* with inner dimensions 4 and 5 (hand-written plan; SystemDS rejects the DML at compile time)",
     """
A = read($A)
B = read($B)
C = A %*% B
print(sum(C))
""", inputs={"A.csv": rmat(30, 3, 4), "B.csv": rmat(31, 5, 2)}, nvargs={"A": "in/A.csv", "B": "in/B.csv"},
     exit_code="nonzero", stderr=["ba+*", "3x4", "5x2"])

# 24 ------------------------------------------------------------------------------------------
case("fail_missing_input", "expected failure: the input file named in createvar does not exist",
     """
X = read($X)
print(sum(X))
""", inputs={}, nvargs={"X": "in/does_not_exist.csv"}, exit_code="nonzero", stderr=["does_not_exist.csv"])

# 25 ------------------------------------------------------------------------------------------
A25 = sparse_mat(32, 200, 150, 30)   # sparsity 0.001
B25 = sparse_mat(33, 150, 100, 15)   # sparsity 0.001
D25 = rmat(34, 150, 3)
A25[5, 7] = 1.25; B25[7, 9] = 2.0    # guarantee a nonzero product cell
case("sparse_inputs", "ultra-sparse inputs (sparsity 0.001) read from Matrix Market and text ijv: sparse x sparse, sparse x dense, t, aggregates, sparse outputs",
     """
A = read($A)
B = read($B)
D = read($D)
C = A %*% B
E = A %*% D
T = t(A) * 2
s = sum(A)
c = colSums(A)
print("nnzA=" + sum(A != 0) + " sum=" + s)
write(C, $outC, format="text")
write(E, $outE, format="csv")
write(T, $outT, format="mm")
write(c, $outc, format="csv")
""", inputs={"A.mtx": A25, "B.txt": B25, "D.csv": D25},
     nvargs={"A": "in/A.mtx", "B": "in/B.txt", "D": "in/D.csv", "outC": "OUT/C.txt", "outE": "OUT/E.csv",
             "outT": "OUT/T.mtx", "outc": "OUT/c.csv"},
     outputs={"C.txt": A25 @ B25, "E.csv": A25 @ D25, "T.mtx": A25.T * 2, "c.csv": A25.sum(0)[None, :]},
     prints=[np.count_nonzero(A25), A25.sum()], stdout="numeric")

# 26 ------------------------------------------------------------------------------------------
X26 = rmat(35, 4, 3)
X26[1, 2] = 0.0
S26 = sparse_mat(36, 6, 5, 4)
case("io_formats", "each format read (csv, text ijv, mm) and written (csv, text, mm) with .mtd files",
     """
X = read($X)
T = read($T)
M = read($M)
write(X, $o1, format="text")
write(X, $o2, format="mm")
write(T, $o3, format="csv")
write(M, $o4, format="text")
S = T + M
X2 = X * 2
write(S, $o5, format="mm")
write(X2, $o6, format="csv")
""", inputs={"X.csv": X26, "T.txt": S26, "M.mtx": S26 * 3},
     nvargs={"X": "in/X.csv", "T": "in/T.txt", "M": "in/M.mtx", "o1": "OUT/X.txt", "o2": "OUT/X.mtx",
             "o3": "OUT/T.csv", "o4": "OUT/M.txt", "o5": "OUT/TM.mtx", "o6": "OUT/X2.csv"},
     outputs={"X.txt": X26, "X.mtx": X26, "T.csv": S26, "M.txt": S26 * 3, "TM.mtx": S26 * 4, "X2.csv": X26 * 2},
     extra={"mtd": ["X.txt", "T.csv", "M.txt", "X2.csv"]})

# 27-29 (explain rendering) --------------------------------------------------------------------
X27, Y27 = rmat(37, 5, 4), rmat(38, 4, 2)
case("explain_generic", "SystemDS explain rendering (space/dot) pasted as is: GENERIC block",
     """
X = read($X)
Y = read($Y)
Z = t(X %*% Y) / 2
print("sum=" + sum(Z) + ";max=" + max(Z))
write(Z, $out, format="csv")
""", inputs={"X.csv": X27, "Y.csv": Y27}, nvargs={"X": "in/X.csv", "Y": "in/Y.csv", "out": "OUT/Z.csv"},
     outputs={"Z.csv": (X27 @ Y27).T / 2}, stdout="numeric")

X28 = np.abs(rmat(39, 3, 3)) + 0.5
A28, n28 = X28.copy(), 0
while A28.max() < 50:
    A28 = A28 * 1.5
    n28 += 1
case("explain_while", "SystemDS explain rendering pasted as is: WHILE loop",
     """
X = read($X)
n = 0
while (max(X) < 50) {
  X = X * 1.5
  n = n + 1
}
print("n=" + n)
write(X, $out, format="csv")
""", inputs={"X.csv": X28}, nvargs={"X": "in/X.csv", "out": "OUT/X.csv"}, outputs={"X.csv": A28})

X29 = rmat(40, 3, 3)
case("explain_if", "SystemDS explain rendering pasted as is: IF/ELSE",
     """
X = read($X)
if (sum(X) < 0) {
  Y = abs(X)
  print("negative")
} else {
  Y = X * X
  print("non-negative")
}
write(Y, $out, format="csv")
""", inputs={"X.csv": X29}, nvargs={"X": "in/X.csv", "out": "OUT/Y.csv"},
     outputs={"Y.csv": np.abs(X29) if X29.sum() < 0 else X29 * X29})

# 30 ------------------------------------------------------------------------------------------
X30 = rmat(41, 3, 3)
case("joined_lines", "several instructions on one line joined with ‡ (hand-joined raw plan)",
     """
X = read($X)
Y = X * 2 + 1
Z = t(Y) %*% Y
print(sum(Z))
write(Z, $out, format="csv")
""", inputs={"X.csv": X30}, nvargs={"X": "in/X.csv", "out": "OUT/Z.csv"},
     outputs={"Z.csv": (X30 * 2 + 1).T @ (X30 * 2 + 1)}, prints=[((X30 * 2 + 1).T @ (X30 * 2 + 1)).sum()],
     stdout="numeric")

# 31 ------------------------------------------------------------------------------------------
X31 = np.array([[1.25, 2.0]])
case("patching", "instruction patching: rand with variable min/max (¶a¶) inside a loop, re-patched each iteration",
     """
X = read($X)
a = as.scalar(X[1,1])
for (i in 1:3) {
  R = rand(rows=3, cols=3, min=a, max=a, seed=5)
  print("sum=" + sum(R + i))
  a = a * 2
}
""", inputs={"X.csv": X31}, nvargs={"X": "in/X.csv"}, iters=["i"], prints=[20.25, 40.5, 72.0])

# 32 ------------------------------------------------------------------------------------------
X32 = rmat(42, 3, 2)
case("args_positional", "-args positional substitution ($1 $2 $3), including a numeric literal ($3) inside an instruction",
     """
X = read($1)
Y = X * $3
write(Y, $2, format="csv")
print("factor " + $3)
""", inputs={"X.csv": X32}, args=["in/X.csv", "OUT/Y.csv", "2.5"], outputs={"Y.csv": X32 * 2.5})

# 33 ------------------------------------------------------------------------------------------
g33 = rng(43)
X33 = np.round(g33.normal(0, 1, (200, 10)), 4)
beta33 = np.round(g33.uniform(-2, 2, (10, 1)), 3)
y33 = np.round(X33 @ beta33 + 0.01 * g33.normal(0, 1, (200, 1)), 5)
lstsq33 = np.linalg.lstsq(X33, y33, rcond=None)[0]
case("lmcg", "linear regression by conjugate gradient in the shape of SystemDS's builtin lmCG (icpt=0, reg=1e-12), 200x10",
     """
# scripts/builtin/lmCG.dml, reduced to icpt=0 (no intercept, no scaling)
X = read($X)
y = read($y)
reg = 1e-12
tol = 1e-12
maxi = 100
lambda = reg
r = -t(X) %*% y
p = -r
norm_r2 = sum(r ^ 2)
norm_r2_initial = norm_r2
norm_r2_target = norm_r2_initial * tol ^ 2
beta = matrix(0, rows=ncol(X), cols=1)
i = 0
while (i < maxi & norm_r2 > norm_r2_target) {
  q = t(X) %*% (X %*% p)
  q = q + lambda * p
  a = norm_r2 / sum(p * q)
  beta = beta + a * p
  r = r + a * q
  old_norm_r2 = norm_r2
  norm_r2 = sum(r ^ 2)
  p = -r + (norm_r2 / old_norm_r2) * p
  i = i + 1
}
print("converged=" + (i < maxi))
write(beta, $out, format="csv")
""", inputs={"X.csv": X33, "y.csv": y33}, nvargs={"X": "in/X.csv", "y": "in/y.csv", "out": "OUT/beta.csv"},
     outputs={"beta.csv": lstsq33},
     tolerance={"rtol": 1e-6, "atol": 1e-6,
                "why": "CG stops at ||r|| <= 1e-12 ||r0|| with lambda=1e-12 on a well-conditioned 200x10 "
                       "X (cond(X'X) < 10), so beta differs from the lstsq solution by ~1e-10; 1e-6 leaves "
                       "room for summation-order differences. beta_sds.csv (SystemDS's run) is compared at 1e-9."})


# ---------------------------------------------------------------------------------------------

def case_json(c):
    spec = {"description": c["desc"]}
    if c["nvargs"] is not None:
        spec["nvargs"] = c["nvargs"]
    if c["args"] is not None:
        spec["args"] = c["args"]
    spec["exit_code"] = c["exit_code"]
    if c["stderr"]:
        spec["expected_stderr_contains"] = c["stderr"]
    spec["stdout"] = c["stdout"]
    if c["tolerance"]:
        spec["tolerance"] = c["tolerance"]
    outs = []
    for name, val in c["outputs"].items():
        o = {"name": name}
        if isinstance(val, dict):
            o["properties"] = val
        if name in c["extra"].get("mtd", []):
            o["mtd"] = True
        outs.append(o)
    if c["name"] == "lmcg":
        outs.append({"name": "beta.csv", "expected": "beta_sds.csv", "rtol": 1e-9, "atol": 1e-9})
    if outs:
        spec["outputs"] = outs
    return spec


def write_case(c):
    d = os.path.join(CASES_DIR, c["name"])
    keep = {}  # reference files taken from SystemDS runs (--sds) survive a plain regeneration
    exp_dir = os.path.join(d, "expected")
    if os.path.isdir(exp_dir):
        for f in os.listdir(exp_dir):
            if "_sds." in f:
                keep[f] = open(os.path.join(exp_dir, f)).read()
    for sub in ("in", "expected"):
        shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    if c["inputs"]:
        os.makedirs(os.path.join(d, "in"))
        for fname, A in c["inputs"].items():
            write_matrix(os.path.join(d, "in", fname), A)
    if any(not isinstance(v, dict) for v in c["outputs"].values()):
        os.makedirs(os.path.join(d, "expected"))
        for fname, A in c["outputs"].items():
            if not isinstance(A, dict):
                write_matrix(os.path.join(d, "expected", fname), A)
    for f, text in keep.items():
        with open(os.path.join(exp_dir, f), "w") as fh:
            fh.write(text)
    with open(os.path.join(d, "case.dml"), "w") as f:
        f.write(f"# {c['name']}: {c['desc']}\n# Generated by tests/plans/gen_cases.py; the plan corresponds to this DML.\n")
        f.write(c["dml"])
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case_json(c), f, indent=2, ensure_ascii=False)
        f.write("\n")
    return d


def sds_args(c, d, outdir):
    def m(v):
        if v.startswith("OUT/"):
            return os.path.join(outdir, v[4:])
        if v.startswith("in/"):
            return os.path.join(d, v)
        return v
    if c["nvargs"] is not None:
        return ["-nvargs"] + [f"{k}={m(v)}" for k, v in c["nvargs"].items()], \
            {m(v): f"${k}" for k, v in c["nvargs"].items() if m(v) != v}
    return ["-args"] + [m(v) for v in c["args"]], \
        {m(v): f"${i + 1}" for i, v in enumerate(c["args"]) if m(v) != v}


def run_sds(c, d, explain):
    outdir = os.path.join(SDS_OUT, c["name"])
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    a, back = sds_args(c, d, outdir)
    cmd = [SDS, "-f", os.path.join(d, "case.dml"), "-exec", "singlenode"] + \
        (["-explain", "runtime"] if explain else []) + a
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, outdir, back


def program_output(stdout):
    """SystemDS's stdout minus its trailing statistics block."""
    lines = stdout.splitlines(keepends=True)
    for k in range(len(lines)):
        if lines[k].startswith("SystemDS Statistics:"):
            lines = lines[:k]
            break
    text = "".join(lines)
    return text[:-1] if text.endswith("\n\n") else text


def check_against_numpy(c, d, outdir):
    sys.path.insert(0, HERE)
    import run_plan
    ok = True
    for name, val in c["outputs"].items():
        if isinstance(val, dict):
            continue
        got_path = os.path.join(outdir, name)
        if not os.path.exists(got_path):
            print(f"  {c['name']}: SystemDS wrote no {name}")
            ok = False
            continue
        fmt = run_plan.format_of(name, {})
        got = run_plan.read_matrix(got_path, fmt, {})
        ref = run_plan.read_matrix(os.path.join(d, "expected", name), fmt, {})
        if got[0] is None:
            got = (ref[0], ref[1], got[2])
        try:
            tol = c["tolerance"] or {}
            err = run_plan.compare_matrices(name, got, ref, tol.get("rtol", 1e-9), tol.get("atol", 1e-9))
            print(f"  {c['name']}: {name} SystemDS == NumPy (max err {err:.2e})")
        except run_plan.CaseFailure as e:
            print(f"  {c['name']}: SystemDS != NumPy: {e}")
            ok = False
    return ok


def check_prints(c, text):
    if c["prints"] is None:
        return True
    import re
    nums = [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:E[-+]?\d+)?", text)]
    want = [float(x) for x in c["prints"]]
    # every expected number must appear, in order, among the printed numbers
    k = 0
    for w in want:
        while k < len(nums) and not math.isclose(nums[k], w, rel_tol=1e-9, abs_tol=1e-9):
            k += 1
        if k == len(nums):
            print(f"  {c['name']}: NumPy value {w!r} not found in SystemDS output {text!r}")
            return False
        k += 1
    print(f"  {c['name']}: printed values agree with NumPy")
    return True


def main():
    sds = "--sds" in sys.argv
    draft = "--draft" in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for c in CASES:
        if only and c["name"] not in only:
            continue
        d = write_case(c)
        if sds:
            p, outdir, _ = run_sds(c, d, explain=False)
            text = program_output(p.stdout)
            if c["exit_code"] == 0:
                if p.returncode != 0 or "An Error Occurred" in p.stdout + p.stderr:
                    print(f"  {c['name']}: SystemDS failed:\n{p.stdout}\n{p.stderr}")
                    continue
                check_prints(c, text)
                check_against_numpy(c, d, outdir)
                if c["name"] == "lmcg":
                    shutil.copy(os.path.join(outdir, "beta.csv"), os.path.join(d, "expected", "beta_sds.csv"))
            else:
                text = text.split("\x1b[31m")[0]
            if c["name"] not in ("fail_shape_mismatch", "fail_missing_input"):
                with open(os.path.join(d, "expected_stdout.txt"), "w") as f:
                    f.write(text)
        if draft:
            p, outdir, back = run_sds(c, d, explain=True)
            tool = os.path.join(HERE, "tools", "sds_to_plan.py")
            q = subprocess.run([sys.executable, tool] + [f"--iter={i}" for i in c["iters"]],
                               input=p.stdout, capture_output=True, text=True)
            plan = q.stdout
            for path, token in sorted(back.items(), key=lambda kv: -len(kv[0])):
                plan = plan.replace(path, token)
            header = [f"# {c['name']}: {c['desc']}", "# Corresponding DML (case.dml):"] + \
                [("#   " + ln).rstrip() for ln in c["dml"].splitlines()]
            with open(os.path.join(d, "plan.draft"), "w") as f:
                f.write("\n".join(header) + "\n" + plan)
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()

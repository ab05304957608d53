#!/usr/bin/env python3
"""Writes the inputs of lmcg_read.dml (bench/time_to_result.py): X (rows x cols, uniform in
[-1, 1], 6 decimals) and y = X b for a planted b, as CSV with SystemDS's .mtd files. Fixed seed;
python3 + numpy. --mtd-only writes the metadata alone (what dml2plan needs to capture the plan).
"""
import argparse
import json
import os

import numpy as np


def meta(path, rows, cols, nnz):
    with open(path + ".mtd", "w") as f:
        json.dump({"data_type": "matrix", "value_type": "double", "rows": rows, "cols": cols,
                   "nnz": nnz, "format": "csv", "header": False, "sep": ","}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=10000)
    ap.add_argument("--cols", type=int, default=1000)
    ap.add_argument("--dir", default="in")
    ap.add_argument("--mtd-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    x_path, y_path = os.path.join(a.dir, "X.csv"), os.path.join(a.dir, "y.csv")
    meta(x_path, a.rows, a.cols, a.rows * a.cols)
    meta(y_path, a.rows, 1, a.rows)
    if a.mtd_only:
        return
    rng = np.random.default_rng(11)
    X = np.round(rng.uniform(-1, 1, size=(a.rows, a.cols)), 6)
    b = rng.uniform(-1, 1, size=(a.cols, 1))
    np.savetxt(x_path, X, fmt="%.6f", delimiter=",")
    np.savetxt(y_path, X @ b, fmt="%.17g", delimiter=",")


if __name__ == "__main__":
    main()

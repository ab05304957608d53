#!/usr/bin/env python3
"""Writes synthetic inputs for lenet.dml (the LeNet training benchmark) into a folder (default in/).

batch x iters MNIST-shaped images (28x28 pixel values 0..255, case.dml divides by 255; by default
about 18% of the pixels are non-zero, all in the central 20x20 box, as in MNIST), one-hot labels for
10 classes, and He-initialised weights and small biases (W3, 3136x512, dense unless --w3-density is
given). Fixed seed; python3 + numpy. Every file gets SystemDS's .mtd metadata, which dml2plan reads
at capture time, so a plan captured for one batch/iters only fits inputs of that batch/iters.
"""
import argparse
import json
import os

import numpy as np


def write_csv(folder, name, A, fmt):
    path = os.path.join(folder, name)
    np.savetxt(path, A, fmt=fmt, delimiter=",")
    meta = {"data_type": "matrix", "value_type": "double", "rows": int(A.shape[0]),
            "cols": int(A.shape[1]), "nnz": int(np.count_nonzero(A)), "format": "csv",
            "header": False, "sep": ","}
    with open(path + ".mtd", "w") as f:
        json.dump(meta, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=64, help="rows per mini-batch (default 64)")
    ap.add_argument("--iters", type=int, default=20, help="training iterations (default 20)")
    ap.add_argument("--dir", default="in", help="output folder (default in/)")
    ap.add_argument("--pixel-density", type=float, default=0.35,
                    help="share of non-zero pixels in the central 20x20 box (default 0.35, about "
                         "18%% of the image; 1 fills the box, the rest of the image stays 0)")
    ap.add_argument("--w3-density", type=float, default=1.0, help="share of non-zero W3 entries")
    ap.add_argument("--seed", type=int, default=64)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    n = a.batch * a.iters

    X = np.zeros((n, 28, 28))
    box = rng.random((n, 20, 20)) < a.pixel_density
    X[:, 4:24, 4:24] = np.where(box, rng.integers(1, 256, size=(n, 20, 20)), 0)
    write_csv(a.dir, "X.csv", X.reshape(n, 784), "%d")
    write_csv(a.dir, "Y.csv", np.eye(10)[rng.integers(0, 10, size=n)], "%d")

    def he(rows, cols, fan_in):
        return rng.normal(size=(rows, cols)) * np.sqrt(2.0 / fan_in)

    W3 = he(3136, 512, 3136 * a.w3_density)
    if a.w3_density < 1.0:
        W3[rng.random(W3.shape) >= a.w3_density] = 0.0
    for name, A in [("W1.csv", he(32, 25, 25)), ("b1.csv", rng.normal(size=(32, 1)) * 0.1),
                    ("W2.csv", he(64, 800, 800)), ("b2.csv", rng.normal(size=(64, 1)) * 0.1),
                    ("W3.csv", W3), ("b3.csv", rng.normal(size=(1, 512)) * 0.1),
                    ("W4.csv", he(512, 10, 1024)), ("b4.csv", rng.normal(size=(1, 10)) * 0.1)]:
        write_csv(a.dir, name, A, "%.17g")
    print(f"make_inputs: {n} images ({a.iters} batches of {a.batch}) and LeNet weights in {a.dir}/")


if __name__ == "__main__":
    main()

# Writes this case's inputs into in/: quantiles across the supports (negative, zero, tiny, the
# bulk, far tails) and probabilities including the ends 0 and 1.
import os

os.makedirs("in", exist_ok=True)
X = [-50, -6, -2.5, -1, -0.1, 0, 1e-6, 0.05, 0.3, 1, 1.96, 2.5, 4, 10, 35, 100]
P = [0, 1e-10, 1e-4, 0.01, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.99, 0.9999, 1]
for name, vals, cols in (("X", X, 13), ("P", P, 10)):
    with open(f"in/{name}.csv", "w") as f:
        f.write("".join(",".join([repr(v)] * cols) + "\n" for v in vals))
    with open(f"in/{name}.csv.mtd", "w") as f:
        f.write('{"data_type": "matrix", "value_type": "double", "rows": %d, "cols": %d, '
                '"format": "csv", "header": false}\n' % (len(vals), cols))

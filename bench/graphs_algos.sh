#!/usr/bin/env bash
# The benchmark algorithms (bench/algorithms/*_{small,sparse}.plan) with -gpu force, CUDA graphs
# off and on (issue #19: real programs, not only the test plans): each prints one full-precision
# sum of its model, which must be the same text in both runs. Deterministic cuDNN, one seed,
# a shared tuning cache warmed by a first run.
#
#   here:   scripts/gpu-test.sh build
#   there:  bench/graphs_algos.sh        with carry ["build-gpu/carry.tar.xz"]
#
# Prints one line per plan (SAME / DIFF / FAIL) and the count; exit 1 on any DIFF or FAIL. Then
# times the *_dense_twice plans' second call with graphs off and on (TIME lines). Everything it
# prints also goes to $OUT/graphs_algos.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh  # sets carry, unpacks it, library path
dmlrt="$PWD/$carry/dmlrt"
out=${OUT:-/tmp/dmlrt-graphs-algos}
mkdir -p "$out"
exec > >(tee "$out/graphs_algos.txt") 2>&1  # kept whole: a device call returns only a tail
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
det="<dmlrt.gpu.cudnn.deterministic>true</dmlrt.gpu.cudnn.deterministic>"
for mode in off on; do
  echo "<root>$det<dmlrt.gpu.graphs>$mode</dmlrt.gpu.graphs></root>" >"$work/$mode.xml"
done
bad=0 n=0
for plan in bench/algorithms/*_small.plan bench/algorithms/*_sparse.plan; do
  name=$(basename "$plan" .plan)
  run() { timeout 120 "$dmlrt" -seed 7 -gpu force -config "$work/$1.xml" -f "$plan" 2>&1; }
  run off >/dev/null  # times algorithms and GEMM plans; later runs load them
  off=$(run off); rc_off=$?
  on=$(run on); rc_on=$?
  n=$((n + 1))
  if [ $rc_off -ne 0 ] || [ $rc_on -ne 0 ]; then
    echo "FAIL $name (exit $rc_off off, $rc_on on): $(echo "$on" | tail -1)"; bad=$((bad + 1))
  elif [ "$off" != "$on" ]; then
    echo "DIFF $name: off '$off' on '$on'"; bad=$((bad + 1))
  else
    echo "SAME $name: $off"
  fi
done
echo "graphs_algos: $((n - bad)) of $n plans print the same with graphs on and off"
# The GPU sizes' timing (the algorithm section's "2nd call" column: *_dense_twice plans, the
# builtin's second call timed by the script): rounds alternate off and on; medians. Measured,
# not asserted. GRAPHS_ALGOS_ROUNDS=0 skips it.
rounds=${GRAPHS_ALGOS_ROUNDS:-3}
median() {
  sort -g | awk '{a[NR] = $1}
    END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'
}
for plan in bench/algorithms/*_dense_twice.plan; do
  [ "$rounds" -gt 0 ] || break
  name=$(basename "$plan" _dense_twice.plan)
  : >"$work/off.ms"
  : >"$work/on.ms"
  for _ in $(seq 1 "$rounds"); do
    for mode in off on; do
      timeout 120 "$dmlrt" -seed 7 -gpu force -config "$work/$mode.xml" -f "$plan" 2>&1 |
        sed -n 's/.*second call ms: //p' >>"$work/$mode.ms"
    done
  done
  off=$(median <"$work/off.ms") on=$(median <"$work/on.ms")
  echo "TIME $name dense, second call ms (median of $rounds): off ${off:-?} on ${on:-?}" \
    "on/off $(awk -v a="${on:-0}" -v b="${off:-0}" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "?"}')"
done
rm -rf "$work"
[ $bad -eq 0 ]

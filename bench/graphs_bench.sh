#!/usr/bin/env bash
# The measurements of issue #19 (CUDA graphs) in one device call, all in the same session: the
# LeNet plan through the CLI with dmlrt.gpu.graphs off, on, and on with CUDA events
# (bench/lenet_graphs_probe.py: ms per step and the -stats "CUDA graphs" lines), PyTorch's LeNet
# anchors (torch_anchor.py --sections lenet: eager, and the whole step as a CUDA graph, bare and
# with the plan's work), the 1x1 loop of tests/gpu/data/graphs/tiny.plan with graphs on (the
# replays' host time per instruction), and the lmCG algorithm (bench/algorithms) with graphs off
# and on.
#
#   here:   scripts/gpu-test.sh build
#   there:  bench/graphs_bench.sh        with carry ["build-gpu/carry.tar.xz"]
#
# Files in $OUT (six: the device tool brings back at most eight): probe.json, torch.json,
# tiny_stats.txt, lmcg_off.txt, lmcg_on.txt, graphs_bench.log. Knobs: GRAPHS_STEPS (LeNet steps
# added to the long run, default 1000), GRAPHS_SKIP (space-separated steps to skip: lenet torch
# tiny lmcg), GRAPHS_LMCG_ROUNDS (default 15: the first call varies by +-5 ms between processes).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh  # sets carry, unpacks it, library path
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/dmlrt-graphs-bench}
mkdir -p "$out"
log="$out/graphs_bench.log"
: >"$log"
dmlrt="$PWD/$carry/dmlrt"
steps=${GRAPHS_STEPS:-1000}
skip=" ${GRAPHS_SKIP:-} "
want() { [[ "$skip" != *" $1 "* ]]; }
cfg=$(mktemp -d)
for mode in off on; do
  echo "<root><dmlrt.gpu.graphs>$mode</dmlrt.gpu.graphs></root>" >"$cfg/graphs_$mode.xml"
  # The 1x1 loop as written: cell-wise fusion would make its body one instruction.
  echo "<root><dmlrt.gpu.graphs>$mode</dmlrt.gpu.graphs><dmlrt.rewrite.fuse_cellwise>false</dmlrt.rewrite.fuse_cellwise><dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events></root>" \
    >"$cfg/tiny_$mode.xml"
done
# Graphs on, every run cut into chunks of 4, 8, ... (the default cuts only once a run's buffers
# reach 1 MiB: the 1x1 loop is one launch per iteration).
sed 's|</root>|<dmlrt.gpu.graphs.chunk>always</dmlrt.gpu.graphs.chunk></root>|' "$cfg/tiny_on.xml" \
  >"$cfg/tiny_always.xml"

if want lenet; then
  timeout 300 python3 bench/lenet_graphs_probe.py --dmlrt "$dmlrt" --extra-steps "$steps" \
    --repeat 3 --graphs-config '<dmlrt.gpu.graphs.chunk>always</dmlrt.gpu.graphs.chunk>' \
    --out "$out/probe.json" >>"$log" 2>&1
fi
if want torch; then
  timeout 180 python3 bench/torch_anchor.py "$out/torch.json" --sections lenet >>"$log" 2>&1
fi
if want tiny; then  # graphs on, on with chunks always, then off; three rounds (host time is noisy)
  : >"$out/tiny_stats.txt"
  for round in 1 2 3; do
    for mode in on always off; do
      echo "== tiny.plan, graphs $mode (round $round) ==" >>"$out/tiny_stats.txt"
      timeout 60 "$dmlrt" -f tests/gpu/data/graphs/tiny.plan -gpu force -config \
        "$cfg/tiny_$mode.xml" -stats 10 >>"$out/tiny_stats.txt" 2>&1
    done
  done
fi
if want lmcg; then  # the lmCG builtin called twice (bench/algorithms/*_twice): rounds alternate
  : >"$out/lmcg_off.txt"
  : >"$out/lmcg_on.txt"
  for round in $(seq 1 "${GRAPHS_LMCG_ROUNDS:-15}"); do
    for mode in off on; do
      echo "== lmCG, graphs $mode (round $round) ==" >>"$out/lmcg_$mode.txt"
      timeout 120 "$dmlrt" -f bench/algorithms/lmCG_dense_twice.plan -gpu force -config \
        "$cfg/graphs_$mode.xml" -stats 25 >>"$out/lmcg_$mode.txt" 2>&1
    done
  done
fi
rm -rf "$cfg"
echo "== graphs_bench: done ==" >>"$log"
grep -h "\[probe\]\|\[torch\]" "$log"
grep -h "== tiny\|graph replay host time\|CUDA graphs (\|Total execution" "$out/tiny_stats.txt" 2>/dev/null
# lmCG: both calls' time (m_lmCG in -stats), the second call's (the script's time() around it)
# and the first's (the difference: it captures), medians over the rounds.
for mode in off on; do
  [[ -f "$out/lmcg_$mode.txt" ]] || continue
  awk -v mode="$mode" '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
      }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    /second call ms:/ { second[++ns] = $NF / 1000 }
    $2 == "m_lmCG" { both[++nb] = $3 }
    /graph capture host time/ { print "[lmcg] " mode ": " $0 }
    END {
      line = ""
      for (i = 1; i <= nb && i <= ns; i++) {
        first[i] = both[i] - second[i]
        line = line sprintf(" %.4f/%.4f", first[i], second[i])
        sum1 += first[i]; sum2 += second[i]
      }
      n = (nb < ns) ? nb : ns
      if (n == 0) { print "[lmcg] " mode ": no result"; exit }
      printf "[lmcg] graphs %s: first/second call s per round:%s; medians %.4f / %.4f s, means %.4f / %.4f s (%d rounds)\n",
        mode, line, median(first, n), median(second, n), sum1 / n, sum2 / n, n
    }' "$out/lmcg_$mode.txt"
done

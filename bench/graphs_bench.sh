#!/usr/bin/env bash
# The measurements of issue #19 (CUDA graphs) in one device call, all in the same session: the
# LeNet plan through the CLI with dmlrt.gpu.graphs off and on (lenet_time.py), PyTorch's LeNet
# anchors (torch_anchor.py --sections lenet: eager, and the whole step as a CUDA graph, bare and
# with the plan's work), one LeNet run with graphs on whose -stats show what the graphs did, and
# the lmCG algorithm (bench/algorithms) with graphs off and on.
#
#   here:   scripts/gpu-test.sh build
#   there:  bench/graphs_bench.sh        with carry ["build-gpu/carry.tar.xz"]
#
# Files in $OUT (seven: the device tool brings back at most eight): lenet_eager.json,
# lenet_graphs.json, torch.json, lenet_graphs_stats.txt, lmcg_{off,on}.txt, graphs_bench.log. Knobs: GRAPHS_STEPS (LeNet steps added to the long run,
# default 400), GRAPHS_SKIP (space-separated steps to skip: lenet torch stats lmcg).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
carry=build-gpu/carry
[ -f build-gpu/carry.tar.xz ] && [ ! -x "$carry/dmlrt" ] && tar -C build-gpu -xJf build-gpu/carry.tar.xz
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia
export LD_LIBRARY_PATH="$NV/cu13/lib:$NV/cudnn/lib:$PWD/$carry/lib:${LD_LIBRARY_PATH:-}"
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/dmlrt-graphs-bench}
mkdir -p "$out"
log="$out/graphs_bench.log"
: >"$log"
dmlrt="$PWD/$carry/dmlrt"
steps=${GRAPHS_STEPS:-400}
skip=" ${GRAPHS_SKIP:-} "
want() { [[ "$skip" != *" $1 "* ]]; }

if want lenet; then
  timeout 240 python3 bench/lenet_time.py --dmlrt "$dmlrt" --extra-steps "$steps" --repeat 2 \
    --out "$out/lenet_eager.json" >>"$log" 2>&1
  timeout 240 python3 bench/lenet_time.py --dmlrt "$dmlrt" --extra-steps "$steps" --repeat 2 \
    --graphs --out "$out/lenet_graphs.json" >>"$log" 2>&1
fi
if want torch; then
  timeout 180 python3 bench/torch_anchor.py "$out/torch.json" --sections lenet >>"$log" 2>&1
fi
if want stats; then
  # One FP64 run of the LeNet plan with graphs on, for its -stats (graph launches per step, the
  # instructions still run eagerly, the fallbacks and their reasons).
  work=$(mktemp -d)
  python3 bench/lenet/make_inputs.py --batch 64 --iters 20 --dir "$work/in" >>"$log" 2>&1
  mkdir -p "$work/out"
  echo "<root><dmlrt.gpu.graphs>on</dmlrt.gpu.graphs></root>" >"$work/graphs.xml"
  plan="$PWD/bench/lenet/lenet.plan"
  (cd "$work" && timeout 120 "$dmlrt" -f "$plan" -gpu force -config graphs.xml -stats 40) \
    >"$out/lenet_graphs_stats.txt" 2>&1
  rm -rf "$work"
fi
if want lmcg; then
  cfg=$(mktemp -d)
  for mode in off on; do
    echo "<root><dmlrt.gpu.graphs>$mode</dmlrt.gpu.graphs></root>" >"$cfg/graphs_$mode.xml"
    timeout 120 "$dmlrt" -f bench/algorithms/lmCG_dense.plan -gpu force -config \
      "$cfg/graphs_$mode.xml" -stats 25 >"$out/lmcg_$mode.txt" 2>&1
  done
  rm -rf "$cfg"
fi
echo "== graphs_bench: done ==" >>"$log"
tail -5 "$log"

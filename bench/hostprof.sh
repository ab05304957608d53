#!/usr/bin/env bash
# Where the host time of a CUDA-graph replay goes (issue #19), on the GPU machine (no perf there):
# the 1x1 loop of tests/gpu/data/graphs/tiny.plan at 200000 iterations and the LeNet plan at
# 3000 extra steps, FP32, both with dmlrt.gpu.graphs on, under the preloaded sampling profiler
# (bench/hostprof_preload.cpp; the kernel's timer gives about one sample per 4 ms of CPU time).
#
#   here:   scripts/gpu-test.sh build
#   there:  bench/hostprof.sh        with carry ["build-gpu/carry.tar.xz"]
#
# Files in $OUT: tiny_prof.txt, lenet_prof.txt (profile_report.py's tables) and hostprof.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source bench/device_env.sh  # sets carry, unpacks it, library path
out=${OUT:-/tmp/dmlrt-hostprof}
mkdir -p "$out"
work=$(mktemp -d)
root=$PWD
export XDG_CACHE_HOME="$work/cache"  # the LeNet warm-up run fills it; the profiled run finds it
log="$out/hostprof.log"
echo "<root><dmlrt.gpu.graphs>on</dmlrt.gpu.graphs><dmlrt.rewrite.fuse_cellwise>false</dmlrt.rewrite.fuse_cellwise><dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events></root>" >"$work/tiny.xml"
echo "<root><dmlrt.gpu.graphs>on</dmlrt.gpu.graphs><dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events></root>" >"$work/lenet.xml"
sed 's/CP°assignvar°2000·SCALAR·INT64·true°__pred/CP°assignvar°200000·SCALAR·INT64·true°__pred/' \
  tests/gpu/data/graphs/tiny.plan >"$work/tiny.plan"
prof() {  # name, working dir, dmlrt arguments...
  local name=$1 dir=$2
  shift 2
  # Preloaded into dmlrt only (under `timeout` it would write the file too, with no samples).
  (cd "$dir" && timeout 200 env DMLRT_HOSTPROF="$work/$name.raw" \
    LD_PRELOAD="$root/$carry/libhostprof.so" "$root/$carry/dmlrt" "$@" -stats 12) >>"$log" 2>&1
  python3 bench/profile_report.py "$work/$name.raw" --binary "$carry/dmlrt" --top 45 \
    >"$out/${name}_prof.txt" 2>&1
}
prof tiny "$PWD" -f "$work/tiny.plan" -gpu force -config "$work/tiny.xml"
python3 -c 'import sys; sys.path.insert(0, "bench"); import lenet_time; lenet_time.prepare_work(sys.argv[1], 3000)' "$work"
(cd "$work" && timeout 100 "$root/$carry/dmlrt" -f long.plan -gpu force \
  -precision single -config lenet.xml >/dev/null 2>&1)  # fills the algorithm caches
prof lenet "$work" -f long.plan -gpu force -precision single -config lenet.xml
rm -rf "$work"
grep -h "Total execution\|replay host time" "$log"
head -30 "$out/tiny_prof.txt"
head -30 "$out/lenet_prof.txt"

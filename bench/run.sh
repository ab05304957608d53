#!/usr/bin/env bash
# The benchmark of DESIGN.md §9 in one device call (bench/README.md): dmlrt_bench (dmlrt
# GPU instructions vs cuDNN / cuBLAS / cuSPARSE / copy bandwidth, host overhead, the sparse-filter
# conv2d path vs the dense one), torch_anchor.py
# (PyTorch conv passes and an eager LeNet step), lenet_time.py (the LeNet plan through the dmlrt
# CLI), then report.py merges them against the targets and prints the table last.
#
#   here:   scripts/gpu-test.sh build          (build-gpu/carry.tar.xz, dmlrt_bench included)
#   there:  BENCH_COMMIT=<hash> bench/run.sh     with carry ["build-gpu/carry.tar.xz"]
#
# Files land in $OUT (what comes back from the device call): dmlrt_bench.json, torch_anchor.json,
# lenet.json, results.json, RESULTS.md and run.log (every step's output). Each step has a time
# limit and a failing step does not stop the others. Knobs (environment): BENCH_BUDGET_S,
# BENCH_SECTIONS, BENCH_SPCONV_S, BENCH_ARGS, TORCH_BUDGET_S, TORCH_TIMEOUT_S, TORCH_ARGS,
# LENET_TIMEOUT_S, BENCH_COMMIT, BENCH_CARRY.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# BENCH_CARRY names an unpacked carry folder instead (a local try-out); by default the carried
# tarball is unpacked into build-gpu/carry, as scripts/gpu-test.sh run does.
carry=${BENCH_CARRY:-build-gpu/carry}
if [ -z "${BENCH_CARRY:-}" ] && [ -f build-gpu/carry.tar.xz ]; then
  tar -C build-gpu -xJf build-gpu/carry.tar.xz
fi
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia
carry_abs=$(cd "$carry" 2>/dev/null && pwd)
export LD_LIBRARY_PATH="$NV/cu13/lib:$NV/cudnn/lib:$carry_abs/lib:${LD_LIBRARY_PATH:-}"
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/dmlrt-bench}
mkdir -p "$out"
log="$out/run.log"
: >"$log"
# The device machine's copy of the tree may carry a stale .git (on 2026-11-30 it named the HEAD of
# an earlier session), so its HEAD is not trusted: pass BENCH_COMMIT.
commit=${BENCH_COMMIT:-unknown (BENCH_COMMIT not set)}
t_start=$(date +%s)

status=()
step() {  # name, time limit (s), command...: output to run.log, one status line kept
  local name=$1 limit=$2
  shift 2
  local t0 rc
  t0=$(date +%s)
  echo "=== $name: $* (limit ${limit}s)" >>"$log"
  timeout -k 10 "$limit" "$@" >>"$log" 2>&1
  rc=$?
  local note=""
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && note=" (time limit: partial results kept)"
  [ "$rc" -eq 77 ] && note=" (skipped: no device or no torch)"
  status+=("$name: rc=$rc in $(($(date +%s) - t0)) s$note")
  echo "=== $name: rc=$rc$note" >>"$log"
  echo "[run.sh] $name: rc=$rc in $(($(date +%s) - t0)) s$note" >&2
}

gpu_state() {
  nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv,noheader 2>/dev/null || echo "nvidia-smi not available"
}
echo "device before: $(gpu_state)" | tee -a "$log" >&2

# One dmlrt_bench process per section, so a fault that poisons a CUDA context (the newest code,
# conv, runs late) costs only its own section; each gets the time the budget has left, less what
# is kept for spconv while it is still to come (dmlrt_bench caps spconv at 30 s of its own).
bench_parts=()
if [ -x "$carry/dmlrt_bench" ]; then
  bench_t0=$(date +%s)
  sections=${BENCH_SECTIONS:-gemm cell overhead conv spconv}
  spconv_keep=0
  case " $sections " in *" spconv "*) spconv_keep=${BENCH_SPCONV_S:-35} ;; esac
  for section in $sections; do
    left=$((${BENCH_BUDGET_S:-195} - ($(date +%s) - bench_t0)))
    if [ "$section" = spconv ]; then spconv_keep=0; else left=$((left - spconv_keep)); fi
    [ "$left" -lt 5 ] && left=5
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of options
    step "dmlrt_bench $section" $((left + 50)) "$carry/dmlrt_bench" "$out/bench_$section.json" \
      --sections "$section" --budget-s "$left" ${BENCH_ARGS:-}
    bench_parts+=(--bench "$out/bench_$section.json")
  done
else
  status+=("dmlrt_bench: not run ($carry/dmlrt_bench missing: run scripts/gpu-test.sh build and carry build-gpu/carry.tar.xz)")
fi
# shellcheck disable=SC2086
step torch_anchor "${TORCH_TIMEOUT_S:-100}" python3 bench/torch_anchor.py "$out/torch_anchor.json" \
  --budget-s "${TORCH_BUDGET_S:-70}" ${TORCH_ARGS:-}
if [ -d bench/lenet ]; then
  step lenet "${LENET_TIMEOUT_S:-150}" python3 bench/lenet_time.py --dmlrt "$carry/dmlrt" \
    --out "$out/lenet.json" --timeout 30
else
  echo "bench/lenet/ is not there yet: LeNet plan timing skipped" | tee -a "$log" >&2
  status+=("lenet: skipped (bench/lenet/ is not there yet)")
fi
echo "device after: $(gpu_state)" | tee -a "$log" >&2

echo "== steps (total $(($(date +%s) - t_start)) s) ==" | tee -a "$log"
printf '%s\n' "${status[@]}" | tee -a "$log"
echo
python3 bench/report.py "${bench_parts[@]}" --merged-bench-out "$out/dmlrt_bench.json" \
  --torch "$out/torch_anchor.json" --lenet "$out/lenet.json" --out "$out/results.json" \
  --markdown "$out/RESULTS.md" --commit "$commit" \
  --command "bench/run.sh${BENCH_ARGS:+ BENCH_ARGS=$BENCH_ARGS}" 2>>"$log"
rc=$?
# At most 8 files come back from a device call: the parts live on in dmlrt_bench.json.
[ "$rc" -eq 0 ] && rm -f "$out"/bench_*.json
# The tree's copies (on the device machine they go with it: what comes back is $OUT); not for a
# BENCH_CARRY try-out, whose results are not measurements.
if [ -z "${BENCH_CARRY:-}" ]; then
  cp -f "$out/results.json" bench/results.json 2>/dev/null
  cp -f "$out/RESULTS.md" bench/RESULTS.md 2>/dev/null
fi
exit $rc

#!/usr/bin/env bash
# Runs the test suites on the GPU machine in one call.
#   scripts/gpu-test.sh build   (here)  Release build with CUDA for sm_90 into build-gpu, then copies
#                                the executables and the Debian libraries they need (OpenBLAS,
#                                Boost) into build-gpu/carry.tar.xz (~9 MB; pass that file in the
#                                device tool's `carry`: the working tree travels only up to 64 MiB).
#   scripts/gpu-test.sh run [STEP...]
#                               (there) runs the GPU tests, the unit tests and the plan suites from
#                                build-gpu/carry and prints a short summary last. All steps take
#                                about 10 minutes, the device tool's limit per command: name some
#                                to split them over calls (gpu_tests unit_tests plans plans_gpu
#                                plans_graphs transfers sanitizer), e.g. `run gpu_tests sanitizer`.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-build}
carry=build-gpu/carry

if [ "$mode" = build ]; then
  set -e
  BUILD_DIR=build-gpu DMLRT_WITH_CUDA=ON CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DDMLRT_WITH_MPI=OFF ${CMAKE_ARGS:-}" scripts/build.sh
  rm -rf "$carry" && mkdir -p "$carry/lib"
  cp build-gpu/runtime/dmlrt build-gpu/tests/dmlrt_unit_tests build-gpu/tests/gpu/dmlrt_gpu_tests \
     "$carry/"
  # The benchmark driver of bench/run.sh (built when DMLRT_BUILD_BENCH is on).
  if [ -f build-gpu/bench/dmlrt_bench ]; then cp build-gpu/bench/dmlrt_bench "$carry/"; fi
  # The host-side sampling profiler as a preload library (bench/hostprof_preload.cpp).
  g++ -std=c++17 -O2 -shared -fPIC bench/hostprof_preload.cpp -o "$carry/libhostprof.so" -ldl
  # Debian libraries absent on the GPU machine's image.
  for exe in "$carry"/dmlrt*; do
    ldd "$exe" | awk '/boost|openblas|gfortran|quadmath|fftw/ {print $3}'
  done | sort -u | xargs -r -I{} cp -L {} "$carry/lib/"
  tar -C build-gpu -cJf build-gpu/carry.tar.xz carry
  ls -la build-gpu/carry.tar.xz
  exit 0
fi

# --- run (on the GPU machine) ---
[ -f build-gpu/carry.tar.xz ] && tar -C build-gpu -xJf build-gpu/carry.tar.xz
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia
export LD_LIBRARY_PATH="$NV/cu13/lib:$NV/cudnn/lib:$PWD/$carry/lib:${LD_LIBRARY_PATH:-}"
export DMLRT_TEST_DATA_DIR="$PWD/tests"  # the fixtures of this working tree
export DMLRT_TEST_BINARY="$PWD/$carry/dmlrt"  # what the CLI tests run (tests/common/test_paths.h)
out=${OUT:-/tmp/dmlrt-gpu-test}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null

summary=()
shift || true
wanted=" $* "
run_step() {  # name, command...; skipped when steps were named and this is not one
  local name=$1; shift
  [ "$wanted" = "  " ] || [[ "$wanted" == *" $name "* ]] || return 0
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  summary+=("$name: rc=$rc  $(grep -E 'test cases|All tests passed|passed, .* failed|skipped' "$out/$name.log" | tail -1)")
}
# GPU_TESTS_FILTER: a Catch2 test spec for a partial run, e.g. "[graphs],[reorg]".
run_step gpu_tests "$carry/dmlrt_gpu_tests" ${GPU_TESTS_FILTER:+"$GPU_TESTS_FILTER"}
run_step unit_tests "$carry/dmlrt_unit_tests" "~[install]"
plans() {  # every integration plan, run by the plan runner; prints "N passed, M failed"
  local pass=0 fail=0
  for c in tests/plans/cases/*/; do
    if python3 tests/plans/run_plan.py --dmlrt "$carry/dmlrt" --case "$c"; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAILED: $c"; fi
  done
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
run_step plans plans
# Every plan and conformance case once on the CPU and once with -gpu force: same outputs.
run_step plans_gpu python3 tests/gpu/run_plans_gpu.py --dmlrt "$carry/dmlrt" --jobs 4
# Issue #19: every plan and conformance case with -gpu force, CUDA graphs on against off: the same
# outputs bit for bit (Note [CUDA graphs] in runtime/cuda_graphs.cpp).
run_step plans_graphs python3 tests/gpu/run_plans_gpu.py --dmlrt "$carry/dmlrt" --graphs --jobs 4
# Issue #18: with -gpu, no benchmark algorithm copies a data-sized matrix to the host (the
# "GPU mem tx by instruction" lines of -stats; bench/algo_bench.py --check-transfers).
run_step transfers python3 bench/algo_bench.py run --dmlrt "$carry/dmlrt" --variants small \
  --check-transfers --out "$out/transfers.json"
if command -v compute-sanitizer >/dev/null; then
  # API errors are dmlrt's to check (every call's result is); the CUDA graph runner asks the
  # driver for kernel parameters until an index fails, once per kernel.
  run_step sanitizer timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
    --report-api-errors no "$carry/dmlrt_gpu_tests" "${SANITIZE_FILTER:-[memory],[graphs]}"
fi
echo "== summary =="
printf '%s\n' "${summary[@]}"

#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 in build-fuzz (CPU-only, ASan + UBSan) and runs each
# for the given number of seconds (default 60) on a scratch copy of its seed corpus.
# Usage: scripts/fuzz.sh [seconds] [target...]    targets: readers plan_parser (default both)
# Crashing inputs are kept as <workdir>/<target>-crash-*; the script exits non-zero if any fuzzer
# failed. JOBS (default 2) sets the build parallelism, FUZZ_BUILD the build folder.
set -euo pipefail

secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(readers plan_parser)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD:-$root/build-fuzz}"

CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DDMLRT_FUZZ=ON -DDMLRT_WITH_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for t in "${targets[@]}"; do
  cmake --build "$build" -j"${JOBS:-2}" --target "fuzz_$t"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/dmlrt-fuzz.XXXXXX")"
echo "fuzz work folder: $work"
# UBSan in these builds recovers by default; make any report fatal so libFuzzer keeps the input.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="detect_leaks=1"
status=0
for t in "${targets[@]}"; do
  case "$t" in
    readers) seeds="$root/fuzz/corpus/readers" ;;
    plan_parser) seeds="$root/fuzz/corpus/parser" ;;
    *) echo "unknown fuzz target '$t'" >&2; exit 2 ;;
  esac
  mkdir -p "$work/$t-corpus"
  cp -r "$seeds"/. "$work/$t-corpus/"
  echo "== fuzz_$t for ${secs}s"
  if ! "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/$t-" "$work/$t-corpus" 2>"$work/$t.log"; then
    status=1
    echo "fuzz_$t FAILED; log: $work/$t.log" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$work/$t.log" >&2 || true
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done" "$work/$t.log" || true
  tail -n 3 "$work/$t.log"
done
exit $status

#!/usr/bin/env bash
# Builds dmlrt CPU-only under a sanitizer and runs the unit tests there:
#   scripts/sanitize.sh asan|tsan [Catch2 test spec...]     e.g. tsan "[api],[interpreter]"
# asan = AddressSanitizer + UndefinedBehaviorSanitizer (DMLRT_SANITIZE, in build-asan), tsan =
# ThreadSanitizer (DMLRT_SANITIZE_THREAD, in build-tsan). Honours BUILD_DIR and CMAKE_ARGS (ccache:
# source /root/ccache-env.sh or pass -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
case "$kind" in
  asan) flag=-DDMLRT_SANITIZE=ON ;;
  tsan) flag=-DDMLRT_SANITIZE_THREAD=ON ;;
  *) echo "usage: $0 asan|tsan [test spec...]" >&2; exit 2 ;;
esac
shift
build=${BUILD_DIR:-build-$kind}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLRT_WITH_CUDA=OFF "$flag" \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)" --target dmlrt_unit_tests dmlrt
# Tests that ask for absurd allocations expect std::bad_alloc, not a sanitizer abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-allocator_may_return_null=1:halt_on_error=1}
"$build/tests/dmlrt_unit_tests" "$@"

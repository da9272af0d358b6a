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
# -O2 with line tables only (-g1): backtraces and perf keep file:line, and
# the build costs much less than with full debug info (-g nearly doubled
# the compile time of several GoogleTest files; docs/fuzzing.md "CI's
# time"). For a debugger, configure your own build directory with -g.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "${cuda_args[@]}"
cmake --build "$BUILD_DIR" -j "$JOBS"

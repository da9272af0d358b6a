#!/usr/bin/env bash
# The GPU backend's device checks in one script (docs/gpu-backend.md), for a
# machine with an NVIDIA GPU and a driver >= 580, after tools/build.sh:
#   the device test of gpu_backend_test, then `hloref conformance
#   --backend=gpu` on the golden suite and on a generated sample, against
#   the oracle, then the GEMM benchmark against cuBLAS (bf16 / f16 / f32,
#   N = 1024..8192: backends/gpu/gpu_gemm_bench.cc). Writes gpu_check/
#   (reports) and prints the summaries.
# Usage: tools/gpu_device_check.sh [generated cases per op, default 20]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
count=${1:-20}
out=gpu_check
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
  --format=csv 2>&1 | tee "$out/device.txt"
"$build/backends/gpu_backend_test" --gtest_filter='GpuBackendTest.*' 2>&1 |
  tee "$out/gpu_backend_test.txt" | tail -5
for suite in golden generated; do
  args=(--backend=gpu --suite="$suite" --jobs=1 --verbose
        --report="$out/$suite")
  [ "$suite" = generated ] && args+=(--count="$count")
  "$build/tools/hloref" conformance "${args[@]}" > "$out/$suite.txt" 2>&1
  echo "exit $? ($suite)"
  grep -E "^(golden|generated).* on gpu: |^fail: " "$out/$suite.txt" | head -40
done
# GEMM vs cuBLAS (libcublas dlopen'ed; the kernels for sm_90a on Hopper).
# Skips cleanly ("skipped: ...", exit 0) without a device or cuBLAS.
LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64" \
  "$build/backends/gpu_gemm_bench" 2>&1 | tee "$out/gemm_bench.txt"
echo "exit ${PIPESTATUS[0]} (gemm_bench)"

#!/usr/bin/env bash
# Runs every CPU-backend performance benchmark of issue 15 and writes the
# tables into docs/performance.md (between the GENERATED markers; the
# hand-written analysis around them is kept):
#   1. backends/cpu/bench/kernel_benchmark: hloref's GEMM / convolution /
#      reduction kernels next to oneDNN, OpenBLAS, Eigen and the machine's
#      FMA peak and memory bandwidth, 1 and 2 threads, REPS repetitions,
#      medians (the summary table it prints);
#   2. the same for the largest shapes (GEMM 2048, 16x4096x11008), one
#      repetition (BIG=0 skips them: the element-wise dot takes minutes);
#   3. tools/bench/modules_vs_xla.py: the realistic modules of
#      tools/bench/modules/ against XLA:CPU (the venv's jaxlib) and the
#      oracle (skipped, and said so, without .venv/).
# Everything is pinned with taskset to the cores this script may use.
#
# Usage: tools/bench/run_performance.sh            (builds, runs, writes)
# Environment: BUILD_DIR (default build), REPS (3), BIG (1), SKIP_BUILD=1
# (use the binaries as built), OUT (default docs/performance.md), MODULES=0
# (no modules part),
# QUICK=1 (tiny shapes, for checking this script; do not commit its doc).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
REPS="${REPS:-3}"
BIG="${BIG:-1}"
OUT="${OUT:-$ROOT/docs/performance.md}"
MIN_TIME="${MIN_TIME:-0.3}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

if [ "${SKIP_BUILD:-0}" = "0" ]; then
  cmake --build "$BUILD" --target kernel_benchmark hloref
fi
for b in backends/cpu/bench/kernel_benchmark tools/hloref; do
  [ -x "$BUILD/$b" ] || { echo "run_performance: no $BUILD/$b (build it first)" >&2; exit 1; }
  # A private copy: a rebuild in the tree during the run cannot swap it.
  mkdir -p "$TMP/build/$(dirname "$b")"
  cp "$BUILD/$b" "$TMP/build/$b"
done
BENCH="$TMP/build/backends/cpu/bench/kernel_benchmark"

CORES="$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')"
NCORES="$(echo "$CORES" | tr ',' '\n' | wc -l)"
THREADS="1"
[ "$NCORES" -ge 2 ] && THREADS="1,2"
QUICK_FLAG=()
[ "${QUICK:-0}" != "0" ] && QUICK_FLAG=(--quick) && BIG=0

START="$(date -u '+%Y-%m-%d %H:%M UTC')"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
# One process per kernel family (each with the limits, measured again
# beside it), so that a crash of the backend on one family loses only that
# family's rows, which the table then says.
echo "run_performance: kernels (threads $THREADS, $REPS repetitions, cores $CORES)"
# Repetitions run in a random order across the family's benchmarks
# (Google Benchmark's random interleaving): on a shared host whose speed
# drifts over seconds (the Xeon of 2026-11-30: the same oneDNN convolution
# 114-172 GFLOP/s between runs a minute apart), each implementation's
# median then comes from the same stretch of time as its peers'.
KERNEL_CMD=(taskset -c "$CORES" "$BENCH" "${QUICK_FLAG[@]}" --threads="$THREADS"
  --benchmark_repetitions="$REPS" --benchmark_min_time="$MIN_TIME"
  --benchmark_enable_random_interleaving=true)
: >"$TMP/kernels.md"
: >"$TMP/kernels_cpu.md"
: >"$TMP/kernels.log"
first=1
for family in gemm conv "reduce|argmax|layernorm|softmax|maxpool"; do
  rc=0
  "${KERNEL_CMD[@]}" "--benchmark_filter=^(limit|$family)" \
    --summary_md="$TMP/family.md" --summary_cpu_md="$TMP/family_cpu.md" \
    >"$TMP/family.log" 2>&1 || rc=$?
  cat "$TMP/family.log" >>"$TMP/kernels.log"
  tail -n 80 "$TMP/family.log"
  if [ "$rc" != "0" ] || [ ! -s "$TMP/family.md" ]; then
    [ "$first" = "1" ] && printf '| workload (unit) | thr | hloref | oneDNN | OpenBLAS | Eigen | x oneDNN | x OpenBLAS | x Eigen | %% limit |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n' >>"$TMP/kernels.md"
    echo "| $family: the run stopped (exit status $rc), no figures |  |  |  |  |  |  |  |  |  |" >>"$TMP/kernels.md"
  elif [ "$first" = "1" ]; then
    cat "$TMP/family.md" >>"$TMP/kernels.md"
    cat "$TMP/family_cpu.md" >>"$TMP/kernels_cpu.md" 2>/dev/null || true
  else
    tail -n +3 "$TMP/family.md" | grep -v '^| limit_' >>"$TMP/kernels.md" || true
    tail -n +3 "$TMP/family_cpu.md" | grep -v '^| limit_' >>"$TMP/kernels_cpu.md" || true
  fi
  rm -f "$TMP/family.md" "$TMP/family_cpu.md"
  first=0
done

if [ "$BIG" != "0" ]; then
  echo "run_performance: largest shapes (1 repetition)"
  BIG_CMD=(taskset -c "$CORES" "$BENCH" --big --threads="$THREADS"
    --benchmark_repetitions=1 --benchmark_min_time=0.01
    "--benchmark_filter=limit_fma|2048x2048|11008" --summary_md="$TMP/big.md")
  "${BIG_CMD[@]}" | tee "$TMP/big.log"
fi

VENV_PY="$ROOT/.venv/bin/python3"
MODULES_NOTE=""
if [ "${MODULES:-1}" = "0" ]; then
  MODULES_NOTE="(skipped: MODULES=0)"
elif [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import jax' 2>/dev/null; then
  echo "run_performance: modules vs XLA:CPU and the oracle"
  MOD_CMD=("$VENV_PY" "$ROOT/tools/bench/modules_vs_xla.py" --build "$TMP/build"
    --threads "$THREADS" --repetitions "$REPS" --markdown "$TMP/modules.md")
  "${MOD_CMD[@]}" | tee "$TMP/modules.log"
else
  MODULES_NOTE="(skipped: no .venv/ with jax; tools/setup.sh creates it)"
  echo "run_performance: modules $MODULES_NOTE"
fi
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

# ------------------------------------------------------------- the doc
lscpu_field() { LC_ALL=C lscpu | grep -F "$1:" | head -1 | sed 's/^[^:]*:[[:space:]]*//'; }
ISA="$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
  grep -E '^(avx|avx2|fma|f16c|avx512.*|amx.*|avx_vnni.*)$' | sort | tr '\n' ' ')"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD)"
# Work in progress in the shared tree that the build included.
DIRTY="$(git -C "$ROOT" status --porcelain -- backends spec | awk '{print $2}' | tr '\n' ' ')"
{
  echo "<!-- BEGIN GENERATED by tools/bench/run_performance.sh: do not edit by hand -->"
  echo "## Figures of the last run"
  echo
  echo "Measured $START at commit \`$COMMIT\`"
  if [ -n "$DIRTY" ]; then
    echo "plus uncommitted work in progress that the build included: $DIRTY"
  fi
  echo
  echo
  echo "### Machine"
  echo
  echo "- CPU: $(lscpu_field 'Model name'), $(lscpu_field 'Core(s) per socket') core(s) x $(lscpu_field 'Thread(s) per core') thread(s) per socket, $(lscpu_field 'Socket(s)') socket(s), $(nproc) CPUs online; hypervisor: $(lscpu_field 'Hypervisor vendor' || true)"
  echo "- ISA: $ISA"
  echo "- Caches: L1d $(lscpu_field 'L1d cache'), L2 $(lscpu_field 'L2 cache'), L3 $(lscpu_field 'L3 cache')"
  echo "- Memory: $(free -g | awk '/^Mem:/ {print $2}') GiB; kernel $(uname -r); compiler $(c++ --version | head -1)"
  echo "- Peers and FMA loop: $(grep -m1 '^peers:' "$TMP/kernels.log" | sed 's/^peers: //'); $(grep -m1 '^FMA peak loop:' "$TMP/kernels.log" | sed 's/^FMA peak loop: //')"
  echo "- Load average (1, 5, 15 min) before: $LOAD_BEFORE; after: $LOAD_AFTER. Pinned to cores $CORES."
  echo
  echo "### Commands"
  echo
  echo '```'
  echo "tools/bench/run_performance.sh   # REPS=$REPS BIG=$BIG"
  # (paths shown relative to the checkout; the run used copies of build/.)
  shown() { sed "s|$TMP/build|build|g; s|$TMP/|/tmp/|g; s|$ROOT/||g"; }
  echo "${KERNEL_CMD[*]} --benchmark_filter='^(limit|FAMILY)' --summary_md=/tmp/family.md   # FAMILY = gemm, conv, reduce|argmax|layernorm|softmax|maxpool" | shown
  if [ "$BIG" != "0" ]; then echo "${BIG_CMD[*]}" | shown; fi
  if [ -n "${MOD_CMD+x}" ]; then echo "${MOD_CMD[*]}" | shown; fi
  echo '```'
  echo
  echo "### Kernels (median of $REPS repetitions)"
  echo
  echo "Rates are GFLOP/s (GEMM: 2MNK per batch; convolution: 2 x outputs x"
  echo "input channels per group x window) or GB/s (bytes read; layer norm:"
  echo "read + write). \`x PEER\` = hloref rate / peer rate (above 1: hloref is"
  echo "faster). \`% limit\` = hloref / the FMA peak (GEMM, convolution) or the"
  echo "sum bandwidth over the reductions' 16 MiB working set (reductions) of the"
  echo "same process and thread count (limit rows: from the GEMM process; each"
  echo "family's process measures the limits again beside its kernels)."
  echo
  cat "$TMP/kernels.md"
  if [ -s "$TMP/kernels_cpu.md" ]; then
    echo
    echo "### Kernels, 1 thread, rated by CPU time (median of $REPS repetitions)"
    echo
    echo "The same runs' 1-thread rows, each rate computed from the CPU time"
    echo "of the whole process instead of wall time: a run that gets only part"
    echo "of its core on a shared machine keeps its CPU time while its wall time"
    echo "stretches, so these ratios are the ones to trust when the load"
    echo "average above is high (memory bandwidth stays shared either way)."
    echo
    cat "$TMP/kernels_cpu.md"
  fi
  if [ -f "$TMP/big.md" ]; then
    echo
    echo "### Largest shapes (one repetition)"
    echo
    cat "$TMP/big.md"
  fi
  echo
  echo "### Realistic modules vs XLA:CPU and the oracle $MODULES_NOTE"
  echo
  if [ -f "$TMP/modules.md" ]; then
    echo "Time per warm run: the median over $REPS repetitions of a batch of"
    echo "runs lasting >= 0.3 s, both sides timed alike; \`x XLA\` = XLA"
    echo "time / hloref time (above 1: hloref is"
    echo "faster); the oracle (1 thread) is one \`hloref run\` minus \`hloref"
    echo "check\`, so it includes printing the result as text. \`cpu ms\`:"
    echo "process CPU time per warm run (1 thread only); \`x XLA cpu\` is"
    echo "their ratio, the one to read when the machine is loaded. Each"
    echo "module runs on hloref then XLA:CPU back to back."
    echo
    cat "$TMP/modules.md"
  fi
  echo "<!-- END GENERATED -->"
} >"$TMP/generated.md"

python3 - "$OUT" "$TMP/generated.md" <<'EOF'
import sys
out, gen = sys.argv[1], open(sys.argv[2]).read()
begin, end = "<!-- BEGIN GENERATED", "<!-- END GENERATED -->"
try:
    doc = open(out).read()
except FileNotFoundError:
    doc = "# CPU backend performance\n\n" + begin + " -->\n" + end + "\n"
if begin in doc and end in doc:
    i = doc.index(begin)
    j = doc.index(end) + len(end)
    doc = doc[:i] + gen.rstrip("\n") + doc[j:]
else:
    doc = doc.rstrip("\n") + "\n\n" + gen
open(out, "w").write(doc)
EOF
echo "run_performance: wrote $OUT"

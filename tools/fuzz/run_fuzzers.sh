#!/usr/bin/env bash
# Runs the libFuzzer targets of a -DHLOREF_FUZZ=ON build (docs/fuzzing.md)
# one after another, each on one core, from seeds regenerated out of
# golden/, examples/ and spec/ir/testdata plus the committed reproducers.
# Usage: tools/fuzz/run_fuzzers.sh [BUILD_DIR] [SECONDS_PER_TARGET] [TARGET...]
# Defaults: build-fuzz, 600, every target built in BUILD_DIR (of hlo_module
# literal npy evaluator command_results plugin_results golden_case
# differential cpu_differential). Corpora grow under BUILD_DIR/corpus/<target>, crashes land in
# BUILD_DIR/crashes/<target>, logs in BUILD_DIR/logs/<target>.log (the last
# lines give execs, cov, ft). FUZZ_JOBS=N runs N targets at a time. Exits 1 when any target stopped on a finding
# (after running the others), 2 when a named target is not built.
# FUZZ_TIMEOUT=S sets the per-input timeout (default 10 s; a wall-clock
# limit, so raise it when the runs are niced on a loaded machine).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-build-fuzz}"
SECONDS_PER_TARGET="${2:-600}"
shift $(($# > 2 ? 2 : $#))
TARGETS=("$@")
ALL=(hlo_module literal npy evaluator command_results plugin_results golden_case
  differential cpu_differential)

binary() { find "$BUILD" -name "$1_fuzz" -type f -perm -u+x -print -quit; }

if [ "${#TARGETS[@]}" -eq 0 ]; then
  for t in "${ALL[@]}"; do
    if [ -n "$(binary "$t")" ]; then TARGETS+=("$t"); fi
  done
fi

python3 "$ROOT/tools/fuzz/seed_corpora.py" "$BUILD/seeds" >/dev/null
for t in "${TARGETS[@]}"; do
  if [ -z "$(binary "$t")" ]; then
    echo "run_fuzzers: no ${t}_fuzz under $BUILD (cmake --build $BUILD --target ${t}_fuzz)" >&2
    exit 2
  fi
done

# One target: one process on one core (libFuzzer's default; -jobs=1
# -workers=1 would do the same in a child process logging to
# ./fuzz-0.log). A crash, leak, timeout or broken invariant stops it with a
# non-zero status; its input is in crashes/<target>/.
run_one() {
  local t="$1" bin dict=()
  bin="$(binary "$t")"
  mkdir -p "$BUILD/corpus/$t" "$BUILD/crashes/$t" "$BUILD/logs" \
    "$ROOT/spec/ir/testdata/fuzz_regressions/$t"
  case "$t" in
    hlo_module | literal | evaluator | golden_case)
      dict=(-dict="$ROOT/tools/fuzz/hlo.dict") ;;
  esac
  # CPU time of the run (the machine may be shared: wall time overstates
  # it) in logs/<target>.time when /usr/bin/time is there.
  local timer=()
  if [ -x /usr/bin/time ]; then
    timer=(/usr/bin/time -f "cpu %U s user %S s sys, %e s wall" -o "$BUILD/logs/$t.time")
  fi
  "${timer[@]}" "$bin" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" \
    -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD/crashes/$t/" \
    "$BUILD/corpus/$t" "$BUILD/seeds/$t" \
    "$ROOT/spec/ir/testdata/fuzz_regressions/$t" \
    >"$BUILD/logs/$t.log" 2>&1
}

report() {
  local t="$1" rc="$2"
  if [ "$rc" -ne 0 ]; then
    echo "run_fuzzers: $t stopped with a finding (see $BUILD/logs/$t.log):" >&2
    grep -E "ERROR|SUMMARY|Fuzz[A-Za-z]+: |Test unit written" \
      "$BUILD/logs/$t.log" | head -5 >&2 || true
  fi
  echo "run_fuzzers: $t: $(grep -E "^#[0-9]+.*(DONE|cov:)" "$BUILD/logs/$t.log" | tail -1 || true)"
  if [ -f "$BUILD/logs/$t.time" ]; then
    echo "run_fuzzers: $t: $(tail -1 "$BUILD/logs/$t.time")"
  fi
}

# FUZZ_JOBS targets at a time (default 1), each on its own core.
FUZZ_JOBS="${FUZZ_JOBS:-1}"
found=0
declare -A pids=()
for t in "${TARGETS[@]}"; do
  echo "run_fuzzers: $t for ${SECONDS_PER_TARGET}s"
  run_one "$t" &
  pids[$t]=$!
  while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_JOBS" ]; do sleep 1; done
done
for t in "${TARGETS[@]}"; do
  rc=0
  wait "${pids[$t]}" || rc=$?
  report "$t" "$rc"
  if [ "$rc" -ne 0 ]; then found=1; fi
done
exit "$found"

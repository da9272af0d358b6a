#!/usr/bin/env bash
# Runs the libFuzzer targets of a -DHLOREF_FUZZ=ON build (docs/fuzzing.md)
# one after another, each on one core, from seeds regenerated out of
# golden/, examples/ and spec/ir/testdata plus the committed reproducers.
# Usage: tools/fuzz/run_fuzzers.sh [BUILD_DIR] [SECONDS_PER_TARGET] [TARGET...]
# Defaults: build-fuzz, 600, all of hlo_module literal npy. Corpora grow
# under BUILD_DIR/corpus/<target>, crashes land in BUILD_DIR/crashes/<target>,
# logs in BUILD_DIR/logs/<target>.log (the last lines give execs, cov, ft).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-build-fuzz}"
SECONDS_PER_TARGET="${2:-600}"
shift $(($# > 2 ? 2 : $#))
TARGETS=("$@")
if [ "${#TARGETS[@]}" -eq 0 ]; then TARGETS=(hlo_module literal npy); fi

python3 "$ROOT/tools/fuzz/seed_corpora.py" "$BUILD/seeds" >/dev/null
for t in "${TARGETS[@]}"; do
  bin="$BUILD/spec/fuzz/${t}_fuzz"
  if [ ! -x "$bin" ]; then
    echo "run_fuzzers: $bin is missing (cmake --build $BUILD --target ${t}_fuzz)" >&2
    exit 1
  fi
  mkdir -p "$BUILD/corpus/$t" "$BUILD/crashes/$t" "$BUILD/logs"
  dict=()
  if [ "$t" = hlo_module ] || [ "$t" = literal ]; then
    dict=(-dict="$ROOT/tools/fuzz/hlo.dict")
  fi
  echo "run_fuzzers: $t for ${SECONDS_PER_TARGET}s"
  # One process on one core (libFuzzer's default; -jobs=1 -workers=1 would
  # do the same in a child process logging to ./fuzz-0.log). A crash stops
  # the run; its input is in crashes/<target>/.
  "$bin" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" \
    -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD/crashes/$t/" \
    "$BUILD/corpus/$t" "$BUILD/seeds/$t" \
    "$ROOT/spec/ir/testdata/fuzz_regressions/$t" \
    >"$BUILD/logs/$t.log" 2>&1 || echo "run_fuzzers: $t stopped with a finding (see $BUILD/logs/$t.log)"
  grep -E "^#[0-9]+.*(DONE|cov:)" "$BUILD/logs/$t.log" | tail -1 || true
done

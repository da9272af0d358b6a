#!/usr/bin/env bash
# CI's sanitizer job (issue 17; docs/fuzzing.md "CI"), run by .ci/run after
# the normal build and tests:
#  1. configures ${SANITIZE_BUILD_DIR:-build-sanitize} with clang 19 and
#     -DHLOREF_FUZZ=ON (every target under AddressSanitizer +
#     UndefinedBehaviorSanitizer, a UBSan report aborts), at -O1 with line
#     tables only (the build is most of the job's time), without CUDA, and
#     with the count-driven differential tests at a tenth of their cases
#     (-DHLOREF_TEST_SCALE=10);
#  2. builds the target `hloref_sanitize`: the unit tests listed in
#     HLOREF_SANITIZE_TESTS (CMakeLists.txt), the fuzz targets in
#     HLOREF_CI_FUZZERS, and the hloref command with the CPU backend, the
#     plugin host and the test plugins;
#  3. runs the tests labelled `sanitize` (those unit tests and the golden
#     label), `cli` and `differential`, less `jax_heavy` (two tests that
#     spend their time in jaxlib; the gcc job runs them). Every ASan, LSan
#     and UBSan report is also written to $BUILD/sanitizer-reports/, and
#     the step fails when any is there, whatever the test made of the
#     exit status (a bad-input test expects exit 1, which is also what a
#     report exits with);
#  4. runs each of those fuzz targets for ${FUZZ_SECONDS:-15} s (JOBS at a
#     time, one core each) on its seeds plus its committed reproducers
#     (tools/fuzz/run_fuzzers.sh); a crash, leak, timeout or broken
#     invariant fails the job.
# Needs clang-19 and libclang-rt-19-dev (HLOREF_FUZZ_TOOLS=1 tools/setup.sh
# installs them; .ci/run sets it). Prints the time of each step.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${SANITIZE_BUILD_DIR:-build-sanitize}"
JOBS="${JOBS:-2}"
FUZZ_SECONDS="${FUZZ_SECONDS:-15}"

if ! command -v clang++-19 >/dev/null ||
   [ ! -e /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "sanitize: clang++-19 or its runtime libraries (libclang-rt-19-dev) are" \
       "missing; install them with HLOREF_FUZZ_TOOLS=1 tools/setup.sh" >&2
  exit 1
fi

step_start=$SECONDS
step() {
  echo "sanitize: $1 took $((SECONDS - step_start)) s"
  step_start=$SECONDS
}

CC=clang-19 CXX=clang++-19 cmake -S . -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -DHLOREF_FUZZ=ON -DHLOREF_ENABLE_CUDA=OFF -DHLOREF_TEST_SCALE=10 >/dev/null
step configure
cmake --build "$BUILD" -j "$JOBS" --target hloref_sanitize
step build

ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
# MPFR's per-thread caches (tools/ci/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0}"
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
case "$BUILD" in
  /*) reports="$BUILD/sanitizer-reports" ;;
  *) reports="$PWD/$BUILD/sanitizer-reports" ;;
esac
rm -rf "$reports"
mkdir -p "$reports"
tests_rc=0
# (One runtime serves both sanitizers and takes log_path from either: the
# files are report.<pid>, whichever tool wrote them.)
ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$reports/report" \
UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$reports/report" \
  ctest --test-dir "$BUILD" -L '^(sanitize|cli|differential)$' -LE '^jax_heavy$' \
    -j "$JOBS" --output-on-failure || tests_rc=$?
if [ -n "$(ls -A "$reports")" ]; then
  for f in "$reports"/*; do
    echo "sanitize: sanitizer report $f:" >&2
    cat "$f" >&2
  done
  echo "sanitize: $(ls "$reports" | wc -l) sanitizer report(s) (above)" >&2
  exit 1
fi
if [ "$tests_rc" -ne 0 ]; then
  exit "$tests_rc"
fi
step tests
export ASAN_OPTIONS UBSAN_OPTIONS

# A fresh corpus per run: CI checks the committed seeds and reproducers
# plus what the fuzzer finds in FUZZ_SECONDS, not an old corpus.
rm -rf "$BUILD/corpus"
# The targets of HLOREF_CI_FUZZERS (CMakeLists.txt), named so that a build
# directory that also holds cpu_differential_fuzz (a developer's) runs the
# same set as CI.
FUZZ_JOBS="$JOBS" bash tools/fuzz/run_fuzzers.sh "$BUILD" "$FUZZ_SECONDS" \
  hlo_module literal npy evaluator command_results plugin_results \
  golden_case differential
step "fuzz (${FUZZ_SECONDS} s per target)"

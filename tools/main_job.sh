#!/usr/bin/env bash
# The main job: set up, build, run the conformance suite (golden cases and
# 20,000 generated cases) on the CPU backend (`hloref conformance
# --backend=cpu`: the LLVM JIT compiler judged against the oracle), then
# `hloref check` every example module, `hloref run` the runs listed in
# examples/runs.txt on the oracle and on the CPU backend, and require the
# same printed values. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
BUILD=${BUILD_DIR:-build}
HLOREF=$BUILD/tools/hloref
echo "== hloref conformance --backend=cpu"
"$HLOREF" conformance --backend=cpu --report="$BUILD/conformance-report-cpu"
for f in examples/*.hlo; do
  echo "== hloref check $f"
  "$HLOREF" check --quiet "$f"
done
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  echo "== hloref run examples/$line"
  oracle=$(eval "\"$HLOREF\" run examples/$line")
  echo "$oracle"
  echo "== hloref run --backend=cpu examples/$line"
  compiled=$(eval "\"$HLOREF\" run --backend=cpu examples/$line")
  echo "$compiled"
  if [ "$oracle" != "$compiled" ]; then
    echo "main job: the CPU backend's values differ from the oracle's" >&2
    exit 1
  fi
done < examples/runs.txt
echo "main job: conformance suite passed on the CPU backend; all examples checked and run on the oracle and the CPU backend"

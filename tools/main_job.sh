#!/usr/bin/env bash
# The main job: set up, build, run the conformance suite (golden cases and
# 20,000 generated cases) on the reference interpreter (`hloref conformance
# --backend=interpreter`), then `hloref check` every example module and `hloref run`
# the runs listed in examples/runs.txt. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
HLOREF=${BUILD_DIR:-build}/tools/hloref
echo "== hloref conformance --backend=interpreter"
"$HLOREF" conformance --backend=interpreter \
  --report="${BUILD_DIR:-build}/conformance-report"
for f in examples/*.hlo; do
  echo "== hloref check $f"
  "$HLOREF" check --quiet "$f"
done
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  echo "== hloref run examples/$line"
  eval "\"$HLOREF\" run examples/$line"
done < examples/runs.txt
echo "main job: conformance suite passed; all examples checked and run"

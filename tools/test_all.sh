#!/usr/bin/env bash
# Sets up, builds and runs every test (ctest, excluding the `slow` label).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${JOBS:-2}" -LE slow

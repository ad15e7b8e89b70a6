#!/usr/bin/env bash
#===- scripts/test.sh - Set up, build and run every test -----------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Builds (scripts/build.sh) and runs the whole suite in one lit run: the IR
# and tool tests under test/ and the GoogleTest binaries (test/Unit). Every
# of-opt invocation also checks that its output round-trips. Ends with one
# line, "N passed, N failed, N skipped", and exits non-zero on any failure.
#
#===----------------------------------------------------------------------===#
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/build.sh" || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
OF_OPT_VERIFY_ROUNDTRIP=1 /usr/lib/llvm-22/bin/lit -sv \
  "$BUILD_DIR/test" "$BUILD_DIR/test/Unit" 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}

# lit's summary lines look like "  Passed: 24 (100.00%)" or, where lit pads
# the labels to one width, "  Passed : 24 (95.40%)".
count() {
  awk -v key="$1" 'index($0, "  " key) == 1 {
      rest = substr($0, length(key) + 3)
      if (rest ~ /^ *: /) { sub(/^ *: */, "", rest); n += rest + 0 } }
      END { print n + 0 }' "$LOG"
}
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count Unresolved) + $(count "Unexpectedly Passed") + $(count "Timed Out") ))
skipped=$(( $(count Unsupported) + $(count Skipped) + $(count Excluded) ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1  # lit failed without reporting a test (a broken configuration)
fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]

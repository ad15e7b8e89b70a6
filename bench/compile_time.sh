#!/usr/bin/env bash
#===- bench/compile_time.sh - Compile time of the SBP passes on GPT -------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Generates GPT training steps of 6, 24 and 96 layers (bench/gen_gpt.py) and
# times of-opt on them: parsing and printing alone (the peer), then with
# shape inference and SBP propagation (and boxing insertion and lowering
# when of-opt has them). Prints the best wall time of REPEATS runs (default
# 3) per configuration, and the ratio to the peer.
#
#   bench/compile_time.sh [build-dir]
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OPT="$BUILD/bin/of-opt"
REPEATS="${REPEATS:-3}"
MESH="${MESH:-2x2}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

PASSES="oneflow-infer-shapes,oneflow-sbp-propagation"
HELP="$("$OPT" --help)"
for extra in oneflow-insert-boxing oneflow-lower-boxing; do
  if grep -q -- "--$extra\b" <<< "$HELP"; then
    PASSES="$PASSES,$extra"
  fi
done

# Best wall seconds of REPEATS runs of the command.
best() {
  local best=""
  for _ in $(seq "$REPEATS"); do
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    best=$(python3 -c "t=$end-$start; b='$best'; print(t if not b else min(t, float(b)))")
  done
  echo "$best"
}

printf "mesh %s, passes: %s\n" "$MESH" "$PASSES"
printf "%7s %7s %12s %12s %7s\n" layers ops "parse+print" "passes" ratio
for layers in 6 24 96; do
  file="$TMP/gpt$layers.mlir"
  python3 "$ROOT/bench/gen_gpt.py" --layers "$layers" --mesh "$MESH" \
    > "$file" 2> "$TMP/ops"
  ops=$(sed 's/[^0-9]//g' "$TMP/ops")
  peer=$(best "$OPT" "$file")
  full=$(best "$OPT" "$file" --pass-pipeline="builtin.module(func.func($PASSES))")
  python3 -c "print('%7d %7d %11.3fs %11.3fs %7.1f' % ($layers, $ops, $peer, $full, $full / $peer))"
done

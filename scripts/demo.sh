#!/usr/bin/env bash
#===- scripts/demo.sh - Set up, build and tour the compiler's stages -----===#
#
# SPDX-License-Identifier: Apache-2.0
#
# A tour of the stages (the main job is scripts/train_gpt.sh): an MLP
# written for one device with hybrid (data + tensor parallel) layouts on a 2x2 mesh of CPU ranks is
# verified and printed by of-opt, its shapes are inferred, of-translate
# reports which piece of every global tensor each rank holds, SBP
# propagation derives every other layout and the boxing between them, and
# the program runs on 4 CPU ranks in one process (no services), checked
# against one rank by of-check. Then the MLP without layouts runs on one
# rank with a trace.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
EXAMPLE="$ROOT/examples/mlp_hybrid.mlir"

bash "$ROOT/scripts/build.sh" >/dev/null

step() { printf '\n== %s\n' "$*"; }

step "of-opt verifies and prints the program (placements print as aliases)"
"$BUILD_DIR/bin/of-opt" "$EXAMPLE"

step "of-opt --oneflow-infer-shapes fills in every '?' dimension"
"$BUILD_DIR/bin/of-opt" --oneflow-infer-shapes "$EXAMPLE" | grep -E 'matmul|reduce_mean'

step "of-translate --export-layouts-json: the piece of each global tensor on each rank"
"$BUILD_DIR/bin/of-translate" --export-layouts-json "$EXAMPLE" |
  /usr/bin/python3 "$ROOT/scripts/layout_table.py"

step "oneflow-sbp-propagation + boxing: the layouts derived, the collectives inserted, their predicted cost"
"$BUILD_DIR/bin/of-opt" --oneflow-infer-shapes --oneflow-sbp-propagation \
  --oneflow-insert-boxing --oneflow-lower-boxing "$EXAMPLE" |
  "$BUILD_DIR/bin/of-opt" --oneflow-report-boxing-cost -o /dev/null

step "scikit-learn's digits as .npy (scripts/make_digits.py)"
/usr/bin/python3 "$ROOT/scripts/make_digits.py" "$BUILD_DIR/data"

step "of-run runs the hybrid MLP on 4 CPU ranks (threads of one process) over the digits"
"$BUILD_DIR/bin/of-run" "$EXAMPLE" --devices cpu:4 --steps 28 \
  --input images=@"$BUILD_DIR/data/digits_images.npy":loop \
  --input labels=@"$BUILD_DIR/data/digits_labels.npy":loop

step "of-check: 4 ranks on the 2x2 mesh give what one rank gives"
"$BUILD_DIR/bin/of-check" "$EXAMPLE" --devices cpu:4 --verbose

step "of-run compiles examples/mlp.mlir to an actor plan and runs 20 steps on one CPU rank"
"$BUILD_DIR/bin/of-run" "$ROOT/examples/mlp.mlir" --steps 20 \
  --input labels=random:0:10 --trace "$BUILD_DIR/mlp-trace.json"
echo "(open $BUILD_DIR/mlp-trace.json in Perfetto or chrome://tracing)"

step "a wrong layout is a clear error at its source location"
printf '%s\n' \
  'func.func @f(%x: tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(2), B]>>) {' \
  '  return' '}' > "$BUILD_DIR/bad-layout.mlir"
if "$BUILD_DIR/bin/of-opt" "$BUILD_DIR/bad-layout.mlir" 2>&1; then
  echo "error: the bad layout was accepted" >&2
  exit 1
fi

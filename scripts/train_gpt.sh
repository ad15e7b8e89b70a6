#!/usr/bin/env bash
#===- scripts/train_gpt.sh - Train the GPT example on 4 CPU ranks --------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# The main job: installs the packages and builds (scripts/build.sh, reused
# when done), turns the GPL-3 into character data (scripts/make_text.py),
# and trains examples/gpt/gpt.mlir, a 2-layer GPT written for one device,
# on 4 CPU ranks (threads of one process) with the hybrid layout: data
# parallel on one axis of a 2x2 mesh, Megatron tensor parallel on the other
# (examples/gpt/hybrid.json). AdamW with clipping and a warm-up + cosine
# schedule (a tenth of the steps warm up); a progress line while it runs,
# then the mean loss of every 25 steps. A later --strategy replaces the
# layout.
#
#   scripts/train_gpt.sh [STEPS] [extra of-run flags, e.g. --strategy tp]
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
STEPS="${1:-200}"
shift || true

bash "$ROOT/scripts/build.sh" >/dev/null
/usr/bin/python3 "$ROOT/scripts/make_text.py" "$BUILD_DIR/data"

WARMUP=$((STEPS / 10))
echo "training examples/gpt/gpt.mlir for $STEPS steps on 4 CPU ranks" \
  "(hybrid 2x2 unless a --strategy follows)"
"$BUILD_DIR/bin/of-run" "$ROOT/examples/gpt/gpt.mlir" --train \
  --devices cpu:4 --threads 1 --strategy "$ROOT/examples/gpt/hybrid.json" \
  --optimizer adamw --lr 0.003 --weight-decay 0.1 --clip-norm 1.0 \
  --warmup-steps "$WARMUP" --total-steps "$STEPS" --min-lr 0.0003 \
  --steps "$STEPS" --print-limit 0 \
  --input tokens=@"$BUILD_DIR/data/text_tokens.npy":loop \
  --input targets=@"$BUILD_DIR/data/text_targets.npy":loop \
  --metrics "$BUILD_DIR/gpt-metrics.csv" "$@" | grep -E '^(summary|ran|steady)'

echo "mean loss of every 25 steps ($BUILD_DIR/gpt-metrics.csv):"
awk -F, 'NR > 1 { sum += $4; n++ }
         NR > 1 && (n == 25 || $1 == '"$STEPS"' - 1) {
           printf "  steps %4d-%-4d  loss %.4f\n", $1 - n + 1, $1, sum / n
           sum = 0; n = 0 }' "$BUILD_DIR/gpt-metrics.csv"

#!/usr/bin/env bash
#===- scripts/plan-snapshots.sh - Compile a fixed set of plans -----------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: scripts/plan-snapshots.sh OUTDIR
#
# Compiles the examples' training steps in the layouts that exercise every
# per-rank layout (data, tensor and hybrid parallel, ZeRO, pipeline stages
# with micro-batches, the layout search, local batch-norm groups, a
# vocabulary-parallel gather) into OUTDIR/<name>.plan with of-opt and
# of-translate from BUILD_DIR (default: build). Run it before and after a
# change to the compiler and `cmp` the two folders: a change that should
# not change plans leaves every file byte-identical.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${BUILD_DIR:-$ROOT/build}/bin"
OUT="${1:?usage: plan-snapshots.sh OUTDIR}"
mkdir -p "$OUT"
EX="$ROOT/examples"
RUN="$ROOT/test/Run/Inputs"

plan() {
  local name=$1 model=$2 options=$3
  "$BIN/of-opt" "$model" --mlir-print-debuginfo \
    --pass-pipeline="builtin.module(oneflow-training-pipeline{$options})" |
    "$BIN/of-translate" --export-plan -o "$OUT/$name.plan"
}

GPT="$EX/gpt/gpt.mlir"
plan gpt-hybrid "$GPT" \
  "devices=4 strategy=$EX/gpt/hybrid.json optimizer=adamw lr=0.003"
plan gpt-stages "$GPT" "devices=2 stages=2 micro-batches=4 \
pipeline-schedule=gpipe recompute lr=0.1 momentum=0.9"
plan gpt-stages4 "$GPT" "devices=4 stages=2 micro-batches=2 lr=0.1"
plan gpt-dp "$GPT" "devices=4 strategy=dp optimizer=adamw"
plan gpt-zero "$GPT" "devices=4 strategy=zero optimizer=adamw"
plan gpt-tp "$GPT" "devices=4 strategy=tp"
plan gpt-tpjson "$GPT" "devices=4 strategy=$EX/gpt/tp.json"
plan mlp-auto "$EX/mlp.mlir" "devices=4 strategy=auto mesh=2,2 \
cluster=$ROOT/test/Transforms/Inputs/cluster-cpu-node.json"
plan mlp-hybrid "$EX/mlp_hybrid.mlir" "devices=4"
plan cnn "$RUN/train-cnn.mlir" \
  "devices=2 lr=0.05 batch-norm-statistics=local batch-norm-groups=4"
plan cnn4 "$RUN/train-cnn-dp4.mlir" "devices=4 lr=0.05"
plan vocab "$RUN/vocab-lm.mlir" \
  "optimizer=sgd devices=3 strategy=$RUN/vocab-3.json"
plan mlp1 "$EX/mlp.mlir" "lr=0.1"
"$BIN/of-run" "$EX/mlp.mlir" --steps 1 --progress off \
  --emit-plan "$OUT/mlp-infer.plan" > /dev/null 2>&1
echo "plan-snapshots: $(ls "$OUT"/*.plan | wc -l) plans in $OUT"

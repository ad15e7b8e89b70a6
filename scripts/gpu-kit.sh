#!/usr/bin/env bash
#===- scripts/gpu-kit.sh - Everything a GPU check needs, in one archive --===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: scripts/gpu-kit.sh OUT
#
# Builds here what a GPU machine needs and cannot build (it has CUDA,
# cmake, nvcc and PyTorch, but no MLIR, oneDNN, protobuf, Abseil, Gloo or
# OpenMPI) and packs it into OUT/gpu-kit.tar.xz (at most 48 MiB), whose
# folder `kit/` holds:
#   run-all.sh              the whole check (scripts/gpu-run-all.sh)
#   run.sh, bin.sh, env.sh  the runtime bundle (scripts/bundle-runtime.sh):
#                           of-run-plan, the GPU test binaries and the
#                           matmul benchmark, and their libraries
#   plans/                  compiled plans: the MLP, GPT and CNN training
#                           steps on cuda:1 as test/Run/train-cuda.test runs
#                           them, the GPT in bf16 on cuda:1 and cpu:1, the
#                           benchmark's GPT steps (the example in f32 and
#                           bf16, GPT-2-small-sized in bf16) and the CPU
#                           pipeline chain as 2 and 4 stages
#   ref/                    the CPU's losses for those training steps
#   data/                   their inputs (digits, the GPL-3 text)
#   scripts/, bench/        the Python the check runs (loss comparison,
#                           PyTorch peers)
# There: tar xf gpu-kit.tar.xz && kit/run-all.sh OUTDIR. Here, without a
# GPU: kit/run-all.sh --dry-run OUTDIR. BUILD_DIR (default: build) must be
# configured with the CUDA backend (a CUDA toolkit in /usr/local/cuda).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
PY=/usr/bin/python3
LIMIT_MIB=48

fail() { echo "gpu-kit: error: $*" >&2; exit 1; }
step() { echo "gpu-kit: $*"; }

[ $# -eq 1 ] || fail "usage: gpu-kit.sh OUT"
OUT="$1"
[ -f "$BUILD_DIR/build.ninja" ] || fail "'$BUILD_DIR' is not configured (run scripts/build.sh, or set BUILD_DIR)"
grep -q "OneFlowCudaKernelsTests" "$BUILD_DIR/build.ninja" ||
  fail "'$BUILD_DIR' was configured without the CUDA backend (no CUDA toolkit with cuBLASLt, cuDNN and NCCL was found)"

step "building of-run, of-run-plan, the GPU tests and the matmul benchmark"
ninja -C "$BUILD_DIR" of-run of-run-plan OneFlowCudaKernelsTests \
  OneFlowNcclTests bench-cuda-matmul-vs-cublaslt >/dev/null
find_built() {
  local path
  path="$(find "$BUILD_DIR" -name "$1" -type f -perm -u+x | head -n 1)"
  [ -n "$path" ] || fail "'$1' was not built in '$BUILD_DIR'"
  echo "$path"
}
OF_RUN="$BUILD_DIR/bin/of-run"

mkdir -p "$OUT"
STAGE="$(mktemp -d "$OUT/stage.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
KIT="$STAGE/kit"
PLANS="$STAGE/plans"
mkdir -p "$PLANS" "$STAGE/ref" "$STAGE/data"

# of-run writes --emit-plan before it runs: without a GPU the run then
# fails, and the plan is what we came for.
emit() {
  local plan="$1"
  shift
  "$OF_RUN" "$@" --steps 1 --progress off --emit-plan "$PLANS/$plan" \
    >"$STAGE/emit.log" 2>&1 || true
  [ -f "$PLANS/$plan" ] || fail "of-run wrote no plan $plan: $(tail -n 3 "$STAGE/emit.log")"
}

step "data and CPU reference losses"
DATA="$STAGE/data"
$PY "$ROOT/scripts/make_digits.py" "$DATA" >/dev/null
cp /usr/share/common-licenses/GPL-3 "$DATA/GPL-3"
$PY "$ROOT/scripts/make_text.py" "$DATA" --text "$DATA/GPL-3" >/dev/null
sed '/"prob"/d' "$ROOT/examples/mlp.mlir" >"$STAGE/mlp.mlir"
DIGITS=(--input "images=@$DATA/digits_images.npy:loop"
        --input "labels=@$DATA/digits_labels.npy:loop")
TEXT=(--input "tokens=@$DATA/text_tokens.npy:loop"
      --input "targets=@$DATA/text_targets.npy:loop")
MLP=("$STAGE/mlp.mlir" --train --lr 0.1 --momentum 0.9)
GPT=("$ROOT/examples/gpt/gpt.mlir" --train --optimizer adamw --lr 0.001
     --weight_decay 0.1 --clip_norm 1.0)
CNN=("$ROOT/test/Run/Inputs/train-cnn.mlir" --train --lr 0.002)
# The same flags as test/Run/train-cuda.test.
"$OF_RUN" "${MLP[@]}" --threads 1 --steps 50 --progress off "${DIGITS[@]}" \
  --metrics "$STAGE/ref/mlp-cpu.csv" >/dev/null
"$OF_RUN" "${GPT[@]}" --threads 1 --steps 50 --progress off "${TEXT[@]}" \
  --metrics "$STAGE/ref/gpt-cpu.csv" >/dev/null
"$OF_RUN" "${CNN[@]}" --threads 1 --steps 20 --progress off \
  --input labels=fill:1 --metrics "$STAGE/ref/cnn-cpu.csv" >/dev/null

step "plans"
emit mlp-cuda.plan "${MLP[@]}" --devices cuda:1
emit gpt-cuda.plan "${GPT[@]}" --devices cuda:1
emit cnn-cuda.plan "${CNN[@]}" --devices cuda:1
emit gpt-bf16-cuda.plan "${GPT[@]}" --precision bf16 --devices cuda:1
emit gpt-bf16-cpu.plan "${GPT[@]}" --precision bf16 --devices cpu:1
BENCH=("$PY" "$ROOT/bench/gpt_train_vs_torch.py" --build "$BUILD_DIR"
       --device cuda --text "$DATA/GPL-3")
"${BENCH[@]}" --emit-plan "$PLANS/bench-gpt-f32.plan" >/dev/null
"${BENCH[@]}" --precision bf16 --emit-plan "$PLANS/bench-gpt-bf16.plan" \
  >/dev/null
"${BENCH[@]}" --size gpt2-small --precision bf16 \
  --emit-plan "$PLANS/bench-gpt2small-bf16.plan" >/dev/null
$PY "$ROOT/bench/pipeline_bubble.py" --build "$BUILD_DIR" --stages 2,4 \
  --emit-plans "$PLANS" >/dev/null

step "runtime bundle"
BINS=()
for name in OneFlowCudaKernelsTests OneFlowNcclTests \
    bench-cuda-matmul-vs-cublaslt; do
  BINS+=(--bin "$(find_built "$name")")
done
# The folder may be larger than a bundle that travels as it is: the archive
# is what must stay under the limit.
env BUILD_DIR="$BUILD_DIR" BUNDLE_LIMIT_MIB=400 \
  bash "$ROOT/scripts/bundle-runtime.sh" "${BINS[@]}" \
  "$KIT" "$PLANS"/*.plan >/dev/null
# Symbols are not needed there; the archive must stay small.
strip --strip-unneeded "$KIT"/bin/* "$KIT"/lib/*.so* 2>/dev/null || true
cp -r "$STAGE/ref" "$STAGE/data" "$KIT/"
mkdir -p "$KIT/scripts" "$KIT/bench"
cp "$ROOT"/scripts/{compare_losses,gpt_reference,make_text,make_gpt,oneflow_checkpoint,optimizer_reference,pipeline_stress}.py \
  "$KIT/scripts/"
cp "$ROOT/test/Tools/Inputs/check_bundle_libs.py" "$KIT/scripts/"
cp "$ROOT"/bench/{gpt_train_vs_torch,pipeline_bubble,gpt_ranks,gpt_bench}.py "$KIT/bench/"
cp "$ROOT/scripts/gpu-run-all.sh" "$KIT/run-all.sh"
chmod +x "$KIT/run-all.sh"
git -C "$ROOT" rev-parse --short HEAD >"$KIT/COMMIT" 2>/dev/null ||
  echo unknown >"$KIT/COMMIT"

step "archive"
rm -f "$OUT/gpu-kit.tar.xz"
tar -C "$STAGE" -cf - kit | xz -T2 -6 >"$OUT/gpu-kit.tar.xz"
size_kib=$(du -k "$OUT/gpu-kit.tar.xz" | awk '{ print $1 }')
if [ "$size_kib" -gt $((LIMIT_MIB * 1024)) ]; then
  fail "the kit '$OUT/gpu-kit.tar.xz' has $((size_kib / 1024)) MiB, over the $LIMIT_MIB MiB limit"
fi
echo "gpu-kit: wrote $OUT/gpu-kit.tar.xz ($((size_kib / 1024)) MiB, $(ls "$KIT/plans" | wc -l) plans, $(ls "$KIT/lib" | wc -l) libraries); there: tar xf gpu-kit.tar.xz && kit/run-all.sh OUTDIR"

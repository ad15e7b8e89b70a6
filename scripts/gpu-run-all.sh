#!/usr/bin/env bash
#===- scripts/gpu-run-all.sh - The GPU check, run from the kit -----------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: kit/run-all.sh [--dry-run] [--only STEP,...] [--deadline S] [OUTDIR]
#
# scripts/gpu-kit.sh puts this file into its archive as kit/run-all.sh. On a
# GPU machine it runs, each step under `timeout` and all of them within the
# deadline (default 420 s):
#   env       GPU, driver, the CUDA/cuBLAS/cuDNN/NCCL libraries loaded,
#             `of-run-plan --list-devices`, where every library came from
#   kernels   OneFlowCudaKernelsTests (a failing test then again alone)
#   train     MLP, GPT 50 steps and CNN 20 on cuda:1 against the CPU's
#             losses; the GPT with TF32; the GPT in bf16 against the CPU
#             (f32, and bf16 where this CPU has it)
#   nccl      OneFlowNcclTests (the cases that fit one GPU)
#   matmul    4096^3 as an actor against the same cuBLASLt call: f32, TF32,
#             bf16
#   gpt       the GPT example (f32, bf16) and a GPT-2-small-sized step
#             (bf16) against PyTorch eager and torch.compile
#   pipeline  the CPU pipeline bubble, 2 and 4 stages, on this machine's
#             cores
# It writes at most 8 files to OUTDIR (default $OUT, else ./gpu-out):
# summary.txt (first, rewritten after every step), then env.log,
# kernels.log, train.log, nccl.log, bench.log, pipeline.log and
# metrics.tar.gz (the loss CSVs), and prints the summary table last.
# Exit status: 0 when no step failed.
#
# --dry-run runs here, without a GPU: every GPU step says "skipped: no GPU"
# and the CPU steps run (the pipeline with few steps). --only reruns some
# steps (a second call with the time that is left).
#
#===----------------------------------------------------------------------===#
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DRY=0
ONLY=""
DEADLINE=420
OUTDIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --only) ONLY="$2"; shift ;;
    --only=*) ONLY="${1#--only=}" ;;
    --deadline) DEADLINE="$2"; shift ;;
    --deadline=*) DEADLINE="${1#--deadline=}" ;;
    -h|--help) sed -n '/^# Usage/,/^#===/p' "$0" | sed 's/^# \{0,1\}//;/^===/d'; exit 0 ;;
    -*) echo "run-all: error: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    *) OUTDIR="$1" ;;
  esac
  shift
done
case "$DEADLINE" in
  ''|*[!0-9]*) echo "run-all: error: --deadline '$DEADLINE' is not a number of seconds" >&2; exit 2 ;;
esac
STEPS="env kernels train nccl matmul gpt pipeline"
for s in ${ONLY//,/ }; do
  case " $STEPS " in
    *" $s "*) ;;
    *) echo "run-all: error: --only: no step '$s' (steps: $STEPS)" >&2; exit 2 ;;
  esac
done
OUTDIR="${OUTDIR:-${OUT:-$PWD/gpu-out}}"
mkdir -p "$OUTDIR" || exit 2
START=$SECONDS
CSV="$(mktemp -d)"
trap 'rm -rf "$CSV"' EXIT

# A Python with numpy (the GPU image's python3 has torch too).
PY=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import numpy' 2>/dev/null; then PY="$candidate"; break; fi
done

GPU=0
if [ $DRY -eq 0 ] && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  GPU=1
fi

#===--- The summary ------------------------------------------------------===#
ROWS=()
FAILED=0
summary() {
  {
    echo "GPU check of kit $(cat "$HERE/COMMIT" 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC'), $([ $DRY -eq 1 ] && echo 'dry run' || echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)")"
    printf '%-9s %-8s %6s  %s\n' step status s detail
    local row
    for row in "${ROWS[@]}"; do echo "$row"; done
  } >"$OUTDIR/summary.txt"
}
# record STEP STATUS SECONDS DETAIL
record() {
  ROWS+=("$(printf '%-9s %-8s %6s  %s' "$1" "$2" "$3" "$4")")
  [ "$2" = FAIL ] && FAILED=1
  summary
}
summary

remaining() { echo $((DEADLINE - (SECONDS - START))); }
# limit CAP RESERVE: a step's seconds, at most CAP, leaving RESERVE (of a
# 420 s deadline) for the steps after it; 0 when too little is left.
limit() {
  # Reserves are sized for the default deadline; a shorter one shrinks them.
  local left=$(($(remaining) - $2 * DEADLINE / 420))
  [ "$left" -gt "$1" ] && left=$1
  [ "$left" -lt 5 ] && left=0
  echo "$left"
}
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
# t SECONDS CMD...: the command under timeout (killed 5 s after TERM).
t() { local s="$1"; shift; timeout -k 5 "$s" "$@"; }

#===--- env --------------------------------------------------------------===#
step_env() {
  local log="$OUTDIR/env.log" began=$SECONDS
  {
    echo "== machine"; uname -a; nproc
    grep -m1 'model name' /proc/cpuinfo
    echo "cpu flags: $(grep -o -w -E 'avx2|avx512f|avx512_bf16|amx_bf16|amx_tile' /proc/cpuinfo | sort -u | tr '\n' ' ')"
    echo "== nvidia-smi"; t 20 nvidia-smi 2>&1 || echo "nvidia-smi: not usable"
    echo "== of-run-plan --list-devices"; t 30 "$HERE/run.sh" --list-devices 2>&1
    echo "== libraries of-run-plan loads (LD_DEBUG=libs, --list-devices)"
    t 30 env LD_DEBUG=libs "$HERE/run.sh" --list-devices 2>&1 >/dev/null |
      sed -n 's/.*calling init: //p' | sort -u | while read -r lib; do
        echo "$lib -> $(readlink -f "$lib")"
      done
    echo "== where they came from"
    t 30 env LD_DEBUG=libs "$HERE/run.sh" --list-devices 2>&1 >/dev/null |
      $PY "$HERE/scripts/check_bundle_libs.py" "$HERE" 2>&1
    echo "== python: $PY"
    $PY -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "nccl", torch.cuda.nccl.version() if torch.cuda.is_available() else None, "gpu", torch.cuda.is_available())' 2>&1
  } >"$log" 2>&1
  local devices
  devices="$(sed -n '/== of-run-plan --list-devices/,/== libraries/p' "$log" | grep -E '^ *cuda:' | head -n 1 | sed 's/^ *//')"
  local where
  where="$(grep -E 'libraries loaded|outside the bundle' "$log" | head -n 1)"
  if [ $GPU -eq 1 ]; then
    if [ -n "$devices" ]; then
      record env ok $((SECONDS - began)) "$devices; $where"
    else
      record env FAIL $((SECONDS - began)) "of-run-plan lists no GPU (env.log)"
    fi
  else
    record env ok $((SECONDS - began)) "no GPU; $where"
  fi
}

#===--- kernels, nccl: GoogleTest binaries --------------------------------===#
# gtest STEP BINARY CAP RESERVE LOG: the whole binary, then each failure
# alone; a crash or hang skips the test it was in and goes on.
gtest() {
  local step="$1" bin="$2" cap="$3" reserve="$4" log="$5" began=$SECONDS
  if [ $GPU -eq 0 ]; then
    record "$step" skipped 0 "no GPU"
    return
  fi
  local filter="*" failed=() crashed=() rc s
  : >"$log"
  for _ in 1 2 3 4; do
    s=$(limit "$cap" "$reserve")
    [ "$s" -eq 0 ] && { crashed+=("(deadline)"); break; }
    t "$s" "$HERE/bin.sh" "$bin" --gtest_filter="$filter" >>"$log" 2>&1
    rc=$?
    [ $rc -lt 124 ] && break
    local last
    last="$(grep -E '^\[ RUN      \]' "$log" | tail -n 1 | awk '{print $4}')"
    if [ -z "$last" ] || grep -qE "^\[ +(OK|FAILED|SKIPPED) +\] $last( |$)" "$log"; then
      crashed+=("(exit $rc outside a test)")
      break
    fi
    crashed+=("$last (exit $rc)")
    local names=() c
    for c in "${crashed[@]}"; do names+=("${c%% *}"); done
    filter="*-$(IFS=:; echo "${names[*]}")"
    echo "== run-all: $last ended the binary (exit $rc); going on without it" >>"$log"
  done
  mapfile -t failed < <(grep -E '^\[  FAILED  \] [A-Za-z0-9_/]+\.[A-Za-z0-9_/]+( |$)' "$log" | awk '{print $4}' | sort -u)
  local passed skipped
  passed=$(grep -cE '^\[       OK \]' "$log")
  skipped=$(grep -cE '^\[  SKIPPED \]' "$log")
  local name again=0 reran=0
  # A faulting kernel poisons the process's CUDA context, and every later
  # test fails with it: alone, each shows whether it fails itself (the
  # first 12, to keep the time).
  for name in "${failed[@]:0:12}"; do
    s=$(limit 30 "$reserve")
    [ "$s" -eq 0 ] && break
    echo "== run-all: again alone: $name" >>"$log"
    reran=$((reran + 1))
    t "$s" "$HERE/bin.sh" "$bin" --gtest_filter="$name" >>"$log" 2>&1 || again=$((again + 1))
  done
  local detail="$passed ok, $skipped skipped, ${#failed[@]} failed"
  [ $reran -gt 0 ] && detail="$detail ($again of $reran failed again alone)"
  [ ${#crashed[@]} -gt 0 ] && detail="$detail; ended the binary: ${crashed[*]}"
  [ ${#failed[@]} -gt 0 ] && detail="$detail: $(echo "${failed[*]}" | cut -c1-300)"
  if [ ${#failed[@]} -eq 0 ] && [ ${#crashed[@]} -eq 0 ] && [ "$passed" -gt 0 ]; then
    record "$step" ok $((SECONDS - began)) "$detail"
  else
    record "$step" FAIL $((SECONDS - began)) "$detail"
  fi
}

#===--- train: GPU losses against the CPU's -------------------------------===#
DIGITS=(--input "images=@$HERE/data/digits_images.npy:loop"
        --input "labels=@$HERE/data/digits_labels.npy:loop")
TEXT=(--input "tokens=@$HERE/data/text_tokens.npy:loop"
      --input "targets=@$HERE/data/text_targets.npy:loop")
# run_plan NAME RESERVE PLAN DEVICE STEPS FLAGS...: metrics to $CSV/NAME.csv
run_plan() {
  local name="$1" reserve="$2" plan="$3" device="$4" steps="$5"
  shift 5
  local s
  s=$(limit 60 "$reserve")
  [ "$s" -eq 0 ] && { echo "$name: skipped (deadline)"; return 124; }
  echo "== $name: run.sh $plan --devices $device --steps $steps $*"
  t "$s" "$HERE/run.sh" "$plan" --devices "$device" --steps "$steps" \
    --threads 1 --progress off --print_limit 0 --metrics "$CSV/$name.csv" "$@" 2>&1 |
    tail -n 15
  return "${PIPESTATUS[0]}"
}
# compare NAME EXPECTED ACTUAL FLAGS...: compare_losses, its line kept
compare() {
  local name="$1" expected="$2" actual="$3"
  shift 3
  local line
  line="$($PY "$HERE/scripts/compare_losses.py" "$expected" "$actual" "$@" 2>&1)"
  local rc=$?
  echo "$name: $line"
  RESULTS+=("$name: ${line#compare_losses: }")
  [ $rc -eq 0 ]
}
# ms_per_step CSV: the median step time after the first, from --metrics
ms_per_step() {
  $PY -c 'import csv, statistics, sys
s = [float(r["seconds"]) for r in csv.DictReader(open(sys.argv[1]))]
print("%.2f" % (1e3 * statistics.median(b - a for a, b in zip(s[1:], s[2:]))))' "$1" 2>/dev/null || echo "?"
}

step_train() {
  local log="$OUTDIR/train.log" began=$SECONDS bad=0
  RESULTS=()
  {
    # The CPU's bf16 reference, where this CPU's oneDNN has bf16.
    local cpubf16=""
    if "$HERE/run.sh" --list-devices 2>/dev/null | grep -q "^cpu: bf16 yes"; then
      if run_plan gpt-bf16-cpu 200 gpt-bf16-cpu.plan cpu:1 50 "${TEXT[@]}"; then
        cpubf16="$CSV/gpt-bf16-cpu.csv"
      fi
    else
      echo "gpt-bf16-cpu: skipped (this CPU's oneDNN has no bf16)"
    fi
    if [ $GPU -eq 1 ]; then
      local runs=(
        "mlp mlp-cuda.plan 50 mlp-cpu.csv 1e-5 DIGITS"
        "gpt gpt-cuda.plan 50 gpt-cpu.csv 1e-5 TEXT"
        "cnn cnn-cuda.plan 20 cnn-cpu.csv 1e-5 CNN"
        "gpt-tf32 gpt-cuda.plan 50 gpt-cpu.csv 1e-2 TEXT --allow-tf32"
        "gpt-bf16 gpt-bf16-cuda.plan 50 gpt-cpu.csv bf16 TEXT")
      local r name plan steps ref rtol inputs extra
      for r in "${runs[@]}"; do
        read -r name plan steps ref rtol inputs extra <<<"$r"
        local flags=()
        case "$inputs" in
          DIGITS) flags=("${DIGITS[@]}") ;;
          TEXT) flags=("${TEXT[@]}") ;;
          CNN) flags=(--input labels=fill:1) ;;
        esac
        [ -n "${extra:-}" ] && flags+=("$extra")
        if ! run_plan "$name" 150 "$plan" cuda:1 "$steps" "${flags[@]}"; then
          RESULTS+=("$name: the run failed")
          bad=1
          continue
        fi
        local band=(--rtol "$rtol" --steps "$steps")
        [ "$rtol" = bf16 ] && band=(--rtol 0.05 --mean-last 25 --mean-rtol 0.01 --steps "$steps")
        compare "$name vs cpu f32" "$HERE/ref/$ref" "$CSV/$name.csv" "${band[@]}" || bad=1
        if [ "$name" = gpt-bf16 ] && [ -n "$cpubf16" ]; then
          compare "$name vs cpu bf16" "$cpubf16" "$CSV/$name.csv" "${band[@]}" || bad=1
        fi
        echo "$name: $(ms_per_step "$CSV/$name.csv") ms/step on cuda:1"
      done
    fi
  } >"$log" 2>&1
  tar -C "$CSV" -czf "$OUTDIR/metrics.tar.gz" . 2>/dev/null
  local detail
  detail="$(printf '%s; ' "${RESULTS[@]}" | cut -c1-600)"
  if [ $GPU -eq 0 ]; then
    record train skipped $((SECONDS - began)) "no GPU${RESULTS[*]:+; $detail}"
  elif [ $bad -eq 0 ]; then
    record train ok $((SECONDS - began)) "$detail"
  else
    record train FAIL $((SECONDS - began)) "$detail"
  fi
}

#===--- matmul, gpt: benchmarks -------------------------------------------===#
step_matmul() {
  local log="$OUTDIR/bench.log" began=$SECONDS bad=0 figures=()
  if [ $GPU -eq 0 ]; then
    record matmul skipped 0 "no GPU"
    return
  fi
  local dtype s
  for dtype in f32 tf32 bf16; do
    s=$(limit 40 110)
    [ "$s" -eq 0 ] && { figures+=("$dtype: deadline"); bad=1; continue; }
    echo "== matmul --dtype $dtype" >>"$log"
    if t "$s" "$HERE/bin.sh" bench-cuda-matmul-vs-cublaslt --dtype "$dtype" >>"$log" 2>&1; then
      figures+=("$dtype $(grep 'ratio direct/runtime, back to back' "$log" | tail -n 1 | sed 's/.*back to back: \([0-9.]*\).*/\1/') (alone $(grep 'ratio direct/runtime, one firing alone' "$log" | tail -n 1 | sed 's/.*: //'))")
    else
      figures+=("$dtype: failed")
      bad=1
    fi
  done
  record matmul "$([ $bad -eq 0 ] && echo ok || echo FAIL)" $((SECONDS - began)) \
    "direct/actor back to back: ${figures[*]} (goal >= 0.95)"
}

step_gpt() {
  local log="$OUTDIR/bench.log" began=$SECONDS bad=0 figures=()
  if [ $GPU -eq 0 ]; then
    record gpt skipped 0 "no GPU"
    return
  fi
  local runs=(
    "70 example-f32 bench-gpt-f32.plan --precision f32 --steps 30 --rounds 2"
    "70 example-bf16 bench-gpt-bf16.plan --precision bf16 --steps 30 --rounds 2"
    "150 gpt2small-bf16 bench-gpt2small-bf16.plan --size gpt2-small --precision bf16 --steps 8 --rounds 1")
  local r cap name plan rest s
  for r in "${runs[@]}"; do
    read -r cap name plan rest <<<"$r"
    s=$(limit "$cap" 40)
    [ "$s" -eq 0 ] && { figures+=("$name: deadline"); bad=1; continue; }
    echo "== gpt $name" >>"$log"
    # shellcheck disable=SC2086
    local rc=0
    t "$s" env PYTHONUNBUFFERED=1 $PY "$HERE/bench/gpt_train_vs_torch.py" --device cuda \
        --plan "$HERE/plans/$plan" --runner "$HERE/run.sh" \
        --text "$HERE/data/GPL-3" $rest >>"$log" 2>&1 || rc=$?
    if [ $rc -eq 0 ]; then
      figures+=("$name $(grep -E '^gpt-train' "$log" | tail -n 2 | awk '{print $4}' | paste -sd/ -)")
    elif [ $rc -ge 124 ]; then
      figures+=("$name: stopped after ${s} s (the deadline's share)")
      bad=1
    else
      figures+=("$name: failed (exit $rc)")
      bad=1
    fi
  done
  # Where of-run's time goes: kernel time by op (--profile), a few steps;
  # and the host waits per step of stream-ordered firing (the runner
  # prints them only where there are any).
  local p waits
  for p in bench-gpt-f32.plan bench-gpt2small-bf16.plan; do
    s=$(limit 40 40)
    [ "$s" -eq 0 ] && break
    echo "== profile $p" >>"$log"
    # Random tokens (in [0, 2)): the time does not depend on them.
    t "$s" "$HERE/run.sh" "$p" --devices cuda:1 --steps 4 --profile \
      --progress off --print_limit 0 2>&1 | head -n 30 >"$OUTDIR/profile.txt"
    cat "$OUTDIR/profile.txt" >>"$log"
    waits=$(sed -n 's/^host waits: \([0-9.]*\) per step$/\1/p' "$OUTDIR/profile.txt")
    figures+=("${p%.plan} host waits/step ${waits:-0}")
  done
  rm -f "$OUTDIR/profile.txt"
  record gpt "$([ $bad -eq 0 ] && echo ok || echo FAIL)" $((SECONDS - began)) \
    "torch/of-run eager/compile: ${figures[*]}"
}

#===--- pipeline: CPU ----------------------------------------------------===#
step_pipeline() {
  local log="$OUTDIR/pipeline.log" began=$SECONDS s steps=30
  [ $DRY -eq 1 ] && steps=3
  s=$(limit 60 0)
  if [ "$s" -eq 0 ]; then
    record pipeline FAIL 0 "no time left before the deadline"
    return
  fi
  if t "$s" $PY "$HERE/bench/pipeline_bubble.py" --plans "$HERE/plans" \
      --runner "$HERE/run.sh" --stages 2,4 --steps $steps >"$log" 2>&1; then
    # "S stages: idle I0 I1 ... against theory T (worst Wx)" per stage count.
    record pipeline ok $((SECONDS - began)) "$(awk '
      / stages, ranks as / { if (p) printf "%s; ", line; p = $1; w = 0
                             t = $NF; line = p " stages: idle"; next }
      p && /^[0-9]+ +[0-9.]+ +[0-9.]+x/ { line = line " " $2
                                         r = $3; sub("x", "", r); if (r + 0 > w) w = r + 0 }
      p && /^S\/M/ { line = line " against theory " t " (worst " w "x)" }
      END { if (p) printf "%s", line }' "$log" | cut -c1-300)"
  else
    record pipeline FAIL $((SECONDS - began)) "$(tail -n 2 "$log" | tr '\n' ' ' | cut -c1-200)"
  fi
}

wanted env && step_env
wanted kernels && gtest kernels OneFlowCudaKernelsTests 100 250 "$OUTDIR/kernels.log"
wanted train && step_train
wanted nccl && gtest nccl OneFlowNcclTests 45 200 "$OUTDIR/nccl.log"
wanted matmul && step_matmul
wanted gpt && step_gpt
wanted pipeline && step_pipeline

echo
cat "$OUTDIR/summary.txt"
exit $FAILED

#!/usr/bin/env bash
#===- bench/fuzz.sh - Fuzz a front door with libFuzzer -------------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Builds a libFuzzer target with clang-22 (installed from apt when missing;
# OpenMP stays GCC's libgomp, as libomp-22-dev would shadow it for every
# tool; no CUDA backend, whose nvcc links with g++) in build-fuzz/, everything it links instrumented for coverage and
# AddressSanitizer, and runs it for FUZZ_SECONDS (default 300) on JOBS
# processes (default 1). The targets:
#   onnx  tools/onnx-import-fuzzer: model bytes into the ONNX importer;
#         seeded with test/Target/Onnx/Inputs/*.onnx and the small models of
#         libonnx-testdata.
#   mlir  tools/mlir-pipeline-fuzzer: text into the MLIR parser, the
#         verifiers, oneflow-default-pipeline, plan export and loading;
#         seeded with the examples and the tests' programs.
#   plan  tools/plan-loader-fuzzer: bytes into the runtime's plan loader
#         (binary and text); seeded with the tests' text plans and their
#         binary encodings.
#   cluster   tools/json-readers-fuzzer/cluster-file-fuzzer: text into the
#         cost model's cluster-file reader (llvm::json); seeded with the
#         tests' and examples' cluster files.
#   strategy  tools/json-readers-fuzzer/strategy-file-fuzzer: text into the
#         strategy-file reader (--strategy FILE, its stages and recompute
#         keys; llvm::json); seeded with the tests' and examples' strategies.
#   manifest  tools/json-readers-fuzzer/checkpoint-manifest-fuzzer: text
#         into the checkpoint manifest reader (nlohmann::json); seeded with
#         a manifest as of-run --save writes it.
# Inputs that crash land in build-fuzz/fuzz-crashes/TARGET/; each fixed one
# belongs in the target's regression test (test/Target/Onnx/Inputs/fuzz/,
# test/Tools/Inputs/fuzz/). The last lines give the executions run
# (stat::number_of_executed_units). Not part of CI.
#
#   bench/fuzz.sh mlir              FUZZ_SECONDS=60 JOBS=2 bench/fuzz.sh plan
#   FUZZ_RUNS=10000000 bench/fuzz.sh manifest   (a count of runs instead)
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_TO_RUN="${FUZZ_SECONDS:-300}"
TARGET="${1:-}"
case "$TARGET" in
  onnx) FUZZER=onnx-import-fuzzer ;;
  mlir) FUZZER=mlir-pipeline-fuzzer ;;
  plan) FUZZER=plan-loader-fuzzer ;;
  cluster) FUZZER=cluster-file-fuzzer ;;
  strategy) FUZZER=strategy-file-fuzzer ;;
  manifest) FUZZER=checkpoint-manifest-fuzzer ;;
  *) echo "usage: bench/fuzz.sh onnx|mlir|plan|cluster|strategy|manifest" >&2
     exit 2 ;;
esac
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$ROOT")}"

if ! command -v clang++-22 >/dev/null ||
   [ -z "$(find /usr/lib/llvm-22/lib/clang -name 'libclang_rt.fuzzer*.a' 2>/dev/null)" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=120 \
    clang-22 libclang-rt-22-dev
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DONEFLOW_BUILD_FUZZERS=ON -DONEFLOW_ENABLE_CUDA=OFF \
    -DOpenMP_CXX_FLAGS=-fopenmp=libgomp -DOpenMP_CXX_LIB_NAMES=gomp \
    -DOpenMP_C_FLAGS=-fopenmp=libgomp -DOpenMP_C_LIB_NAMES=gomp \
    -DOpenMP_gomp_LIBRARY=/usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so \
    -DCMAKE_CXX_FLAGS="-g -fsanitize=fuzzer-no-link,address" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address -shared-libasan" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address -shared-libasan" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
# Tools the build runs (of-tblgen) are instrumented too: they find ASan's
# shared runtime through LD_LIBRARY_PATH and leak as generators do.
ASAN_DIR="$(dirname "$(ls /usr/lib/llvm-22/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.so | head -1)")"
LD_LIBRARY_PATH="$ASAN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  ASAN_OPTIONS=detect_leaks=0 ninja -C "$BUILD" -j2 "$FUZZER"

CORPUS="$BUILD/fuzz-corpus/$TARGET"
CRASHES="$BUILD/fuzz-crashes/$TARGET"
mkdir -p "$CORPUS" "$CRASHES"
case "$TARGET" in
  onnx)
    cp "$ROOT"/test/Target/Onnx/Inputs/*.onnx "$CORPUS"/
    for model in $(find /usr/share/libonnx-testdata/data/node -name model.onnx \
                      -size -2k | sort); do
      cp "$model" "$CORPUS/$(basename "$(dirname "$model")").onnx"
    done ;;
  mlir)
    for program in "$ROOT"/examples/*.mlir "$ROOT"/examples/gpt/*.mlir \
                   $(find "$ROOT/test" -name '*.mlir' -size -8k | sort); do
      cp "$program" "$CORPUS/$(echo "$program" | md5sum | cut -c1-12).mlir"
    done ;;
  plan)
    for plan in $(find "$ROOT/test" -name '*.plantxt' | sort); do
      name="$CORPUS/$(basename "$plan" .plantxt)"
      cp "$plan" "$name.plantxt"
      protoc --encode=ofrt.proto.Plan --proto_path="$ROOT/lib/Runtime/Plan" \
        plan.proto < "$plan" > "$name.plan" 2>/dev/null || rm -f "$name.plan"
    done ;;
  cluster)
    for file in $(grep -rl '"intra_node"\|"flops"\|"ranks_per_node"' \
                    "$ROOT/test" "$ROOT/examples" --include='*.json' | sort); do
      cp "$file" "$CORPUS/$(echo "$file" | md5sum | cut -c1-12).json"
    done ;;
  strategy)
    for file in $(grep -rl '"mesh"' "$ROOT/test" "$ROOT/examples" \
                    --include='*.json' | sort); do
      cp "$file" "$CORPUS/$(echo "$file" | md5sum | cut -c1-12).json"
    done ;;
  manifest)
    cat > "$CORPUS/manifest.json" <<'JSON'
{"format": "oneflow-checkpoint", "version": 1, "step": 20, "tensors": {
  "fc1.weight": {"file": "fc1.weight.npy", "dtype": "f32", "shape": [64, 128],
                 "crc32": 3735928559},
  "ids": {"file": "ids.npy", "dtype": "i32", "shape": [5], "crc32": 0}}}
JSON
    ;;
esac

# The libraries are shared, so ASan's runtime is too (-shared-libasan),
# loaded first.
# Its leak check is off: MLIR's uniqued storage lives until exit. Manual
# poisoning is off too: LLVM's BumpPtrAllocator poisons the slabs it gets in
# our instrumented code, and Debian's uninstrumented libMLIR then allocates
# from them without unpoisoning (false use-after-poison reports).
ASAN_LIB=(/usr/lib/llvm-22/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.so)
PARALLEL=()
if [ "${JOBS:-1}" -gt 1 ]; then
  PARALLEL=(-jobs="$JOBS" -workers="$JOBS")
fi
LIMIT=(-max_total_time="$SECONDS_TO_RUN")
if [ -n "${FUZZ_RUNS:-}" ]; then
  LIMIT=(-runs="$FUZZ_RUNS")
fi
LD_PRELOAD="${ASAN_LIB[0]}" ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
  "$BUILD/bin/$FUZZER" \
  "${LIMIT[@]}" -timeout=10 -rss_limit_mb=4096 \
  -max_len=16384 -print_final_stats=1 "${PARALLEL[@]}" \
  -artifact_prefix="$CRASHES/" "$CORPUS"

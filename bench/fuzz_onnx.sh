#!/usr/bin/env bash
#===- bench/fuzz_onnx.sh - Fuzz the ONNX importer with libFuzzer ---------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Builds tools/onnx-import-fuzzer with clang-22 (installed from apt when
# missing; OpenMP stays GCC's libgomp, as libomp-22-dev would shadow it for
# every tool) in build-fuzz/, the importer instrumented for coverage and
# AddressSanitizer, and runs it for FUZZ_SECONDS (default 300) on a corpus
# seeded with test/Target/Onnx/Inputs/*.onnx and the small models of
# libonnx-testdata. Inputs that crash land in build-fuzz/fuzz-crashes/; each
# fixed one belongs in test/Target/Onnx/Inputs/fuzz/ (fuzz-regressions.test
# imports them all). Not part of CI.
#
#   bench/fuzz_onnx.sh              FUZZ_SECONDS=60 bench/fuzz_onnx.sh
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_TO_RUN="${FUZZ_SECONDS:-300}"
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
    -DONEFLOW_BUILD_FUZZERS=ON \
    -DOpenMP_CXX_FLAGS=-fopenmp=libgomp -DOpenMP_CXX_LIB_NAMES=gomp \
    -DOpenMP_C_FLAGS=-fopenmp=libgomp -DOpenMP_C_LIB_NAMES=gomp \
    -DOpenMP_gomp_LIBRARY=/usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so \
    -DCMAKE_CXX_FLAGS="-g -fsanitize=fuzzer-no-link,address" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address -shared-libasan" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address -shared-libasan" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
ninja -C "$BUILD" -j"${JOBS:-2}" onnx-import-fuzzer

CORPUS="$BUILD/fuzz-corpus"
mkdir -p "$CORPUS" "$BUILD/fuzz-crashes"
cp "$ROOT"/test/Target/Onnx/Inputs/*.onnx "$CORPUS"/
for model in $(find /usr/share/libonnx-testdata/data/node -name model.onnx \
                  -size -2k | sort); do
  cp "$model" "$CORPUS/$(basename "$(dirname "$model")").onnx"
done

# The libraries are shared, so ASan's runtime is too (-shared-libasan),
# loaded first.
# Its leak check is off: MLIR's uniqued storage lives until exit.
ASAN_LIB=(/usr/lib/llvm-22/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.so)
LD_PRELOAD="${ASAN_LIB[0]}" ASAN_OPTIONS=detect_leaks=0 \
  "$BUILD/bin/onnx-import-fuzzer" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 \
  -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$BUILD/fuzz-crashes/" "$CORPUS"

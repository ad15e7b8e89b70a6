#!/usr/bin/env bash
#===- scripts/install-deps.sh - Install every system package we use ------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Idempotent: quiet and fast when everything is already installed. Installs
# what every part of the project needs (compiler, runtime, importer, tests and
# benchmarks), all from Debian's archive.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  # Build tools.
  cmake ninja-build ccache g++ pkg-config
  # LLVM/MLIR 22 (FileCheck and lit come with llvm-22-tools).
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  # Runtime: kernels and collectives.
  libdnnl-dev libgloo-dev libopenmpi-dev openmpi-bin
  # ONNX import and the plan schema.
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  # Support libraries and tests.
  libabsl-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  # The auto-parallel search's exact reference (integer programs).
  libglpk-dev
  # Reference implementations and services used by tests and benchmarks.
  python3-torch python3-onnx python3-numpy python3-sklearn redis-server
  # A real BLAS for PyTorch, the benchmarks' peer (Debian's torch otherwise
  # falls back to the reference BLAS and runs its matmuls ~30x slower).
  libopenblas0-pthread
  # f32 GEMM for our CPU kernels where faster than oneDNN's (AVX2): the
  # OpenMP build, which shares oneDNN's threads.
  libopenblas-openmp-dev
  # The Python package (python/): pybind11 over the driver library.
  python3-dev pybind11-dev
  # Pictures: loss curves and the actor plan as a graph.
  python3-matplotlib graphviz
  # Source checks: each function's extent (test/Tools/function-length.test).
  universal-ctags
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
echo "install-deps: done"

#!/usr/bin/env bash
#===- scripts/build.sh - Set up and build everything ---------------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Installs the system packages (idempotent), configures with CMake + Ninja
# against Debian's LLVM/MLIR 22, and builds the tools, libraries, plugin and
# test binaries. BUILD_DIR (default: build) and BUILD_TYPE (default: Release)
# may be set in the environment.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

bash "$ROOT/scripts/install-deps.sh"

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
# Two cores: Ninja's default parallelism (cores + 2) fits in 24 GiB here.
ninja -C "$BUILD_DIR" all oneflow-test-depends

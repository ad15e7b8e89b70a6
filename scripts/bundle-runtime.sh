#!/usr/bin/env bash
#===- scripts/bundle-runtime.sh - of-run-plan for a GPU node -------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: scripts/bundle-runtime.sh [--bin PROGRAM]... OUT [PLAN...]
#
# Puts into the folder OUT everything a machine with the NVIDIA driver and
# CUDA 13 (but none of our Debian packages) needs to run compiled plans:
#   OUT/bin/of-run-plan    the runner (built by scripts/build.sh)
#   OUT/lib/               the shared libraries it loads that are neither
#                          the C library (glibc: every Linux has it) nor
#                          CUDA's (cudart, cuBLAS(Lt), cuDNN, NCCL: the node
#                          has them): oneDNN, protobuf, absl, Gloo, OpenMPI,
#                          libstdc++, ...
#   OUT/plans/             the given plans (of-run --emit-plan writes them)
#   OUT/run.sh PLAN [flags] runs a plan (a path, or a name in OUT/plans)
#   OUT/bin.sh NAME [args]  runs another program of OUT/bin (--bin PROGRAM
#                          copies one there with the libraries it needs:
#                          test binaries, benchmarks)
#   OUT/env.sh             what both source: LD_LIBRARY_PATH with OUT/lib
#                          and CUDA's libraries wherever the node has them
# and checks that OUT stays under 120 MiB (BUNDLE_LIMIT_MIB: another limit).
# oneDNN (40 MiB) and OpenBLAS (36 MiB, all its CPU kernels) make most of it;
# compressed, as scripts/gpu-kit.sh packs it, it is about a fifth. BUILD_DIR (default: build) says
# where of-run-plan was built. Copy OUT to the node and run OUT/run.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
LIMIT_MIB="${BUNDLE_LIMIT_MIB:-120}"

fail() { echo "bundle-runtime: error: $*" >&2; exit 1; }

EXTRA=()
while [ $# -ge 2 ] && [ "$1" = "--bin" ]; do
  [ -x "$2" ] || fail "--bin '$2' is not an executable file"
  EXTRA+=("$2")
  shift 2
done
[ $# -ge 1 ] || fail "usage: bundle-runtime.sh [--bin PROGRAM]... OUT [PLAN...]"
OUT="$1"
shift
RUNNER="$BUILD_DIR/bin/of-run-plan"
[ -x "$RUNNER" ] || fail "'$RUNNER' is not built (run scripts/build.sh, or set BUILD_DIR)"
for plan in "$@"; do
  [ -f "$plan" ] || fail "plan '$plan' is not a file"
  # A plan the runner cannot load (truncated, a model, another version)
  # would only fail on the node.
  checked=$("$RUNNER" "$plan" --check 2>&1) ||
    fail "plan '$plan' does not load: ${checked#of-run-plan: error: }"
done
# Plans are copied by name into one folder: two of one name would be one.
duplicate=$(for plan in "$@"; do basename "$plan"; done | sort | uniq -d | head -n 1)
[ -z "$duplicate" ] || fail "two plans are named '$duplicate' (plans/ holds each by its name)"
if [ -e "$OUT" ] && [ ! -d "$OUT" ]; then
  fail "'$OUT' exists and is not a folder"
fi
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
  fail "'$OUT' is not empty (the bundle goes into a new or empty folder)"
fi

# Libraries every Linux machine has (glibc) and those of CUDA's toolkit and
# driver, which the node has: left out.
is_provided() {
  case "$(basename "$1")" in
    ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*) return 0 ;;
    libutil.so*|libresolv.so*|libanl.so*|libnsl.so*) return 0 ;;
    libcuda.so*|libcudart.so*|libcublas.so*|libcublasLt.so*) return 0 ;;
    libcudnn*.so*|libnccl.so*|libnvrtc*.so*|libnvJitLink.so*) return 0 ;;
  esac
  return 1
}

mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/plans"
for program in "$RUNNER" "${EXTRA[@]}"; do
  cp "$program" "$OUT/bin/"
  if ldd "$program" | grep -q "not found"; then
    fail "$(basename "$program") needs libraries this machine lacks: $(ldd "$program" | grep 'not found' | tr -s ' \t' ' ')"
  fi
  for lib in $(ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
    is_provided "$lib" && continue
    [ -f "$OUT/lib/$(basename "$lib")" ] || cp -L "$lib" "$OUT/lib/"
  done
done
for plan in "$@"; do
  cp "$plan" "$OUT/plans/"
done

cat > "$OUT/env.sh" <<'ENV'
# Sourced by run.sh and bin.sh: LD_LIBRARY_PATH with the bundle's libraries
# first, then CUDA's: the toolkit's, else those of pip's nvidia-* wheels
# (PyTorch's), else wherever the loader finds them.
CUDA_LIBS=""
for dir in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64; do
  [ -d "$dir" ] && CUDA_LIBS="$CUDA_LIBS:$dir"
done
if command -v python3 >/dev/null 2>&1; then
  WHEELS="$(python3 -c 'import glob, os, nvidia
print(":".join(sorted(glob.glob(os.path.join(list(nvidia.__path__)[0], "*", "lib")))))' 2>/dev/null)"
  [ -n "$WHEELS" ] && CUDA_LIBS="$CUDA_LIBS:$WHEELS"
fi
export LD_LIBRARY_PATH="$HERE/lib$CUDA_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ENV

cat > "$OUT/run.sh" <<'RUN'
#!/bin/sh
# Runs a compiled plan with the bundled of-run-plan: OUT/run.sh PLAN [flags]
# (PLAN: a path, or the name of a plan in plans/; --help lists the flags).
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/env.sh"
if [ $# -ge 1 ] && [ ! -e "$1" ] && [ -f "$HERE/plans/$1" ]; then
  plan="$HERE/plans/$1"
  shift
  set -- "$plan" "$@"
fi
exec "$HERE/bin/of-run-plan" "$@"
RUN

cat > "$OUT/bin.sh" <<'BIN'
#!/bin/sh
# Runs a program of OUT/bin with the bundle's libraries: OUT/bin.sh NAME [args]
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/env.sh"
[ $# -ge 1 ] || { echo "usage: bin.sh NAME [args] (NAME in $HERE/bin)" >&2; exit 2; }
[ -x "$HERE/bin/$1" ] || { echo "bin.sh: no program '$1' in $HERE/bin" >&2; exit 2; }
name="$1"
shift
exec "$HERE/bin/$name" "$@"
BIN
chmod +x "$OUT/bin.sh"
chmod +x "$OUT/run.sh"

size_kib=$(du -sk "$OUT" | awk '{ print $1 }')
if [ "$size_kib" -gt $((LIMIT_MIB * 1024)) ]; then
  fail "the bundle '$OUT' has $((size_kib / 1024)) MiB, over the $LIMIT_MIB MiB limit"
fi
echo "bundled of-run-plan$([ ${#EXTRA[@]} -eq 0 ] || echo " and ${#EXTRA[@]} other program(s)"), $(ls "$OUT/lib" | wc -l) libraries and $# plan(s) into $OUT ($((size_kib / 1024)) MiB); run $OUT/run.sh PLAN [flags]"

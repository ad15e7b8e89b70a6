#!/usr/bin/python3
#===- check_bundle_libs.py - Where a bundled runner's libraries came from -===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: LD_DEBUG=libs OUT/run.sh ... 2>&1 >/dev/null | check_bundle_libs.py OUT
#
# Reads the dynamic loader's "calling init: PATH" lines and checks that
# every library the runner loaded comes from the bundle OUT, except the C
# library's (glibc, on every Linux) and CUDA's (on every GPU node). Prints
# one line on success; names each library from elsewhere and exits 1.
#
#===----------------------------------------------------------------------===#
import os
import re
import sys

PROVIDED = re.compile(
    r"^(ld-linux.*|lib(c|m|dl|pthread|rt|util|resolv|anl|nsl)\.so.*|"
    r"libcuda\.so.*|libcudart\.so.*|libcublas(Lt)?\.so.*|libcudnn.*\.so.*|"
    r"libnccl\.so.*|libnvrtc.*\.so.*|libnvJitLink\.so.*)$")

bundle = os.path.realpath(sys.argv[1])
loaded = set()
for line in sys.stdin:
    match = re.search(r"calling init: (\S+)", line)
    if match:
        loaded.add(os.path.realpath(match.group(1)))
if not loaded:
    sys.exit("check_bundle_libs: the loader reported no library (is "
             "LD_DEBUG=libs set?)")
outside = [path for path in sorted(loaded)
           if not path.startswith(bundle + os.sep)
           and not PROVIDED.match(os.path.basename(path))]
for path in outside:
    print(f"loaded from outside the bundle: {path}")
if outside:
    sys.exit(1)
inside = sum(path.startswith(bundle + os.sep) for path in loaded)
print(f"{len(loaded)} libraries loaded: {inside} from the bundle, the rest "
      "the C library's and CUDA's")

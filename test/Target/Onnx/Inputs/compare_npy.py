#!/usr/bin/python3
# ===- compare_npy.py - Compare an output with its expected value --------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   compare_npy.py GOT.npy EXPECTED.npy [RTOL ATOL]     (default 1e-4 1e-4)
#
# Prints "matches within rtol R, atol A" and exits 0, or says where the two
# differ and exits 1.
#
# ===---------------------------------------------------------------------=== #

import sys

import numpy as np

got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-4
if got.shape != want.shape:
    sys.exit("shape %s, expected %s" % (got.shape, want.shape))
if not np.allclose(got, want, rtol=rtol, atol=atol):
    sys.exit("differs: max abs error %g" % np.max(np.abs(got - want)))
print("matches within rtol %g, atol %g" % (rtol, atol))

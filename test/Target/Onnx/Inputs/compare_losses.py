#!/usr/bin/python3
# ===- compare_losses.py - A run's losses against reference losses -------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   compare_losses.py METRICS.csv REFERENCE (.npy of losses or another
#                     METRICS.csv) [TOL]       (default 1e-4, relative)
#                     [STEPS]                  (the first STEPS only)
#
# Reads the "loss" column of of-run --metrics files; prints "N steps match
# within TOL" or where they differ and exits 1.
#
# ===---------------------------------------------------------------------=== #

import csv
import sys

import numpy as np


def losses(path):
    if path.endswith(".npy"):
        return np.load(path).astype(np.float64)
    with open(path) as f:
        return np.array([float(row["loss"]) for row in csv.DictReader(f)])


got, want = losses(sys.argv[1]), losses(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
if got.shape != want.shape:
    sys.exit("%d steps, expected %d" % (len(got), len(want)))
if len(sys.argv) > 4:
    got, want = got[:int(sys.argv[4])], want[:int(sys.argv[4])]
err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
if np.any(err > tol):
    step = int(np.argmax(err))
    sys.exit("step %d: loss %g, expected %g" % (step, got[step], want[step]))
print("%d steps match within %g" % (len(got), tol))

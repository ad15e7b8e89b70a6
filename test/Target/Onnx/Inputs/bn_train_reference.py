#!/usr/bin/python3
# ===- bn_train_reference.py - Inputs/bn-train.onnx computed by numpy ----=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   bn_train_reference.py OUT    writes OUT/x.npy and what the ONNX spec's
#                                training-mode BatchNormalization gives for
#                                it: OUT/y.expected.npy, OUT/rm_out.expected.npy
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import numpy as np

out = sys.argv[1]
x = np.random.default_rng(3).standard_normal((4, 2, 3, 3)).astype(np.float32)
gamma = np.array([1.0, 2.0], np.float32).reshape(1, 2, 1, 1)
beta = np.array([0.5, -0.5], np.float32).reshape(1, 2, 1, 1)
mean = x.mean(axis=(0, 2, 3), keepdims=True)
var = x.var(axis=(0, 2, 3), keepdims=True)
y = (x - mean) / np.sqrt(var + 1e-5) * gamma + beta
running_mean = 0.0 * 0.8 + mean.reshape(2) * (1 - 0.8)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "y.expected.npy"), y.astype(np.float32))
np.save(os.path.join(out, "rm_out.expected.npy"),
        running_mean.astype(np.float32))

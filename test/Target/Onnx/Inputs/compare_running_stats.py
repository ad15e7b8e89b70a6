#!/usr/bin/python3
# ===- compare_running_stats.py - Trained batch-norm statistics ----------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   compare_running_stats.py REFERENCE.npz CHECKPOINTS TOL [STEP]
#   compare_running_stats.py REFERENCE.npz MODEL.onnx TOL
#   compare_running_stats.py REFERENCE-CHECKPOINTS CHECKPOINTS TOL
#
# REFERENCE holds "step-N/<name>" arrays (export_onnx_models.py --batch-stats).
# Against an of-run --save directory, each is compared with
# CHECKPOINTS/step-N/<name>.npy; against an exported ONNX model, the last
# step's are compared with its initializers; with STEP, only that step's
# (step-STEP/...) are compared. Prints "N statistics match
# within TOL" (|got - want| <= TOL * (1 + |want|)) or the worst one and
# exits 1. A reference of-run --save directory gives its checkpoints'
# running statistics (parallel against serial).
#
# ===---------------------------------------------------------------------=== #

import os
import re
import sys

import numpy as np


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "scripts"))
import oneflow_checkpoint  # noqa: E402


class Checkpoints:
    """The running statistics of an of-run --save directory (read and
    checked by oneflow_checkpoint), keyed "step-N/<name>" as the .npz of
    export_onnx_models.py is."""

    def __init__(self, root):
        self.values = {
            step + "/" + name: value
            for step in os.listdir(root) if step.startswith("step-")
            for name, value in oneflow_checkpoint.read(
                os.path.join(root, step))[1].items()
            if name.endswith((".running_mean", ".running_var"))}
        self.files = list(self.values)

    def __getitem__(self, key):
        return self.values[key]


reference = (Checkpoints(sys.argv[1]) if os.path.isdir(sys.argv[1])
             else np.load(sys.argv[1]))
target, tol = sys.argv[2], float(sys.argv[3])
keys = sorted(reference.files)
if not keys:
    sys.exit("%s holds no running statistics" % sys.argv[1])
if len(sys.argv) > 4:
    keys = [k for k in keys if k.startswith("step-%s/" % sys.argv[4])]
if target.endswith(".onnx"):
    import onnx
    from onnx import numpy_helper
    model = onnx.load(target)
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    last = max(int(k.split("/")[0][len("step-"):]) for k in keys)
    keys = [k for k in keys if k.startswith("step-%d/" % last)]


def got(key):
    step, name = key.split("/", 1)
    if target.endswith(".onnx"):
        return values.get(name)
    path = os.path.join(target, step, re.sub(r"[^A-Za-z0-9._-]", "_", name))
    return np.load(path + ".npy") if os.path.exists(path + ".npy") else None


worst, where = 0.0, None
for key in keys:
    want = reference[key].astype(np.float64)
    value = got(key)
    if value is None:
        sys.exit("%s: missing in %s" % (key, target))
    if value.shape != want.shape:
        sys.exit("%s: shape %s, expected %s" % (key, value.shape, want.shape))
    error = np.max(np.abs(value - want) / (1 + np.abs(want)))
    if error > worst:
        worst, where = error, key
if worst > tol:
    sys.exit("%s differs by %.3g (> %g)" % (where, worst, tol))
print("%d statistics match within %g" % (len(keys), tol))

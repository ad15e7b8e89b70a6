#!/usr/bin/python3
# ===- check_export.py - A model written by of-run --export-onnx ---------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   check_export.py TRAINED.onnx --changed ORIGINAL.onnx
#       the ONNX checker accepts TRAINED; its graph is ORIGINAL's and its
#       float initializers differ from ORIGINAL's (trained)
#   check_export.py TRAINED.onnx --same OTHER.onnx [TOL]
#       every initializer agrees with OTHER's within TOL (relative,
#       default 0: bit for bit)
#   check_export.py TRAINED.onnx --checkpoint DIR
#       every initializer a checkpoint file holds is bit for bit that file
#   check_export.py TRAINED.onnx --torch SCRIPTS NAME X.npy OURS.npy
#       PyTorch's model NAME of SCRIPTS/export_onnx_models.py, loaded with
#       TRAINED's initializers, maps X to OURS within 1e-5
#
# ===---------------------------------------------------------------------=== #

import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def initializers(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


trained = onnx.load(sys.argv[1])
onnx.checker.check_model(trained)
mode, args = sys.argv[2], sys.argv[3:]
got = initializers(trained)

if mode == "--changed":
    original = onnx.load(args[0])
    if [n.op_type for n in original.graph.node] != \
            [n.op_type for n in trained.graph.node]:
        sys.exit("the graph differs from the original's")
    before = initializers(original)
    if sorted(before) != sorted(got):
        sys.exit("the initializers are not the original's")
    changed = [k for k in got if got[k].dtype in (np.float32, np.float16) and
               not np.array_equal(got[k], before[k])]
    if not changed:
        sys.exit("no initializer changed")
    print("checker accepts; %d of %d initializers trained" %
          (len(changed), len(got)))
elif mode == "--same":
    other = initializers(onnx.load(args[0]))
    tol = float(args[1]) if len(args) > 1 else 0.0
    for k, v in got.items():
        err = np.max(np.abs(v - other[k]) / np.maximum(1.0, np.abs(other[k])))
        if err > tol:
            sys.exit("initializer %s differs by %g" % (k, err))
    print("%d initializers agree within %g" % (len(got), tol))
elif mode == "--checkpoint":
    with open(os.path.join(args[0], "manifest.json")) as f:
        manifest = json.load(f)
    count = 0
    for name, entry in manifest["tensors"].items():
        if name in got:
            # f16 initializers hold the f32 checkpoint rounded to f16.
            saved = np.load(os.path.join(args[0], entry["file"]))
            if not np.array_equal(saved.astype(got[name].dtype), got[name]):
                sys.exit("initializer %s differs from the checkpoint" % name)
            count += 1
    print("%d initializers equal the checkpoint's" % count)
elif mode == "--torch":
    import torch
    sys.path.insert(0, args[0])
    import export_onnx_models
    model, _, _ = export_onnx_models.build(args[1])
    state = {k: torch.from_numpy(v.copy()) for k, v in got.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(not k.endswith("num_batches_tracked")
                         for k in missing):
        sys.exit("initializers do not fit the model: %s %s" %
                 (missing, unexpected))
    model.eval()
    with torch.no_grad():
        want = model(torch.from_numpy(np.load(args[2]))).numpy()
    ours = np.load(args[3])
    if not np.allclose(ours, want, rtol=1e-5, atol=1e-5):
        sys.exit("differs from PyTorch: max abs error %g" %
                 np.max(np.abs(ours - want)))
    print("PyTorch with the trained weights agrees within 1e-5")
else:
    sys.exit(__doc__)

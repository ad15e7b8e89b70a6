#!/usr/bin/python3
# ===- composite_model_reference.py - ONNX ops imported as compositions --=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   composite_model_reference.py OUT STEPS
#
# Writes OUT/model.onnx: h = x W (8x6 by 6x5), then HardSwish,
# Softsign, Celu (alpha 0.7), ThresholdedRelu (alpha 0.1), PRelu (a
# trained slope per column) and Shrink (bias 0.1, lambd 0.2) of h, their Sum, and the loss
# ReduceLogSumExp(ReduceL2(s, axis 1) + Mean(ReduceL1(h, axis 1),
# ReduceSumSquare(h, axis 1))); OUT/x.npy (STEPS batches) and OUT/loss.npy:
# what PyTorch gets training W and the slope with plain SGD at lr 0.05.
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

out, steps = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
w = (rng.standard_normal((6, 5)) * 0.5).astype(np.float32)
slope = np.full((5,), 0.25, np.float32)
xs = rng.standard_normal((steps * 8, 6)).astype(np.float32)

n = helper.make_node
nodes = [
    n("MatMul", ["x", "w"], ["h"]),
    n("HardSwish", ["h"], ["b"]),
    n("Softsign", ["h"], ["c"]),
    n("Celu", ["h"], ["d"], alpha=0.7),
    n("ThresholdedRelu", ["h"], ["e"], alpha=0.1),
    n("PRelu", ["h", "slope"], ["f"]),
    n("Shrink", ["h"], ["g"], bias=0.1, lambd=0.2),
    n("Sum", ["b", "c", "d", "e", "f", "g"], ["s"]),
    n("ReduceL2", ["s"], ["l2"], axes=[1], keepdims=0),
    n("ReduceL1", ["h"], ["l1"], axes=[1], keepdims=0),
    n("ReduceSumSquare", ["h"], ["sq"], axes=[1], keepdims=0),
    n("Mean", ["l1", "sq"], ["m"]),
    n("Add", ["l2", "m"], ["t"]),
    n("ReduceLogSumExp", ["t"], ["loss"], keepdims=0),
]
graph = helper.make_graph(
    nodes, "composites",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 6])],
    [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(slope, "slope")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))

wt = torch.tensor(w, requires_grad=True)
st = torch.tensor(slope, requires_grad=True)
losses = []
for step in range(steps):
    x = torch.tensor(xs[step * 8:(step + 1) * 8])
    h = x @ wt
    s = (F.hardswish(h) + F.softsign(h) + F.celu(h, 0.7) +
         torch.where(h > 0.1, h, torch.zeros_like(h)) + F.prelu(h, st) +
         torch.where(h < -0.2, h + 0.1,
                     torch.where(h > 0.2, h - 0.1, torch.zeros_like(h))))
    t = s.norm(dim=1) + (h.abs().sum(1) + (h * h).sum(1)) / 2
    loss = torch.logsumexp(t, 0)
    wt.grad = st.grad = None
    loss.backward()
    with torch.no_grad():
        wt -= 0.05 * wt.grad
        st -= 0.05 * st.grad
    losses.append(loss.item())
np.save(os.path.join(out, "x.npy"), xs)
np.save(os.path.join(out, "loss.npy"), np.array(losses, np.float32))

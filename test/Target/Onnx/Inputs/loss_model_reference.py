#!/usr/bin/python3
# ===- loss_model_reference.py - A model ending in an ONNX loss ----------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   loss_model_reference.py OUT {sce|nll} STEPS
#
# Writes OUT/model.onnx: a linear classifier over (8, 6, 3) inputs (classes
# on axis 1 of the logits, a spatial axis after them) whose only output
# "loss" is SoftmaxCrossEntropyLoss (sce) or NegativeLogLikelihoodLoss of
# LogSoftmax (nll), mean reduction, ignore_index 2; OUT/x.npy and
# OUT/labels.npy (STEPS batches), and OUT/loss.npy: the losses PyTorch gets
# training the same weights with plain SGD at lr 0.5 (F.cross_entropy /
# F.nll_loss with the same ignore_index).
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

out, kind, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(5)
w = rng.standard_normal((5, 6)).astype(np.float32) * 0.5
b = rng.standard_normal((5, 1)).astype(np.float32) * 0.1
xs = rng.standard_normal((steps * 8, 6, 3)).astype(np.float32)
labels = rng.integers(0, 5, (steps * 8, 3)).astype(np.int64)

nodes = [
    helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),  # n s k
    helper.make_node("MatMul", ["xt", "wt"], ["ls"]),  # n s c
    helper.make_node("Transpose", ["ls"], ["lc"], perm=[0, 2, 1]),  # n c s
    helper.make_node("Add", ["lc", "b"], ["logits"]),
]
if kind == "sce":
    nodes.append(helper.make_node("SoftmaxCrossEntropyLoss",
                                  ["logits", "labels"], ["loss"],
                                  ignore_index=2, reduction="mean"))
else:
    nodes.append(helper.make_node("LogSoftmax", ["logits"], ["logp"], axis=1))
    nodes.append(helper.make_node("NegativeLogLikelihoodLoss",
                                  ["logp", "labels"], ["loss"],
                                  ignore_index=2, reduction="mean"))
graph = helper.make_graph(
    nodes, "loss_model",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 6, 3]),
     helper.make_tensor_value_info("labels", TensorProto.INT64, [8, 3])],
    [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
    [numpy_helper.from_array(w.T.copy(), "wt"),
     numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))

wt = torch.tensor(w.T.copy(), requires_grad=True)
bt = torch.tensor(b, requires_grad=True)
losses = []
for step in range(steps):
    x = torch.tensor(xs[step * 8:(step + 1) * 8])
    y = torch.tensor(labels[step * 8:(step + 1) * 8])
    logits = (x.transpose(1, 2) @ wt).transpose(1, 2) + bt
    loss = F.cross_entropy(logits, y, ignore_index=2)
    wt.grad = bt.grad = None
    loss.backward()
    with torch.no_grad():
        wt -= 0.5 * wt.grad
        bt -= 0.5 * bt.grad
    losses.append(loss.item())
np.save(os.path.join(out, "x.npy"), xs)
np.save(os.path.join(out, "labels.npy"), labels)
np.save(os.path.join(out, "loss.npy"), np.array(losses, np.float32))

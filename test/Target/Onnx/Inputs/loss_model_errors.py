#!/usr/bin/python3
# ===- loss_model_errors.py - Broken loss nodes, one per error -----------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   loss_model_errors.py OUT    writes OUT/<error>.onnx (train-loss-ops.test)
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import onnx
from onnx import TensorProto, helper

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
out = sys.argv[1]


def save(name, op, x, target, extra=(), **attrs):
    inputs = [helper.make_tensor_value_info("x", F, x),
              helper.make_tensor_value_info("t", target[0], target[1])]
    names = ["x", "t"]
    for i, shape in enumerate(extra):
        inputs.append(helper.make_tensor_value_info("w%d" % i, F, shape))
        names.append("w%d" % i)
    node = helper.make_node(op, names, ["loss"], name=name, **attrs)
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("loss", F, [])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


save("reduction", "NegativeLogLikelihoodLoss", [4, 3], (I64, [4]),
     reduction="max")
save("target_shape", "NegativeLogLikelihoodLoss", [4, 3, 2], (I64, [4, 3]))
save("target_type", "NegativeLogLikelihoodLoss", [4, 3], (I32, [4]))
save("weight_shape", "NegativeLogLikelihoodLoss", [4, 3], (I64, [4]),
     extra=[[4]])
save("scores_rank", "SoftmaxCrossEntropyLoss", [4], (I64, [4]))

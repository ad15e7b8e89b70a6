#!/usr/bin/python3
# ===- mapping_errors.py - Broken nodes, one per mapping error -----------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   mapping_errors.py OUT    writes OUT/<error>.onnx (train-loss-ops.test,
#                            trilu.test, train-composites.test)
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import onnx
from onnx import TensorProto, helper

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
OUT = sys.argv[1]


def save(name, op, x, target, extra=(), out=(), opset=13, **attrs):
    inputs = [helper.make_tensor_value_info("x", F, x)]
    names = ["x"]
    if target:
        inputs.append(helper.make_tensor_value_info("t", target[0], target[1]))
        names.append("t")
    for i, shape in enumerate(extra):
        inputs.append(helper.make_tensor_value_info("w%d" % i, F, shape))
        names.append("w%d" % i)
    node = helper.make_node(op, names, ["loss"], name=name, **attrs)
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("loss", F, list(out))])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


save("reduction", "NegativeLogLikelihoodLoss", [4, 3], (I64, [4]),
     reduction="max")
save("target_shape", "NegativeLogLikelihoodLoss", [4, 3, 2], (I64, [4, 3]))
save("target_type", "NegativeLogLikelihoodLoss", [4, 3], (I32, [4]))
save("weight_shape", "NegativeLogLikelihoodLoss", [4, 3], (I64, [4]),
     extra=[[4]])
save("scores_rank", "SoftmaxCrossEntropyLoss", [4], (I64, [4]))
save("trilu_k", "Trilu", [3, 4], (I64, [2]), out=[3, 4], opset=14)
save("celu_alpha", "Celu", [3, 4], None, out=[3, 4], alpha=0.0)

#!/usr/bin/python3
# ===- layout_model_reference.py - ONNX layout ops that train ------------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
#   layout_model_reference.py OUT STEPS
#
# Writes OUT/model.onnx: h = x W (8x6 by 6x8), Split(h, [5, 3], axis 1)
# into a and b, Tile(a, [1, 2]), ReduceMin(b, axis 1), DepthToSpace
# (blocksize 2, CRD as pixel_shuffle) and SpaceToDepth of h reshaped to
# 8x4x1x2 and 8x2x2x2, Mod (fmod 1) of h by 50 (h stays inside (-50, 50):
# fmod jumps where x / y crosses an integer, and a composition rounds
# differently from torch.fmod right there), Pow(h, 2 as int64), a 1-D
# Conv of h (as 8x1x8, kernel 3, pad 1, trained), Pad of h (reflect,
# edge, and constant 0.5 with a crop), CumSum (reverse), ReduceProd(b,
# axis 1), InstanceNormalization of h as 8x2x4 (scale and bias trained),
# GlobalMaxPool of h as 8x4x1x2, ScatterElements (add) of b into h,
# Einsum("bi,ij,bj->b") of h, a trained 8x5 matrix E and h[:, :5], LRN of
# h as 8x4x1x2, GatherND of h at (1, 2) and (3, 4), TopK (the 3 largest
# of each row of h), and a Dropout at
# ratio 0 whose mask is read, and the loss of all of them summed;
# OUT/x.npy (STEPS batches) and OUT/loss.npy: what PyTorch gets training W,
# the kernel, E and the instance norm's scale and bias with plain SGD at
# lr 0.01.
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
rng = np.random.default_rng(11)
w = (rng.standard_normal((6, 8)) * 0.5).astype(np.float32)
k = (rng.standard_normal((1, 1, 3)) * 0.5).astype(np.float32)
xs = rng.standard_normal((steps * 8, 6)).astype(np.float32)
e = (rng.standard_normal((8, 5)) * 0.1).astype(np.float32)
gamma = np.array([1.5, 0.5], np.float32)
beta = np.array([0.1, -0.2], np.float32)
where = np.tile(np.array([[7, 0, 3]], np.int64), (8, 1))

n = helper.make_node
nodes = [
    n("MatMul", ["x", "w"], ["h"]),
    n("Split", ["h", "sizes"], ["a", "b"], axis=1),
    n("Tile", ["a", "reps"], ["t"]),
    n("ReduceMin", ["b"], ["m"], axes=[1], keepdims=0),
    n("Reshape", ["h", "shape4"], ["h4"]),
    n("DepthToSpace", ["h4"], ["d"], blocksize=2, mode="CRD"),
    n("Reshape", ["h", "shape2"], ["h2"]),
    n("SpaceToDepth", ["h2"], ["s"], blocksize=2),
    n("Mod", ["h", "divisor"], ["r"], fmod=1),
    n("Pow", ["h", "two"], ["p"]),
    n("Reshape", ["h", "shape1"], ["h1"]),
    n("Conv", ["h1", "k"], ["c"], pads=[1, 1]),
    n("Pad", ["h1", "pads1"], ["pr"], mode="reflect"),
    n("Pad", ["h", "pads2"], ["pe"], mode="edge"),
    n("Pad", ["h", "pads3", "half"], ["pc"]),
    n("CumSum", ["h", "axis1"], ["cs"], reverse=1),
    n("Dropout", ["cs", "zero", "yes"], ["dr", "mask"]),
    n("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT),
    n("Mul", ["dr", "maskf"], ["csm"]),
    n("ReduceL2", ["pr"], ["lpr"], keepdims=0),
    n("ReduceL2", ["pe"], ["lpe"], keepdims=0),
    n("ReduceL2", ["pc"], ["lpc"], keepdims=0),
    n("ReduceL2", ["csm"], ["lcs"], keepdims=0),
    n("ReduceProd", ["b"], ["pb"], axes=[1], keepdims=0),
    n("ReduceSum", ["pb"], ["lpb"], keepdims=0),
    n("Reshape", ["h", "shape3"], ["h3"]),
    n("InstanceNormalization", ["h3", "gamma", "beta"], ["inorm"]),
    n("ReduceL2", ["inorm"], ["lin"], keepdims=0),
    n("GlobalMaxPool", ["h4"], ["gmp"]),
    n("ReduceSum", ["gmp"], ["lgm"], keepdims=0),
    n("ScatterElements", ["h", "where", "b"], ["sc"], axis=1,
      reduction="add"),
    n("ReduceL2", ["sc"], ["lsc"], keepdims=0),
    n("Einsum", ["h", "e", "a"], ["es"], equation="bi,ij,bj->b"),
    n("ReduceSum", ["es"], ["les"], keepdims=0),
    n("LRN", ["h4"], ["lrn"], size=3, alpha=0.5, beta=0.75, bias=2.0),
    n("ReduceL2", ["lrn"], ["llrn"], keepdims=0),
    n("GatherND", ["h", "pairs"], ["gnd"]),
    n("ReduceSum", ["gnd"], ["lgnd"], keepdims=0),
    n("TopK", ["h", "three"], ["topv", "topi"], axis=1),
    n("ReduceSum", ["topv"], ["ltop"], keepdims=0),
    n("ReduceSumSquare", ["t"], ["lt"], keepdims=0),
    n("ReduceSum", ["m"], ["lm"], keepdims=0),
    n("ReduceSumSquare", ["d"], ["ld"], keepdims=0),
    n("ReduceMax", ["s"], ["ls"], keepdims=0),
    n("ReduceMean", ["r"], ["lr"], keepdims=0),
    n("ReduceMean", ["p"], ["lp"], keepdims=0),
    n("ReduceSumSquare", ["c"], ["lc"], keepdims=0),
    n("Sum", ["lt", "lm", "ld", "ls", "lr", "lp", "lc", "lpr", "lpe", "lpc",
              "lcs", "lpb", "lin", "lgm", "lsc", "les", "llrn",
              "lgnd", "ltop"], ["loss"]),
]
i64 = lambda v: np.array(v, np.int64)
graph = helper.make_graph(
    nodes, "layout",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 6])],
    [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(k, "k"),
     numpy_helper.from_array(i64([5, 3]), "sizes"),
     numpy_helper.from_array(i64([1, 2]), "reps"),
     numpy_helper.from_array(i64([8, 4, 1, 2]), "shape4"),
     numpy_helper.from_array(i64([8, 2, 2, 2]), "shape2"),
     numpy_helper.from_array(i64([8, 1, 8]), "shape1"),
     numpy_helper.from_array(np.array(50.0, np.float32), "divisor"),
     numpy_helper.from_array(i64(2), "two"),
     numpy_helper.from_array(i64([0, 0, 2, 0, 0, 3]), "pads1"),
     numpy_helper.from_array(i64([1, 0, 0, 2]), "pads2"),
     numpy_helper.from_array(i64([0, -2, 2, 1]), "pads3"),
     numpy_helper.from_array(np.array(0.5, np.float32), "half"),
     numpy_helper.from_array(i64(1), "axis1"),
     numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
     numpy_helper.from_array(np.array(True), "yes"),
     numpy_helper.from_array(i64([8, 2, 4]), "shape3"),
     numpy_helper.from_array(gamma, "gamma"),
     numpy_helper.from_array(beta, "beta"),
     numpy_helper.from_array(where, "where"),
     numpy_helper.from_array(e, "e"),
     numpy_helper.from_array(i64([[1, 2], [3, 4]]), "pairs"),
     numpy_helper.from_array(i64([3]), "three")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))

wt = torch.tensor(w, requires_grad=True)
kt = torch.tensor(k, requires_grad=True)
et = torch.tensor(e, requires_grad=True)
gt = torch.tensor(gamma, requires_grad=True)
bt = torch.tensor(beta, requires_grad=True)
losses = []
for step in range(steps):
    x = torch.tensor(xs[step * 8:(step + 1) * 8])
    h = x @ wt
    a, b = h[:, :5], h[:, 5:]
    loss = (a.repeat(1, 2) ** 2).sum() + b.min(1).values.sum()
    loss = loss + (F.pixel_shuffle(h.reshape(8, 4, 1, 2), 2) ** 2).sum()
    loss = loss + F.pixel_unshuffle(h.reshape(8, 2, 2, 2), 2).max()
    loss = loss + torch.fmod(h, 50.0).mean() + (h ** 2).mean()
    loss = loss + (F.conv1d(h.reshape(8, 1, 8), kt, padding=1) ** 2).sum()
    loss = loss + F.pad(h.reshape(8, 1, 8), (2, 3), mode="reflect").norm()
    loss = loss + F.pad(h[None], (0, 2, 1, 0), mode="replicate").norm()
    loss = loss + F.pad(h, (-2, 1, 0, 2), value=0.5).norm()
    loss = loss + h.flip(1).cumsum(1).flip(1).norm() + b.prod(1).sum()
    loss = loss + F.instance_norm(h.reshape(8, 2, 4), weight=gt, bias=bt,
                                  eps=1e-5).norm()
    loss = loss + h.reshape(8, 4, 1, 2).amax((2, 3)).sum()
    loss = loss + h.scatter_add(1, torch.tensor(where), b).norm()
    loss = loss + torch.einsum("bi,ij,bj->b", h, et, a).sum()
    loss = loss + F.local_response_norm(h.reshape(8, 4, 1, 2), 3, alpha=0.5,
                                        beta=0.75, k=2.0).norm()
    loss = loss + h[1, 2] + h[3, 4] + h.topk(3, 1).values.sum()
    wt.grad = kt.grad = gt.grad = bt.grad = et.grad = None
    loss.backward()
    with torch.no_grad():
        wt -= 0.01 * wt.grad
        kt -= 0.01 * kt.grad
        gt -= 0.01 * gt.grad
        bt -= 0.01 * bt.grad
        et -= 0.01 * et.grad
    losses.append(loss.item())
np.save(os.path.join(out, "x.npy"), xs)
np.save(os.path.join(out, "loss.npy"), np.array(losses, np.float32))

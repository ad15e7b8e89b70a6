#!/usr/bin/python3
# ===- make_onnx_inputs.py - The small .onnx files of test/Target/Onnx ---=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Writes, with the onnx package, the models the importer tests read: valid
# ones whose IR the tests check, and broken ones, one per error. The output
# is checked in next to this script; run it again after changing it:
#
#   /usr/bin/python3 make_onnx_inputs.py DIR
#
# ===---------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, inits=(), opset=13, check=True):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="make_onnx_inputs")
    m.ir_version = 8
    if check:
        onnx.checker.check_model(m)
    return m


def valid_models():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((3,)).astype(np.float32)
    yield "gemm", model(
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc",
                          alpha=0.5, beta=2.0, transB=1)],
        [vi("x", F, [2, 4])], [vi("y", F, [2, 3])],
        [init("w", w.T.copy()), init("b", b)])

    # 1-D convolution and pooling (NCL) import as 2-D ones of height 1.
    yield "conv1d", model(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="c1", pads=[1, 1],
                          strides=[2]),
         helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2])],
        [vi("x", F, [1, 2, 5])], [vi("y", F, [1, 2, 2])],
        [init("w", np.ones((2, 2, 3), np.float32))])

    # Ops imported as compositions: Split, Tile, DepthToSpace, CastLike,
    # ReduceMin, Mod, Pow with an integer exponent.
    yield "layout-ops", model(
        [helper.make_node("Split", ["x", "sizes"], ["a", "b"], name="split",
                          axis=1),
         helper.make_node("Tile", ["a", "reps"], ["t"], name="tile"),
         helper.make_node("DepthToSpace", ["t"], ["d"], name="d2s",
                          blocksize=2, mode="CRD"),
         helper.make_node("CastLike", ["n", "d"], ["nf"], name="castlike"),
         helper.make_node("ReduceMin", ["b"], ["m"], name="rmin", axes=[1],
                          keepdims=0),
         helper.make_node("Mod", ["m", "nf"], ["r"], name="mod", fmod=1),
         helper.make_node("Pow", ["r", "n"], ["y"], name="pow")],
        [vi("x", F, [1, 6, 2, 2]), vi("n", I64, [1])],
        [vi("d", F, [1, 1, 4, 8]), vi("y", F, [1, 2, 2])],
        [init("sizes", np.array([4, 2], np.int64)),
         init("reps", np.array([1, 1, 1, 2], np.int64))], opset=15)

    # ConvTranspose (stride 2, output_padding 1) with a bias, then Resize:
    # nearest by scales, linear (align_corners) by sizes.
    yield "upsample", model(
        [helper.make_node("ConvTranspose", ["x", "w", "b"], ["t"],
                          name="deconv", strides=[2, 2], pads=[1, 1, 1, 1],
                          output_padding=[1, 1]),
         helper.make_node("Resize", ["t", "", "scales"], ["n"], name="near",
                          mode="nearest"),
         helper.make_node("Resize", ["n", "", "", "sizes"], ["y"], name="lin",
                          mode="linear",
                          coordinate_transformation_mode="align_corners")],
        [vi("x", F, [1, 2, 3, 3])], [vi("y", F, [1, 4, 5, 5])],
        [init("w", np.ones((2, 4, 3, 3), np.float32)),
         init("b", np.zeros((4,), np.float32)),
         init("scales", np.array([1, 1, 2, 2], np.float32)),
         init("sizes", np.array([1, 4, 5, 5], np.int64))])

    # Pad, OneHot and CumSum (MapIndexing.cpp), Dropout's mask.
    yield "indexing-ops", model(
        [helper.make_node("Pad", ["x", "pads"], ["p"], name="pad",
                          mode="reflect"),
         helper.make_node("Pad", ["x", "cpads", "half"], ["c"], name="cpad"),
         helper.make_node("OneHot", ["i", "depth", "v"], ["o"], name="hot"),
         helper.make_node("CumSum", ["x", "axis"], ["s"], name="cumsum",
                          exclusive=1),
         helper.make_node("Dropout", ["x"], ["d", "mask"], name="drop")],
        [vi("x", F, [2, 3]), vi("i", I64, [2])],
        [vi("p", F, [2, 5]), vi("c", F, [3, 3]), vi("o", F, [2, 3]),
         vi("s", F, [2, 3]), vi("mask", TensorProto.BOOL, [2, 3])],
        [init("pads", np.array([0, 1, 0, 1], np.int64)),
         init("cpads", np.array([1, 0, 0, 0], np.int64)),
         init("half", np.array(0.5, np.float32)),
         init("depth", np.array(3, np.int64)),
         init("v", np.array([0, 1], np.float32)),
         init("axis", np.array(1, np.int64))])

    # Half-precision inputs, outputs and initializers are computed in f32;
    # casts to half types round.
    yield "half", model(
        [helper.make_node("Add", ["x", "b"], ["s"]),
         helper.make_node("Cast", ["s"], ["r"], to=TensorProto.BFLOAT16),
         helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT16)],
        [vi("x", TensorProto.FLOAT16, [2])],
        [vi("y", TensorProto.FLOAT16, [2])],
        [init("b", np.array([0.5, 1.0 / 3], np.float16))])

    # A FLOAT16 weight (trained in f32, exported back as FLOAT16).
    yield "half-weights", model(
        [helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT),
         helper.make_node("MatMul", ["x", "wf"], ["y"])],
        [vi("x", F, [4, 3])], [vi("y", F, [4, 2])],
        [init("w", np.array([[0.5, -1], [0.25, 2], [1, 1.0 / 3]],
                            np.float16))])

    # UINT8 image data is read as ui8 and computed in i32 (cast at the
    # graph's edges): scaled = img / 255 in f32, and a ui8 output wraps.
    yield "uint8", model(
        [helper.make_node("Cast", ["img"], ["f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["f", "scale"], ["scaled"]),
         helper.make_node("Add", ["img", "shift"], ["shifted"])],
        [vi("img", TensorProto.UINT8, [2, 3])],
        [vi("scaled", F, [2, 3]), vi("shifted", TensorProto.UINT8, [2, 3])],
        [init("scale", np.array(1.0 / 255, np.float32)),
         init("shift", np.array(100, np.uint8))], opset=14)

    # PyTorch's shape arithmetic: y = reshape(x, [shape(x)[0], -1]).
    yield "fold-shape", model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Constant", [], ["zero"],
                          value=numpy_helper.from_array(np.array(0, np.int64))),
         helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
         helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
         helper.make_node("Reshape", ["x", "shape"], ["y"], name="flat")],
        [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 12])],
        [init("axes", np.array([0], np.int64)),
         init("minus1", np.array([-1], np.int64))])

    # Conv + BatchNormalization + Relu + pools, as PyTorch exports them.
    yield "conv-bn", model(
        [helper.make_node("Conv", ["x", "cw"], ["c"], name="conv",
                          kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          strides=[2, 2]),
         helper.make_node("BatchNormalization",
                          ["c", "gamma", "beta", "mean", "var"], ["n"],
                          name="bn", epsilon=1e-5),
         helper.make_node("Relu", ["n"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2],
                          strides=[2, 2]),
         helper.make_node("GlobalAveragePool", ["p"], ["g"]),
         helper.make_node("Flatten", ["g"], ["y"], axis=1)],
        [vi("x", F, [2, 3, 8, 8])], [vi("y", F, [2, 4])],
        [init("cw", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
         init("gamma", np.ones(4, np.float32)),
         init("beta", np.zeros(4, np.float32)),
         init("mean", np.full(4, 0.1, np.float32)),
         init("var", np.full(4, 2.0, np.float32))], opset=15)

    # Known indices are checked and wrapped at import time.
    yield "gather-ids", model(
        [helper.make_node("Gather", ["table", "ids"], ["y"], name="embed")],
        [vi("table", F, [5, 2])], [vi("y", F, [3, 2])],
        [init("ids", np.array([4, -1, 0], np.int64))])

    # An integer initializer used as data: a frozen variable.
    yield "int-add", model(
        [helper.make_node("Add", ["x", "offset"], ["y"], name="shift")],
        [vi("x", I64, [3])], [vi("y", I64, [3])],
        [init("offset", np.array([1, 2, 3], np.int64))])

    yield "two-outputs", model(
        [helper.make_node("Relu", ["x"], ["y"]),
         helper.make_node("Neg", ["x"], ["z"])],
        [vi("x", F, [2, 3])], [vi("y", F, [2, 3]), vi("z", F, [2, 3])])

    yield "layernorm", model(
        [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"],
                          name="ln", axis=-1, epsilon=1e-5)],
        [vi("x", F, [2, 4, 8])], [vi("y", F, [2, 4, 8])],
        [init("g", np.ones(8, np.float32)), init("b", np.zeros(8, np.float32))],
        opset=17)

    # A BatchNormalization of a training export: batch statistics, and the
    # updated running mean read as an output.
    yield "bn-train", model(
        [helper.make_node("BatchNormalization",
                          ["x", "g", "b", "rm", "rv"], ["y", "rm_out", "rv_out"],
                          name="bn", training_mode=1, momentum=0.8)],
        [vi("x", F, [4, 2, 3, 3])], [vi("y", F, [4, 2, 3, 3]), vi("rm_out", F, [2])],
        [init("g", np.array([1.0, 2.0], np.float32)),
         init("b", np.array([0.5, -0.5], np.float32)),
         init("rm", np.zeros(2, np.float32)),
         init("rv", np.ones(2, np.float32))], opset=15)
    # BFLOAT16 edges: f32 at the graph's edges, their values rounded.
    yield "bf16-input", model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [vi("x", TensorProto.BFLOAT16, [2])],
        [vi("y", TensorProto.BFLOAT16, [2])])
    # Unsigned and 16-bit integer edges, and BitShift on each width.
    U16, U64 = TensorProto.UINT16, TensorProto.UINT64
    yield "unsigned", model(
        [helper.make_node("BitShift", ["a", "s"], ["left"], name="shl",
                          direction="LEFT"),
         helper.make_node("BitShift", ["b", "t"], ["right"], name="shr",
                          direction="RIGHT"),
         helper.make_node("Max", ["h", "h"], ["hmax"], name="max"),
         helper.make_node("EyeLike", ["h2"], ["eye"], name="eye",
                          dtype=U16)],
        [vi("a", U16, [3]), vi("s", U16, [3]), vi("b", U64, [3]),
         vi("t", U64, [3]), vi("h", TensorProto.INT16, [2]),
         vi("h2", F, [2, 2])],
        [vi("left", U16, [3]), vi("right", U64, [3]),
         vi("hmax", TensorProto.INT16, [2]), vi("eye", U16, [2, 2])])


def broken_models():
    yield "split-uneven", model(
        [helper.make_node("Split", ["x"], ["a", "b"], name="split")],
        [vi("x", F, [3])], [vi("a", F, [1]), vi("b", F, [2])],
        check=False)
    yield "tile-repeats", model(
        [helper.make_node("Tile", ["x", "reps"], ["y"], name="tile")],
        [vi("x", F, [2, 3])], [vi("y", F, [4, 3])],
        [init("reps", np.array([2], np.int64))], check=False)
    yield "depth-to-space-mode", model(
        [helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s",
                          blocksize=2, mode="XYZ")],
        [vi("x", F, [1, 4, 2, 2])], [vi("y", F, [1, 1, 4, 4])], check=False)
    yield "pad-mode", model(
        [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad",
                          mode="wrap")],
        [vi("x", F, [2, 3])], [vi("y", F, [2, 5])],
        [init("pads", np.array([0, 1, 0, 1], np.int64))], check=False)
    yield "pad-reflect", model(
        [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad",
                          mode="reflect")],
        [vi("x", F, [2, 3])], [vi("y", F, [2, 9])],
        [init("pads", np.array([0, 3, 0, 3], np.int64))])
    yield "onehot-depth", model(
        [helper.make_node("OneHot", ["i", "depth", "v"], ["y"], name="hot")],
        [vi("i", I64, [3]), vi("depth", I64, [])], [vi("y", F, [3, 4])],
        [init("v", np.array([0, 1], np.float32))], check=False)
    yield "resize-crop", model(
        [helper.make_node("Resize", ["x", "roi", "scales"], ["y"],
                          name="crop", mode="linear",
                          coordinate_transformation_mode="tf_crop_and_resize")],
        [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])],
        [init("roi", np.array([0, 0, 0, 0, 1, 1, 1, 1], np.float32)),
         init("scales", np.array([1, 1, 2, 2], np.float32))])
    yield "deconv-output-padding", model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv",
                          strides=[2, 2], output_padding=[2, 2])],
        [vi("x", F, [1, 2, 3, 3])], [vi("y", F, [1, 2, 9, 9])],
        [init("w", np.ones((2, 2, 3, 3), np.float32))], check=False)
    yield "resize-nearest-mode", model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up",
                          nearest_mode="away")],
        [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])],
        [init("scales", np.array([1, 1, 2, 2], np.float32))], check=False)
    yield "lstm-clip", model(
        [helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm",
                          hidden_size=2, clip=1.0)],
        [vi("x", F, [3, 1, 2])], [vi("y", F, [3, 1, 1, 2])],
        [init("w", np.ones((1, 8, 2), np.float32)),
         init("r", np.ones((1, 8, 2), np.float32))])
    # Peepholes, an initial cell state and biases of the wrong sizes: named
    # at the node, not by the reshape that cannot take them.
    for what, index, shape in (("peephole", 7, (1, 4)),
                               ("initial-c", 6, (1, 1, 3)),
                               ("bias", 3, (1, 5))):
        inputs = ["x", "w", "r", "", "", "", "", ""][:index + 1]
        inputs[index] = "p"
        yield "lstm-%s-shape" % what, model(
            [helper.make_node("LSTM", inputs, ["y"], name="lstm",
                              hidden_size=2)],
            [vi("x", F, [3, 1, 2])], [vi("y", F, [3, 1, 1, 2])],
            [init("w", np.ones((1, 8, 2), np.float32)),
             init("r", np.ones((1, 8, 2), np.float32)),
             init("p", np.ones(shape, np.float32))], check=False)
    yield "einsum-diagonal", model(
        [helper.make_node("Einsum", ["x"], ["y"], name="einsum",
                          equation="ii->i")],
        [vi("x", F, [3, 3])], [vi("y", F, [3])])
    yield "mod-float", model(
        [helper.make_node("Mod", ["x", "x"], ["y"], name="mod")],
        [vi("x", F, [2])], [vi("y", F, [2])])
    yield "gathernd-batch", model(
        [helper.make_node("GatherND", ["x", "i"], ["y"], name="gnd",
                          batch_dims=1)],
        [vi("x", F, [2, 3]), vi("i", I64, [3, 1])], [vi("y", F, [3])])
    yield "mvn-axes", model(
        [helper.make_node("MeanVarianceNormalization", ["x"], ["y"],
                          name="mvn")],
        [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])
    yield "unsupported-op", model(
        [helper.make_node("Det", ["x"], ["y"], name="det")],
        [vi("x", F, [3, 3])], [vi("y", F, [])])
    yield "unsupported-attr", model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool",
                          kernel_shape=[2, 2], storage_order=1)],
        [vi("x", F, [1, 1, 4, 4])], [vi("y", F, [1, 1, 3, 3])])
    yield "sparse-constant", model(
        [helper.make_node(
            "Constant", [], ["y"], name="c",
            sparse_value=helper.make_sparse_tensor(
                numpy_helper.from_array(np.array([1.0], np.float32), "v"),
                numpy_helper.from_array(np.array([0], np.int64), "i"), [2]))],
        [], [vi("y", F, [2])])
    yield "unsupported-dtype", model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [vi("x", TensorProto.COMPLEX64, [2])],
        [vi("y", TensorProto.COMPLEX64, [2])], check=False)
    yield "bitshift-direction", model(
        [helper.make_node("BitShift", ["x", "s"], ["y"], name="shift",
                          direction="UP")],
        [vi("x", TensorProto.UINT8, [2]), vi("s", TensorProto.UINT8, [2])],
        [vi("y", TensorProto.UINT8, [2])], check=False)
    yield "range-runtime", model(
        [helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")],
        [vi("a", TensorProto.INT64, []), vi("b", TensorProto.INT64, []),
         vi("d", TensorProto.INT64, [])], [vi("y", TensorProto.INT64, [4])])
    yield "cast-string", model(
        [helper.make_node("Cast", ["x"], ["y"], name="tostr",
                          to=TensorProto.STRING)],
        [vi("x", F, [2])], [vi("y", TensorProto.STRING, [2])])
    # Softmax-11 normalizes over the axes from `axis` on, flattened; the
    # version converter rewrites it for Softmax-13 (over one axis).
    yield "old-opset", model(
        [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
        [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset=11)
    yield "old-opset-no-adapter", model(
        [helper.make_node("Cast", ["x"], ["y"], name="c", to="INT64")],
        [vi("x", F, [2, 3])], [vi("y", I64, [2, 3])], opset=5)
    yield "dynamic-dim", model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [vi("x", F, ["batch", 3])], [vi("y", F, ["batch", 3])])
    yield "shape-input", model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
        [vi("x", F, [2, 3]), vi("shape", I64, [1])], [vi("y", F, [6])],
        check=False)
    yield "gather-range", model(
        [helper.make_node("Gather", ["x", "ids"], ["y"], name="g")],
        [vi("x", F, [3, 2])], [vi("y", F, [1, 2])],
        [init("ids", np.array([7], np.int64))])
    yield "slice-negative-step", model(
        [helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"],
                          name="rev")],
        [vi("x", F, [4])], [vi("y", F, [4])],
        [init("s", np.array([-1], np.int64)),
         init("e", np.array([-5], np.int64)),
         init("a", np.array([0], np.int64)),
         init("st", np.array([-1], np.int64))])
    yield "convtranspose3d", model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="ct3")],
        [vi("x", F, [1, 2, 5, 5, 5])], [vi("y", F, [1, 2, 7, 7, 7])],
        [init("w", np.ones((2, 2, 3, 3, 3), np.float32))])
    yield "bad-broadcast", model(
        [helper.make_node("Add", ["x", "z"], ["y"], name="add")],
        [vi("x", F, [3, 4]), vi("z", F, [5])], [vi("y", F, [3, 4])],
        check=False)
    yield "undefined-input", model(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="r")],
        [vi("x", F, [2])], [vi("y", F, [2])], check=False)
    yield "dropout-ratio", model(
        [helper.make_node("Dropout", ["x", "r"], ["y", "mask"], name="drop")],
        [vi("x", F, [2]), vi("r", F, [])],
        [vi("y", F, [2]), vi("mask", TensorProto.BOOL, [2])])
    yield "bn-saved-stats", model(
        [helper.make_node("BatchNormalization", ["x", "g", "b", "rm", "rv"],
                          ["y", "m", "v", "saved_mean", "saved_var"],
                          name="bn9")],
        [vi("x", F, [2, 2])], [vi("y", F, [2, 2]), vi("saved_mean", F, [2])],
        [init(n, np.ones(2, np.float32)) for n in ["g", "b", "rm", "rv"]])
    ext = helper.make_tensor("w", F, [2], [1.0, 2.0])
    ext.ClearField("float_data")
    ext.data_location = TensorProto.EXTERNAL
    entry = ext.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    yield "external-data", model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [vi("x", F, [2])], [vi("y", F, [2])], [ext], check=False)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
    for name, m in list(valid_models()) + list(broken_models()):
        onnx.save(m, os.path.join(out, name + ".onnx"))
    with open(os.path.join(out, "not-protobuf.onnx"), "w") as f:
        f.write("this is not an ONNX model\n")
    data = open(os.path.join(out, "conv-bn.onnx"), "rb").read()
    with open(os.path.join(out, "truncated.onnx"), "wb") as f:
        f.write(data[:len(data) // 2])


if __name__ == "__main__":
    main()

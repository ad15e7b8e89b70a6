#!/usr/bin/python3
# ===- onnx_conformance.py - ONNX backend node tests through of-run ------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Runs the ONNX backend test cases that Debian's libonnx-testdata installs
# (each a directory with model.onnx and test_data_set_*/{input,output}_*.pb)
# through our importer and runtime: import with of-translate --import-onnx
# (a failure there is "unsupported"), then run with of-run on 1 CPU rank and
# on 2 (inputs split along axis 0, the rest propagated) and compare every
# output with the expected one (ONNX's backend tolerance: rtol 1e-3,
# atol 1e-7). Prints one line per case and the pass/fail/unsupported counts.
#
# Integer graph inputs that a node reads as a shape, axes or similar (the
# importer needs those at import time) are bound to the test's values: the
# model is rewritten with them as initializers before import.
#
#   onnx_conformance.py --bin build/bin [--suite node ...] [--filter GLOB]
#                       [--cases FILE] [--write-passing FILE]
#
# With --cases FILE (one "suite/case" a line), only those run and the exit
# status is 1 unless every one passes: the CI test of the passing list.
#
# ===---------------------------------------------------------------------=== #

import argparse
import fnmatch
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# (op type, input index) pairs that the importer reads at import time.
SHAPE_PORTS = {
    ("Reshape", 1), ("Expand", 1), ("ConstantOfShape", 0),
    ("Unsqueeze", 1), ("Squeeze", 1), ("ReduceSum", 1),
    ("Slice", 1), ("Slice", 2), ("Slice", 3), ("Slice", 4),
    ("Dropout", 1), ("Dropout", 2), ("Split", 1), ("Tile", 1),
    ("Range", 0), ("Range", 1), ("Range", 2), ("Pad", 1), ("OneHot", 1),
    ("CumSum", 1), ("Resize", 1), ("Resize", 2), ("Resize", 3),
    ("RNN", 4), ("GRU", 4), ("LSTM", 4), ("TopK", 1),
}


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def to_array(tensor, elem_type):
    """The tensor as numpy. A BFLOAT16 edge (`elem_type`, the graph's
    declared type: the test data holds its bits as UINT16, numpy having no
    bf16) as the float32 values of those bits, which is what of-run reads
    and writes for a bf16 graph edge."""
    array = numpy_helper.to_array(tensor)
    if elem_type == onnx.TensorProto.BFLOAT16 and array.dtype == np.uint16:
        array = (array.astype(np.uint32) << 16).view(np.float32)
    return array


def datasets(case_dir):
    """[(inputs, outputs)] with each a list of TensorProtos, in order."""
    sets = []
    for d in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
        def files(kind):
            paths = glob.glob(os.path.join(d, kind + "_*.pb"))
            paths.sort(key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
            return [read_tensor(p) for p in paths]
        sets.append((files("input"), files("output")))
    return sets


def bind_shape_inputs(model, inputs):
    """Moves graph inputs consumed at a shape port into initializers.

    Returns the names of the inputs that remain graph inputs, in order."""
    graph = model.graph
    initialized = {t.name for t in graph.initializer}
    real = [i for i in graph.input if i.name not in initialized]
    bound = set()
    for node in graph.node:
        for index, name in enumerate(node.input):
            if (node.op_type, index) in SHAPE_PORTS and name:
                bound.add(name)
    remaining = []
    for info, value in zip(real, inputs):
        if info.name in bound:
            tensor = onnx.TensorProto()
            tensor.CopyFrom(value)
            tensor.name = info.name
            graph.initializer.append(tensor)
            graph.input.remove(info)
        else:
            remaining.append((info.name, value))
    return remaining


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % timeout


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.split("error: ", 1)[-1].strip()
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(no output)"


def compare(outputs, expected, out_dir):
    """Compares the graph's `outputs` (in order: some test data leaves its
    tensors unnamed) with the `expected` tensors."""
    for info, tensor in zip(outputs, expected):
        name = info.name
        want = to_array(tensor, info.type.tensor_type.elem_type)
        path = os.path.join(out_dir, name + ".npy")
        if not os.path.exists(path):
            return "output '%s' was not written" % name
        got = np.load(path)
        if got.shape != want.shape:
            return "output '%s' has shape %s, expected %s" % (
                name, got.shape, want.shape)
        if want.dtype == bool or got.dtype == bool:
            if not np.array_equal(got.astype(bool), want.astype(bool)):
                return "output '%s' differs" % name
            continue
        try:
            np.testing.assert_allclose(got.astype(np.float64),
                                       want.astype(np.float64),
                                       rtol=1e-3, atol=1e-7)
        except AssertionError:
            g, w = got.astype(np.float64), want.astype(np.float64)
            bad = ~np.isclose(g, w, rtol=1e-3, atol=1e-7, equal_nan=True)
            with np.errstate(invalid="ignore"):
                err = np.max(np.abs(g[bad] - w[bad]))
            return "output '%s' differs in %d of %d elements (max abs " \
                "error %.3g)" % (name, bad.sum(), bad.size, err)
    return None


def run_case(bin_dir, suite, case, work):
    """("pass" | "fail" | "unsupported", detail)."""
    case_dir = os.path.join(DATA, suite, case)
    sets = datasets(case_dir)
    if not sets:
        return "unsupported", "no test data"
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    for number, (inputs, outputs) in enumerate(sets):
        graph_model = onnx.ModelProto()
        graph_model.CopyFrom(model)
        remaining = bind_shape_inputs(graph_model, inputs)
        path = os.path.join(work, "model.onnx")
        onnx.save(graph_model, path)
        code, text = run([os.path.join(bin_dir, "of-translate"),
                          "--import-onnx", path, "-o", os.devnull])
        if code != 0:
            return "unsupported", first_error(text)
        bindings = []
        types = {i.name: i.type.tensor_type.elem_type
                 for i in graph_model.graph.input}
        shapes = {i.name: [d.dim_value if d.HasField("dim_value") else None
                           for d in i.type.tensor_type.shape.dim]
                  for i in graph_model.graph.input}
        for name, tensor in remaining:
            declared = shapes[name]
            if len(declared) != len(tensor.dims) or any(
                    d is not None and d != t
                    for d, t in zip(declared, tensor.dims)):
                return "unsupported", (
                    "broken test data: input '%s' has shape %s, the model "
                    "declares %s" % (name, list(tensor.dims), declared))
        for index, (name, tensor) in enumerate(remaining):
            npy = os.path.join(work, "input_%d.npy" % index)
            np.save(npy, to_array(tensor, types[name]))
            bindings.append("%s=@%s" % (name, npy))
        for ranks in (1, 2):
            out_dir = os.path.join(work, "out%d_%d" % (number, ranks))
            os.makedirs(out_dir, exist_ok=True)
            cmd = [os.path.join(bin_dir, "of-run"), path,
                   "--devices", "cpu:%d" % ranks, "--save_outputs", out_dir,
                   "--progress", "off"]
            if bindings:
                cmd += ["--input", ",".join(bindings)]
            code, text = run(cmd)
            if code != 0:
                return "fail", "%d rank(s): %s" % (ranks, first_error(text))
            why = compare(model.graph.output, outputs, out_dir)
            if why:
                return "fail", "%d rank(s): %s" % (ranks, why)
    return "pass", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True,
                        help="directory with of-translate and of-run")
    parser.add_argument("--suite", action="append", choices=SUITES,
                        help="suites to run (default: all four)")
    parser.add_argument("--filter", default="*", help="case name glob")
    parser.add_argument("--cases", help="file of suite/case lines to run; "
                        "exit 1 unless every one passes")
    parser.add_argument("--write-passing", help="write the passing cases here")
    parser.add_argument("--quiet", action="store_true",
                        help="print only failures and the counts")
    args = parser.parse_args()

    if args.cases:
        with open(args.cases) as f:
            cases = [tuple(line.strip().split("/", 1)) for line in f
                     if line.strip() and not line.startswith("#")]
    else:
        cases = []
        for suite in args.suite or SUITES:
            root = os.path.join(DATA, suite)
            for case in sorted(os.listdir(root)):
                if fnmatch.fnmatch(case, args.filter) and os.path.exists(
                        os.path.join(root, case, "model.onnx")):
                    cases.append((suite, case))

    counts = {"pass": 0, "fail": 0, "unsupported": 0}
    passing = []
    for suite, case in cases:
        with tempfile.TemporaryDirectory() as work:
            try:
                status, detail = run_case(args.bin, suite, case, work)
            except Exception as e:  # A case the onnx package cannot read.
                status, detail = "unsupported", "onnx: %s" % e
        counts[status] += 1
        if status == "pass":
            passing.append("%s/%s" % (suite, case))
        if not args.quiet or status != "pass" and args.cases:
            print("%-11s %s/%s%s" % (status.upper(), suite, case,
                                     ": " + detail if detail else ""),
                  flush=True)
    print("%d passed, %d failed, %d unsupported (of %d)" % (
        counts["pass"], counts["fail"], counts["unsupported"], len(cases)))
    if args.write_passing:
        with open(args.write_passing, "w") as f:
            f.write("# ONNX backend test cases that pass on 1 and 2 CPU ranks;\n"
                    "# written by tools/onnx-conformance/onnx_conformance.py"
                    " --write-passing\n")
            for name in passing:
                f.write(name + "\n")
    if args.cases and counts["pass"] != len(cases):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

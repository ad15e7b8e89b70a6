#!/usr/bin/python3
# ===- auto_parallel_cases.py - Coordinate descent against the optimum ---=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Generates small training steps (MLPs, attention blocks, convolution
# blocks), lays each out with oneflow-auto-parallel on 2, 4 and 2x2 devices,
# with and without a memory limit, once by coordinate descent (search=cd)
# and once by the integer program (search=exact, GLPK), and prints the two
# predicted step times side by side. The memory limit of a case is halfway
# between the smallest memory any strategy can have (the pass names it when
# asked for 1 byte) and what the unlimited optimum uses.
#
#   bench/auto_parallel_cases.py --bin build/bin --cluster FILE [--quick]
#                                [--require N]
#
# Exits 1 when fewer than --require cases (default: all) have coordinate
# descent within --tolerance (2%) of the optimum, or when the integer
# program did not prove an optimum. Plain python3, no dependencies.
#
# ===---------------------------------------------------------------------=== #

import argparse
import os
import re
import subprocess
import sys
import tempfile


def mlp(batch, widths):
    lines = [f'  %x = oneflow.input "x" : tensor<{batch}x{widths[0]}xf32>',
             f'  %labels = oneflow.input "labels" : tensor<{batch}xi64>']
    h = "%x"
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        lines += [
            f'  %w{i} = oneflow.variable "fc{i}.weight" {{init = #oneflow.init<normal(0.0, 0.1)>, seed = {i + 1}}} : tensor<{a}x{b}xf32>',
            f'  %b{i} = oneflow.variable "fc{i}.bias" {{init = #oneflow.init<zeros>}} : tensor<{b}xf32>',
            f'  %m{i} = oneflow.matmul {h}, %w{i} : (tensor<{batch}x{a}xf32>, tensor<{a}x{b}xf32>) -> tensor<{batch}x{b}xf32>',
            f'  %a{i} = oneflow.add %m{i}, %b{i} : (tensor<{batch}x{b}xf32>, tensor<{b}xf32>) -> tensor<{batch}x{b}xf32>']
        h = f"%a{i}"
        if i + 2 < len(widths):
            lines.append(f'  %r{i} = oneflow.relu {h} : (tensor<{batch}x{b}xf32>) -> tensor<{batch}x{b}xf32>')
            h = f"%r{i}"
    c = widths[-1]
    lines += [
        f'  %prob, %ce = oneflow.sparse_softmax_cross_entropy {h}, %labels : (tensor<{batch}x{c}xf32>, tensor<{batch}xi64>) -> (tensor<{batch}x{c}xf32>, tensor<{batch}xf32>)',
        f'  %loss = oneflow.reduce_mean %ce {{axes = array<i64: 0>}} : (tensor<{batch}xf32>) -> tensor<f32>']
    return lines


def attention(batch, seq, hidden, heads):
    t, d = batch * seq, hidden // heads
    x = f"tensor<{t}x{hidden}xf32>"
    split = f"tensor<{batch}x{seq}x{heads}x{d}xf32>"
    per_head = f"tensor<{batch}x{heads}x{seq}x{d}xf32>"
    scores = f"tensor<{batch}x{heads}x{seq}x{seq}xf32>"
    lines = [f'  %x = oneflow.input "x" : {x}']
    for i, name in enumerate("qkvo"):
        lines.append(f'  %w{name} = oneflow.variable "attn.{name}.weight" {{init = #oneflow.init<normal(0.0, 0.1)>, seed = {i + 1}}} : tensor<{hidden}x{hidden}xf32>')
    for name in "qkv":
        lines += [
            f'  %{name}0 = oneflow.matmul %x, %w{name} : ({x}, tensor<{hidden}x{hidden}xf32>) -> {x}',
            f'  %{name}1 = oneflow.reshape %{name}0 : ({x}) -> {split}',
            f'  %{name} = oneflow.transpose %{name}1 {{perm = array<i64: 0, 2, 1, 3>}} : ({split}) -> {per_head}']
    lines += [
        f'  %s = oneflow.batch_matmul %q, %k {{transpose_b}} : ({per_head}, {per_head}) -> {scores}',
        f'  %p = oneflow.softmax %s : ({scores}) -> {scores}',
        f'  %o0 = oneflow.batch_matmul %p, %v : ({scores}, {per_head}) -> {per_head}',
        f'  %o1 = oneflow.transpose %o0 {{perm = array<i64: 0, 2, 1, 3>}} : ({per_head}) -> {split}',
        f'  %o2 = oneflow.reshape %o1 : ({split}) -> {x}',
        f'  %o = oneflow.matmul %o2, %wo : ({x}, tensor<{hidden}x{hidden}xf32>) -> {x}',
        f'  %y = oneflow.add %x, %o : ({x}, {x}) -> {x}',
        f'  %sq = oneflow.mul %y, %y : ({x}, {x}) -> {x}',
        f'  %loss = oneflow.reduce_mean %sq {{axes = array<i64: 0, 1>}} : ({x}) -> tensor<f32>']
    return lines


def conv(batch, channels, size, filters):
    half = size // 2
    x = f"tensor<{batch}x{channels}x{size}x{size}xf32>"
    c1 = f"tensor<{batch}x{filters}x{size}x{size}xf32>"
    p1 = f"tensor<{batch}x{filters}x{half}x{half}xf32>"
    return [
        f'  %x = oneflow.input "x" : {x}',
        f'  %labels = oneflow.input "labels" : tensor<{batch}xi64>',
        f'  %w1 = oneflow.variable "conv1.weight" {{init = #oneflow.init<normal(0.0, 0.1)>, seed = 1}} : tensor<{filters}x{channels}x3x3xf32>',
        f'  %w2 = oneflow.variable "conv2.weight" {{init = #oneflow.init<normal(0.0, 0.1)>, seed = 2}} : tensor<{filters}x{filters}x3x3xf32>',
        f'  %fc = oneflow.variable "fc.weight" {{init = #oneflow.init<normal(0.0, 0.1)>, seed = 3}} : tensor<{filters}x10xf32>',
        f'  %c1 = oneflow.conv2d %x, %w1 {{pads = array<i64: 1, 1, 1, 1>}} : ({x}, tensor<{filters}x{channels}x3x3xf32>) -> {c1}',
        f'  %r1 = oneflow.relu %c1 : ({c1}) -> {c1}',
        f'  %p1 = oneflow.max_pool2d %r1 {{kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : ({c1}) -> {p1}',
        f'  %c2 = oneflow.conv2d %p1, %w2 {{pads = array<i64: 1, 1, 1, 1>}} : ({p1}, tensor<{filters}x{filters}x3x3xf32>) -> {p1}',
        f'  %r2 = oneflow.relu %c2 : ({p1}) -> {p1}',
        f'  %g = oneflow.global_avg_pool2d %r2 : ({p1}) -> tensor<{batch}x{filters}x1x1xf32>',
        f'  %f = oneflow.reshape %g : (tensor<{batch}x{filters}x1x1xf32>) -> tensor<{batch}x{filters}xf32>',
        f'  %logits = oneflow.matmul %f, %fc : (tensor<{batch}x{filters}xf32>, tensor<{filters}x10xf32>) -> tensor<{batch}x10xf32>',
        f'  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<{batch}x10xf32>, tensor<{batch}xi64>) -> (tensor<{batch}x10xf32>, tensor<{batch}xf32>)',
        f'  %loss = oneflow.reduce_mean %ce {{axes = array<i64: 0>}} : (tensor<{batch}xf32>) -> tensor<f32>']


PROGRAMS = [
    ("mlp-64x128x10", mlp(64, [64, 128, 10])),
    ("mlp-256x3", mlp(32, [256, 256, 256, 10])),
    ("mlp-wide", mlp(128, [32, 512, 10])),
    ("mlp-deep", mlp(16, [128, 64, 64, 32, 10])),
    ("attention-4x16x32", attention(4, 16, 32, 4)),
    ("attention-2x32x64", attention(2, 32, 64, 8)),
    ("conv-8x3x8", conv(8, 3, 8, 8)),
    ("conv-4x8x16", conv(4, 8, 16, 16)),
]
MESHES = [("2", 2), ("4", 4), ("2,2", 4)]


def program_text(name, lines):
    return "\n".join([f"func.func @{name.replace('-', '_').replace('x', '_')}() {{"] + lines +
                     ['  oneflow.output "loss", %loss : tensor<f32>', "  return", "}", ""])


WINDOW = os.environ.get("WINDOW_UNITS", "")


def search(binary, path, devices, mesh, cluster, kind, limit):
    options = f"devices={devices} mesh={mesh} search={kind} explain"
    if WINDOW:
        options += f" window-units={WINDOW}"
    if cluster:
        options += f" cluster={cluster}"
    if limit:
        options += f" memory-limit-bytes={limit}"
    pipeline = ("builtin.module(func.func(oneflow-infer-shapes,"
                "oneflow-autodiff{loss=loss},"
                "oneflow-optimizer{kind=sgd momentum=0.9},"
                f"oneflow-auto-parallel{{{options}}}))")
    run = subprocess.run([os.path.join(binary, "of-opt"), path,
                          f"--pass-pipeline={pipeline}", "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        smallest = re.search(r"smallest possible is (\d+)", run.stderr)
        if smallest:
            return {"smallest": int(smallest.group(1))}
        sys.exit(f"auto_parallel_cases: of-opt failed on {path}:\n{run.stderr}")
    row = re.search(r"^  auto\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)",
                    run.stdout, re.M)
    return {"us": float(row.group(1)), "bytes": int(row.group(4)),
            "optimal": "(optimal)" in run.stdout,
            "header": run.stdout.splitlines()[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the build's bin/")
    parser.add_argument("--cluster", default="", help="cluster file")
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--quick", action="store_true",
                        help="the MLPs and convolution blocks on 2 and 2x2 "
                             "devices only (16 cases)")
    parser.add_argument("--require", type=int, default=None,
                        help="cases that must be within the tolerance "
                             "(default: all)")
    parser.add_argument("--only", default="",
                        help="program names, or NAME@MESH (e.g. "
                             "attention-4x16x32@2,2), separated by ';'")
    args = parser.parse_args()
    programs, meshes = PROGRAMS, MESHES
    wanted = [w for w in args.only.split(";") if w] if args.only else []
    if args.quick:
        programs = [p for p in PROGRAMS
                    if p[0] in ("mlp-64x128x10", "mlp-deep", "conv-8x3x8",
                                "conv-4x8x16")]
        meshes = [m for m in MESHES if m[0] != "4"]

    rows, worst, equal, total, unproved = [], 0.0, 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, lines in programs:
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(program_text(name, lines))
            for mesh, devices in meshes:
                if wanted and name not in wanted and \
                        f"{name}@{mesh}" not in wanted:
                    continue
                free = search(args.bin, path, devices, mesh, args.cluster,
                              "exact", 0)
                smallest = search(args.bin, path, devices, mesh, args.cluster,
                                  "exact", 1)["smallest"]
                limits = [0, (smallest + free["bytes"]) // 2]
                for limit in limits:
                    exact = free if limit == 0 else search(
                        args.bin, path, devices, mesh, args.cluster, "exact",
                        limit)
                    cd = search(args.bin, path, devices, mesh, args.cluster,
                                "cd", limit)
                    total += 1
                    unproved += not exact.get("optimal", False)
                    gap = cd["us"] / exact["us"] - 1 if exact["us"] else 0.0
                    worst = max(worst, gap)
                    equal += abs(gap) <= 1e-6
                    rows.append((name, mesh, limit, exact["us"], cd["us"],
                                 gap))
    print(f"{'program':20} {'mesh':5} {'limit B':>9} {'exact us':>10} "
          f"{'cd us':>10} {'cd/exact-1':>10}")
    for name, mesh, limit, exact, cd, gap in rows:
        print(f"{name:20} {mesh:5} {limit or '-':>9} {exact:10.2f} "
              f"{cd:10.2f} {gap:10.4%}")
    print(f"{total} cases: coordinate descent within {args.tolerance:.0%} of "
          f"the optimum in {sum(r[5] <= args.tolerance for r in rows)}, "
          f"equal in {equal}; worst {worst:.3%}; "
          f"{total - unproved} optima proved")
    within = sum(r[5] <= args.tolerance for r in rows)
    required = total if args.require is None else args.require
    if within < required or unproved:
        sys.exit(1)


if __name__ == "__main__":
    main()

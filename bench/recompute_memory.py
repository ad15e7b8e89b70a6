#!/usr/bin/python3
"""Activation recomputation: plan arena bytes and step time, with and without.

A GPT of --layers decoder layers (examples/gpt/gpt.mlir with its second
layer repeated), compiled for one rank with `oneflow-activation-checkpointing`
(`of-run --train --recompute`) and without: the rank's planned arena bytes
(every buffer of the step: activations, gradients, parameters, AdamW states)
side by side, and the steady-state ms/step of `of-run --train` (interleaved
rounds, median) with the ratio. Segments: --segment-ops (0: about the square
root of the forward ops).

  /usr/bin/python3 bench/recompute_memory.py [--layers 8] [--segment-ops 0]
      [--batch 4] [--steps 30] [--rounds 3] [--build DIR]
"""

import argparse
import os
import re
import statistics
import tempfile

from gpt_ranks import ROOT, run


def gpt(layers):
    """examples/gpt/gpt.mlir with `layers` layers (layer 1 repeated)."""
    with open(os.path.join(ROOT, "examples", "gpt", "gpt.mlir")) as f:
        text = f.read()
    start = text.index("  // ---- Layer 1")
    end = text.index("  // ---- Final")
    block = text[start:end]
    blocks = []
    for k in range(1, layers):
        b = block.replace("%h1_", "%%h%d_" % k).replace('"h1.', '"h%d.' % k)
        b = b.replace("%h0_out", "%%h%d_out" % (k - 1))
        b = re.sub(r"seed = 1(\d)", lambda m: "seed = %d" % (10 * k +
                                                              int(m.group(1))),
                   b)
        blocks.append(b.replace("Layer 1", "Layer %d" % k))
    tail = text[end:].replace("%h1_out", "%%h%d_out" % (layers - 1))
    return text[:start] + "".join(blocks) + tail


def batched(text, batch):
    """The GPT text for a batch of `batch` sequences (the example's is 4):
    batch-leading shapes [4, 32, ...], the attention's [4, heads, 32, ...]
    and the rows [4 * 32, ...] scaled, and the slices' batch end with
    them."""
    if batch == 4:
        return text
    text = text.replace("tensor<4x4x32x", "tensor<%dx4x32x" % batch)
    text = text.replace("tensor<4x32x", "tensor<%dx32x" % batch)
    text = text.replace("tensor<128x", "tensor<%dx" % (32 * batch))
    return text.replace("ends = array<i64: 8,",
                        "ends = array<i64: %d," % max(8, batch))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--segment-ops", type=int, default=0)
    parser.add_argument("--batch", type=int, default=4,
                        help="sequences of 32 characters per step (the "
                        "example's 4; activations grow with it, parameters "
                        "do not)")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    of_run = os.path.join(args.build, "bin", "of-run")
    of_opt = os.path.join(args.build, "bin", "of-opt")
    data = os.path.join(args.build, "data")
    run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "make_text.py"),
         data])
    inputs = ["--input", "tokens=@%s/text_tokens.npy:loop" % data,
              "--input", "targets=@%s/text_targets.npy:loop" % data]
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "gpt%d.mlir" % args.layers)
        with open(model, "w") as f:
            f.write(batched(gpt(args.layers), args.batch))
        arena = {}
        for name, extra in (("kept", ""),
                            ("recompute", "oneflow-activation-checkpointing"
                             "{segment-ops=%d}," % args.segment_ops)):
            out = run([of_opt, model, "--pass-pipeline=builtin.module("
                       "func.func(oneflow-infer-shapes,oneflow-autodiff,%s"
                       "oneflow-optimizer{kind=adamw}),oneflow-default-pipeline)"
                       % extra])
            total = int(re.search(r"rank 0 device cpu arena (\d+)",
                                  out).group(1))
            # Variables (parameters, optimizer states) never share memory:
            # the rest of the arena is what activations and gradients take.
            sizes = {}
            for ref, count, shape in re.findall(
                    r"%r(\d+) = oneflow_actor.regst \d+ count (\d+).*: "
                    r"tensor<([0-9x]*)x?f32>", out):
                elements = 1
                for d in shape.split("x"):
                    elements *= int(d) if d else 1
                sizes[ref] = (4 * elements + 63) // 64 * 64 * int(count)
            variables = sum(sizes.get(ref, 0) for ref in re.findall(
                r'"oneflow.variable"\(\) -> \(%r(\d+)\)', out))
            arena[name] = (total, total - variables)
        times = {"kept": [], "recompute": []}
        for _ in range(args.rounds):
            for name, flags in (("kept", []), ("recompute", ["--recompute"])):
                out = run([of_run, model, "--train", "--optimizer", "adamw",
                           "--lr", "0.001", "--threads", "1", "--steps",
                           str(args.steps), "--print_limit", "0"] + inputs +
                          flags)
                found = re.search(
                    r"steady state \(steps [0-9-]+\): ([0-9.]+)", out)
                times[name].append(float(found.group(1)))
    load = os.getloadavg()
    kept, again = (statistics.median(times["kept"]),
                   statistics.median(times["recompute"]))
    print("GPT, %d layers, batch %d x 32, one rank, --threads 1, %d steps x "
          "%d rounds (load %.2f %.2f %.2f at the end)" % (
              args.layers, args.batch, args.steps, args.rounds, *load))
    print("%-10s %14s %22s %12s" % ("", "arena bytes",
                                     "without variables", "ms/step"))
    for name, ms in (("kept", kept), ("recompute", again)):
        print("%-10s %14d %22d %12.3f" % (name, *arena[name], ms))
    print("ratio      %13.3fx %21.3fx %11.3fx" % (
        arena["recompute"][0] / arena["kept"][0],
        arena["recompute"][1] / arena["kept"][1], again / kept))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The fused backward ops against the compositions they replace.

gelu's, layer_norm's and softmax's gradient rules build one op each
(`gelu_grad`, `layer_norm_grad`, `softmax_grad`) where they used to build a
composition of element-wise ops and reductions (erf, exp and nine
arithmetic ops; thirteen ops with four reductions; two products, a sum and
a difference). This runs both forms of each, at the shapes of the
cpu-medium GPT's MLP, layer norms and attention scores
(bench/gpt_train_vs_torch.py), as forward-only
programs through `of-run --profile` (one rank, --threads threads, random
inputs, --steps steps): the kernel time of the ops per step (inputs and
outputs left out), best of --rounds interleaved rounds. Ratio = composition time / fused time (above
1.0: the fused op is faster). ONEDNN_MAX_CPU_ISA caps oneDNN's ISA; the
first line says the ISA it used.

Usage: bench/fused_grads.py [--build build] [--threads 1] [--steps 200]
                            [--rounds 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_threads  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

T = "tensor<1024x1024xf32>"
GELU_INPUTS = f"""  %x = oneflow.input "x" : {T}
  %dy = oneflow.input "dy" : {T}
"""
GELU_COMPOSED = GELU_INPUTS + f"""\
  %s = oneflow.scalar_mul %x, 0.70710678118654757 : ({T}) -> {T}
  %e = oneflow.erf %s : ({T}) -> {T}
  %h = oneflow.scalar_mul %e, 0.5 : ({T}) -> {T}
  %cdf = oneflow.scalar_add %h, 0.5 : ({T}) -> {T}
  %sq = oneflow.mul %x, %x : ({T}, {T}) -> {T}
  %n = oneflow.scalar_mul %sq, -0.5 : ({T}) -> {T}
  %ex = oneflow.exp %n : ({T}) -> {T}
  %pdf = oneflow.scalar_mul %ex, 0.3989422804014327 : ({T}) -> {T}
  %xp = oneflow.mul %x, %pdf : ({T}, {T}) -> {T}
  %slope = oneflow.add %cdf, %xp : ({T}, {T}) -> {T}
  %dx = oneflow.mul %dy, %slope : ({T}, {T}) -> {T}
  oneflow.output "dx", %dx : {T}
"""
GELU_FUSED = GELU_INPUTS + f"""\
  %dx = oneflow.gelu_grad %x, %dy : ({T}, {T}) -> {T}
  oneflow.output "dx", %dx : {T}
"""

X, R, S, P = ("tensor<1024x256xf32>", "tensor<1024x1xf32>",
              "tensor<1024xf32>", "tensor<256xf32>")
LN_INPUTS = f"""  %x = oneflow.input "x" : {X}
  %dy = oneflow.input "dy" : {X}
  %mean = oneflow.input "mean" : {S}
  %inv = oneflow.input "inv" : {S}
  %g = oneflow.input "g" : {P}
"""
LN_OUTPUTS = f"""  oneflow.output "dx", %dx : {X}
  oneflow.output "dg", %dg : {P}
  oneflow.output "db", %db : {P}
"""
LN_COMPOSED = LN_INPUTS + f"""\
  %mr = oneflow.reshape %mean : ({S}) -> {R}
  %ir = oneflow.reshape %inv : ({S}) -> {R}
  %c = oneflow.sub %x, %mr : ({X}, {R}) -> {X}
  %xhat = oneflow.mul %c, %ir : ({X}, {R}) -> {X}
  %dxhat = oneflow.mul %dy, %g : ({X}, {P}) -> {X}
  %m1 = oneflow.reduce_mean %dxhat {{axes = array<i64: 1>, keepdims}} : ({X}) -> {R}
  %centered = oneflow.sub %dxhat, %m1 : ({X}, {R}) -> {X}
  %p = oneflow.mul %dxhat, %xhat : ({X}, {X}) -> {X}
  %m2 = oneflow.reduce_mean %p {{axes = array<i64: 1>, keepdims}} : ({X}) -> {R}
  %q = oneflow.mul %xhat, %m2 : ({X}, {R}) -> {X}
  %r = oneflow.sub %centered, %q : ({X}, {X}) -> {X}
  %dx = oneflow.mul %ir, %r : ({R}, {X}) -> {X}
  %dyx = oneflow.mul %dy, %xhat : ({X}, {X}) -> {X}
  %dg = oneflow.reduce_sum %dyx {{axes = array<i64: 0>}} : ({X}) -> {P}
  %db = oneflow.reduce_sum %dy {{axes = array<i64: 0>}} : ({X}) -> {P}
""" + LN_OUTPUTS
LN_FUSED = LN_INPUTS + f"""\
  %dx, %dg, %db = oneflow.layer_norm_grad %x, %dy, %mean, %inv, %g {{begin_norm_axis = 1 : i64}} : ({X}, {X}, {S}, {S}, {P}) -> ({X}, {P}, {P})
""" + LN_OUTPUTS

A, AR = "tensor<8x4x128x128xf32>", "tensor<8x4x128x1xf32>"
SM_INPUTS = f"""  %y = oneflow.input "y" : {A}
  %dy = oneflow.input "dy" : {A}
"""
SM_COMPOSED = SM_INPUTS + f"""\
  %p = oneflow.mul %dy, %y : ({A}, {A}) -> {A}
  %dot = oneflow.reduce_sum %p {{axes = array<i64: 3>, keepdims}} : ({A}) -> {AR}
  %d = oneflow.sub %dy, %dot : ({A}, {AR}) -> {A}
  %dx = oneflow.mul %y, %d : ({A}, {A}) -> {A}
  oneflow.output "dx", %dx : {A}
"""
SM_FUSED = SM_INPUTS + f"""\
  %dx = oneflow.softmax_grad %y, %dy {{axis = 3 : i64}} : ({A}, {A}) -> {A}
  oneflow.output "dx", %dx : {A}
"""

# Each case: its name, both programs and of-run's --input flags (a positive
# inverse standard deviation).
CASES = [("gelu gradient 1024x1024", GELU_COMPOSED, GELU_FUSED, []),
         ("layer_norm gradient 1024x256", LN_COMPOSED, LN_FUSED,
          ["--input", "inv=random:0.5:1.5"]),
         ("softmax gradient 8x4x128x128", SM_COMPOSED, SM_FUSED,
          ["--input", "y=random:0:1"])]


def step_ms(of_run, program, inputs, threads, steps, tmp):
    """Kernel ms per step of `program`'s ops (its inputs and outputs left
    out) through of-run --profile."""
    path = os.path.join(tmp, "program.mlir")
    with open(path, "w") as f:
        f.write("func.func @main() {\n" + program + "  return\n}\n")
    done = subprocess.run(
        [of_run, path, "--devices", "cpu:1", "--threads", str(threads),
         "--steps", str(steps), "--progress", "off", "--print_limit", "0",
         "--profile"] + inputs,
        capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("fused_grads: of-run failed:\n" + done.stdout[-2000:] +
                 done.stderr[-2000:])
    # "  oneflow.mul     12.345 ms   40.1%  200 firings"
    total = 0.0
    for line in done.stdout.splitlines() + done.stderr.splitlines():
        fields = line.split()
        if (len(fields) >= 3 and fields[0].startswith("oneflow.") and
                fields[2] == "ms" and
                fields[0] not in ("oneflow.input", "oneflow.output")):
            total += float(fields[1])
    if total == 0:
        sys.exit("fused_grads: of-run --profile printed no kernel times")
    return total / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    of_run = os.path.join(args.build, "bin", "of-run")
    print(torch_threads.cpu_line(of_run))
    print(f"threads: {args.threads}, steps: {args.steps}, "
          f"rounds: {args.rounds}")
    print(f"{'case':32s} {'composed ms':>12s} {'fused ms':>10s} {'ratio':>7s}",
          flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, composed, fused, inputs in CASES:
            best = {"composed": [], "fused": []}
            for _ in range(args.rounds):
                for kind, program in (("composed", composed),
                                      ("fused", fused)):
                    best[kind].append(step_ms(of_run, program, inputs,
                                              args.threads, args.steps, tmp))
            a, b = min(best["composed"]), min(best["fused"])
            print(f"{name:32s} {a:12.3f} {b:10.3f} {a / b:6.2f}x")


if __name__ == "__main__":
    main()

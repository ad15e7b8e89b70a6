#!/usr/bin/python3
"""A randomized stress of pipeline stages: every run finishes, with one rank's loss.

Each case draws (from --seed) a chain of relu(matmul) layers with random
residual connections (values that skip stages), a number of stages and
devices (data parallel inside stages), micro-batches, 1F1B or GPipe counts,
extra buffers on every regst (`regst-count`) and how streams map to threads;
compiles it with of-opt and of-translate, runs it with of-run under a time
limit (a run that does not finish in time is a deadlock and fails the
stress, naming the case), and compares its losses with the same model
trained on one device. Prints one line per case and exits non-zero on the
first failure.

  /usr/bin/python3 scripts/pipeline_stress.py --bin DIR [--cases N]
      [--seed S] [--steps K] [--timeout SECONDS]
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np


def model(rng, layers, width, batch):
    """A one-device program: `layers` x relu(matmul), each layer's output
    plus, when `rng` draws one, an earlier layer's (a residual); loss
    mean(y * y). Without `rng`, a plain chain."""
    t = "tensor<%dx%dxf32>" % (batch, width)
    w = "tensor<%dx%dxf32>" % (width, width)
    lines = ["func.func @chain() {", '  %h0 = oneflow.input "x" : ' + t]
    for i in range(layers):
        lines.append('  %%w%d = oneflow.variable "w%d" {init = '
                     '#oneflow.init<kaiming_uniform>, seed = %d} : %s' %
                     (i, i, i + 1, w))
        lines.append("  %%m%d = oneflow.matmul %%h%d, %%w%d : (%s, %s) -> %s" %
                     (i, i, i, t, w, t))
        skip = rng.randrange(-1, i + 1) if rng and i > 0 else -1
        if skip >= 0:
            lines.append("  %%r%d = oneflow.relu %%m%d : (%s) -> %s" %
                         (i, i, t, t))
            lines.append("  %%h%d = oneflow.add %%r%d, %%h%d : (%s, %s) -> %s" %
                         (i + 1, i, skip, t, t, t))
        else:
            lines.append("  %%h%d = oneflow.relu %%m%d : (%s) -> %s" %
                         (i + 1, i, t, t))
    lines.append("  %%s = oneflow.mul %%h%d, %%h%d : (%s, %s) -> %s" %
                 (layers, layers, t, t, t))
    lines.append("  %%l = oneflow.reduce_mean %%s {axes = array<i64: 0, 1>} : "
                 "(%s) -> tensor<f32>" % t)
    lines.append('  oneflow.output "loss", %l : tensor<f32>')
    lines.append("  return\n}\n")
    return "\n".join(lines)


def run(cmd, timeout, what):
    try:
        result = subprocess.run(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit("pipeline_stress: %s did not finish in %d s (a deadlock?)\n"
                 "  %s" % (what, timeout, " ".join(cmd)))
    if result.returncode != 0:
        sys.exit("pipeline_stress: %s failed:\n  %s\n%s" %
                 (what, " ".join(cmd), result.stderr))
    return result.stdout


def losses(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        column = header.index("loss")
        return [float(line.split(",")[column]) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--timeout", type=int, default=60)
    args = parser.parse_args()
    tool = lambda name: os.path.join(args.bin, name)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.cases):
            stages = rng.choice([2, 2, 4])
            devices = stages * rng.choice([1, 1, 2])
            micro = rng.choice([1, 2, 4, 8])
            layers = rng.randrange(stages, stages + 5)
            width = rng.choice([8, 16])
            batch = 16 * devices
            schedule = rng.choice(["1f1b", "gpipe"])
            regsts = rng.choice([1, 1, 2, 3])
            threads = rng.choice(["each", "one", "auto"])
            what = ("case %d: %d layers, %d stages on %d devices, %d "
                    "micro-batches, %s, regst-count %d, stream threads %s" %
                    (case, layers, stages, devices, micro, schedule, regsts,
                     threads))
            path = os.path.join(tmp, "case%d" % case)
            with open(path + ".mlir", "w") as f:
                f.write(model(rng, layers, width, batch))
            np.save(path + ".npy", np.random.default_rng(case).standard_normal(
                (batch, width)).astype(np.float32))
            data = ["--input", "x=@%s.npy:loop" % path]
            run([tool("of-run"), path + ".mlir", "--train", "--lr", "0.01",
                 "--steps", str(args.steps), "--metrics", path + "-one.csv"] +
                data, args.timeout, what + " (one device)")
            pipeline = (
                "builtin.module(func.func(oneflow-infer-shapes,"
                "oneflow-assign-stages{stages=%d},oneflow-autodiff,"
                "oneflow-optimizer{lr=0.01},oneflow-apply-strategy{devices=%d "
                "stages=%d micro-batches=%d pipeline-schedule=%s}),"
                "oneflow-default-pipeline{regst-count=%d})" %
                (stages, devices, stages, micro, schedule, regsts))
            run([tool("of-opt"), path + ".mlir", "--pass-pipeline=" + pipeline,
                 "-o", path + "-ranks.mlir"], args.timeout, what + " (of-opt)")
            run([tool("of-translate"), "--export-plan", path + "-ranks.mlir",
                 "-o", path + ".plan"], args.timeout, what + " (of-translate)")
            run([tool("of-run"), path + ".plan", "--devices",
                 "cpu:%d" % devices, "--stream-threads", threads, "--steps",
                 str(args.steps), "--metrics", path + "-pipe.csv"] + data,
                args.timeout, what)
            one, pipe = losses(path + "-one.csv"), losses(path + "-pipe.csv")
            worst = max(abs(a - b) / max(abs(a), 1e-12)
                        for a, b in zip(one, pipe))
            if len(one) != len(pipe) or worst > 1e-5:
                sys.exit("pipeline_stress: %s: losses differ from one "
                         "device's (worst relative %.3g)\n  %s\n  %s" %
                         (what, worst, one, pipe))
            print("%s: ok (worst %.2g)" % (what, worst))


if __name__ == "__main__":
    main()

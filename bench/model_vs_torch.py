#!/usr/bin/python3
"""Forward-pass throughput of of-run against PyTorch eager, same threads.

Models (float32, inference):
  mlp     batch 256, 1024 -> 4096 -> 1024 with bias and ReLU
  resnet  a ResNet basic block: conv3x3-BN-ReLU-conv3x3-BN + identity, ReLU,
          batch 8, 64 channels, 56x56

For each, of-run runs the program written in the oneflow dialect (input x
filled with 0.5: a fill source writes each buffer of its regst once, as
PyTorch reuses one input tensor) and reports
its steady-state milliseconds per step (step 0, which pays for thread
start-up and JIT, is left out); PyTorch runs the same model with
torch.no_grad() and the median of as many iterations. The ratio is
PyTorch time / of-run time (above 1.0: of-run is faster).

Each side is measured in --rounds interleaved rounds and keeps its best.

Usage: bench/model_vs_torch.py [--build build] [--threads 2] [--steps 20]
                               [--rounds 3]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

# Before torch: it may choose the peer's OpenBLAS kernels.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_threads  # noqa: E402
import torch  # noqa: E402


def mlp_mlir(batch=256, d_in=1024, hidden=4096, d_out=1024):
    t = lambda *s: "tensor<%sxf32>" % "x".join(map(str, s))
    return f"""func.func @mlp() {{
  %x = oneflow.input "x" : {t(batch, d_in)}
  %w1 = oneflow.variable "w1" {{init = #oneflow.init<kaiming_uniform>, seed = 1}} : {t(d_in, hidden)}
  %b1 = oneflow.variable "b1" {{init = #oneflow.init<uniform(-0.1, 0.1)>, seed = 2}} : {t(hidden)}
  %w2 = oneflow.variable "w2" {{init = #oneflow.init<kaiming_uniform>, seed = 3}} : {t(hidden, d_out)}
  %b2 = oneflow.variable "b2" {{init = #oneflow.init<uniform(-0.1, 0.1)>, seed = 4}} : {t(d_out)}
  %h = oneflow.matmul %x, %w1 : ({t(batch, d_in)}, {t(d_in, hidden)}) -> {t(batch, hidden)}
  %hb = oneflow.add %h, %b1 : ({t(batch, hidden)}, {t(hidden)}) -> {t(batch, hidden)}
  %a = oneflow.relu %hb : ({t(batch, hidden)}) -> {t(batch, hidden)}
  %o = oneflow.matmul %a, %w2 : ({t(batch, hidden)}, {t(hidden, d_out)}) -> {t(batch, d_out)}
  %y = oneflow.add %o, %b2 : ({t(batch, d_out)}, {t(d_out)}) -> {t(batch, d_out)}
  oneflow.output "y", %y : {t(batch, d_out)}
  return
}}
"""


def resnet_block_mlir(n=8, c=64, hw=56):
    x = "tensor<%dx%dx%dx%dxf32>" % (n, c, hw, hw)
    w = "tensor<%dx%dx3x3xf32>" % (c, c)
    v = "tensor<%dxf32>" % c
    lines = ["func.func @block() {", f'  %x = oneflow.input "x" : {x}']
    src = "%x"
    for i in (1, 2):
        lines += [
            f'  %w{i} = oneflow.variable "conv{i}.weight" {{init = #oneflow.init<kaiming_uniform>, seed = {i}}} : {w}',
            f'  %g{i} = oneflow.variable "bn{i}.weight" {{init = #oneflow.init<ones>}} : {v}',
            f'  %b{i} = oneflow.variable "bn{i}.bias" {{init = #oneflow.init<zeros>}} : {v}',
            f'  %m{i} = oneflow.variable "bn{i}.running_mean" {{init = #oneflow.init<zeros>}} : {v}',
            f'  %s{i} = oneflow.variable "bn{i}.running_var" {{init = #oneflow.init<ones>}} : {v}',
            f'  %c{i} = oneflow.conv2d {src}, %w{i} {{pads = array<i64: 1, 1, 1, 1>}} : ({x}, {w}) -> {x}',
            f'  %n{i}, %nm{i}, %ni{i} = oneflow.batch_norm %c{i}, %g{i}, %b{i}, %m{i}, %s{i} : ({x}, {v}, {v}, {v}, {v}) -> ({x}, {v}, {v})',
        ]
        if i == 1:
            lines.append(f"  %r1 = oneflow.relu %n1 : ({x}) -> {x}")
            src = "%r1"
    lines += [
        f"  %sum = oneflow.add %n2, %x : ({x}, {x}) -> {x}",
        f"  %y = oneflow.relu %sum : ({x}) -> {x}",
        f'  oneflow.output "y", %y : {x}',
        "  return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def torch_mlp():
    m = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                            torch.nn.Linear(4096, 1024))
    return m, torch.rand(256, 1024)


class BasicBlock(torch.nn.Module):
    def __init__(self, c=64):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


def torch_resnet():
    return BasicBlock().eval(), torch.rand(8, 64, 56, 56)


def torch_ms(model, x, steps):
    times = []
    with torch.no_grad():
        model(x)  # warm-up, like of-run's step 0
        for _ in range(steps):
            start = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - start)
    times.sort()
    return 1e3 * times[len(times) // 2]


def ofrun_ms(of_run, text, threads, steps):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.mlir")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run(
            [of_run, path, "--steps", str(steps + 1), "--threads", str(threads),
             "--print_limit", "0", "--input", "x=fill:0.5"],
            check=True, capture_output=True, text=True).stdout
    match = re.search(r"steady state \(steps [0-9-]+\): ([0-9.]+) ms/step", out)
    if not match:
        sys.exit("of-run printed no steady-state time:\n" + out)
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(torch_threads.set_threads(args.threads))
    of_run = os.path.join(args.build, "bin", "of-run")
    print(torch_threads.cpu_line(of_run))
    print("threads: %d, steps: %d, torch %s" % (args.threads, args.steps,
                                                torch.__version__))
    print("%-8s %12s %12s %10s" % ("model", "of-run ms", "torch ms",
                                   "ratio"))
    for name, text, make in (("mlp", mlp_mlir(), torch_mlp),
                             ("resnet", resnet_block_mlir(), torch_resnet)):
        # Interleaved rounds; the best of each side, so that a burst of
        # other work on the machine does not decide the ratio.
        model, x = make()
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(ofrun_ms(of_run, text, args.threads, args.steps))
            theirs.append(torch_ms(model, x, args.steps))
        ours, theirs = min(ours), min(theirs)
        print("%-8s %12.3f %12.3f %9.2fx" % (name, ours, theirs,
                                             theirs / ours))
    print("ratio = torch time / of-run time; goal at least 1.0")


if __name__ == "__main__":
    main()

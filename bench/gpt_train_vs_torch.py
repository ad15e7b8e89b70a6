#!/usr/bin/python3
"""Training-step throughput of the GPT example against PyTorch eager.

examples/gpt/gpt.mlir (2 layers, width 64, context 32, batch 4, vocabulary
96) trained on one rank: `of-run --train` with AdamW, global-norm clipping
and warm-up + cosine (scripts/gpt_reference.py's TRAIN_FLAGS) on the GPL-3
characters of scripts/make_text.py; PyTorch (Debian's python3-torch) runs
scripts/gpt_reference.py's model, op for op the same, with torch.optim.AdamW,
clip_grad_norm_ and LambdaLR on the same batches. Both use --threads threads
(torch.set_num_threads; of-run --threads).

Each side's step time is the median of its per-step times after the first
step (of-run: differences of the cumulative seconds of its --metrics CSV).
Rounds alternate between the two; each side keeps its best round, so that a
burst of other work on the machine does not decide the ratio. The ratio is
PyTorch time / of-run time (above 1.0: of-run is faster).

With --device cuda both train on the GPU (of-run --devices cuda:1, PyTorch
with CUDA: run it with a python3 whose torch has CUDA), and PyTorch is also
timed with its forward pass through torch.compile (a second ratio). Each
side's step ends when its loss is on the host.

Usage: bench/gpt_train_vs_torch.py [--build build] [--threads 1]
                                   [--steps 30] [--rounds 3]
                                   [--device cpu|cuda]
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gpt_reference  # noqa: E402


def ofrun_ms(of_run, data, threads, steps, tmp, device):
    metrics = os.path.join(tmp, "metrics.csv")
    subprocess.run(
        [of_run, os.path.join(ROOT, "examples", "gpt", "gpt.mlir"), "--train"]
        + gpt_reference.TRAIN_FLAGS.split() +
        ["--devices", f"{device}:1",
         "--steps", str(steps), "--threads", str(threads),
         "--progress", "off", "--print_limit", "0", "--metrics", metrics,
         "--input", f"tokens=@{data}/text_tokens.npy:loop",
         "--input", f"targets=@{data}/text_targets.npy:loop"],
        check=True, capture_output=True, text=True)
    with open(metrics) as f:
        seconds = [float(row["seconds"]) for row in csv.DictReader(f)]
    if len(seconds) != steps:
        sys.exit(f"of-run wrote {len(seconds)} metric rows, not {steps}")
    return 1e3 * statistics.median(
        b - a for a, b in zip(seconds[1:], seconds[2:]))


def torch_ms(steps, device, compile=False):
    times = []
    gpt_reference.train(steps, times, device, compile)
    # torch.compile compiles during the first steps.
    return 1e3 * statistics.median(times[3 if compile else 1:])


def main():
    parser = argparse.ArgumentParser(
        description="GPT training steps: of-run against PyTorch eager")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda needs a PyTorch with CUDA and a GPU")
    if args.steps < 3:
        parser.error("--steps must be at least 3")
    torch.set_num_threads(args.threads)
    of_run = os.path.join(args.build, "bin", "of-run")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts",
                                                     "make_text.py"), tmp],
                       check=True, capture_output=True)
        ours, theirs, compiled = [], [], []
        for _ in range(args.rounds):
            ours.append(ofrun_ms(of_run, tmp, args.threads, args.steps,
                                 tmp, args.device))
            theirs.append(torch_ms(args.steps, args.device))
            if args.device == "cuda":
                compiled.append(torch_ms(args.steps, args.device, True))
    print("device: %s, threads: %d, steps: %d, rounds: %d, torch %s" % (
        args.device, args.threads, args.steps, args.rounds,
        torch.__version__))
    print("%-10s %12s %12s %10s" % ("model", "of-run ms", "torch ms", "ratio"))
    print("%-10s %12.3f %12.3f %9.2fx" % ("gpt-train", min(ours), min(theirs),
                                          min(theirs) / min(ours)))
    if compiled:
        print("%-10s %12.3f %12.3f %9.2fx  (torch.compile)" % (
            "gpt-train", min(ours), min(compiled), min(compiled) / min(ours)))
    print("  of-run rounds: " + ", ".join("%.3f" % v for v in ours))
    print("  torch rounds:  " + ", ".join("%.3f" % v for v in theirs))
    print("ratio = torch time / of-run time; goal at least 1.0")


if __name__ == "__main__":
    main()

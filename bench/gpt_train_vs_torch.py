#!/usr/bin/python3
"""Training-step throughput of the GPT example against PyTorch eager.

examples/gpt/gpt.mlir (2 layers, width 64, context 32, batch 4, vocabulary
96) trained on one rank: `of-run --train` with AdamW, global-norm clipping
and warm-up + cosine (scripts/gpt_reference.py's TRAIN_FLAGS) on the GPL-3
characters of scripts/make_text.py; PyTorch (Debian's python3-torch) runs
scripts/gpt_reference.py's model, op for op the same, with torch.optim.AdamW,
clip_grad_norm_ and LambdaLR on the same batches. Both use --threads threads
(torch_threads.set_threads, which caps PyTorch's OpenBLAS too; of-run
--threads).

Each side's step time is the median of its per-step times after the first
step (of-run: differences of the cumulative seconds of its --metrics CSV).
Rounds alternate between the two; each side keeps its best round, so that a
burst of other work on the machine does not decide the ratio. The ratio is
PyTorch time / of-run time (above 1.0: of-run is faster).

With --device cuda both train on the GPU (of-run --devices cuda:1, PyTorch
with CUDA: run it with a python3 whose torch has CUDA), and PyTorch is also
timed with its forward pass through torch.compile (a second ratio). Each
side's step ends when its loss is on the host.

A GPU machine may have no MLIR, so no of-run: there, --plan PLAN runs a
plan compiled elsewhere with of-run-plan (--runner: its path, or a runtime
bundle's run.sh; default BUILD/bin/of-run-plan) instead. --emit-plan PLAN
compiles the plan for the given size, precision and device with of-run
(which needs no GPU to compile) and exits: scripts/gpu-kit.sh makes the GPU
plans so. --text FILE trains on another text (the GPL-3 of Debian's
/usr/share/common-licenses by default). PyTorch's batches start over after
the text's last, as of-run's `:loop` input does, so a size whose context
leaves few batches (GPT-2-small: 4) still gives --steps samples.

With --size cpu-medium both train a model that gives a CPU's matmuls some
work (4 layers, width 256, 4 heads, context 128, batch 8). With --size
gpt2-small both train a GPT-2-small-sized model instead (12
layers, width 768, 12 heads, context 1024, vocabulary 50257; --batch rows,
default 8): scripts/make_gpt.py writes it for of-run and
gpt_reference.configure() sizes PyTorch's. Besides ms/step the script
prints tokens/s and the model FLOP utilization against --peak-tflops
(default 989, the H100/H200 SXM bf16 dense peak): 6 FLOPs per parameter
per token plus 12 * layers * width * context for attention (PaLM's count).

With --precision bf16 both train in mixed precision: of-run --precision
bf16 (oneflow-mixed-precision) and PyTorch under torch.autocast with
bfloat16 (f32 parameters and AdamW on both sides); on CPU only where
oneDNN has bf16 kernels (of-run --list-devices says).

Usage: bench/gpt_train_vs_torch.py [--build build] [--threads 1]
                                   [--steps 30] [--rounds 3]
                                   [--device cpu|cuda]
                                   [--size example|cpu-medium|gpt2-small]
                                   [--batch B]
                                   [--peak-tflops 989] [--precision bf16]
                                   [--plan PLAN [--runner RUNNER]]
                                   [--emit-plan PLAN] [--text FILE]
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

# Before torch: it may choose the peer's OpenBLAS kernels.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_threads  # noqa: E402
import torch  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gpt_reference  # noqa: E402


SIZES = {"example": dict(layers=2, width=64, heads=4, context=32, vocab=96,
                         batch=4),
         "cpu-medium": dict(layers=4, width=256, heads=4, context=128,
                            vocab=96, batch=8),
         "gpt2-small": dict(layers=12, width=768, heads=12, context=1024,
                            vocab=50257, batch=8)}


def step_flops(size):
    """PaLM's model FLOPs of one training step: 6 per parameter and token,
    plus 12 * layers * width * context per token for attention."""
    L, W, T, V = size["layers"], size["width"], size["context"], size["vocab"]
    params = V * W + T * W + L * (12 * W * W + 13 * W) + 2 * W + W * V
    tokens = size["batch"] * T
    return tokens * (6 * params + 12 * L * W * T)


def compile_flags(model, precision):
    """of-run's flags that make the plan (the model and its training)."""
    return ([model, "--train"] + gpt_reference.TRAIN_FLAGS.split() +
            ["--precision", precision])


def run_checked(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("gpt_train_vs_torch: %s failed (exit %d):\n%s%s" % (
            " ".join(command), done.returncode, done.stdout[-2000:],
            done.stderr[-2000:]))


def ofrun_ms(command, data, threads, steps, tmp, device):
    """`command`: of-run with compile_flags(), or of-run-plan with a plan."""
    metrics = os.path.join(tmp, "metrics.csv")
    run_checked(
        command +
        ["--devices", f"{device}:1",
         "--steps", str(steps), "--threads", str(threads),
         "--progress", "off", "--print_limit", "0", "--metrics", metrics,
         "--input", f"tokens=@{data}/text_tokens.npy:loop",
         "--input", f"targets=@{data}/text_targets.npy:loop"])
    with open(metrics) as f:
        seconds = [float(row["seconds"]) for row in csv.DictReader(f)]
    if len(seconds) != steps:
        sys.exit(f"of-run wrote {len(seconds)} metric rows, not {steps}")
    return 1e3 * statistics.median(
        b - a for a, b in zip(seconds[1:], seconds[2:]))


def torch_ms(steps, device, precision, compile=False):
    times = []
    gpt_reference.train(steps, times, device, compile, precision == "bf16",
                        cycle=True)
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
    parser.add_argument("--size", choices=sorted(SIZES), default="example")
    parser.add_argument("--batch", type=int, default=0,
                        help="rows per step (default: the size's)")
    parser.add_argument("--peak-tflops", type=float, default=989.0)
    parser.add_argument("--precision", choices=["f32", "bf16"], default="f32")
    parser.add_argument("--plan", help="run this compiled plan with "
                        "of-run-plan instead of compiling with of-run")
    parser.add_argument("--runner", help="of-run-plan, or a runtime "
                        "bundle's run.sh (default: BUILD/bin/of-run-plan)")
    parser.add_argument("--emit-plan", metavar="PLAN",
                        help="only compile the plan to PLAN, then exit")
    parser.add_argument("--text", default=gpt_reference.TEXT,
                        help="the training text")
    args = parser.parse_args()
    size = dict(SIZES[args.size])
    if args.batch > 0:
        size["batch"] = args.batch
    gpt_reference.configure(**size)
    gpt_reference.TEXT = args.text
    if args.plan and not os.path.isfile(args.plan):
        parser.error(f"--plan {args.plan}: no such file")
    if args.device == "cuda" and not torch.cuda.is_available() and \
            not args.emit_plan:
        parser.error("--device cuda needs a PyTorch with CUDA and a GPU")
    if args.steps < 3:
        parser.error("--steps must be at least 3")
    print(torch_threads.set_threads(args.threads))
    of_run = os.path.join(args.build, "bin", "of-run")
    if args.device == "cpu":
        print(torch_threads.cpu_line(of_run))
    with tempfile.TemporaryDirectory() as tmp:
        run_checked([sys.executable, os.path.join(ROOT, "scripts",
                                                  "make_text.py"), tmp,
                     "--context", str(size["context"]), "--text", args.text])
        if args.plan:
            runner = args.runner or os.path.join(args.build, "bin",
                                                 "of-run-plan")
            command = [runner, os.path.abspath(args.plan)]
        else:
            model = os.path.join(tmp, "gpt.mlir")
            with open(model, "w") as f:
                subprocess.run(
                    [sys.executable, os.path.join(ROOT, "scripts",
                                                  "make_gpt.py")]
                    + [f"--{k}={v}" for k, v in size.items()],
                    check=True, stdout=f)
            command = [of_run] + compile_flags(model, args.precision)
        if args.emit_plan:
            # of-run writes the plan before it runs; without the device it
            # then fails, which is fine: the plan is what was asked for.
            subprocess.run(command + ["--devices", f"{args.device}:1",
                                      "--steps", "1", "--progress", "off",
                                      "--emit-plan", args.emit_plan],
                           capture_output=True, text=True)
            if not os.path.isfile(args.emit_plan):
                sys.exit(f"gpt_train_vs_torch: of-run wrote no plan to "
                         f"{args.emit_plan}")
            print(f"wrote {args.emit_plan}")
            return
        ours, theirs, compiled = [], [], []
        for _ in range(args.rounds):
            ours.append(ofrun_ms(command, tmp, args.threads, args.steps,
                                 tmp, args.device))
            theirs.append(torch_ms(args.steps, args.device, args.precision))
            if args.device == "cuda":
                compiled.append(torch_ms(args.steps, args.device,
                                         args.precision, True))
    print("device: %s, precision: %s, threads: %d, steps: %d, rounds: %d, "
          "torch %s" % (args.device, args.precision, args.threads, args.steps,
                        args.rounds, torch.__version__))
    tokens = size["batch"] * size["context"]
    flops = step_flops(size)
    print("size: %s (%s), %d tokens and %.3g model TFLOPs per step" % (
        args.size, ", ".join(f"{k} {v}" for k, v in size.items()), tokens,
        flops / 1e12))
    for name, ms in [("of-run", min(ours)), ("torch", min(theirs))] + (
            [("torch.compile", min(compiled))] if compiled else []):
        print("  %-14s %10.3f ms/step %12.0f tokens/s  MFU %.1f%% of %g "
              "TFLOP/s" % (name, ms, tokens / ms * 1e3,
                           100 * flops / (ms * 1e-3) / (args.peak_tflops * 1e12),
                           args.peak_tflops))
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

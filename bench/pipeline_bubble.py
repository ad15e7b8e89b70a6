#!/usr/bin/python3
"""Pipeline stages: measured bubble against 1F1B theory, and activation memory.

A chain of equal layers (relu(matmul)) trained with --stages S
--micro-batches M (each stage one rank, --threads 1) so that the stages cost
the same: the input first gets a trainable offset, so the first layer
computes its input gradient as every other layer does (without it the
first stage has one gradient matmul fewer per micro-batch than the others,
about 8% less work on 2 stages). Bubble: per stage, the share of each
steady-state step its compute stream is idle, as `of-run` prints it for
the compiled plan (a rank's step lasts from the end of its previous step to
the end of its own), against the 1F1B theory (p - 1) / (m + p - 1) in the
same script. The ranks are threads of one of-run (default), processes of
their own talking over Gloo (--ranks processes) or MPI ranks (--ranks mpi).
Memory: the bytes of the regsts written per micro-batch (activations and
their gradients, times their buffers) per stage, with 1F1B regst counts
against --pipeline-schedule gpipe (goal: about S / M of it). Stages whose
ranks outnumber the cores share them, and a firing's time then includes
the time its thread waited for a core, so the bubble compares with the
theory only with at least S cores; the script prints the core count and
the load.

A machine without the compiler (a GPU node with a runtime bundle) runs
plans compiled elsewhere: --emit-plans DIR writes chain-S.plan for each
stage count and exits; --plans DIR --runner RUNNER (of-run-plan, or a
bundle's run.sh) runs them, without the memory columns (they need of-opt).

  /usr/bin/python3 bench/pipeline_bubble.py [--stages 2,4] [--micro-batches 8]
      [--layers 8] [--width 256] [--batch 256] [--steps 30]
      [--ranks threads|processes|mpi] [--build DIR]
      [--emit-plans DIR | --plans DIR --runner RUNNER]
"""

import argparse
import os
import re
import sys
import tempfile

from gpt_ranks import ROOT, run

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from pipeline_stress import model  # noqa: E402  (a chain without residuals)


def activation_bytes(plan_text):
    """Per rank: bytes x buffers of the regsts whose producer fires more
    than once per step (written per micro-batch)."""
    per_rank = {}
    rank = None
    regsts = {}
    for line in plan_text.splitlines():
        m = re.search(r"rank_plan rank (\d+)", line)
        if m:
            rank = int(m.group(1))
            per_rank[rank] = 0
            regsts = {}
            continue
        m = re.search(r"%r(\d+) = oneflow_actor.regst \d+ count (\d+).*: "
                      r"tensor<([0-9x]*)x?f32>", line)
        if m:
            shape = [int(d) for d in m.group(3).split("x") if d]
            elements = 1
            for d in shape:
                elements *= d
            regsts[m.group(1)] = 4 * elements * int(m.group(2))
            continue
        m = re.search(r"oneflow_actor.actor .*-> \(([^)]*)\).* fires (\d+)",
                      line)
        if m and rank is not None:
            for ref in re.findall(r"%r(\d+)", m.group(1)):
                per_rank[rank] += regsts.get(ref, 0)
    return per_rank


def bubbles(output, stages):
    """Per rank: of-run's measured idle share of the compute stream per
    steady-state step (from its "pipeline bubble" line)."""
    m = re.search(r"pipeline bubble \(.*\), per rank:((?: [0-9.]+)+)", output)
    if not m:
        sys.exit("pipeline_bubble: of-run printed no bubble line:\n" + output)
    idle = [float(v) for v in m.group(1).split()]
    if len(idle) != stages:
        sys.exit("pipeline_bubble: %d ranks in the bubble line, expected %d"
                 % (len(idle), stages))
    return idle


def chain(layers, width, batch):
    """The stress script's plain chain with a trainable offset on its input
    (equal stages: see the module's docstring)."""
    text = model(None, layers, width, batch)
    t = "tensor<%dx%dxf32>" % (batch, width)
    v = "tensor<%dxf32>" % width
    offset = "\n".join([
        '  %x = oneflow.input "x" : ' + t,
        '  %offset = oneflow.variable "offset" '
        '{init = #oneflow.init<zeros>} : ' + v,
        "  %h0 = oneflow.add %x, %offset : (" + t + ", " + v + ") -> " + t])
    return text.replace('  %h0 = oneflow.input "x" : ' + t, offset)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stages", default="2,4")
    parser.add_argument("--micro-batches", type=int, default=8)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--ranks", default="threads",
                        choices=["threads", "processes", "mpi"],
                        help="threads of one of-run (in-process transfers), "
                        "processes of their own (--nproc-per-node: Gloo) or "
                        "under mpirun (MPI)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--emit-plans", metavar="DIR",
                        help="compile chain-S.plan into DIR and exit")
    parser.add_argument("--plans", metavar="DIR",
                        help="run the plans --emit-plans wrote to DIR")
    parser.add_argument("--runner", help="with --plans: of-run-plan or a "
                        "runtime bundle's run.sh")
    args = parser.parse_args()
    if args.plans and not args.runner:
        parser.error("--plans needs --runner")
    of_run = os.path.join(args.build, "bin", "of-run")
    of_opt = os.path.join(args.build, "bin", "of-opt")
    runner = args.runner or of_run
    m = args.micro_batches
    print("chain of %d relu(matmul %dx%d) layers, batch %d, %d micro-batches; "
          "%d cores" % (args.layers, args.width, args.width, args.batch, m,
                        os.cpu_count()))
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "chain.mlir")
        with open(source, "w") as f:
            f.write(chain(args.layers, args.width, args.batch))
        for p in [int(s) for s in args.stages.split(",")]:
            memory = {}
            plan = os.path.join(args.plans or args.emit_plans or tmp,
                                "chain-%d.plan" % p)
            if not args.plans:
                run([of_run, source, "--train", "--lr", "0.001", "--steps",
                     "1", "--devices", "cpu:%d" % p, "--stages", str(p),
                     "--micro-batches", str(m), "--emit_plan", plan])
            if args.emit_plans:
                print("wrote " + plan)
                continue
            for schedule in () if args.plans else ("1f1b", "gpipe"):
                pipeline = (
                    "builtin.module(func.func(oneflow-infer-shapes,"
                    "oneflow-assign-stages{stages=%d},oneflow-autodiff,"
                    "oneflow-optimizer,oneflow-apply-strategy{devices=%d "
                    "stages=%d micro-batches=%d pipeline-schedule=%s}),"
                    "oneflow-default-pipeline)" % (p, p, p, m, schedule))
                memory[schedule] = activation_bytes(
                    run([of_opt, source, "--pass-pipeline=" + pipeline]))
            flags = [plan, "--threads", "1", "--steps", str(args.steps),
                     "--print_limit", "0"]
            if args.ranks == "threads":
                command = [runner] + flags + ["--devices", "cpu:%d" % p]
            elif args.ranks == "processes":
                command = [runner] + flags + ["--nproc-per-node", str(p)]
            else:
                command = ["mpirun", "--allow-run-as-root", "--oversubscribe",
                           "-np", str(p), runner] + flags
            idle = bubbles(run(command), p)
            theory = (p - 1) / (m + p - 1)
            load = os.getloadavg()
            print("\n%d stages, ranks as %s (load %.2f %.2f %.2f at the end): "
                  "1F1B bubble theory (p-1)/(m+p-1) = %.3f"
                  % (p, args.ranks, *load, theory))
            print("%-6s %10s %10s %14s %14s %8s" % (
                "stage", "idle", "vs theory", "1f1b act B", "gpipe act B",
                "ratio"))
            for r in range(p):
                if not memory:  # --plans: no of-opt here
                    print("%-6d %10.3f %9.2fx %14s %14s %8s" % (
                        r, idle[r], idle[r] / theory, "-", "-", "-"))
                    continue
                a, g = memory["1f1b"][r], memory["gpipe"][r]
                print("%-6d %10.3f %9.2fx %14d %14d %8.3f" % (
                    r, idle[r], idle[r] / theory, a, g, a / g if g else 0))
            print("S/M = %.3f" % (p / m))


if __name__ == "__main__":
    main()

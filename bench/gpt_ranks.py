#!/usr/bin/python3
"""Training steps of the GPT example on N ranks against one rank.

examples/gpt/gpt.mlir (batch 4 x 32 characters, AdamW), compiled once per
layout into a plan, then run with `of-run PLAN --threads T` on one rank and
on N in-process ranks (--devices cpu:N) for each layout: dp, tp and the
hybrid of examples/gpt/hybrid.json. The same global batch everywhere. Rounds
are interleaved (one run of every configuration per round) so that a change
in the machine's load hits all of them alike; each run's figure is
of-run's steady-state ms/step. Prints, per configuration, the median and the
best over the rounds, and the ratio to one rank's median in the same script.

  /usr/bin/python3 bench/gpt_ranks.py [--ranks N] [--threads T]
      [--steps S] [--rounds R] [--collectives L] [--build DIR]
"""

import argparse
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gpt_bench import run, steady_ms, text_inputs, train_flags  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--collectives", default="",
                        help="of-run --collectives (default: of-run's)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()

    of_run = os.path.join(args.build, "bin", "of-run")
    inputs = text_inputs(args.build)
    train = train_flags(inputs)
    layouts = [("1 rank", None),
               ("dp", "dp"), ("tp", "tp"),
               ("hybrid", os.path.join(ROOT, "examples", "gpt", "hybrid.json"))]
    plans = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, strategy in layouts:
            plan = os.path.join(tmp, name.replace(" ", "_") + ".plan")
            devices = ["--devices", "cpu:%d" % args.ranks] if strategy else []
            strat = ["--strategy", strategy] if strategy else []
            run([of_run] + train + devices + strat + ["--emit_plan", plan])
            plans[name] = (plan, devices)
        times = {name: [] for name, _ in layouts}
        for _ in range(args.rounds):
            for name, _ in layouts:
                plan, devices = plans[name]
                extra = (["--collectives", args.collectives]
                         if args.collectives and devices else [])
                out = run([of_run, plan, "--threads", str(args.threads),
                           "--steps", str(args.steps), "--print_limit", "0"] +
                          inputs + devices + extra)
                times[name].append(steady_ms(out, name))
    one = statistics.median(times["1 rank"])
    load = os.getloadavg()
    print("GPT example training step, %d ranks vs 1, --threads %d, %d steps x "
          "%d rounds (load %.2f %.2f %.2f at the end)" %
          (args.ranks, args.threads, args.steps, args.rounds, *load))
    print("%-8s %12s %12s %12s" % ("layout", "median ms", "best ms",
                                   "vs 1 rank"))
    for name, _ in layouts:
        median = statistics.median(times[name])
        print("%-8s %12.3f %12.3f %11.2fx" % (name, median, min(times[name]),
                                              median / one))


if __name__ == "__main__":
    main()

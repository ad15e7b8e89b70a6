#!/usr/bin/python3
"""What the checks for NaN and infinity cost a training step.

examples/gpt/gpt.mlir (batch 4 x 32 characters, AdamW) compiled twice per
rank count: with `--on-nonfinite stop` (the default: one find_nonfinite of
the gradients per layout, the updates' skip flag, the input and loss
checks) and with `--on-nonfinite off` (none of it), on 1 rank and on N
in-process data-parallel ranks. Rounds are interleaved (one run of each
plan per round, the two of a rank count next to each other, in alternating
order) so that a change in the machine's load hits all alike; each figure
is of-run's steady-state ms/step. Prints the median and best per plan, the
checked plan's overhead over the unchecked one's median, and the median
and quartiles of the per-round overheads (paired: the steadier figure on
a noisy machine), in the same script (the goal: at most 2%).

  /usr/bin/python3 bench/nonfinite_overhead.py [--ranks N] [--threads T]
      [--steps S] [--rounds R] [--build DIR]
"""

import argparse
import os
import re
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gpt_bench import run, text_inputs, train_flags  # noqa: E402
from torch_threads import cpu_line  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()

    of_run = os.path.join(args.build, "bin", "of-run")
    inputs = text_inputs(args.build)
    train = train_flags(inputs)
    configs = [(ranks, mode) for ranks in (1, args.ranks)
               for mode in ("off", "stop")]
    times = {config: [] for config in configs}
    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for ranks, mode in configs:
            plan = os.path.join(tmp, "%d-%s.plan" % (ranks, mode))
            devices = ["--devices", "cpu:%d" % ranks]
            run([of_run] + train + devices +
                ["--on-nonfinite", mode, "--emit_plan", plan])
            plans[(ranks, mode)] = (plan, devices)
        for round_ in range(args.rounds):
            # Alternating the order within a round cancels a drift of the
            # machine's speed over the round.
            for config in (configs if round_ % 2 == 0 else
                           [c for pair in zip(configs[1::2], configs[0::2])
                            for c in pair]):
                plan, devices = plans[config]
                out = run([of_run, plan, "--threads", str(args.threads),
                           "--steps", str(args.steps), "--print_limit", "0",
                           "--on-nonfinite", config[1]] + inputs + devices)
                found = re.search(r"steady state \(steps [0-9-]+\): ([0-9.]+)",
                                  out) or re.search(
                                      r"ranks, ms/step: ([0-9.]+)", out)
                if not found:
                    sys.exit("error: no steady-state figure from %s" %
                             str(config))
                times[config].append(float(found.group(1)))
    load = os.getloadavg()
    print("GPT example training step with and without the non-finite checks, "
          "--threads %d, %d steps x %d rounds (load %.2f %.2f %.2f at the "
          "end)" % (args.threads, args.steps, args.rounds, *load))
    print(cpu_line(of_run))
    print("%-6s %-6s %12s %12s %10s %22s" % (
        "ranks", "checks", "median ms", "best ms", "overhead",
        "paired (quartiles)"))
    for ranks, mode in configs:
        median = statistics.median(times[(ranks, mode)])
        off = statistics.median(times[(ranks, "off")])
        # Each round's stop/off ratio: the two runs of a round were next to
        # each other, so a slow spell of the machine hits both.
        ratios = sorted(100.0 * (t / o - 1.0) for t, o in
                        zip(times[(ranks, mode)], times[(ranks, "off")]))
        quartiles = (statistics.quantiles(ratios, n=4)
                     if len(ratios) > 1 else [ratios[0]] * 3)
        print("%-6d %-6s %12.3f %12.3f %9.1f%% %7.1f%% (%.1f, %.1f)" %
              (ranks, mode, median, min(times[(ranks, mode)]),
               100.0 * (median / off - 1.0), quartiles[1], quartiles[0],
               quartiles[2]))


if __name__ == "__main__":
    main()

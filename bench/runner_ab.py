#!/usr/bin/python3
"""Two builds' plan runners, A against B, on the same GPT training plans.

For a change to the runtime that should not change its speed (or should):
of-run-plan from build A and from build B run the same compiled plans of
examples/gpt/gpt.mlir (AdamW), interleaved round by round, each round in
alternating order, so that a drift in the machine's load hits both alike:
the GPT step on one rank, data parallel on N in-process ranks, and the
README's main job (the hybrid 2x2 layout of examples/gpt/hybrid.json on 4
ranks). Each run's figure is the runner's steady-state ms/step. Prints the
median and best per configuration and build, and B's median over A's.

  /usr/bin/python3 bench/runner_ab.py A/of-run-plan B/of-run-plan
      [--ranks N] [--threads T] [--steps S] [--rounds R] [--build DIR]

(--build names the build whose of-run compiles the plans.)
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
    parser.add_argument("a", help="build A's of-run-plan")
    parser.add_argument("b", help="build B's of-run-plan")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    for runner in (args.a, args.b):
        if not os.access(runner, os.X_OK):
            sys.exit("error: %s is not an executable runner" % runner)

    of_run = os.path.join(args.build, "bin", "of-run")
    inputs = text_inputs(args.build)
    train = train_flags(inputs) + ["--progress", "off"]
    hybrid = os.path.join(ROOT, "examples", "gpt", "hybrid.json")
    configs = [("1 rank", []),
               ("dp %d" % args.ranks,
                ["--devices", "cpu:%d" % args.ranks, "--strategy", "dp"]),
               ("main job", ["--devices", "cpu:4", "--strategy", hybrid])]
    times = {(name, build): [] for name, _ in configs for build in "AB"}
    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for i, (name, flags) in enumerate(configs):
            plans[name] = os.path.join(tmp, "plan%d.plan" % i)
            run([of_run] + train + flags + ["--emit_plan", plans[name]])
        for r in range(args.rounds):
            order = [("A", args.a), ("B", args.b)]
            if r % 2:
                order.reverse()
            for name, flags in configs:
                devices = flags[:2]
                for build, runner in order:
                    out = run([runner, plans[name], "--threads",
                               str(args.threads), "--steps", str(args.steps),
                               "--progress", "off", "--print_limit", "0"] +
                              inputs + devices)
                    times[(name, build)].append(steady_ms(out, name))
    load = os.getloadavg()
    print("GPT training steps, A = %s, B = %s; --threads %d, %d steps x %d "
          "rounds (load %.2f %.2f %.2f at the end)" %
          (args.a, args.b, args.threads, args.steps, args.rounds, *load))
    print("%-10s %10s %10s %10s %10s %8s" % ("config", "A median", "A best",
                                            "B median", "B best", "B/A"))
    for name, _ in configs:
        a, b = times[(name, "A")], times[(name, "B")]
        print("%-10s %10.3f %10.3f %10.3f %10.3f %7.3fx" %
              (name, statistics.median(a), min(a), statistics.median(b),
               min(b), statistics.median(b) / statistics.median(a)))


if __name__ == "__main__":
    main()

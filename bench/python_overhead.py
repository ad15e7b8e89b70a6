#!/usr/bin/python3
"""What running a plan from Python costs against of-run-plan.

The GPT example (examples/gpt/gpt.mlir, AdamW) is compiled once from
Python and saved; each round then runs the same plan for S steps twice,
once with of-run-plan and once from a fresh Python process
(oneflow_mlir's Plan.run, the same driver library underneath), in
alternating order, on the same ranks and --threads. Each figure is rank
0's ms/step over the whole run (of-run-plan's "ran N steps in T s" line,
RunResult.ms_per_step: the same clock). Prints the medians and the median
and quartiles of the per-round ratios Python / of-run-plan (the goal:
within 2%).

  /usr/bin/python3 bench/python_overhead.py [--ranks N] [--threads T]
      [--steps S] [--rounds R] [--build DIR]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from torch_threads import cpu_line  # noqa: E402

PYTHON_RUN = """
import sys
import oneflow_mlir as of
plan = of.load_plan(sys.argv[1], devices=sys.argv[2])
r = plan.run(steps=int(sys.argv[3]), threads=int(sys.argv[4]))
print("ms/step %.6f" % r.ms_per_step)
"""


def run(cmd, env=None):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    if result.returncode != 0:
        sys.exit("error: %s\n%s" % (" ".join(cmd), result.stderr))
    return result.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = p.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build, "python"))
    devices = "cpu:%d" % args.ranks
    print(cpu_line(os.path.join(args.build, "bin", "of-run-plan")))
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "gpt.plan")
        run([sys.executable, "-c",
             "import oneflow_mlir as of; of.compile(%r, devices=%r, "
             "train=of.Train(optimizer='adamw', lr=3e-3)).save(%r)"
             % (os.path.join(ROOT, "examples/gpt/gpt.mlir"), devices, plan)],
            env)
        tool = [os.path.join(args.build, "bin", "of-run-plan"), plan,
                "--devices", devices, "--steps", str(args.steps),
                "--threads", str(args.threads), "--progress", "off"]
        python = [sys.executable, "-c", PYTHON_RUN, plan, devices,
                  str(args.steps), str(args.threads)]
        times = {"of-run-plan": [], "python": []}
        ratios = []
        for r in range(args.rounds):
            order = ["of-run-plan", "python"]
            if r % 2:
                order.reverse()
            got = {}
            for name in order:
                if name == "python":
                    out = run(python, env)
                    got[name] = float(re.search(r"ms/step ([0-9.]+)",
                                                out).group(1))
                else:
                    out = run(tool, env)
                    got[name] = float(re.search(
                        r"ran \d+ steps in [0-9.]+ s: ([0-9.]+) ms/step",
                        out).group(1))
                times[name].append(got[name])
            ratios.append(got["python"] / got["of-run-plan"])
            print("round %d: of-run-plan %.3f ms/step, python %.3f ms/step, "
                  "ratio %.3f" % (r + 1, got["of-run-plan"], got["python"],
                                  ratios[-1]), flush=True)
    print("GPT example, %d rank(s), %d thread(s), %d steps, %d rounds"
          % (args.ranks, args.threads, args.steps, args.rounds))
    for name, values in times.items():
        print("  %-12s median %.3f ms/step, best %.3f"
              % (name, statistics.median(values), min(values)))
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print("  python / of-run-plan: median ratio %.3f (quartiles %.3f, %.3f)"
          % (statistics.median(ratios), q[0], q[2]))


if __name__ == "__main__":
    main()

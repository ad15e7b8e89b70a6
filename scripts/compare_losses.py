#!/usr/bin/python3
#===- scripts/compare_losses.py - Compare per-step losses of two runs -----===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: compare_losses.py EXPECTED.csv ACTUAL.csv [--rtol R] [--column NAME]
#                          [--steps N] [--mean-last N --mean-rtol R]
#
# Both files are CSVs with a header naming a "step" column and the loss
# column (of-run --metrics writes step,seconds,samples_per_second,loss;
# scripts/train_reference.py writes step,loss). Checks that both cover the
# same steps (the first N with --steps) and that at every step
# |actual - expected| <= rtol * |expected|; with --mean-last N, also that
# the means of the last N steps agree within --mean-rtol (a learning curve
# that may wander step by step, as bf16 does, but not drift). Prints one
# line on success; on
# failure names the file, the step and the values, and exits 1.
#
#===----------------------------------------------------------------------===#
import argparse
import csv
import math
import sys


def read(path, column):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"compare_losses: cannot read '{path}': {e.strerror}")
    if not rows:
        sys.exit(f"compare_losses: '{path}' has no rows")
    for key in ("step", column):
        if key not in rows[0]:
            sys.exit(f"compare_losses: '{path}' has no column '{key}' "
                     f"(it has {', '.join(rows[0].keys())})")
    losses = {}
    for line, row in enumerate(rows, start=2):
        try:
            losses[int(row["step"])] = float(row[column])
        except (TypeError, ValueError):
            sys.exit(f"compare_losses: '{path}' line {line}: step "
                     f"'{row['step']}' or {column} '{row[column]}' is not a number")
    return losses


def main():
    parser = argparse.ArgumentParser(description="compare per-step losses")
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--column", default="loss")
    parser.add_argument("--steps", type=int, default=0,
                        help="compare only steps 0..N-1 (0: all)")
    parser.add_argument("--mean-last", type=int, default=0,
                        help="also compare the means of the last N steps")
    parser.add_argument("--mean-rtol", type=float, default=1e-5)
    args = parser.parse_args()
    expected = read(args.expected, args.column)
    actual = read(args.actual, args.column)
    steps = sorted(expected)
    if args.steps:
        steps = list(range(args.steps))
    for name, losses in ((args.expected, expected), (args.actual, actual)):
        missing = [s for s in steps if s not in losses]
        if missing:
            sys.exit(f"compare_losses: '{name}' has no {args.column} for step "
                     f"{missing[0]} ({len(missing)} steps missing)")
    if not args.steps and sorted(actual) != steps:
        sys.exit(f"compare_losses: '{args.expected}' has {len(steps)} steps "
                 f"but '{args.actual}' has {len(actual)}")
    rels = {}
    for s in steps:
        e, a = expected[s], actual[s]
        if not (math.isfinite(e) and math.isfinite(a)):
            sys.exit(f"compare_losses: step {s}: {args.column} {a} in "
                     f"'{args.actual}', {e} expected, is not finite")
        rels[s] = abs(a - e) / max(abs(e), 1e-30)
    worst_step = max(steps, key=lambda s: rels[s])
    worst = rels[worst_step]
    for s in steps:
        if rels[s] > args.rtol:
            e, a = expected[s], actual[s]
            sys.exit(f"compare_losses: step {s}: {args.column} {a!r} in "
                     f"'{args.actual}' differs from {e!r} in '{args.expected}' "
                     f"by {rels[s]:.3g} relative (> {args.rtol:g}); the worst "
                     f"is step {worst_step}, {worst:.3g} relative")
    print(f"{len(steps)} steps agree within {args.rtol:g} relative "
          f"(worst {worst:.3g})")
    if args.mean_last:
        if args.mean_last > len(steps):
            sys.exit(f"compare_losses: --mean-last {args.mean_last} is more "
                     f"than the {len(steps)} steps compared")
        tail = steps[-args.mean_last:]
        e = sum(expected[s] for s in tail) / len(tail)
        a = sum(actual[s] for s in tail) / len(tail)
        rel = abs(a - e) / max(abs(e), 1e-30)
        if rel > args.mean_rtol:
            sys.exit(f"compare_losses: the mean {args.column} of the last "
                     f"{len(tail)} steps, {a:.6g} in '{args.actual}', differs "
                     f"from {e:.6g} in '{args.expected}' by {rel:.3g} "
                     f"relative (> {args.mean_rtol:g})")
        print(f"the last {len(tail)} steps' means agree within "
              f"{args.mean_rtol:g} relative ({rel:.3g})")


if __name__ == "__main__":
    main()

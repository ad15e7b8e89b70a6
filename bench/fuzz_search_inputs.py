#!/usr/bin/python3
# ===- bench/fuzz_search_inputs.py - Layouts the search picks, at random ---===#
#
# SPDX-License-Identifier: Apache-2.0
#
# The layout `--strategy auto` picks depends on the machine's figures, so a
# layout that breaks a later pass or the runtime may show only on some
# other machine (as the fusion cycle fixed in 3af4dc6 did). This script
# makes such layouts on purpose. It perturbs a cluster file at random
# (every figure times 10^u, with u uniform in [-spread, spread], and each
# table's figures by one common factor so that they still grow), trains the
# model with `--strategy auto --cluster` on N ranks, and trains it again on
# one rank. Each seed passes only if both runs exit 0 and the losses agree
# (scripts/compare_losses.py). Failures keep their cluster file and output
# in --out. Not part of CI. It takes a few seconds per seed on 2 cores.
#
#   bench/fuzz_search_inputs.py --seeds 0:100
#   bench/fuzz_search_inputs.py --model examples/mlp.mlir --ranks 4 \
#       --input images=@DIR/digits_images.npy:loop ...
#
# ===----------------------------------------------------------------------===#
import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"


def perturb(node, rng, spread):
    """Scales every figure of a cluster file in place (not counts or sizes)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if key not in ("ranks_per_node", "bytes"):
                    node[key] = value * 10 ** rng.uniform(-spread, spread)
            elif isinstance(value, list):
                factor = 10 ** rng.uniform(-spread, spread)
                for entry in value:
                    for k, v in entry.items():
                        if k != "bytes" and isinstance(v, (int, float)):
                            entry[k] = v * factor
            else:
                perturb(value, rng, spread)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--model", default=str(ROOT / "examples/gpt/gpt.mlir"))
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--seeds", default="0:20", help="FIRST:END")
    parser.add_argument("--spread", type=float, default=1.5)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--input", action="append", default=[],
                        help="of-run --input (default: the GPT's text data)")
    parser.add_argument("--train-flags", default="--optimizer adamw --lr 0.003")
    parser.add_argument("--rtol", default="1e-4")
    parser.add_argument("--out", default="/tmp/fuzz-search-inputs")
    args = parser.parse_args()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bin_dir = Path(args.build) / "bin"
    base = out / "cluster.json"
    calibrated = run([str(bin_dir / "of-calibrate"), "--ranks", str(args.ranks),
                      "--repeats", "1", "--out", str(base)])
    if calibrated.returncode:
        sys.exit("of-calibrate failed:\n" + calibrated.stderr)
    inputs = args.input
    if not inputs:
        data = out / "data"
        run([PYTHON, str(ROOT / "scripts/make_text.py"), str(data)])
        inputs = [f"tokens=@{data}/text_tokens.npy:loop",
                  f"targets=@{data}/text_targets.npy:loop"]
    common = [str(bin_dir / "of-run"), args.model, "--train",
              *args.train_flags.split(), "--steps", str(args.steps),
              "--threads", "1", "--print-limit", "0"]
    for flag in inputs:
        common += ["--input", flag]
    serial = out / "serial.csv"
    if run(common + ["--metrics", str(serial)]).returncode:
        sys.exit("the one-rank run failed")

    first, end = (int(x) for x in args.seeds.split(":"))
    failures = 0
    for seed in range(first, end):
        cluster = json.loads(base.read_text())
        perturb(cluster, random.Random(seed), args.spread)
        path = out / f"cluster-{seed}.json"
        path.write_text(json.dumps(cluster))
        metrics = out / f"auto-{seed}.csv"
        result = run(common + ["--devices", f"cpu:{args.ranks}",
                               "--strategy", "auto", "--cluster", str(path),
                               "--explain", "--metrics", str(metrics)])
        verdict = "ok"
        if result.returncode:
            verdict = f"of-run exit {result.returncode}"
        else:
            same = run([PYTHON, str(ROOT / "scripts/compare_losses.py"),
                        str(serial), str(metrics), "--rtol", args.rtol])
            if same.returncode:
                verdict = "losses differ: " + (same.stdout + same.stderr).strip()
        if verdict == "ok":
            path.unlink()
        else:
            failures += 1
            (out / f"fail-{seed}.txt").write_text(result.stdout + result.stderr)
        print(f"seed {seed}: {verdict}", flush=True)
    print(f"{end - first} seeds, {failures} failed (kept in {out})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# ===- auto_parallel_measured.py - Predicted against measured step times -=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# On this machine, out of the box: an empty figures cache, so that the first
# --strategy auto run measures this machine (of-run's first-use calibration,
# timed, as is a run that finds it cached), or with --cluster FILE a given
# cluster file; then for the MLP and GPT examples trains with every hand
# strategy
# (dp, tp, hybrid, zero, the examples' strategy files) and with
# --strategy auto (default meshes, each mesh alone, the exact search for the
# MLP) on 4
# ranks, and prints per strategy the step time the model predicts
# (oneflow-report-strategy-cost on the laid-out step for hand strategies,
# the step of-run trains: with its non-finite checks, nonfinite=skip as
# --on-nonfinite stop compiles; --explain for auto) next to the measured steady-state step time (each
# strategy compiled once into a plan, then --repeats rounds that run every
# plan once; the median), then Spearman's rank correlation and measured
# auto over the best measured hand strategy. Out of the box, after each
# model's rounds it measures the machine again (of-run --recalibrate),
# prints how much slower (or faster) its main figures are than at first use,
# and prices the same strategies (auto's layouts as first use chose them)
# with those figures too, and with the mean of both: the predictions come
# from the first use, the measurements from the minutes after it, and a
# VM's speed drifts between them. The exit status judges the last column.
#
#   bench/auto_parallel_measured.py --bin build/bin [--repeats 5]
#       [--steps 300] [--models mlp,gpt,gpt-medium]
#
# gpt-medium is bench/gpt_train_vs_torch.py's cpu-medium GPT (20 steps a
# run); it is not in the default list (a few minutes more).
#
# Measure with nothing else running: 4 ranks share this machine's cores.
#
# ===---------------------------------------------------------------------=== #

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"auto_parallel_measured: {' '.join(command)} failed:\n"
                 f"{result.stderr}")
    return result.stdout


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2
        i = j + 1
    return result


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return cov / var ** 0.5 if var else 0.0


MODELS = {
    "mlp": {
        "program": "examples/mlp.mlir",
        "optimizer": ["--optimizer", "sgd", "--lr", "0.1", "--momentum",
                      "0.9"],
        "pass": "kind=sgd momentum=0.9",
        "inputs": lambda data: [
            "--input", f"images=@{data}/digits_images.npy:loop",
            "--input", f"labels=@{data}/digits_labels.npy:loop"],
        "files": [],
    },
    "gpt": {
        "program": "examples/gpt/gpt.mlir",
        "optimizer": ["--optimizer", "adamw", "--lr", "0.003"],
        "pass": "kind=adamw",
        "inputs": lambda data: [
            "--input", f"tokens=@{data}/text_tokens.npy:loop",
            "--input", f"targets=@{data}/text_targets.npy:loop"],
        "files": ["examples/gpt/tp.json", "examples/gpt/hybrid.json"],
    },
    # bench/gpt_train_vs_torch.py's cpu-medium size (4 layers, width 256,
    # 4 heads, context 128, batch 8), written by scripts/make_gpt.py:
    # matmuls with some work to share. A step takes about a second, so
    # fewer steps.
    "gpt-medium": {
        "generate": ["--layers=4", "--width=256", "--heads=4",
                     "--context=128", "--vocab=96", "--batch=8"],
        "context": 128,
        "steps": 20,
        "optimizer": ["--optimizer", "adamw", "--lr", "0.003"],
        "pass": "kind=adamw",
        "inputs": lambda data: [
            "--input", f"tokens=@{data}/medium/text_tokens.npy:loop",
            "--input", f"targets=@{data}/medium/text_targets.npy:loop"],
        "files": [],
    },
}


def drift(first, cluster, before):
    """Measures the machine again (of-run --recalibrate, into `cluster`) and
    prints how much slower each main figure is than `before` (first use):
    the predictions come from the first use, the measurements from the
    minutes after it, and a VM's speed drifts between them."""
    run(first + ["--recalibrate"])
    with open(cluster) as f:
        after = json.load(f)
    slower = [
        ("kernel firing", after["op_overhead"] / before["op_overhead"]),
        ("matmul of 512", before["flops"] / after["flops"]),
        ("add bandwidth",
         before["memory_bandwidth"] / after["memory_bandwidth"]),
        ("gelu of 16Ki",
         before["op_rates"]["oneflow.gelu"][1]["rate"] /
         after["op_rates"]["oneflow.gelu"][1]["rate"]),
        ("all-reduce bandwidth",
         before["collectives"]["all_reduce"]["beta"] /
         after["collectives"]["all_reduce"]["beta"])]
    print("  the machine measured again after the rounds (of-run "
          "--recalibrate), time against first use: " +
          ", ".join(f"{name} x{ratio:.2f}" for name, ratio in slower))


def price(of_opt, program, model, spec, extra, search, report):
    """The step time in us that oneflow-report-strategy-cost gives with the
    cluster file `report` for the hand strategy `spec`, or for "auto" the
    layouts oneflow-auto-parallel chooses with the cluster file `search`
    (`extra`: of-run's --mesh and --search flags)."""
    if spec == "auto":
        options = [f"cluster={search}", "devices=4"]
        for flag, value in zip(extra[::2], extra[1::2]):
            options.append(f"{flag[2:]}=" + (value.replace("x", ",")
                                             if flag == "--mesh" else value))
        layout = f"oneflow-auto-parallel{{{' '.join(options)}}}"
    else:
        layout = (f"oneflow-apply-strategy{{strategy={spec} devices=4}},"
                  "oneflow-sbp-propagation")
    pipeline = ("builtin.module(func.func(oneflow-infer-shapes,"
                "oneflow-autodiff{loss=loss},"
                f"oneflow-optimizer{{{model['pass']} nonfinite=skip}},"
                f"{layout},oneflow-report-strategy-cost{{cluster={report} "
                "per-op=false}))")
    out = run([of_opt, program, f"--pass-pipeline={pipeline}", "-o",
               os.devnull])
    return float(re.search(r"^  given\s+([\d.]+)", out, re.M).group(1))


def report(rows, columns):
    """Prints `rows` (label, predictions..., measured) and for each of the
    prediction `columns` its mean absolute error and Spearman's rank
    correlation with the measurements; returns those of the last."""
    print("  " + f"{'strategy':24}" +
          "".join(f" {c:>13}" for c in columns) + f" {'measured ms':>12}")
    for row in rows:
        print(f"  {row[0]:24}" + "".join(f" {v:13.3f}" for v in row[1:-1]) +
              f" {row[-1]:12.3f}")
    for i, column in enumerate(columns):
        predicted = [r[1 + i] for r in rows]
        measured = [r[-1] for r in rows]
        rho = spearman(predicted, measured)
        mape = statistics.mean(abs(p - m) / m
                               for p, m in zip(predicted, measured))
        print(f"  {column}: mean absolute error of the predictions "
              f"{100 * mape:.0f}% (goal <= 15%), Spearman(predicted, "
              f"measured) = {rho:.2f} (goal >= 0.8)")
    return mape, rho


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--models", default="mlp,gpt")
    parser.add_argument("--cluster", help="a cluster file to predict with "
                        "(default: what of-run measures on first use, in an "
                        "empty cache of this run)")
    args = parser.parse_args()
    of_run = os.path.join(args.bin, "of-run")
    of_opt = os.path.join(args.bin, "of-opt")
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f} ({os.cpu_count()} cores)")

    with tempfile.TemporaryDirectory() as tmp:
        run(["/usr/bin/python3", f"{ROOT}/scripts/make_digits.py", tmp])
        cluster = args.cluster
        if not cluster:
            # Out of the box: of-run measures on first use, then finds it.
            os.environ["OF_CACHE_DIR"] = os.path.join(tmp, "cache")
            first = [of_run, os.path.join(ROOT, "examples/mlp.mlir"),
                     "--train", "--devices", "cpu:4", "--strategy", "auto",
                     "--threads", "1", "--steps", "1", "--progress", "off",
                     "--print-limit", "0", "--input",
                     f"labels=@{tmp}/digits_labels.npy:loop", "--input",
                     f"images=@{tmp}/digits_images.npy:loop"]
            for what in ("first use (measures)", "cached"):
                begin = time.time()
                out = subprocess.run(first, capture_output=True, text=True)
                took = time.time() - begin
                measured = re.search(r"measured in ([\d.]+) s", out.stderr)
                print(f"of-run --strategy auto, MLP, 1 step, {what}: "
                      f"{took:.2f} s" + (f" (measuring {measured.group(1)} s)"
                                         if measured else ""))
            cluster = os.path.join(tmp, "cache",
                                   "cluster-inproc-4ranks-1threads.json")
            with open(cluster) as f:
                first_figures = json.load(f)
            first_cluster = os.path.join(tmp, "first-use.json")
            with open(first_cluster, "w") as f:
                json.dump(first_figures, f)
        run(["/usr/bin/python3", f"{ROOT}/scripts/make_text.py", tmp])
        worst_ratio, all_ok = 0.0, True
        for name in args.models.split(","):
            model = MODELS[name]
            if "generate" in model:
                program = os.path.join(tmp, f"{name}.mlir")
                with open(program, "w") as f:
                    f.write(run(["/usr/bin/python3",
                                 f"{ROOT}/scripts/make_gpt.py"] +
                                model["generate"]))
                run(["/usr/bin/python3", f"{ROOT}/scripts/make_text.py",
                     os.path.join(tmp, "medium"), "--context",
                     str(model["context"])])
            else:
                program = os.path.join(ROOT, model["program"])
            steps = min(args.steps, model.get("steps", args.steps))
            strategies = [("dp", []), ("tp", []), ("hybrid", []),
                          ("zero", [])]
            strategies += [(os.path.basename(f), []) for f in model["files"]]
            strategies += [("auto", []), ("auto --mesh 4", ["--mesh", "4"]),
                           ("auto --mesh 2x2", ["--mesh", "2x2"])]
            if name == "mlp":  # GLPK takes a minute on the GPT example
                strategies.append(("auto --search exact",
                                   ["--search", "exact"]))
            predicted, plans = {}, {}
            for label, extra in strategies:
                spec = label.split()[0]
                if spec.endswith(".json"):
                    spec = os.path.join(ROOT, "examples/gpt", spec)
                flags = ["--train", "--devices", "cpu:4", "--strategy", spec,
                         "--print-limit", "0", "--steps", "1"]
                flags += model["optimizer"] + model["inputs"](tmp) + extra
                if spec == "auto":
                    if args.cluster:
                        flags += ["--cluster", cluster]
                    flags += ["--threads", "1"]
                    out = run([of_run, program] + flags + ["--explain"])
                    predicted[label] = float(re.search(
                        r"^  auto\s+([\d.]+)", out, re.M).group(1))
                else:
                    pipeline = (
                        "builtin.module(func.func(oneflow-infer-shapes,"
                        "oneflow-autodiff{loss=loss},"
                        f"oneflow-optimizer{{{model['pass']} "
                        "nonfinite=skip},"
                        f"oneflow-apply-strategy{{strategy={spec} devices=4}},"
                        "oneflow-sbp-propagation,"
                        f"oneflow-report-strategy-cost{{cluster={cluster} "
                        "per-op=false}))")
                    out = run([of_opt, program, f"--pass-pipeline={pipeline}",
                               "-o", os.devnull])
                    predicted[label] = float(re.search(
                        r"^  given\s+([\d.]+)", out, re.M).group(1))
                plans[label] = os.path.join(
                    tmp, f"{name}-{len(plans)}.plan")
                run([of_run, program] + flags + ["--emit_plan", plans[label]])
            # Rounds interleaved: a drift of the machine's speed hits every
            # strategy alike.
            times = {label: [] for label, _ in strategies}
            for _ in range(args.repeats):
                for label, _ in strategies:
                    out = run([of_run, plans[label], "--devices", "cpu:4",
                               "--threads", "1", "--progress", "off",
                               "--print-limit", "0", "--steps",
                               str(steps)] + model["inputs"](tmp))
                    times[label].append(float(re.search(
                        r"steady state \(steps [^)]*\): ([\d.]+) ms/step",
                        out).group(1)))
            print(f"\n{name}: 4 ranks, median of {args.repeats} interleaved "
                  f"runs of {steps} steps")
            columns = ["predicted ms"]
            rows = [[label, predicted[label] / 1e3] for label, _ in strategies]
            if not args.cluster:
                # The same strategies (auto's layouts as first use chose
                # them) priced with the machine as measured after the
                # rounds, and the mean of the two: the machine's figures on
                # either side of the measurements.
                drift(first, cluster, first_figures)
                for row, (label, extra) in zip(rows, strategies):
                    spec = label.split()[0]
                    if spec.endswith(".json"):
                        spec = os.path.join(ROOT, "examples/gpt", spec)
                    after = price(of_opt, program, model, spec, extra,
                                  first_cluster, cluster) / 1e3
                    row += [after, (row[1] + after) / 2]
                columns += ["after rounds", "mean of both"]
                # The next model is predicted, as this one, with the
                # figures of first use.
                with open(cluster, "w") as f:
                    json.dump(first_figures, f)
            for row, (label, _) in zip(rows, strategies):
                row.append(statistics.median(times[label]))
            mape, rho = report(rows, columns)
            rows = [(r[0], r[-2], r[-1]) for r in rows]
            hand = min(r[2] for r in rows if not r[0].startswith("auto"))
            auto = next(r[2] for r in rows if r[0] == "auto")
            ratio = auto / hand
            worst_ratio = max(worst_ratio, ratio)
            all_ok &= rho >= 0.8 and ratio <= 1.05
            print(f"  auto / best hand measured = {ratio:.3f} (goal <= 1.05)")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()

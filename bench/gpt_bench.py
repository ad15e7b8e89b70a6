"""What the GPT-example benchmarks share: running a command (exiting with
its stderr when it fails), the example's text data as of-run --input flags,
the flags that compile its AdamW training step, and of-run's steady-state
figure."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    """stdout of `cmd`; exits naming it with its stderr when it fails."""
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if result.returncode != 0:
        sys.exit("error: %s\n%s" % (" ".join(cmd), result.stderr))
    return result.stdout


def text_inputs(build):
    """--input flags feeding the GPT example the text data (written under
    BUILD/data by scripts/make_text.py)."""
    data = os.path.join(build, "data")
    run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "make_text.py"),
         data])
    return ["--input", "tokens=@%s/text_tokens.npy:loop" % data,
            "--input", "targets=@%s/text_targets.npy:loop" % data]


def train_flags(inputs):
    """of-run's model and flags for the GPT example's AdamW training step
    (one step: for compiling it with --emit-plan)."""
    return [os.path.join(ROOT, "examples", "gpt", "gpt.mlir"), "--train",
            "--optimizer", "adamw", "--lr", "0.003", "--steps", "1",
            "--print_limit", "0"] + inputs


def steady_ms(out, what):
    """of-run's steady-state ms/step in `out`; exits naming `what` when
    there is none."""
    found = re.search(r"steady state \(steps [0-9-]+\): ([0-9.]+)", out)
    if not found:
        sys.exit("error: no steady-state figure from %s" % what)
    return float(found.group(1))

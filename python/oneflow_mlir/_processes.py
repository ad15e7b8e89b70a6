"""Plan.run(processes=N): a plan's ranks as N processes on this machine.

The ranks run as processes of of-run-plan under its own launcher
(--nproc-per-node N: a fresh store directory, Gloo between the processes by
default), as a multi-process or multi-node job's ranks do; this process
waits for them and reads back what rank 0 wrote: the metrics (every scalar
output at every step), the outputs at the last step and the summary.
numpy inputs go to the processes as .npy files in a temporary directory.
"""

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

from ._native import Error, INTERRUPTED_EXIT


def find_run_plan():
    """of-run-plan: $OF_RUN_PLAN, the build tree's (next to build/python),
    or the first on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("OF_RUN_PLAN"),
                  os.path.join(os.path.dirname(os.path.dirname(here)), "bin",
                               "of-run-plan"),
                  shutil.which("of-run-plan")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise Error("processes=N runs the ranks as processes of of-run-plan, "
                "which is not found: set OF_RUN_PLAN to its path or put it "
                "on PATH")


def _input_specs(inputs, tmp):
    """--input values: source strings as they are, arrays as .npy files."""
    specs = []
    for name, value in (inputs or {}).items():
        if not isinstance(value, str):
            array = np.ascontiguousarray(value)
            if array.dtype == object:
                raise Error(f"input '{name}': {type(value).__name__} "
                            "is not a numeric array")
            path = os.path.join(tmp, f"input-{len(specs)}.npy")
            np.save(path, array)
            value = "@" + path
        specs.append(f"--input={name}={value}")
    return specs


def _error(stderr, code):
    """The launcher's error lines, without the program's prefix."""
    lines = [line.split("error: ", 1)[1] for line in stderr.splitlines()
             if "error: " in line]
    return Error("; ".join(lines) if lines else
                 f"the processes ended with exit code {code}: "
                 f"{stderr.strip()[-500:]}")


def _result(out, code, metrics, outputs_dir):
    """The dict RunResult takes, from rank 0's stdout, metrics and outputs."""
    scalars = {}
    with open(metrics, newline="") as f:
        for row in csv.DictReader(f):
            for key, value in row.items():
                if key not in ("step", "seconds", "samples_per_second"):
                    scalars.setdefault(key, []).append(float(value))
    steps, seconds = 0, 0.0
    ran = re.search(r"ran (\d+) steps in ([0-9.e+-]+) s", out)
    if ran:
        steps, seconds = int(ran.group(1)), float(ran.group(2))
    summary = re.search(r"^summary: .*$", out, re.MULTILINE)
    outputs = {}
    for file in sorted(os.listdir(outputs_dir)):
        name = file[:-len(".npy")]
        if file.endswith(".npy") and name != "nonfinite":
            outputs[name] = np.load(os.path.join(outputs_dir, file))
    return {"outputs": outputs, "variables": {}, "scalars": scalars,
            "steps": steps, "seconds": seconds, "exit_code": code,
            "summary": summary.group(0) if summary else "",
            "stopped_after": -1}


def run(plan, processes, inputs, flags, metrics):
    """Runs `plan` (a Plan) as `processes` processes with of-run-plan's
    `flags` ("--steps=3", ...); returns the dict RunResult takes."""
    if processes != plan.ranks:
        raise Error(f"processes={processes}: the plan has {plan.ranks} "
                    f"rank(s), one per process (compile it for "
                    f"devices=\"cpu:{processes}\")")
    with tempfile.TemporaryDirectory(prefix="oneflow-mlir-") as tmp:
        path = os.path.join(tmp, "plan.plan")
        with open(path, "wb") as f:
            f.write(plan.data)
        metrics = metrics or os.path.join(tmp, "metrics.csv")
        outputs_dir = os.path.join(tmp, "outputs")
        os.mkdir(outputs_dir)
        cmd = ([find_run_plan(), path, f"--nproc-per-node={processes}",
                f"--metrics={metrics}", f"--save-outputs={outputs_dir}"] +
               flags + [f"--plugin={p}" for p in plan.plugins] +
               _input_specs(inputs, tmp))
        launcher = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        try:
            out, err = launcher.communicate()
        except KeyboardInterrupt:
            # The launcher stops every rank after the same step.
            launcher.send_signal(signal.SIGINT)
            launcher.communicate()
            raise
        code = launcher.returncode
        if code == INTERRUPTED_EXIT:
            raise KeyboardInterrupt("the processes were stopped")
        if code not in (0, 1) or (code == 1 and "error: " in err):
            raise _error(err, code)
        sys.stderr.write(err)
        return _result(out, code, metrics, outputs_dir)

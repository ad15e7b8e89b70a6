"""Ctrl-C during Plan.run(processes=N): the launcher stops every rank after
the same step, run() raises KeyboardInterrupt, and no rank is left behind
(argv: model)."""
import os
import signal
import sys
import threading
import time

import oneflow_mlir as of

# As in an interactive session (lit may start us with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
plan = of.compile(sys.argv[1], devices="cpu:2", train=of.Train(lr=0.01))
# Ctrl-C once the ranks are well into their steps.
threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
began = time.monotonic()
try:
    plan.run(steps=10000000, processes=2, progress="off")
    print("no KeyboardInterrupt")
except KeyboardInterrupt:
    print("KeyboardInterrupt within %s" %
          ("10 s" if time.monotonic() - began < 10 else "more than 10 s"))

def runner_processes():
    """Processes of of-run-plan running a plan of ours (the launcher and
    the ranks run one from a temporary directory named oneflow-mlir-*)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if any(b"oneflow-mlir-" in arg and arg.endswith(b"/plan.plan")
               for arg in argv):
            found.append(pid)
    return found


print("processes left: %d" % len(runner_processes()))

"""Ctrl-C during Plan.run: every rank stops after the same step and run()
raises KeyboardInterrupt; Python's own Ctrl-C handling is back after it."""
import os
import signal
import sys
import time

import oneflow_mlir as of

# As in an interactive session (lit may start us with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
plan = of.compile(sys.argv[1], devices="cpu:2", train=of.Train(lr=0.01))


def interrupt(step, values):
    if step == 3:
        os.kill(os.getpid(), signal.SIGINT)


try:
    plan.run(steps=100000, on_step=interrupt)
    print("no KeyboardInterrupt")
except KeyboardInterrupt as stop:
    print("KeyboardInterrupt: %s" % stop)
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    print("Python's handler is gone")
except KeyboardInterrupt:
    print("Python's handler is back")

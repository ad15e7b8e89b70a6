"""Plan.run(processes=N): the ranks as processes of of-run-plan give the
losses and outputs of the same ranks as threads (argv: model). The
processes meet through Gloo and the threads through shared memory: the same
sums, so 1e-6 relative."""
import sys

import oneflow_mlir as of

import numpy as np

model = sys.argv[1]
plan = of.compile(model, devices="cpu:2",
                  train=of.Train(optimizer="sgd", lr=0.1))
images = np.random.RandomState(0).rand(256, 64).astype(np.float32)
inputs = {"images": images, "labels": "fill:1"}
threads = plan.run(inputs=inputs, steps=4)
processes = plan.run(inputs=inputs, steps=4, processes=2)
assert len(processes.losses) == 4, processes.losses
for a, b in zip(threads.losses, processes.losses):
    assert abs(a - b) <= 1e-6 * abs(a), (threads.losses, processes.losses)
print("losses: 4 steps, processes equal threads")
diff = np.abs(threads.outputs["prob"] - processes.outputs["prob"]).max()
assert diff <= 1e-6, diff
print("outputs: %s" % sorted(processes.outputs))
print("summary: %s" % processes.summary)

bad = [
    ("ranks", lambda: plan.run(processes=3)),
    ("variables", lambda: plan.run(processes=2, variables=True)),
    ("store", lambda: plan.run(processes=2, store_dir="/tmp")),
    ("source", lambda: plan.run(processes=2, inputs={"images": "fill:x"})),
]
for name, call in bad:
    try:
        call()
        print("%s: no exception" % name)
    except of.Error as error:
        print("%s: %s" % (name, error))

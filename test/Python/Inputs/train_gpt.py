"""The GPT example trained from Python: the losses of-run printed to its
metrics file (argv[2]), exactly; then 4 ranks against 1 on numpy inputs."""
import csv
import sys

import oneflow_mlir as of  # noqa: I001 (before numpy: docs/python.md)

import numpy as np

model, metrics = sys.argv[1], sys.argv[2]
train = of.Train(optimizer="adamw", lr=3e-3)

plan = of.compile(model, devices="cpu:2", train=train)
seen = []
result = plan.run(steps=20, threads=1,
                  on_step=lambda step, values: seen.append(step))
with open(metrics) as f:
    expected = [float(row["loss"]) for row in csv.DictReader(f)]
got = [float(np.float32(v)) for v in result.losses]
want = [float(np.float32(v)) for v in expected]
assert len(got) == 20 and got == want, (got, want)
assert seen == list(range(20)), seen
print("20 steps equal of-run's losses")

# Numpy inputs, 5 batches of 4 sequences each; 4 ranks (data parallel)
# against 1.
rng = np.random.default_rng(0)
tokens = rng.integers(0, 64, size=(20, 32), dtype=np.int64)
targets = np.roll(tokens, -1, axis=1)
inputs = {"tokens": tokens, "targets": targets}
one = of.compile(model, devices="cpu:1", train=train).run(inputs=inputs,
                                                          steps=5)
four = of.compile(model, devices="cpu:4", train=train).run(inputs=inputs,
                                                           steps=5)
worst = max(abs(a - b) / max(abs(b), 1e-12)
            for a, b in zip(four.losses, one.losses))
assert len(one.losses) == 5 and worst < 1e-5, (one.losses, four.losses)
print("4 ranks equal 1 rank (worst relative difference %.1e)" % worst)
print("loss %.4f -> %.4f, %.2f ms/step" % (one.losses[0], one.losses[-1],
                                           one.ms_per_step))

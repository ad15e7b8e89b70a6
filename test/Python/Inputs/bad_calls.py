"""Bad calls: each raises a Python exception with the tools' message (one
line each: EXCEPTION-TYPE: message); none crashes the interpreter."""
import os
import sys

import numpy as np

import oneflow_mlir as of

model, tmp = sys.argv[1], sys.argv[2]
plan = of.compile(model, devices="cpu:1", train=of.Train(lr=0.01))
tokens = np.zeros((4, 32), np.int64)
mlp = of.compile(os.path.join(os.path.dirname(model), "..", "mlp.mlir"),
                 train=of.Train())
images = np.zeros((128, 64), np.float32)
images[70, 5] = np.nan
with open(os.path.join(tmp, "bad.plantxt"), "w") as f:
    f.write("version: CURRENT\nworld_size: 1\nranks { bogus: 1 }\n")
with open(os.path.join(tmp, "not-a-plan"), "w") as f:
    f.write("hello")
plan.save(os.path.join(tmp, "gpt.plan"))

calls = [
    ("missing file", lambda: of.compile(os.path.join(tmp, "missing.mlir"))),
    ("not a model", lambda: of.compile(12345)),
    ("mlir syntax", lambda: of.compile("module { func.func @f( }")),
    ("onnx bytes", lambda: of.compile(b"not onnx at all")),
    ("devices 0", lambda: of.compile(model, devices="cpu:0")),
    ("devices kind", lambda: of.compile(model, devices="tpu:2")),
    ("train type", lambda: of.compile(model, train={"lr": 1})),
    ("train option", lambda: of.compile(model, train=of.Train(bogus=1))),
    ("train value", lambda: of.compile(model, train=of.Train(lr="fast"))),
    ("train devices", lambda: of.Train(devices=4)),
    ("optimizer", lambda: of.compile(model, train=of.Train(optimizer="x"))),
    ("schedule", lambda: of.compile(model, train=of.Train(pipeline_schedule="zigzag"))),
    ("loss", lambda: of.compile(model, train=of.Train(loss="nope"))),
    ("steps 0", lambda: plan.run(steps=0)),
    ("threads", lambda: plan.run(threads=-1)),
    ("nonfinite", lambda: plan.run(on_nonfinite="maybe")),
    ("progress", lambda: plan.run(progress="sometimes")),
    ("collectives", lambda: plan.run(collectives="banana")),
    ("input dtype", lambda: plan.run(inputs={"tokens": tokens * 1.0})),
    ("input shape", lambda: plan.run(inputs={"tokens": tokens[:2]})),
    ("input object", lambda: plan.run(inputs={"tokens": [[object()]]})),
    ("input complex", lambda: plan.run(inputs={"tokens": tokens * 1j})),
    ("input nan", lambda: mlp.run(inputs={"images": images}, steps=2)),
    ("input source", lambda: plan.run(inputs={"tokens": "fill:x"})),
    ("resume", lambda: plan.run(resume=os.path.join(tmp, "no-ckpt"))),
    ("save every", lambda: plan.run(save_every=-1)),
    ("plan file", lambda: of.load_plan(os.path.join(tmp, "not-a-plan"))),
    ("plan text", lambda: of.load_plan(os.path.join(tmp, "bad.plantxt"))),
    ("plan ranks", lambda: of.load_plan(os.path.join(tmp, "gpt.plan"),
                                        devices="cpu:3").run()),
    ("pass name", lambda: of.passes("module {}", "builtin.module(no-pass)")),
    ("pass text", lambda: of.passes("module {", "builtin.module()")),
]
for name, call in calls:
    try:
        call()
    except (of.Error, TypeError) as error:
        message = " ".join(str(error).split())
        print("%s: %s: %s" % (name, type(error).__name__, message[:300]))
    else:
        print("%s: no exception" % name)
print("all %d calls returned" % len(calls))

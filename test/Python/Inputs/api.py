"""Plans, variables, checkpoints and passes from Python, checked against
of-run-plan running the same plan (argv: model, scratch directory,
of-run-plan). of-run-plan prints 6 significant digits: 1e-5 relative."""
import os
import re
import subprocess
import sys

import oneflow_mlir as of

# In order with the notes the library prints on stderr.
sys.stdout.reconfigure(line_buffering=True)

model, tmp, run_plan = sys.argv[1:4]
inputs = {"images": "fill:0.5", "labels": "fill:1"}
plan = of.compile(model, devices="cpu:2",
                  train=of.Train(optimizer="sgd", lr=0.1))
ckpt = os.path.join(tmp, "ckpt")
first = plan.run(inputs=inputs, steps=3, variables=True, save=ckpt)
w = first.variables["fc1.weight"]
print("variables: %d arrays, fc1.weight %s %s"
      % (len(first.variables), w.dtype, w.shape))

path = os.path.join(tmp, "mlp.plan")
plan.save(path)
again = of.load_plan(path, devices="cpu:2").run(inputs=inputs, steps=3)
assert again.losses == first.losses, (again.losses, first.losses)
print("loaded plan: same losses")

# The plan as text (a .plantxt that loads back to the very same plan) and as
# a Graphviz graph with a cluster per rank.
text = plan.text()
assert "world_size: 2" in text and "checksum" not in text, text[:300]
txt = os.path.join(tmp, "mlp.plantxt")
plan.save(txt)
assert of.load_plan(txt, devices="cpu:2").data == plan.data
print("text: loads back to the same plan")
dot = plan.to_dot()
assert dot.startswith("digraph plan {"), dot[:100]
assert "subgraph cluster_rank0 " in dot and "subgraph cluster_rank1 " in dot
print("dot: 2 ranks")
print("saved: %s" % ckpt)

# of-run-plan runs the plan Python saved, with the same losses, and
# resumes the checkpoint Python wrote where a 4-step run goes on.
args = [run_plan, path, "--devices", "cpu:2", "--progress", "off",
        "--input", "images=fill:0.5,labels=fill:1"]
out = subprocess.run(args + ["--steps", "3"], check=True,
                     capture_output=True, text=True).stdout
m = re.search(r"loss ([0-9.e+-]+) -> ([0-9.e+-]+)", out)
assert m and abs(float(m.group(1)) - first.losses[0]) < 1e-5 * abs(
    first.losses[0]) and abs(float(m.group(2)) - first.losses[-1]) < 1e-5 * abs(
    first.losses[-1]), (out, first.losses)
print("of-run-plan: same losses")
text_run = subprocess.run([run_plan, txt] + args[2:] + ["--steps", "3"],
                          check=True, capture_output=True, text=True).stdout
assert m.group(0) in text_run, (text_run, m.group(0))
print("of-run-plan: Python's .plantxt, same losses")
four = plan.run(inputs=inputs, steps=4).losses
out = subprocess.run(args + ["--steps", "1", "--resume", ckpt], check=True,
                     capture_output=True, text=True).stdout
m = re.search(r"loss ([0-9.e+-]+) -> ([0-9.e+-]+)", out)
assert "resumed from" in out and m and abs(
    float(m.group(1)) - four[3]) < 1e-5 * abs(four[3]), (out, four)
print("of-run-plan resumes Python's checkpoint at step 3")

with open(model) as f:
    text = f.read()
shaped = of.passes(text, "builtin.module(func.func(oneflow-infer-shapes))")
# The softmax's result, unknown in the source, has its shape now.
assert "tensor<64x10xf32>" in shaped, shaped
print("passes: %s" % ("oneflow.matmul" if "oneflow.matmul" in shaped
                      else shaped[:200]))

# strategy="auto" without a cluster file: this machine's figures, measured
# once into the cache ($OF_CACHE_DIR), as of-run measures them.
auto = of.compile(model, devices="cpu:2", train=of.Train(strategy="auto"))
cached = sorted(os.listdir(os.environ["OF_CACHE_DIR"]))
print("auto: predicted %s, cached %s" % (auto.predicted_step_seconds > 0,
                                         cached))

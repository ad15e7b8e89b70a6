"""A script run under a launcher (torchrun, mpirun, srun), as on several
machines: each process is one rank, told by the launcher's environment
(RANK, WORLD_SIZE), and the ranks meet through `store_dir` (a directory
every machine sees). This script plays the launcher for its 2 ranks on one
machine, then checks that rank 0's losses and outputs are those of the same
plan with its ranks as threads of one process (argv: model)."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import oneflow_mlir as of


def compile_plan(model):
    return of.compile(model, devices="cpu:2",
                      train=of.Train(optimizer="sgd", lr=0.1))


INPUTS = {"images": "random:0:1", "labels": "fill:1"}

if len(sys.argv) == 4:  # One rank, as the launcher started it.
    model, store, out = sys.argv[1:]
    result = compile_plan(model).run(inputs=INPUTS, steps=4, store_dir=store)
    if os.environ["RANK"] == "0":
        with open(out, "w") as f:
            json.dump({"losses": result.losses,
                       "prob": result.outputs["prob"].tolist()}, f)
    sys.exit(0)

model = sys.argv[1]
threads = compile_plan(model).run(inputs=INPUTS, steps=4)
with tempfile.TemporaryDirectory() as tmp:
    store, out = os.path.join(tmp, "store"), os.path.join(tmp, "rank0.json")
    os.mkdir(store)
    ranks = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2",
                   LOCAL_RANK=str(rank))
        ranks.append(subprocess.Popen(
            [sys.executable, __file__, model, store, out], env=env))
    codes = [p.wait(timeout=300) for p in ranks]
    print("exit codes: %s" % codes)
    with open(out) as f:
        rank0 = json.load(f)
assert len(rank0["losses"]) == 4, rank0["losses"]
for a, b in zip(threads.losses, rank0["losses"]):
    assert abs(a - b) <= 1e-6 * abs(a), (threads.losses, rank0["losses"])
print("losses: 4 steps, launched ranks equal threads")
diff = np.abs(threads.outputs["prob"] - np.array(rank0["prob"])).max()
assert diff <= 1e-6, diff
print("outputs: equal")

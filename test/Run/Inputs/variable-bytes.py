# variable-bytes.py - bytes of variables (parameters and optimizer states)
# each rank of a lowered plan holds.
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: variable-bytes.py PLAN.mlir (of-opt output after
# oneflow-lower-to-actor-graph). Prints "rank R: N bytes of variables" for
# every oneflow_actor.rank_plan, summing the regsts of oneflow.variable
# actors (local shapes: the rank's pieces).

import re
import sys

SIZES = {"f32": 4, "f64": 8, "i64": 8, "i32": 4, "i1": 1}
REGST = re.compile(r"(%r\d+) = oneflow_actor\.regst .*: tensor<([^>]*)>")
VARIABLE = re.compile(r'"oneflow\.variable"\(\) -> \((%r\d+)\)')

rank, regsts, total = None, {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        plan = re.search(r"oneflow_actor\.rank_plan rank (\d+)", line)
        if plan:
            rank, regsts = int(plan.group(1)), {}
            total[rank] = 0
            continue
        match = REGST.search(line)
        if match:
            *dims, dtype = match.group(2).split("x")
            count = 1
            for d in dims:
                count *= int(d)
            regsts[match.group(1)] = count * SIZES[dtype]
        match = VARIABLE.search(line)
        if match:
            total[rank] += regsts[match.group(1)]
if not total:
    sys.exit("no rank plans in " + sys.argv[1])
for r in sorted(total):
    print(f"rank {r}: {total[r]} bytes of variables")

#!/usr/bin/python3
"""Prints, per rank, the order in which a step's actors fired on a stream.

Reads a Chrome trace written by `of-run --trace` and prints one line per
rank: the actors of `--stream` (default compute) whose name starts with
`--prefix` (default matmul) that fired in step `--step` (default 1), in the
order they started, each as NAME:MICRO_BATCH. With pipeline stages this
shows the schedule the regst counts made (1F1B: F0 F1 B0 F2 B1 ...).

With `--ahead FORWARD BACKWARD` (two actor names) it prints instead, per
rank that has both, how many FORWARD firings at most had started beyond
the BACKWARD firings that had started (the micro-batches a stage keeps
alive: at most its 1F1B buffer count).

  /usr/bin/python3 scripts/trace_order.py TRACE.json [--step N]
      [--stream S] [--prefix P] [--ahead FORWARD BACKWARD]
"""

import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--step", default="1")
    parser.add_argument("--stream", default="compute")
    parser.add_argument("--prefix", default="matmul")
    parser.add_argument("--ahead", nargs=2, metavar=("FORWARD", "BACKWARD"))
    args = parser.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]
    streams = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            streams[(e.get("pid", 0), e.get("tid", 0))] = e["args"]["name"]
    by_rank = {}
    for e in events:
        where = (e.get("pid", 0), e.get("tid", 0))
        if (e.get("ph") == "X" and streams.get(where) == args.stream and
                e["name"].startswith(args.prefix) and
                e.get("args", {}).get("step") == args.step):
            by_rank.setdefault(where[0], []).append(e)
    for rank in sorted(by_rank):
        fired = sorted(by_rank[rank], key=lambda e: e["ts"])
        if args.ahead:
            forward = backward = most = 0
            for e in fired:
                forward += e["name"] == args.ahead[0]
                backward += e["name"] == args.ahead[1]
                most = max(most, forward - backward)
            if backward:
                print("rank %d: at most %d forward micro-batches ahead" %
                      (rank, most))
            continue
        print("rank %d: %s" % (rank, " ".join(
            "%s:%s" % (e["name"], e["args"].get("micro_batch", "-"))
            for e in fired)))


if __name__ == "__main__":
    main()

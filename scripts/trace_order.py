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

With `--after RANK:FIRST RANK:THEN` (an actor that THEN reads what FIRST
computed, on another rank) it prints in how many micro-batches of the step
THEN started after FIRST ended: all of them when the ranks' firings are on
one clock (ranks in other processes of the host are moved onto rank 0's).

With `--overlap STREAM:PREFIX` it prints, per rank, how many of the
selected firings (say `--stream collective --prefix all_reduce`) started
before the last firing of STREAM whose name starts with PREFIX ended (say
`compute:matmul`: gradient all-reduces issued while the backward pass
still had matmuls to run), and for how much of their time STREAM was
running something.

With `--together` it prints, for each rank and the next, for how much of
the time the first of them ran selected firings the next ran some at the
same time (pipeline stages working on different micro-batches at once;
stages that take turns give 0%).

  /usr/bin/python3 scripts/trace_order.py TRACE.json [--step N]
      [--stream S] [--prefix P] [--ahead FORWARD BACKWARD]
      [--after RANK:FIRST RANK:THEN] [--overlap STREAM:PREFIX] [--together]
"""

import argparse
import json


def after(by_rank, first, then):
    """Prints in how many micro-batches `then` started after `first` ended."""
    def firings(spec):
        rank, name = spec.split(":", 1)
        return {e["args"].get("micro_batch", "-"): e
                for e in by_rank.get(int(rank), []) if e["name"] == name}
    ends, starts = firings(first), firings(then)
    both = sorted(set(ends) & set(starts))
    later = sum(starts[m]["ts"] >= ends[m]["ts"] + ends[m].get("dur", 0)
                for m in both)
    print("%s started after %s ended in %d of %d micro-batches" %
          (then, first, later, len(both)))


def span(firing):
    """A firing's (begin, end) in microseconds."""
    return firing["ts"], firing["ts"] + firing.get("dur", 0)


def shared_time(xs, ys):
    """Time in both lists of (begin, end) spans (each list disjoint)."""
    return sum(max(0.0, min(x[1], y[1]) - max(x[0], y[0]))
               for x in xs for y in ys)


def overlap(selected, others, prefix, rank):
    """Prints how `selected` firings overlap the firings in `others`."""
    last = max((e["ts"] + e.get("dur", 0) for e in others
                if e["name"].startswith(prefix)), default=None)
    early = sum(last is not None and e["ts"] < last for e in selected)
    busy = sum(e.get("dur", 0) for e in selected)
    shared = shared_time([span(e) for e in selected],
                         [span(e) for e in others])
    print("rank %d: %d of %d started before the last %s ended; the other "
          "stream ran during %.0f%% of their time" %
          (rank, early, len(selected), prefix,
           100.0 * shared / busy if busy else 0.0))


def spans(firings):
    """The union of the firings' time spans, as sorted disjoint pairs."""
    merged = []
    for e in sorted(firings, key=lambda e: e["ts"]):
        begin, end = span(e)
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    return merged


def together(by_rank):
    """Prints how much of each rank's busy time the next rank was busy."""
    ranks = sorted(by_rank)
    for first, then in zip(ranks, ranks[1:]):
        a, b = spans(by_rank[first]), spans(by_rank[then])
        busy = sum(end - begin for begin, end in a)
        both = shared_time(a, b)
        print("ranks %d and %d ran at once for %.0f%% of rank %d's time" %
              (first, then, 100.0 * both / busy if busy else 0.0, first))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--step", default="1")
    parser.add_argument("--stream", default="compute")
    parser.add_argument("--prefix", default="matmul")
    parser.add_argument("--ahead", nargs=2, metavar=("FORWARD", "BACKWARD"))
    parser.add_argument("--after", nargs=2, metavar=("RANK:FIRST",
                                                     "RANK:THEN"))
    parser.add_argument("--overlap", metavar="STREAM:PREFIX")
    parser.add_argument("--together", action="store_true")
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
    if args.after:
        after(by_rank, *args.after)
        return
    if args.together:
        together(by_rank)
        return
    if args.overlap:
        other, prefix = args.overlap.split(":", 1)
        for rank in sorted(by_rank):
            others = [e for e in events if e.get("ph") == "X" and
                      e.get("pid", 0) == rank and
                      streams.get((rank, e.get("tid", 0))) == other and
                      e.get("args", {}).get("step") == args.step]
            overlap(by_rank[rank], others, prefix, rank)
        return
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

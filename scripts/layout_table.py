#!/usr/bin/python3
"""Prints of-translate --export-layouts-json output (stdin) as a table.

One row per global tensor: where it is defined, its logical shape, its
nd-SBP, and the local shape each rank holds.
"""
import json
import sys


def main():
    report = json.load(sys.stdin)
    rows = []
    for t in report["tensors"]:
        logical = "x".join(map(str, t["shape"])) or "scalar"
        ranks = "  ".join(
            "r%d:%s" % (r["rank"], "x".join(map(str, r["shape"])) or "scalar")
            for r in t["ranks"])
        what = t["op"] + (' "%s"' % t["name"] if "name" in t else "")
        rows.append((what, logical, t["nd_sbp"], ranks))
    header = ("tensor", "logical", "nd-sbp", "local shape per rank")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(3)]
    for op, logical, sbp, ranks in [header] + rows:
        print("%-*s  %-*s  %-*s  %s" % (widths[0], op, widths[1], logical,
                                        widths[2], sbp, ranks))


if __name__ == "__main__":
    main()

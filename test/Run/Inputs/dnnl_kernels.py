#!/usr/bin/python3
"""Reads ONEDNN_VERBOSE=1 output (of-run's stdout) and says which oneDNN
implementations ran: fails (exit 1) when any is a reference kernel (`ref:`,
hundreds of times slower than the JIT ones) or when nothing ran at all (the
verbose output is missing, so the check would prove nothing).

Usage: dnnl_kernels.py LABEL < verbose-output
Prints "LABEL: N oneDNN calls on ISA, no reference kernel".
"""
import collections
import sys


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "run"
    calls = collections.Counter()
    isa = "unknown"
    for line in sys.stdin:
        fields = line.rstrip("\n").split(",")
        if line.startswith("onednn_verbose,info,cpu,isa:"):
            isa = line.split("isa:", 1)[1].strip()
        if len(fields) > 4 and fields[0] == "onednn_verbose" and \
                fields[1] == "exec":
            calls[(fields[3], fields[4])] += 1
    if not calls:
        sys.exit("%s: no oneDNN call in the verbose output" % label)
    slow = sorted("%s %s (%d calls)" % (prim, impl, n)
                  for (prim, impl), n in calls.items() if impl.startswith("ref:"))
    if slow:
        sys.exit("%s: reference kernels on %s: %s" % (label, isa, "; ".join(slow)))
    print("%s: %d oneDNN calls on %s, no reference kernel" %
          (label, sum(calls.values()), isa))


if __name__ == "__main__":
    main()

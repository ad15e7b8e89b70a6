# same-outputs.py - checks that two of-run transcripts print the same outputs.
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: same-outputs.py EXPECTED ACTUAL. Compares every "NAME: TYPE = [..]"
# line: the same names and types, and values equal up to a relative 1e-5
# (sums over ranks add in another order than one rank does).

import re
import sys

LINE = re.compile(r"^(\w+): (\S+) = \[?([^\]]*)\]?$")


def outputs(path):
    found = {}
    with open(path) as f:
        for line in f:
            match = LINE.match(line.strip())
            if match:
                name, type_, values = match.groups()
                found[name] = (type_, [float(v) for v in values.split(",")])
    return found


expected, actual = outputs(sys.argv[1]), outputs(sys.argv[2])
if not expected:
    sys.exit("no outputs in " + sys.argv[1])
if expected.keys() != actual.keys():
    sys.exit("outputs %s != %s" % (sorted(expected), sorted(actual)))
for name, (type_, values) in expected.items():
    other_type, others = actual[name]
    if type_ != other_type or len(values) != len(others):
        sys.exit("%s: %s != %s" % (name, type_, other_type))
    for i, (a, b) in enumerate(zip(values, others)):
        if abs(a - b) > 1e-5 * max(1.0, abs(a)):
            sys.exit("%s[%d]: %g != %g" % (name, i, a, b))
print("same outputs:", ", ".join(sorted(expected)))

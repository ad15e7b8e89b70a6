#!/usr/bin/python3
# Reads of-run outputs and checks their "loss: f32 = V" lines.
#   check_losses.py falls FIRST LAST     LAST's loss is below FIRST's / 10
#   check_losses.py equal A B            the losses agree to 1e-4 relative
import re
import sys


def loss(path):
    with open(path) as f:
        found = re.findall(r"^loss: f32 = (\S+)$", f.read(), re.M)
    if not found:
        sys.exit(f"{path}: no 'loss: f32 = ' line")
    return float(found[-1])


mode, a, b = sys.argv[1], loss(sys.argv[2]), loss(sys.argv[3])
if mode == "falls":
    ok = b < a / 10
elif mode == "equal":
    ok = abs(a - b) <= 1e-4 * max(abs(a), abs(b), 1e-6)
else:
    sys.exit(f"unknown mode {mode}")
print(f"{mode}: {a} {b} {'ok' if ok else 'FAILED'}")
sys.exit(0 if ok else 1)

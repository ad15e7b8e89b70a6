#!/usr/bin/env python3
#===- scripts/optimizer_reference.py - PyTorch values for OptimizerTest ---===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Runs torch.optim.SGD / Adam / AdamW (with a LambdaLR for the warm-up and
# cosine schedule) for five steps on the parameter and gradients that
# unittests/Runtime/Kernels/OptimizerTest.cpp uses, and prints the
# parameter after each step as the C++ table that test embeds.
#
#===----------------------------------------------------------------------===#
import math

import torch

P0 = [0.5, -1.0, 2.0, 0.1]
STEPS = 5


def grad(step, i):
    """The gradient of element i at step (from 0); the test has the same."""
    return 0.1 * (i + 1) - 0.05 * step * (1 if i % 2 == 0 else -1)


def schedule(warmup, total, min_factor):
    def factor(s):
        if s < warmup:
            return (s + 1) / warmup
        if total <= 0:
            return 1.0
        progress = min(1.0, (s - warmup) / (total - warmup))
        return min_factor + (1 - min_factor) * 0.5 * (1 + math.cos(math.pi * progress))
    return factor


CASES = [
    # name, optimizer class, kwargs, scale, (warmup, total, min_lr / lr)
    ("sgd", torch.optim.SGD, dict(lr=0.1), 1.0, None),
    ("sgd_momentum_wd", torch.optim.SGD,
     dict(lr=0.1, momentum=0.9, weight_decay=0.01), 1.0, None),
    ("sgd_nesterov", torch.optim.SGD,
     dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01), 1.0, None),
    ("sgd_scaled", torch.optim.SGD, dict(lr=0.1), 0.5, None),
    ("adam", torch.optim.Adam, dict(lr=0.01), 1.0, None),
    ("adam_wd", torch.optim.Adam,
     dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), 1.0, None),
    ("adamw", torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1), 1.0, None),
    ("adamw_schedule", torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1),
     1.0, (2, 5, 0.1)),
]


def main():
    torch.set_default_dtype(torch.float64)
    for name, cls, kwargs, scale, sched in CASES:
        p = torch.nn.Parameter(torch.tensor(P0))
        opt = cls([p], **kwargs)
        lr_sched = (torch.optim.lr_scheduler.LambdaLR(opt, schedule(*sched))
                    if sched else None)
        rows = []
        for s in range(STEPS):
            p.grad = torch.tensor([grad(s, i) for i in range(len(P0))]) * scale
            opt.step()
            if lr_sched:
                lr_sched.step()
            rows.append("{" + ", ".join("%.17g" % v for v in p.tolist()) + "}")
        print('    {"%s", {%s}},' % (name, ",\n      ".join(rows)))


if __name__ == "__main__":
    main()

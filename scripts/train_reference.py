#!/usr/bin/python3
#===- scripts/train_reference.py - PyTorch reference losses for the MLP ---===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Trains examples/mlp.mlir's model (64 -> 128 -> ReLU -> 10, softmax
# cross-entropy, mean over a batch of 64) in PyTorch from seeded initial
# weights on the digits batches of-run reads (`--input
# images=@DATA/digits_images.npy:loop`: batch s is rows 64*(s % 28) on, the
# 5 rows after the last whole batch unused), and writes
#
#   OUT/init/           the initial weights, a v1 checkpoint (parameters
#                       only: of-run --resume OUT/init --resume-partial)
#   OUT/sgd-momentum.csv  step,loss of torch.optim.SGD(lr, momentum)
#   OUT/adam.csv          step,loss of torch.optim.Adam(lr)
#
# The checked-in copy under test/Run/Inputs/mlp-reference/ comes from
#
#   /usr/bin/python3 scripts/make_digits.py /tmp/digits
#   /usr/bin/python3 scripts/train_reference.py /tmp/digits \
#       test/Run/Inputs/mlp-reference
#
# with the defaults below (test/Run/train-reference.test uses the same
# hyperparameters).
#
#===----------------------------------------------------------------------===#
import argparse
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oneflow_checkpoint  # noqa: E402

BATCH = 64
SHAPES = {"fc1.weight": (64, 128), "fc1.bias": (128,),
          "fc2.weight": (128, 10), "fc2.bias": (10,)}


def initial_weights(seed):
    """PyTorch's nn.Linear initialization (uniform within 1/sqrt(fan_in),
    biases too), stored (in, out) as examples/mlp.mlir's matmuls read them."""
    gen = torch.Generator().manual_seed(seed)
    weights = {}
    for layer, fan_in in (("fc1", 64), ("fc2", 128)):
        bound = 1.0 / math.sqrt(fan_in)
        for part in ("weight", "bias"):
            name = f"{layer}.{part}"
            weights[name] = (torch.rand(SHAPES[name], generator=gen) * 2 - 1) * bound
    return weights


def train(weights, data, make_optimizer, steps):
    images, labels = data
    params = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    optimizer = make_optimizer(list(params.values()))
    batches = len(labels) // BATCH
    losses = []
    for step in range(steps):
        rows = slice(BATCH * (step % batches), BATCH * (step % batches + 1))
        hidden = torch.relu(images[rows] @ params["fc1.weight"] + params["fc1.bias"])
        logits = hidden @ params["fc2.weight"] + params["fc2.bias"]
        loss = torch.nn.functional.cross_entropy(logits, labels[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def write_losses(path, losses):
    with open(path, "w") as f:
        f.write("step,loss\n")
        for step, loss in enumerate(losses):
            f.write(f"{step},{loss:.9g}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", help="directory of make_digits.py's .npy files")
    parser.add_argument("out", help="where to write init/ and the loss files")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--sgd-lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--adam-lr", type=float, default=0.001)
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = (torch.from_numpy(np.load(os.path.join(args.data, "digits_images.npy"))),
            torch.from_numpy(np.load(os.path.join(args.data, "digits_labels.npy"))))
    weights = initial_weights(args.seed)
    oneflow_checkpoint.write(os.path.join(args.out, "init"),
                             {k: v.numpy() for k, v in weights.items()}, step=0)
    runs = {
        "sgd-momentum.csv": lambda p: torch.optim.SGD(p, lr=args.sgd_lr,
                                                      momentum=args.momentum),
        "adam.csv": lambda p: torch.optim.Adam(p, lr=args.adam_lr),
    }
    for file, make_optimizer in runs.items():
        losses = train(weights, data, make_optimizer, args.steps)
        write_losses(os.path.join(args.out, file), losses)
        print(f"{file}: loss {losses[0]:.6g} -> {losses[-1]:.6g}")


if __name__ == "__main__":
    main()

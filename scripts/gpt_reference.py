#!/usr/bin/python3
#===- scripts/gpt_reference.py - examples/gpt/gpt.mlir in PyTorch --------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# The GPT of examples/gpt/gpt.mlir written in PyTorch (Debian's
# python3-torch), for the correctness test test/Run/train-gpt-torch.test:
#
#   gpt_reference.py --init DIR
#       writes the seeded initial weights as a v1 checkpoint (parameters
#       only, named as the program's variables; scripts/oneflow_checkpoint.py)
#       for `of-run --resume DIR --resume-partial`.
#   gpt_reference.py --losses FILE
#       trains from those weights for --steps steps with AdamW, global-norm
#       clipping and a warm-up + cosine schedule on the batches of
#       scripts/make_text.py (the GPL-3, batch 4, rows in order) and writes
#       a CSV "step,loss" (as scripts/compare_losses.py reads).
#       test/Run/Inputs/gpt-torch-losses.csv is made by
#
#   /usr/bin/python3 scripts/gpt_reference.py \
#       --losses test/Run/Inputs/gpt-torch-losses.csv
#
# TRAIN_FLAGS (--print-flags) are the of-run --train flags of the same
# optimizer; the tests use them verbatim and check that they still agree
# with this file, bench/gpt_train_vs_torch.py takes them from here.
#
#===----------------------------------------------------------------------===#
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_text  # noqa: E402
import oneflow_checkpoint  # noqa: E402
from optimizer_reference import schedule  # noqa: E402

VOCAB, CONTEXT, WIDTH, HEADS, LAYERS, BATCH = make_text.VOCAB, 32, 64, 4, 2, 4
HEAD = WIDTH // HEADS
TEXT = make_text.DEFAULT_TEXT


def configure(layers, width, heads, context, vocab, batch):
    """Sets the model's sizes (scripts/make_gpt.py's); the defaults are
    examples/gpt/gpt.mlir's."""
    global LAYERS, WIDTH, HEADS, HEAD, CONTEXT, VOCAB, BATCH
    LAYERS, WIDTH, HEADS, CONTEXT, VOCAB, BATCH = (layers, width, heads,
                                                   context, vocab, batch)
    HEAD = WIDTH // HEADS
LR, MIN_LR, WEIGHT_DECAY, CLIP, WARMUP, STEPS = 1e-3, 1e-4, 0.1, 1.0, 5, 50
TRAIN_FLAGS = (f"--optimizer adamw --lr {LR} --weight_decay {WEIGHT_DECAY} "
               f"--clip_norm {CLIP} --warmup_steps {WARMUP} "
               f"--total_steps {STEPS} --min_lr {MIN_LR}")
SEED = 1234


def initial_weights():
    """name -> float32 array: N(0, 0.02) matrices and embeddings, zero
    biases, LayerNorm gains of one (GPT-2's initialisation)."""
    g = torch.Generator().manual_seed(SEED)

    def normal(*shape):
        return (torch.randn(*shape, generator=g) * 0.02).numpy()

    w = {"wte.weight": normal(VOCAB, WIDTH),
         "wpe.weight": normal(CONTEXT, WIDTH)}
    for layer in range(LAYERS):
        p = f"h{layer}."
        w[p + "ln1.weight"] = np.ones(WIDTH, np.float32)
        w[p + "ln1.bias"] = np.zeros(WIDTH, np.float32)
        w[p + "attn.qkv.weight"] = normal(WIDTH, 3 * WIDTH)
        w[p + "attn.qkv.bias"] = np.zeros(3 * WIDTH, np.float32)
        w[p + "attn.proj.weight"] = normal(WIDTH, WIDTH)
        w[p + "attn.proj.bias"] = np.zeros(WIDTH, np.float32)
        w[p + "ln2.weight"] = np.ones(WIDTH, np.float32)
        w[p + "ln2.bias"] = np.zeros(WIDTH, np.float32)
        w[p + "mlp.fc1.weight"] = normal(WIDTH, 4 * WIDTH)
        w[p + "mlp.fc1.bias"] = np.zeros(4 * WIDTH, np.float32)
        w[p + "mlp.fc2.weight"] = normal(4 * WIDTH, WIDTH)
        w[p + "mlp.fc2.bias"] = np.zeros(WIDTH, np.float32)
    w["ln_f.weight"] = np.ones(WIDTH, np.float32)
    w["ln_f.bias"] = np.zeros(WIDTH, np.float32)
    w["lm_head.weight"] = normal(WIDTH, VOCAB)
    return w


def forward(p, tokens, targets):
    """The mean next-character cross-entropy, op for op as gpt.mlir."""
    ln = torch.nn.functional.layer_norm
    positions = torch.arange(CONTEXT, device=tokens.device)
    future = positions.view(1, CONTEXT) > positions.view(CONTEXT, 1)
    x = (p["wte.weight"][tokens] + p["wpe.weight"][positions]).reshape(
        -1, WIDTH)
    for layer in range(LAYERS):
        q = lambda n: p[f"h{layer}.{n}"]  # noqa: E731
        a = ln(x, (WIDTH,), q("ln1.weight"), q("ln1.bias"), 1e-5)
        qkv = (a @ q("attn.qkv.weight") + q("attn.qkv.bias")).reshape(
            BATCH, CONTEXT, HEADS, 3 * HEAD).transpose(1, 2)
        qh, kh, vh = qkv.split(HEAD, dim=-1)
        s = (qh @ kh.transpose(-1, -2) * HEAD ** -0.5).masked_fill(
            future, -1e9)
        c = (s.softmax(-1) @ vh).transpose(1, 2).reshape(-1, WIDTH)
        x = x + c @ q("attn.proj.weight") + q("attn.proj.bias")
        m = ln(x, (WIDTH,), q("ln2.weight"), q("ln2.bias"), 1e-5)
        f = torch.nn.functional.gelu(m @ q("mlp.fc1.weight") +
                                     q("mlp.fc1.bias"))
        x = x + f @ q("mlp.fc2.weight") + q("mlp.fc2.bias")
    y = ln(x, (WIDTH,), p["ln_f.weight"], p["ln_f.bias"], 1e-5)
    logits = y @ p["lm_head.weight"]
    return torch.nn.functional.cross_entropy(logits, targets.reshape(-1))


def batches(steps, cycle=False):
    """The (tokens, targets) of each step, as of-run reads the .npy rows:
    batch s is rows [4s, 4s + 4), within one pass over the file, or with
    `cycle` starting over after the last whole batch (of-run's `:loop`)."""
    tokens, targets = make_text.windows(TEXT, CONTEXT)
    whole = len(tokens) // BATCH
    if whole < 1 or (not cycle and steps * BATCH > len(tokens)):
        sys.exit(f"gpt_reference.py: error: {steps} steps of {BATCH} rows "
                 f"need more than the {len(tokens)} rows of the text")
    for s in range(steps):
        b = s % whole
        rows = slice(b * BATCH, (b + 1) * BATCH)
        yield torch.from_numpy(tokens[rows]), torch.from_numpy(targets[rows])


def train(steps, times=None, device="cpu", compile=False, bf16=False,
          cycle=False):
    """Returns the loss of each step; appends each step's seconds to
    `times` if given. On `device` ("cpu", "cuda"); with `compile`, the
    forward pass goes through torch.compile (PyTorch 2); with `bf16`, under
    torch.autocast(device, torch.bfloat16) (f32 parameters and optimizer,
    as of-run --precision bf16); with `cycle`, the batches start over after
    the text's last (benchmarks of more steps than the text has batches)."""
    params = {n: torch.nn.Parameter(torch.from_numpy(a).to(device))
              for n, a in initial_weights().items()}
    step_forward = torch.compile(forward) if compile else forward
    opt = torch.optim.AdamW(params.values(), lr=LR,
                            weight_decay=WEIGHT_DECAY)
    lr_sched = torch.optim.lr_scheduler.LambdaLR(
        opt, schedule(WARMUP, STEPS, MIN_LR / LR))
    losses = []
    for tokens, targets in batches(steps, cycle):
        tokens, targets = tokens.to(device), targets.to(device)
        start = time.perf_counter()
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.bfloat16, enabled=bf16):
            loss = step_forward(params, tokens, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params.values(), CLIP)
        opt.step()
        lr_sched.step()
        losses.append(loss.item())
        if times is not None:
            times.append(time.perf_counter() - start)
    return losses


def main():
    parser = argparse.ArgumentParser(
        description="examples/gpt/gpt.mlir in PyTorch: initial weights and "
        "reference losses")
    parser.add_argument("--init", metavar="DIR",
                        help="write the initial weights as a checkpoint")
    parser.add_argument("--losses", metavar="FILE",
                        help="train and write one loss per line")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--print-flags", action="store_true",
                        help="print the of-run flags of the same optimizer")
    args = parser.parse_args()
    if not (args.init or args.losses or args.print_flags):
        parser.error("nothing to do: give --init, --losses or --print-flags")
    torch.set_num_threads(args.threads)
    if args.print_flags:
        print(TRAIN_FLAGS)
    if args.init:
        oneflow_checkpoint.write(args.init, initial_weights(), step=0)
    if args.losses:
        losses = train(args.steps)
        with open(args.losses, "w") as f:
            f.write("step,loss\n")
            f.writelines(f"{s},{v:.9g}\n" for s, v in enumerate(losses))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# ===- export_loss_models.py - PyTorch models with their loss, as ONNX ---=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Exports small models with their loss inside the graph, as a user who
# trains an exported model does: the model wrapped with F.cross_entropy
# against int64 labels, exported for training (torch 1.13, opset 14) with
# the inputs "x" and "labels" and the scalar output "loss" (PyTorch's
# exporter writes the loss as SoftmaxCrossEntropyLoss). Then trains the
# same weights with plain SGD in PyTorch, one batch a step:
#
#   OUT/<name>.onnx  OUT/<name>.train-x.npy  OUT/<name>.train-labels.npy
#   OUT/<name>.train-loss.npy
#
# Models:
#   densenet  a DenseNet-style CNN without normalization: padding by F.pad
#             (constant and reflect: ONNX Pad), dense layers whose features
#             are concatenated, a 1x1 transition and average pooling, a
#             linear head; 8x3x8x8 images, 10 classes
#   unet      a small U-Net: a strided convolution down, back up by a
#             transposed convolution (ConvTranspose) and by bilinear and
#             nearest interpolation (Resize), skip concatenation, per-pixel
#             classes (the logits moved to NHWC); 8x3x8x8 images, 4 classes
#   lstm      a recurrent language model: embeddings, an LSTM, a
#             bidirectional GRU (batch first), a linear head per position;
#             8 sequences of 6 tokens of a vocabulary of 32
#   rotary    a GPT-style decoder whose causal mask comes from torch.triu
#             (ONNX Trilu) and whose queries and keys are rotated by
#             cos/sin of the positions (rotary embeddings: Cos, Sin);
#             8 sequences of 8 tokens of a vocabulary of 32
#   volume    a 3-D CNN: strided and dilated grouped Conv3d, MaxPool3d and
#             AvgPool3d (count_include_pad off) with padding, a linear
#             head; 8x2x6x6x6 volumes, 5 classes
#
#   export_loss_models.py OUT STEPS [--lr LR] [NAME...]   (default: all)
#
# ===---------------------------------------------------------------------=== #

import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8


class DenseLayer(nn.Module):
    def __init__(self, channels, growth, mode):
        super().__init__()
        self.mode = mode
        self.conv = nn.Conv2d(channels, growth, 3)

    def forward(self, x):
        y = self.conv(F.pad(F.relu(x), (1, 1, 1, 1), mode=self.mode))
        return torch.cat([x, y], 1)


class DenseNetStyle(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3)
        self.block = nn.Sequential(DenseLayer(8, 4, "constant"),
                                   DenseLayer(12, 4, "reflect"))
        self.transition = nn.Conv2d(16, 8, 1)
        self.head = nn.Linear(8, classes)

    def forward(self, x):
        x = F.relu(self.stem(F.pad(x, (1, 1, 1, 1))))
        x = F.avg_pool2d(self.transition(F.relu(self.block(x))), 2)
        return self.head(x.mean((2, 3)))


class UNetSmall(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.reduce = nn.Conv2d(16, 8, 1)
        self.dec = nn.Conv2d(16, 8, 3, padding=1)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        e = F.relu(self.enc(x))
        b = F.relu(self.down(e))
        r = self.reduce(b)
        u = (self.up(b) + F.interpolate(r, scale_factor=2, mode="bilinear",
                                        align_corners=False)
             + F.interpolate(r, scale_factor=2, mode="nearest"))
        y = self.head(F.relu(self.dec(torch.cat([e, u], 1))))
        return y.permute(0, 2, 3, 1)


class RecurrentLM(nn.Module):
    def __init__(self, vocab=32, d=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, batch_first=True)
        self.gru = nn.GRU(d, d // 2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x, _ = self.lstm(self.wte(ids))
        x, _ = self.gru(x)
        return self.head(x)


class RotaryGPT(nn.Module):
    def __init__(self, vocab=32, d=16, heads=2):
        super().__init__()
        self.heads, self.d = heads, d
        self.wte = nn.Embedding(vocab, d)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
        self.ln_f = nn.LayerNorm(d)
        half = d // heads // 2
        self.register_buffer(
            "inv_freq", 1.0 / 10000 ** (torch.arange(half).float() / half))

    def rotate(self, z, cos, sin):
        a, b = z[..., 0::2], z[..., 1::2]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)

    def forward(self, ids):
        b, t = ids.shape
        c, h = self.d, self.heads
        x = self.wte(ids)
        angles = torch.arange(t).float()[:, None] * self.inv_freq[None, :]
        cos, sin = torch.cos(angles), torch.sin(angles)
        qkv = self.qkv(self.ln1(x))

        def split(z):
            return z.reshape(b, t, h, c // h).transpose(1, 2)

        q = self.rotate(split(qkv[:, :, :c]), cos, sin)
        k = self.rotate(split(qkv[:, :, c:2 * c]), cos, sin)
        v = split(qkv[:, :, 2 * c:])
        mask = torch.triu(torch.ones(t, t), diagonal=1) * -1e9
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(c // h) + mask,
                            -1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, c))
        x = x + self.fc2(F.gelu(self.fc(self.ln2(x))))
        return self.ln_f(x) @ self.wte.weight.t()


class Volume3D(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.conv1 = nn.Conv3d(2, 4, 3, stride=(2, 1, 1), padding=1)
        self.conv2 = nn.Conv3d(4, 6, (2, 3, 3), dilation=(1, 1, 2),
                               padding=(0, 1, 2), groups=2)
        self.head = nn.Linear(6, classes)

    def forward(self, x):
        x = F.max_pool3d(F.relu(self.conv1(x)), 2, stride=(1, 2, 2),
                         padding=(1, 0, 0))
        x = F.avg_pool3d(F.relu(self.conv2(x)), (2, 2, 1), padding=(1, 0, 0),
                         count_include_pad=False)
        return self.head(x.mean((2, 3, 4)))


class WithLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, labels):
        logits = self.model(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               labels.reshape(-1))


def build(name, g):
    """(model, STEPS * BATCH inputs, their labels) of `name`."""
    torch.manual_seed(0)
    if name == "densenet":
        return (DenseNetStyle(),
                lambda n: torch.randn(n, 3, 8, 8, generator=g),
                lambda n: torch.randint(0, 10, (n,), generator=g))
    if name == "unet":
        return (UNetSmall(),
                lambda n: torch.randn(n, 3, 8, 8, generator=g),
                lambda n: torch.randint(0, 4, (n, 8, 8), generator=g))
    if name == "lstm":
        return (RecurrentLM(),
                lambda n: torch.randint(0, 32, (n, 6), generator=g),
                lambda n: torch.randint(0, 32, (n, 6), generator=g))
    if name == "volume":
        return (Volume3D(),
                lambda n: torch.randn(n, 2, 6, 6, 6, generator=g),
                lambda n: torch.randint(0, 5, (n,), generator=g))
    if name == "rotary":
        return (RotaryGPT(),
                lambda n: torch.randint(0, 32, (n, 8), generator=g),
                lambda n: torch.randint(0, 32, (n, 8), generator=g))
    raise SystemExit("unknown model '%s'" % name)


def main():
    args = sys.argv[1:]
    lr = 0.1
    if "--lr" in args:
        i = args.index("--lr")
        lr = float(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        raise SystemExit(__doc__)
    out, steps = args[0], int(args[1])
    os.makedirs(out, exist_ok=True)
    for name in args[2:] or ["densenet", "unet", "lstm", "rotary", "volume"]:
        g = torch.Generator().manual_seed(1)
        model, inputs, targets = build(name, g)
        xs, labels = inputs(steps * BATCH), targets(steps * BATCH)
        wrapped = WithLoss(model)
        torch.onnx.export(wrapped, (xs[:BATCH], labels[:BATCH]),
                          os.path.join(out, name + ".onnx"), opset_version=14,
                          input_names=["x", "labels"], output_names=["loss"],
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for step in range(steps):
            rows = slice(step * BATCH, (step + 1) * BATCH)
            opt.zero_grad()
            loss = wrapped(xs[rows], labels[rows])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        np.save(os.path.join(out, name + ".train-x.npy"), xs.numpy())
        np.save(os.path.join(out, name + ".train-labels.npy"), labels.numpy())
        np.save(os.path.join(out, name + ".train-loss.npy"),
                np.array(losses, np.float32))


if __name__ == "__main__":
    main()

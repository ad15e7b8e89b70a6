#!/usr/bin/python3
# ===- export_onnx_models.py - PyTorch models as ONNX test inputs --------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Exports small models with PyTorch's ONNX exporter (torch 1.13), with the
# input and PyTorch's output for it as .npy files next to each model:
#
#   OUT/<name>.onnx  OUT/<name>.input.npy  OUT/<name>.expected.npy
#
# Models (each at a small size, batch 2, fixed seeds):
#   mlp          Linear-ReLU-Linear-ReLU-Linear, opset 13
#   resnet18     torchvision's ResNet-18 architecture (BasicBlock, [2,2,2,2],
#                written out here: Debian's torch has no torchvision), eval
#                mode with non-trivial batch-norm statistics, 3x32x32, opset 15
#   transformer  nn.TransformerEncoder, 2 layers (d_model 32, 4 heads), opset 17
#   gpt          a GPT-2-style decoder: token and position embeddings, one
#                pre-LayerNorm block with causal self-attention and the tanh
#                GELU, final LayerNorm and tied head; int64 token ids, opset 14
#
#   export_onnx_models.py OUT [NAME...]       (default: all)
#   export_onnx_models.py OUT NAME --train STEPS [--lr LR] [--batch-stats]
#                         [--local-stats G] [--batch B]
#
# With --train, the model is exported for training, with a batch of 8 (or
# --batch B; the MLP: 4) and
# the BatchNormalization nodes kept (not folded into the convolutions):
# their statistics frozen, dropout off (eval mode). With --batch-stats as
# well, in PyTorch's training mode instead: BatchNormalization normalizes
# with the batch statistics (training_mode 1), and the model has no dropout
# (its random masks are PyTorch's own). Also written: the data of STEPS
# batches and the losses PyTorch gets training the model from the exported
# weights with plain SGD on them, in the same mode (mean cross-entropy of
# the output's last axis against int64 labels shaped like the output
# without it, one batch per step):
#
#   OUT/<name>.train-x.npy  OUT/<name>.train-labels.npy  OUT/<name>.train-loss.npy
#
# and with --batch-stats the running statistics PyTorch's batch norms hold
# after each step, keyed "step-N/<state_dict name>" as of-run's checkpoint
# directories hold them: OUT/<name>.train-stats.npz. With --local-stats G as
# well, the reference normalizes each of G chunks of a batch with its own
# statistics (DDP on G ranks; of-run --batch-norm-statistics local) and
# moves the running statistics by the mean over the chunks.
#
# ===---------------------------------------------------------------------=== #

import copy
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class BasicBlock(nn.Module):
    """torchvision.models.resnet.BasicBlock."""

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet18(nn.Module):
    """torchvision.models.resnet18's layers and forward."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, inplanes = [], 64
        for planes, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers.append(nn.Sequential(BasicBlock(inplanes, planes, stride),
                                        BasicBlock(planes, planes)))
            inplanes = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class GPTBlock(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq))
                             .view(1, 1, seq, seq))

    def forward(self, x):
        b, t, c = x.shape
        qkv = self.qkv(self.ln1(x))
        q, k, v = qkv[:, :, :c], qkv[:, :, c:2 * c], qkv[:, :, 2 * c:]
        def heads(z):
            return z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // self.heads))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous()
        x = x + self.proj(y.view(b, t, c))
        h = self.fc(self.ln2(x))
        # GPT-2's GELU (tanh approximation).
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                        (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.fc2(h)


class GPT(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, seq=8):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.block = GPTBlock(d, heads, seq)
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.block(self.wte(ids) + self.wpe(pos))
        return self.ln_f(x) @ self.wte.weight.t()


# The batch of a training export (--batch).
TRAIN_BATCH = 8


def randomize_batch_norm(model, generator):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features,
                                             generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features,
                                           generator=generator) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features,
                                           generator=generator) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features,
                                          generator=generator) * 0.1)


def build(name, train=False):
    """(model, example input, opset); `train`: the training variant (of
    TRAIN_BATCH samples)."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    batch = TRAIN_BATCH if train else 2
    if name == "mlp":
        return MLP(), torch.randn(4, 16, generator=g), 13
    if name == "resnet18":
        model = ResNet18()
        with torch.no_grad():
            randomize_batch_norm(model, g)
        return model, torch.randn(batch, 3, 32, 32, generator=g), 15
    if name == "transformer":
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4,
                                           dim_feedforward=64,
                                           dropout=0.0 if train else 0.1)
        model = nn.TransformerEncoder(layer, num_layers=2,
                                      enable_nested_tensor=False)
        # (sequence, batch, features): the batch-first fast path does not
        # export.
        return model, torch.randn(8, batch, 32, generator=g), 17
    if name == "gpt":
        return GPT(), torch.randint(0, 64, (2, 8), generator=g), 14
    raise SystemExit("unknown model '%s'" % name)


def export(name, out, train=False, batch_stats=False):
    model, x, opset = build(name, train)
    model.train(batch_stats)
    with torch.no_grad():
        expected = model(x)
    path = os.path.join(out, name + ".onnx")
    mode = torch.onnx.TrainingMode
    # In eval mode the exporter folds batch norm into the convolutions,
    # which trains differently: a model for training is exported in
    # training mode, then given back the weights of build() (the trace ran
    # the model, moving its batch-norm statistics) and, for frozen
    # statistics, eval-mode BatchNormalization nodes.
    torch.onnx.export(model, (x,), path, opset_version=opset,
                      input_names=["x"], output_names=["y"],
                      training=mode.TRAINING if train else mode.EVAL,
                      do_constant_folding=not train)
    if train:
        weights = build(name, train)[0].state_dict()
        proto = onnx.load(path)
        for t in proto.graph.initializer:
            if t.name in weights:
                t.CopyFrom(numpy_helper.from_array(weights[t.name].numpy(),
                                                   t.name))
        for node in proto.graph.node:
            if node.op_type == "BatchNormalization" and not batch_stats:
                for a in node.attribute:
                    if a.name == "training_mode":
                        a.i = 0
                del node.output[1:]
        onnx.save(proto, path)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".expected.npy"), expected.numpy())


def forward_in_groups(model, norms, x, groups):
    """The batch in `groups` chunks, each normalized with its own batch
    statistics (DDP with one chunk per rank); each running statistic then
    moves by the mean of what each chunk would move it by."""
    start = [(m.running_mean.clone(), m.running_var.clone()) for m in norms]
    moved = [([], []) for _ in norms]
    outputs = []
    for chunk in x.chunk(groups):
        # New buffers, not copies into the old: autograd saved those.
        for m, (mean, var) in zip(norms, start):
            m.running_mean = mean.clone()
            m.running_var = var.clone()
        outputs.append(model(chunk))
        for m, (means, variances) in zip(norms, moved):
            means.append(m.running_mean.clone())
            variances.append(m.running_var.clone())
    for m, (means, variances) in zip(norms, moved):
        m.running_mean = torch.stack(means).mean(0)
        m.running_var = torch.stack(variances).mean(0)
    return torch.cat(outputs)


def train_reference(name, out, steps, lr, batch_stats, groups=1):
    """Trains the exported weights (export(train=True) ran first) as of-run
    --train --loss cross_entropy does, recording the loss of every step."""
    model, x, _ = build(name, train=True)
    model.train()
    if not batch_stats:  # Exported in eval mode: keep it so.
        for m in model.modules():
            if isinstance(m, (nn.Dropout, nn.BatchNorm2d)):
                m.eval()
    g = torch.Generator().manual_seed(2)
    batch = x.shape[0]
    # The output's shape, without moving training-mode batch statistics.
    state = copy.deepcopy(model.state_dict())
    with torch.no_grad():
        shape = model(x).shape
    model.load_state_dict(state)
    classes = shape[-1]
    xs = torch.randn((steps * batch,) + tuple(x.shape[1:]), generator=g)
    labels = torch.randint(0, classes, (steps * batch,) + tuple(shape[1:-1]),
                           generator=g)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    losses = []
    stats = {}
    for step in range(steps):
        rows = slice(step * batch, (step + 1) * batch)
        opt.zero_grad()
        if groups > 1:
            logits = forward_in_groups(model, norms, xs[rows], groups)
        else:
            logits = model(xs[rows])
        loss = F.cross_entropy(logits.reshape(-1, classes),
                               labels[rows].reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if batch_stats:
            for key, value in model.state_dict().items():
                if key.endswith((".running_mean", ".running_var")):
                    stats["step-%d/%s" % (step + 1, key)] = value.numpy().copy()
    np.save(os.path.join(out, name + ".train-x.npy"), xs.numpy())
    np.save(os.path.join(out, name + ".train-labels.npy"), labels.numpy())
    np.save(os.path.join(out, name + ".train-loss.npy"),
            np.array(losses, np.float32))
    if stats:
        np.savez(os.path.join(out, name + ".train-stats.npz"), **stats)


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    steps, lr = 0, 0.1
    batch_stats = "--batch-stats" in args
    if batch_stats:
        args.remove("--batch-stats")
    global TRAIN_BATCH
    if "--batch" in args:
        i = args.index("--batch")
        TRAIN_BATCH = int(args[i + 1])
        del args[i:i + 2]
    groups = 1
    if "--local-stats" in args:
        i = args.index("--local-stats")
        groups = int(args[i + 1])
        del args[i:i + 2]
    if "--lr" in args:
        i = args.index("--lr")
        lr = float(args[i + 1])
        del args[i:i + 2]
    if "--train" in args:
        i = args.index("--train")
        steps = int(args[i + 1])
        del args[i:i + 2]
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for name in args[1:] or ["mlp", "resnet18", "transformer", "gpt"]:
        export(name, out, train=steps > 0, batch_stats=batch_stats)
        if steps:
            train_reference(name, out, steps, lr, batch_stats, groups)


if __name__ == "__main__":
    main()

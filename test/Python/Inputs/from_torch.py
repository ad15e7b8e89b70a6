"""of.from_torch: a torch.nn.Module compiled without a file trains with
PyTorch's own losses (SGD, cross entropy, 5 steps on the same data, within
1e-4), on 1 rank and on 4."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import oneflow_mlir as of

STEPS, LR = 5, 0.1


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def torch_losses(model, xs, labels, batch):
    model = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for step in range(STEPS):
        rows = slice(step * batch, (step + 1) * batch)
        opt.zero_grad()
        logits = model(torch.from_numpy(xs[rows]))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               torch.from_numpy(labels[rows]).reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def check(name, model, example, classes, devices):
    batch = example.shape[0]
    g = np.random.default_rng(1)
    xs = g.standard_normal((STEPS * batch,) + tuple(example.shape[1:]),
                           dtype=np.float32)
    labels = g.integers(0, classes, size=(STEPS * batch,) +
                        tuple(example.shape[1:-1]), dtype=np.int64)
    expected = torch_losses(model, xs, labels, batch)
    train = of.Train(loss="cross_entropy", optimizer="sgd", lr=LR)
    for d in devices:
        plan = of.from_torch(model, torch.from_numpy(xs[:batch]),
                             devices=d, train=train, input_names=["x"])
        got = plan.run(inputs={"x": xs, "labels": labels}, steps=STEPS).losses
        worst = max(abs(a - b) for a, b in zip(got, expected))
        assert len(got) == STEPS and worst < 1e-4, (name, d, got, expected)
        print("%s on %s: %d steps match PyTorch within 1e-4 (worst %.1e)"
              % (name, d, STEPS, worst))


torch.manual_seed(0)
check("mlp", MLP(), torch.zeros(4, 16), 10, ["cpu:1", "cpu:4"])

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                   dropout=0.0)
encoder = nn.TransformerEncoder(layer, num_layers=2,
                                enable_nested_tensor=False)
# (sequence, batch, features); logits over the 32 features as classes.
check("transformer", encoder, torch.zeros(8, 4, 32), 32, ["cpu:1"])

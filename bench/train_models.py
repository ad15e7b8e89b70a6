"""Models for bench/train_vs_torch.py: the same network in the oneflow
dialect and in PyTorch.

A model is a `Model`: its name, the oneflow program (a forward pass for one
device that ends in a scalar output "loss"; `placement` and `split`, when
given, make its inputs data parallel), the PyTorch module with its loss, and
its inputs. Add a model by writing a function that returns one and listing it
in MODELS.
"""
import dataclasses
from typing import Callable, Dict, List, Optional

import torch


@dataclasses.dataclass
class Input:
    """An input of the program: its name, shape and dtype ("f32" or "i64"),
    and what both sides feed it: f32 inputs a constant `fill`, i64 inputs
    integers drawn from [0, high) (of-run: `random:0:high`, a new batch each
    step; PyTorch: one batch drawn once)."""
    name: str
    shape: List[int]
    dtype: str
    fill: float = 0.5
    high: int = 0

    def mlir_type(self, layout: str = "") -> str:
        return "tensor<%sx%s%s>" % ("x".join(map(str, self.shape)),
                                   "f32" if self.dtype == "f32" else "i64",
                                   layout)

    def of_run_source(self) -> str:
        if self.dtype == "f32":
            return "%s=fill:%g" % (self.name, self.fill)
        return "%s=random:0:%d" % (self.name, self.high)

    def torch_value(self, rows: Optional[int] = None) -> torch.Tensor:
        shape = list(self.shape)
        if rows is not None:
            shape[0] = rows
        if self.dtype == "f32":
            return torch.full(shape, self.fill)
        return torch.randint(0, self.high, shape)


@dataclasses.dataclass
class Model:
    name: str
    description: str
    inputs: List[Input]
    # (layout of every input: "" or ", #oneflow.global<...>") -> program text
    program: Callable[[Dict[str, str]], str]
    # () -> module whose forward takes the inputs in order and returns the
    # scalar loss
    torch_module: Callable[[], torch.nn.Module]


def tensor(*shape, dtype="f32", layout=""):
    return "tensor<%sx%s%s>" % ("x".join(map(str, shape)), dtype, layout)


class TorchMlp(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                layers.append(torch.nn.ReLU())
        self.net = torch.nn.Sequential(*layers)

    def forward(self, x, labels):
        return torch.nn.functional.cross_entropy(self.net(x), labels)


def mlp(name, batch, sizes, description):
    """Dense layers with bias and ReLU between them, softmax cross-entropy
    over the last layer's outputs, mean over the batch."""
    classes = sizes[-1]
    inputs = [Input("x", [batch, sizes[0]], "f32", fill=0.5),
              Input("labels", [batch], "i64", high=classes)]

    def program(layouts):
        x, labels = inputs
        lines = ["func.func @%s() {" % name.replace("-", "_"),
                 '  %%x = oneflow.input "x" : %s' % x.mlir_type(layouts["x"]),
                 '  %%labels = oneflow.input "labels" : %s'
                 % labels.mlir_type(layouts["labels"])]
        value, value_type = "%x", x.mlir_type(layouts["x"])
        for i in range(len(sizes) - 1):
            w, b = tensor(sizes[i], sizes[i + 1]), tensor(sizes[i + 1])
            h = tensor(batch, sizes[i + 1])
            lines += [
                '  %%w%d = oneflow.variable "fc%d.weight" {init = '
                '#oneflow.init<kaiming_uniform>, seed = %d} : %s'
                % (i, i + 1, 2 * i + 1, w),
                '  %%b%d = oneflow.variable "fc%d.bias" {init = '
                '#oneflow.init<uniform(-0.1, 0.1)>, seed = %d} : %s'
                % (i, i + 1, 2 * i + 2, b),
                "  %%m%d = oneflow.matmul %s, %%w%d : (%s, %s) -> %s"
                % (i, value, i, value_type, w, h),
                "  %%a%d = oneflow.add %%m%d, %%b%d : (%s, %s) -> %s"
                % (i, i, i, h, b, h)]
            value, value_type = "%%a%d" % i, h
            if i + 2 < len(sizes):
                lines.append("  %%r%d = oneflow.relu %s : (%s) -> %s"
                             % (i, value, h, h))
                value = "%%r%d" % i
        lines += [
            "  %%prob, %%losses = oneflow.sparse_softmax_cross_entropy %s, "
            "%%labels : (%s, %s) -> (%s, %s)"
            % (value, value_type, labels.mlir_type(layouts["labels"]),
               value_type, tensor(batch)),
            "  %%loss = oneflow.reduce_mean %%losses {axes = array<i64: 0>} "
            ": (%s) -> tensor<f32>" % tensor(batch),
            '  oneflow.output "loss", %loss : tensor<f32>',
            "  return", "}"]
        return "\n".join(lines) + "\n"

    return Model(name, description, inputs, program,
                 lambda: TorchMlp(sizes))


class TorchLstm(torch.nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.lstm = torch.nn.LSTM(d_in, hidden, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        return (y * y).mean()


def lstm(name, batch, steps, d_in, hidden, description):
    """One LSTM layer over a batch-first sequence (oneflow: one `rnn`, the
    sequence moved first), the loss the mean square of every step's
    output."""
    inputs = [Input("x", [batch, steps, d_in], "f32", fill=0.5)]
    g = 4

    def program(layouts):
        x = inputs[0]
        xt, y = tensor(steps, batch, d_in), tensor(steps, batch, hidden)
        state = tensor(1, batch, hidden)
        w, r, b = (tensor(1, g, hidden, d_in), tensor(1, g, hidden, hidden),
                   tensor(1, g, hidden))
        init = "#oneflow.init<uniform(-0.0625, 0.0625)>"
        return "\n".join([
            "func.func @%s() {" % name.replace("-", "_"),
            '  %%x = oneflow.input "x" : %s' % x.mlir_type(layouts["x"]),
            "  %%xt = oneflow.transpose %%x {perm = array<i64: 1, 0, 2>} : "
            "(%s) -> %s" % (x.mlir_type(layouts["x"]), xt),
            '  %%w = oneflow.variable "w" {init = %s, seed = 1} : %s'
            % (init, w),
            '  %%r = oneflow.variable "r" {init = %s, seed = 2} : %s'
            % (init, r),
            '  %%b = oneflow.variable "b" {init = %s, seed = 3} : %s'
            % (init, b),
            "  %%h = oneflow.fill 0.0 : %s" % state,
            "  %%y, %%hn, %%cn = oneflow.rnn %%xt, %%w, %%r, %%b, %%h, %%h "
            '{cell = "lstm"} : (%s, %s, %s, %s, %s, %s) -> (%s, %s, %s)'
            % (xt, w, r, b, state, state, y, state, state),
            "  %%sq = oneflow.mul %%y, %%y : (%s, %s) -> %s" % (y, y, y),
            "  %%loss = oneflow.reduce_mean %%sq {axes = array<i64: 0, 1, 2>}"
            " : (%s) -> tensor<f32>" % y,
            '  oneflow.output "loss", %loss : tensor<f32>',
            "  return", "}"]) + "\n"

    return Model(name, description, inputs, program,
                 lambda: TorchLstm(d_in, hidden))


MODELS = {
    "mlp": lambda: mlp("mlp", 256, [1024, 4096, 1024],
                       "MLP of bench/model_vs_torch.py: batch 256, "
                       "1024-4096-1024, cross-entropy over 1024 classes"),
    "mlp-digits": lambda: mlp("mlp-digits", 64, [64, 128, 10],
                              "examples/mlp.mlir's sizes: batch 64, "
                              "64-128-10"),
    "lstm": lambda: lstm("lstm", 32, 32, 256, 256,
                         "one LSTM layer (oneDNN's primitive): batch 32, "
                         "32 steps, 256 inputs, 256 hidden; mean square "
                         "loss"),
}

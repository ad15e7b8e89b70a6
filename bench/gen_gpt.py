#!/usr/bin/env python3
# ===- gen_gpt.py - A GPT training step in the oneflow dialect -----------=== #
#
# SPDX-License-Identifier: Apache-2.0
#
# Prints one func.func: L pre-norm transformer layers (multi-head attention
# and a 4x MLP) on a [T, H] activation, a squared-norm loss, the backward
# pass written out as the matmuls and element-wise ops it takes (two matmuls
# per forward matmul and batch matmul, the bias and layer-norm reductions,
# the gelu and softmax derivatives) and an SGD-with-momentum update of every
# parameter. Parameters carry Megatron layouts (QKV and MLP-in split by
# columns, attention-out and MLP-out by rows) on the tensor-parallel mesh
# axis, the input batch is S(0) on the data-parallel one; every other layout
# is left to oneflow-sbp-propagation. Plain python3, no dependencies.
#
#   bench/gen_gpt.py --layers 24 --mesh 2x2 > /tmp/gpt24.mlir
#   bench/gen_gpt.py --layers 24 --bare > /tmp/gpt24-bare.mlir  (no layouts)
#
# ===---------------------------------------------------------------------=== #

import argparse
import math
import sys


class Emitter:
    """Writes ops, tracking each value's type text and shape."""

    def __init__(self, mesh, bare=False):
        self.bare = bare
        self.lines = []
        self.count = 0
        self.types = {}
        self.shapes = {}
        self.mesh = mesh
        self.ops = 0

    def tensor(self, shape, layout=None, dtype="f32"):
        dims = "x".join(str(d) for d in shape)
        text = f"tensor<{dims}x{dtype}" if shape else f"tensor<{dtype}"
        if layout is not None and not self.bare:
            text += f", #oneflow.global<#mesh, [{', '.join(layout)}]>"
        return text + ">"

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def source(self, kind, name, shape, layout, attrs=""):
        value = self.fresh()
        self.types[value] = self.tensor(shape, layout)
        self.shapes[value] = list(shape)
        self.lines.append(
            f'  {value} = oneflow.{kind} "{name}"{attrs} : {self.types[value]}')
        self.ops += 1
        return value

    def op(self, name, operands, shapes, attrs=""):
        """Emits `oneflow.<name>`; returns one value per result shape."""
        value = self.fresh()
        results = [value] if len(shapes) == 1 else [
            f"{value}#{i}" for i in range(len(shapes))]
        for result, shape in zip(results, shapes):
            self.types[result] = self.tensor(shape)
            self.shapes[result] = list(shape)
        lhs = value if len(shapes) == 1 else f"{value}:{len(shapes)}"
        ins = ", ".join(self.types[o] for o in operands)
        outs = ", ".join(self.types[r] for r in results)
        if len(shapes) > 1:
            outs = f"({outs})"
        attr_text = f" {attrs}" if attrs else ""
        self.lines.append(f"  {lhs} = oneflow.{name} {', '.join(operands)}"
                          f"{attr_text} : ({ins}) -> {outs}")
        self.ops += 1
        return results[0] if len(shapes) == 1 else results

    def output(self, name, value):
        self.lines.append(
            f'  oneflow.output "{name}", {value} : {self.types[value]}')
        self.ops += 1

    # Shorthands.
    def unary(self, name, x, attrs=""):
        return self.op(name, [x], [self.shapes[x]], attrs)

    def binary(self, name, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        return self.op(name, [a, b], [sa if len(sa) >= len(sb) else sb])

    def matmul(self, a, b, ta=False, tb=False):
        sa, sb = self.shapes[a], self.shapes[b]
        m = sa[1] if ta else sa[0]
        n = sb[0] if tb else sb[1]
        flags = [f for f, on in (("transpose_a", ta), ("transpose_b", tb))
                 if on]
        attrs = "{" + ", ".join(flags) + "}" if flags else ""
        return self.op("matmul", [a, b], [[m, n]], attrs)

    def bmm(self, a, b, ta=False, tb=False):
        sa, sb = self.shapes[a], self.shapes[b]
        m = sa[-1] if ta else sa[-2]
        n = sb[-2] if tb else sb[-1]
        flags = [f for f, on in (("transpose_a", ta), ("transpose_b", tb))
                 if on]
        attrs = "{" + ", ".join(flags) + "}" if flags else ""
        return self.op("batch_matmul", [a, b], [sa[:-2] + [m, n]], attrs)

    def reshape(self, x, shape):
        return self.op("reshape", [x], [shape])

    def transpose(self, x, perm):
        shape = [self.shapes[x][p] for p in perm]
        return self.op("transpose", [x], [shape],
                       "{perm = array<i64: " +
                       ", ".join(map(str, perm)) + ">}")

    def reduce_sum(self, x, axes, keepdims=False):
        shape = self.shapes[x]
        if keepdims:
            out = [1 if i in axes else d for i, d in enumerate(shape)]
        else:
            out = [d for i, d in enumerate(shape) if i not in axes]
        attrs = "{axes = array<i64: " + ", ".join(map(str, axes)) + ">"
        attrs += ", keepdims}" if keepdims else "}"
        return self.op("reduce_sum", [x], [out], attrs)

    def scale(self, x, factor):
        return self.scalar("scalar_mul", x, factor)

    def scalar(self, name, x, value):
        """`oneflow.<name> %x, value` (scalar_mul, scalar_add, ...)."""
        value_text = repr(float(value))
        shape = self.shapes[x]
        result = self.fresh()
        self.types[result] = self.tensor(shape)
        self.shapes[result] = list(shape)
        self.lines.append(f"  {result} = oneflow.{name} {x}, {value_text} : "
                          f"({self.types[x]}) -> {self.types[result]}")
        self.ops += 1
        return result


def generate(args):
    mesh = [int(d) for d in args.mesh.split("x")]
    e = Emitter(mesh, args.bare)
    T, H, S = args.batch * args.seq, args.hidden, args.seq
    F, NH = 4 * args.hidden, args.heads
    HD = H // NH
    B = args.batch
    tp = len(mesh) - 1  # the tensor-parallel mesh axis

    def layout(tensor_parallel):
        """A parameter layout: `tensor_parallel` on the last mesh axis, B on
        the others."""
        return ["B"] * tp + [tensor_parallel]

    data = ["S(0)"] * tp + (["B"] if len(mesh) > 1 else ["S(0)"])

    params = []  # (name, value, momentum)

    def param(name, shape, sbp, init="normal(0.0, 0.02)"):
        value = e.source("variable", name, shape, layout(sbp),
                         f" {{init = #oneflow.init<{init}>}}")
        momentum = e.source("variable", name + ".momentum", shape,
                            layout(sbp), " {init = #oneflow.init<zeros>}")
        params.append((name, value, momentum))
        return value

    x = e.source("input", "tokens", [T, H], data)
    saved = []
    for layer in range(args.layers):
        p = f"h{layer}."
        g1 = param(p + "ln1.weight", [H], "B", "ones")
        b1 = param(p + "ln1.bias", [H], "B", "zeros")
        wq = param(p + "attn.q.weight", [H, H], "S(1)")
        bq = param(p + "attn.q.bias", [H], "S(0)", "zeros")
        wk = param(p + "attn.k.weight", [H, H], "S(1)")
        bk = param(p + "attn.k.bias", [H], "S(0)", "zeros")
        wv = param(p + "attn.v.weight", [H, H], "S(1)")
        bv = param(p + "attn.v.bias", [H], "S(0)", "zeros")
        wo = param(p + "attn.out.weight", [H, H], "S(0)")
        bo = param(p + "attn.out.bias", [H], "B", "zeros")
        g2 = param(p + "ln2.weight", [H], "B", "ones")
        b2 = param(p + "ln2.bias", [H], "B", "zeros")
        w1 = param(p + "mlp.in.weight", [H, F], "S(1)")
        c1 = param(p + "mlp.in.bias", [F], "S(0)", "zeros")
        w2 = param(p + "mlp.out.weight", [F, H], "S(0)")
        c2 = param(p + "mlp.out.bias", [H], "B", "zeros")

        ln = "{begin_norm_axis = 1, begin_params_axis = 1}"
        y1 = e.op("layer_norm", [x, g1, b1], [[T, H], [T], [T]], ln)[0]
        heads = []
        for w, b in ((wq, bq), (wk, bk), (wv, bv)):
            h = e.binary("add", e.matmul(y1, w), b)
            h = e.transpose(e.reshape(h, [B, S, NH, HD]), [0, 2, 1, 3])
            heads.append(h)
        q, k, v = heads
        s = e.scale(e.bmm(q, k, tb=True), 1.0 / math.sqrt(HD))
        pr = e.unary("softmax", s)
        c = e.bmm(pr, v)
        c = e.reshape(e.transpose(c, [0, 2, 1, 3]), [T, H])
        o = e.binary("add", e.matmul(c, wo), bo)
        x1 = e.binary("add", x, o)
        y2 = e.op("layer_norm", [x1, g2, b2], [[T, H], [T], [T]], ln)[0]
        hpre = e.binary("add", e.matmul(y2, w1), c1)
        hact = e.unary("gelu", hpre)
        m = e.binary("add", e.matmul(hact, w2), c2)
        x2 = e.binary("add", x1, m)
        saved.append(dict(y1=y1, q=q, k=k, v=v, pr=pr, c=c, x1=x1, y2=y2,
                          hpre=hpre, hact=hact, w=(wq, wk, wv, wo, w1, w2),
                          ln=(g1, g2)))
        x = x2

    loss = e.op("reduce_mean", [e.binary("mul", x, x)], [[]],
                "{axes = array<i64: 0, 1>}")
    e.output("loss", loss)

    grads = {}

    def layer_norm_backward(dy, y, gamma, gname, bname):
        grads[gname] = e.reduce_sum(e.binary("mul", dy, y), [0])
        grads[bname] = e.reduce_sum(dy, [0])
        a = e.binary("mul", dy, gamma)
        r = e.scale(e.reduce_sum(a, [1], keepdims=True), 1.0 / H)
        a = e.binary("sub", a, r)
        r2 = e.reduce_sum(e.binary("mul", a, y), [1], keepdims=True)
        return e.binary("sub", a, e.binary("mul", y, e.scale(r2, 1.0 / H)))

    def linear_backward(dout, inp, w, name):
        grads[name + ".bias"] = e.reduce_sum(dout, [0])
        grads[name + ".weight"] = e.matmul(inp, dout, ta=True)
        return e.matmul(dout, w, tb=True)

    dx = e.scale(x, 2.0 / (T * H))
    for layer in reversed(range(args.layers)):
        p = f"h{layer}."
        sv = saved[layer]
        wq, wk, wv, wo, w1, w2 = sv["w"]
        # MLP.
        dh = linear_backward(dx, sv["hact"], w2, p + "mlp.out")
        h = sv["hpre"]
        t = e.scalar("scalar_mul", e.binary("mul", h, h), -0.5)
        t = e.binary("mul", e.scalar("scalar_mul", e.unary("exp", t),
                                      1.0 / math.sqrt(2 * math.pi)), h)
        er = e.unary("erf", e.scalar("scalar_mul", h, 1.0 / math.sqrt(2)))
        er = e.scalar("scalar_mul", e.scalar("scalar_add", er, 1.0), 0.5)
        dh = e.binary("mul", dh, e.binary("add", er, t))
        dy2 = linear_backward(dh, sv["y2"], w1, p + "mlp.in")
        dx1 = e.binary("add", dx, layer_norm_backward(
            dy2, sv["y2"], sv["ln"][1], p + "ln2.weight", p + "ln2.bias"))
        # Attention.
        dc = linear_backward(dx1, sv["c"], wo, p + "attn.out")
        dc = e.transpose(e.reshape(dc, [B, S, NH, HD]), [0, 2, 1, 3])
        dpr = e.bmm(dc, sv["v"], tb=True)
        dv = e.bmm(sv["pr"], dc, ta=True)
        t = e.reduce_sum(e.binary("mul", dpr, sv["pr"]), [3], keepdims=True)
        ds = e.binary("mul", e.binary("sub", dpr, t), sv["pr"])
        ds = e.scale(ds, 1.0 / math.sqrt(HD))
        dq = e.bmm(ds, sv["k"])
        dk = e.bmm(ds, sv["q"], ta=True)
        dy1 = None
        for d, w, name in ((dq, wq, "q"), (dk, wk, "k"), (dv, wv, "v")):
            d = e.reshape(e.transpose(d, [0, 2, 1, 3]), [T, H])
            dy = linear_backward(d, sv["y1"], w, p + "attn." + name)
            dy1 = dy if dy1 is None else e.binary("add", dy1, dy)
        dx = e.binary("add", dx1, layer_norm_backward(
            dy1, sv["y1"], sv["ln"][0], p + "ln1.weight", p + "ln1.bias"))

    # SGD with momentum 0.9, learning rate 0.01.
    for name, value, momentum in params:
        new_m = e.binary("add", e.scalar("scalar_mul", momentum, 0.9),
                         grads[name])
        new_p = e.binary("sub", value, e.scalar("scalar_mul", new_m, 0.01))
        e.output(name, new_p)
        e.output(name + ".momentum", new_m)

    ranks = ", ".join(str(r) for r in range(math.prod(mesh)))
    mesh_text = ", ".join(map(str, mesh))
    header = [
        f"// GPT, {args.layers} layers, hidden {H}, {NH} heads, batch {B} x "
        f"seq {S}, mesh [{mesh_text}]: {e.ops} ops (bench/gen_gpt.py).",
        f"#mesh = #oneflow.placement<cpu, ranks = [{ranks}], "
        f"mesh = [{mesh_text}]>",
        f"func.func @gpt_l{args.layers}() {{",
    ]
    return "\n".join(header + e.lines + ["  return", "}", ""]), e.ops


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--mesh", default="2x2", help="4 or 2x2")
    parser.add_argument("--bare", action="store_true",
                        help="no layouts at all: a one-device program for "
                             "oneflow-auto-parallel to lay out")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64)
    args = parser.parse_args()
    text, ops = generate(args)
    sys.stdout.write(text)
    print(f"gen_gpt: {ops} ops", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
#===- scripts/make_gpt.py - The GPT example at any size -------------------===#
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: make_gpt.py [--layers L] [--width W] [--heads H] [--context T]
#                    [--vocab V] [--batch B] > gpt.mlir
#
# Prints examples/gpt/gpt.mlir's program (pre-norm decoder layers with
# causal multi-head attention and a 4x GELU MLP, learned token and position
# embeddings, a final LayerNorm, a separate LM head, the mean next-token
# cross-entropy as output "loss") at the given sizes, with the example's
# initializers and seeds. The defaults are the example's sizes (2 layers,
# width 64, 4 heads, context 32, vocabulary 96, batch 4), whose training
# equals the example's (test/Run/make-gpt.test). GPT-2 small is
#   make_gpt.py --layers 12 --width 768 --heads 12 --context 1024 \
#               --vocab 50257 --batch 8
# Inputs "tokens" and "targets" are B x T token ids (scripts/make_text.py
# writes character ids below 96, valid for any vocabulary of 96 or more).
#
#===----------------------------------------------------------------------===#
import argparse
import sys


def emit(layers, width, heads, context, vocab, batch):
    if width % heads:
        sys.exit(f"make_gpt.py: error: width {width} is not a multiple of "
                 f"{heads} heads")
    for name, value in [("layers", layers), ("width", width),
                        ("heads", heads), ("context", context),
                        ("vocab", vocab), ("batch", batch)]:
        if value < 1:
            sys.exit(f"make_gpt.py: error: --{name} {value} is not positive")
    W, H, T, V, B = width, heads, context, vocab, batch
    D = W // H
    N = B * T
    f32 = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    out = []
    p = out.append
    p(f"// make_gpt.py --layers {layers} --width {W} --heads {H} "
      f"--context {T} --vocab {V} --batch {B}")
    p("func.func @gpt() {")
    p(f'  %tokens = oneflow.input "tokens" : tensor<{B}x{T}xi64>')
    p(f'  %targets = oneflow.input "targets" : tensor<{B}x{T}xi64>')
    p(f'  %wte = oneflow.variable "wte.weight" {{init = #oneflow.init<normal'
      f'(0.0, 0.02)>, seed = 1}} : {f32(V, W)}')
    p(f'  %wpe = oneflow.variable "wpe.weight" {{init = #oneflow.init<normal'
      f'(0.0, 0.02)>, seed = 2}} : {f32(T, W)}')
    positions = ", ".join(str(i) for i in range(T))
    p(f"  %pos = oneflow.constant dense<[{positions}]> : tensor<{T}xi64>")
    p(f"  %pos_row = oneflow.reshape %pos : (tensor<{T}xi64>) -> "
      f"tensor<{T}x1xi64>")
    p(f"  %pos_col = oneflow.reshape %pos : (tensor<{T}xi64>) -> "
      f"tensor<1x{T}xi64>")
    p(f"  %future = oneflow.greater %pos_col, %pos_row : (tensor<1x{T}xi64>, "
      f"tensor<{T}x1xi64>) -> tensor<{T}x{T}xi1>")
    p(f"  %tok_emb = oneflow.gather %wte, %tokens : ({f32(V, W)}, "
      f"tensor<{B}x{T}xi64>) -> {f32(B, T, W)}")
    p(f"  %pos_emb = oneflow.gather %wpe, %pos : ({f32(T, W)}, "
      f"tensor<{T}xi64>) -> {f32(T, W)}")
    p(f"  %emb = oneflow.add %tok_emb, %pos_emb : ({f32(B, T, W)}, "
      f"{f32(T, W)}) -> {f32(B, T, W)}")
    p(f"  %x = oneflow.reshape %emb : ({f32(B, T, W)}) -> {f32(N, W)}")
    x = "%x"
    row, stat = f32(N, W), f32(N)

    def ln(name, x, w, b):
        p(f"  {name}, {name}_mean, {name}_rstd = oneflow.layer_norm {x}, {w}, "
          f"{b} {{begin_norm_axis = 1, begin_params_axis = 1, epsilon = "
          f"1.0e-5}} : ({row}, {f32(W)}, {f32(W)}) -> ({row}, {stat}, "
          f"{stat})")

    def linear(name, x, w, b, n_in, n_out):
        p(f"  {name}0 = oneflow.matmul {x}, {w} : ({f32(N, n_in)}, "
          f"{f32(n_in, n_out)}) -> {f32(N, n_out)}")
        p(f"  {name} = oneflow.add {name}0, {b} : ({f32(N, n_out)}, "
          f"{f32(n_out)}) -> {f32(N, n_out)}")

    for l in range(layers):
        h = f"%h{l}_"
        def var(name, key, shape, init, seed=None):  # noqa: E306
            seed_text = f", seed = {seed}" if seed is not None else ""
            p(f'  {h}{name} = oneflow.variable "h{l}.{key}" {{init = '
              f'#oneflow.init<{init}>{seed_text}}} : {shape}')
        normal = "normal(0.0, 0.02)"
        var("ln1_w", "ln1.weight", f32(W), "ones")
        var("ln1_b", "ln1.bias", f32(W), "zeros")
        var("qkv_w", "attn.qkv.weight", f32(W, 3 * W), normal, 10 * l + 1)
        var("qkv_b", "attn.qkv.bias", f32(3 * W), "zeros")
        var("proj_w", "attn.proj.weight", f32(W, W), normal, 10 * l + 2)
        var("proj_b", "attn.proj.bias", f32(W), "zeros")
        var("ln2_w", "ln2.weight", f32(W), "ones")
        var("ln2_b", "ln2.bias", f32(W), "zeros")
        var("fc1_w", "mlp.fc1.weight", f32(W, 4 * W), normal, 10 * l + 3)
        var("fc1_b", "mlp.fc1.bias", f32(4 * W), "zeros")
        var("fc2_w", "mlp.fc2.weight", f32(4 * W, W), normal, 10 * l + 4)
        var("fc2_b", "mlp.fc2.bias", f32(W), "zeros")
        ln(f"{h}a", x, f"{h}ln1_w", f"{h}ln1_b")
        linear(f"{h}qkv1", f"{h}a", f"{h}qkv_w", f"{h}qkv_b", W, 3 * W)
        heads4 = f32(B, T, H, 3 * D)
        split = f32(B, H, T, 3 * D)
        p(f"  {h}qkv2 = oneflow.reshape {h}qkv1 : ({f32(N, 3 * W)}) -> "
          f"{heads4}")
        p(f"  {h}qkv = oneflow.transpose {h}qkv2 {{perm = array<i64: 0, 2, "
          f"1, 3>}} : ({heads4}) -> {split}")
        for i, part in enumerate("qkv"):
            p(f"  {h}{part} = oneflow.slice {h}qkv {{starts = array<i64: 0, 0,"
              f" 0, {i * D}>, ends = array<i64: {B}, {H}, {T}, {(i + 1) * D}>,"
              f" steps = array<i64: 1, 1, 1, 1>}} : ({split}) -> "
              f"{f32(B, H, T, D)}")
        scores, per_head = f32(B, H, T, T), f32(B, H, T, D)
        p(f"  {h}s0 = oneflow.batch_matmul {h}q, {h}k {{transpose_b}} : "
          f"({per_head}, {per_head}) -> {scores}")
        p(f"  {h}s1 = oneflow.scalar_mul {h}s0, {D ** -0.5!r} : ({scores}) -> "
          f"{scores}")
        p(f"  {h}s = oneflow.masked_fill {h}s1, %future, -1.0e9 : ({scores}, "
          f"tensor<{T}x{T}xi1>) -> {scores}")
        p(f"  {h}p = oneflow.softmax {h}s : ({scores}) -> {scores}")
        p(f"  {h}c0 = oneflow.batch_matmul {h}p, {h}v : ({scores}, "
          f"{per_head}) -> {per_head}")
        p(f"  {h}c1 = oneflow.transpose {h}c0 {{perm = array<i64: 0, 2, 1, "
          f"3>}} : ({per_head}) -> {f32(B, T, H, D)}")
        p(f"  {h}c = oneflow.reshape {h}c1 : ({f32(B, T, H, D)}) -> {row}")
        linear(f"{h}o", f"{h}c", f"{h}proj_w", f"{h}proj_b", W, W)
        p(f"  {h}x1 = oneflow.add {x}, {h}o : ({row}, {row}) -> {row}")
        ln(f"{h}m", f"{h}x1", f"{h}ln2_w", f"{h}ln2_b")
        linear(f"{h}f1", f"{h}m", f"{h}fc1_w", f"{h}fc1_b", W, 4 * W)
        p(f"  {h}f2 = oneflow.gelu {h}f1 : ({f32(N, 4 * W)}) -> "
          f"{f32(N, 4 * W)}")
        linear(f"{h}f", f"{h}f2", f"{h}fc2_w", f"{h}fc2_b", 4 * W, W)
        p(f"  {h}out = oneflow.add {h}x1, {h}f : ({row}, {row}) -> {row}")
        x = f"{h}out"
    p(f'  %lnf_w = oneflow.variable "ln_f.weight" {{init = #oneflow.init<ones>'
      f'}} : {f32(W)}')
    p(f'  %lnf_b = oneflow.variable "ln_f.bias" {{init = #oneflow.init<zeros>'
      f'}} : {f32(W)}')
    p(f'  %head_w = oneflow.variable "lm_head.weight" {{init = #oneflow.init<'
      f'normal(0.0, 0.02)>, seed = 3}} : {f32(W, V)}')
    ln("%y", x, "%lnf_w", "%lnf_b")
    p(f"  %logits = oneflow.matmul %y, %head_w : ({row}, {f32(W, V)}) -> "
      f"{f32(N, V)}")
    p(f"  %labels = oneflow.reshape %targets : (tensor<{B}x{T}xi64>) -> "
      f"tensor<{N}xi64>")
    p(f"  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels "
      f": ({f32(N, V)}, tensor<{N}xi64>) -> ({f32(N, V)}, {stat})")
    p(f"  %loss = oneflow.reduce_mean %ce {{axes = array<i64: 0>}} : ({stat}) "
      f"-> tensor<f32>")
    p('  oneflow.output "loss", %loss : tensor<f32>')
    p("  return")
    p("}")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(
        description="Print the GPT example's program at the given sizes")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=96)
    parser.add_argument("--batch", type=int, default=4)
    args = parser.parse_args()
    sys.stdout.write(emit(args.layers, args.width, args.heads, args.context,
                          args.vocab, args.batch))


if __name__ == "__main__":
    main()

// A small GPT-2-style character model written for one device: 2 pre-norm
// decoder layers (causal multi-head attention with 4 heads of 16, a 4x MLP
// with GELU), learned token and position embeddings, a final LayerNorm and
// a separate LM head; the mean cross-entropy of next-character prediction
// is the output "loss". No dropout, so runs are deterministic.
//
//   vocabulary 96 (scripts/make_text.py), context 32, width 64, batch 4
//
// Inputs are "tokens" and "targets" (4x32 character ids, targets = tokens
// shifted by one). Activations are kept as [batch * context, width] = 128x64
// rows; attention reshapes them to [batch, heads, context, 16]. The program
// carries no layouts: `of-run --train --strategy dp|tp|hybrid|FILE` (or
// oneflow-apply-strategy) lays it out; examples/gpt/tp.json and hybrid.json
// are the Megatron layouts. scripts/train_gpt.sh trains it.

func.func @gpt() {
  %tokens = oneflow.input "tokens" : tensor<4x32xi64>
  %targets = oneflow.input "targets" : tensor<4x32xi64>
  %wte = oneflow.variable "wte.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 1} : tensor<96x64xf32>
  %wpe = oneflow.variable "wpe.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 2} : tensor<32x64xf32>

  // Positions 0..31, and the causal mask: future[i, j] = j > i.
  %pos = oneflow.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : tensor<32xi64>
  %pos_row = oneflow.reshape %pos : (tensor<32xi64>) -> tensor<32x1xi64>
  %pos_col = oneflow.reshape %pos : (tensor<32xi64>) -> tensor<1x32xi64>
  %future = oneflow.greater %pos_col, %pos_row : (tensor<1x32xi64>, tensor<32x1xi64>) -> tensor<32x32xi1>

  // x = wte[tokens] + wpe[positions], as 128 rows of width 64.
  %tok_emb = oneflow.gather %wte, %tokens : (tensor<96x64xf32>, tensor<4x32xi64>) -> tensor<4x32x64xf32>
  %pos_emb = oneflow.gather %wpe, %pos : (tensor<32x64xf32>, tensor<32xi64>) -> tensor<32x64xf32>
  %emb = oneflow.add %tok_emb, %pos_emb : (tensor<4x32x64xf32>, tensor<32x64xf32>) -> tensor<4x32x64xf32>
  %x = oneflow.reshape %emb : (tensor<4x32x64xf32>) -> tensor<128x64xf32>

  // ---- Layer 0: x = x + attn(ln1(x)); x = x + mlp(ln2(x)) ----
  %h0_ln1_w = oneflow.variable "h0.ln1.weight" {init = #oneflow.init<ones>} : tensor<64xf32>
  %h0_ln1_b = oneflow.variable "h0.ln1.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  // qkv columns are head-major: head h owns columns [48h, 48h + 48), its
  // q, k and v in that order, so a column split keeps whole heads.
  %h0_qkv_w = oneflow.variable "h0.attn.qkv.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 1} : tensor<64x192xf32>
  %h0_qkv_b = oneflow.variable "h0.attn.qkv.bias" {init = #oneflow.init<zeros>} : tensor<192xf32>
  %h0_proj_w = oneflow.variable "h0.attn.proj.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 2} : tensor<64x64xf32>
  %h0_proj_b = oneflow.variable "h0.attn.proj.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  %h0_ln2_w = oneflow.variable "h0.ln2.weight" {init = #oneflow.init<ones>} : tensor<64xf32>
  %h0_ln2_b = oneflow.variable "h0.ln2.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  %h0_fc1_w = oneflow.variable "h0.mlp.fc1.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 3} : tensor<64x256xf32>
  %h0_fc1_b = oneflow.variable "h0.mlp.fc1.bias" {init = #oneflow.init<zeros>} : tensor<256xf32>
  %h0_fc2_w = oneflow.variable "h0.mlp.fc2.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 4} : tensor<256x64xf32>
  %h0_fc2_b = oneflow.variable "h0.mlp.fc2.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>

  %h0_a, %h0_a_mean, %h0_a_rstd = oneflow.layer_norm %x, %h0_ln1_w, %h0_ln1_b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
  %h0_qkv0 = oneflow.matmul %h0_a, %h0_qkv_w : (tensor<128x64xf32>, tensor<64x192xf32>) -> tensor<128x192xf32>
  %h0_qkv1 = oneflow.add %h0_qkv0, %h0_qkv_b : (tensor<128x192xf32>, tensor<192xf32>) -> tensor<128x192xf32>
  // [batch * context, heads * 48] -> [batch, heads, context, 48]
  %h0_qkv2 = oneflow.reshape %h0_qkv1 : (tensor<128x192xf32>) -> tensor<4x32x4x48xf32>
  %h0_qkv = oneflow.transpose %h0_qkv2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<4x32x4x48xf32>) -> tensor<4x4x32x48xf32>
  %h0_q = oneflow.slice %h0_qkv {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 8, 4, 32, 16>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  %h0_k = oneflow.slice %h0_qkv {starts = array<i64: 0, 0, 0, 16>, ends = array<i64: 8, 4, 32, 32>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  %h0_v = oneflow.slice %h0_qkv {starts = array<i64: 0, 0, 0, 32>, ends = array<i64: 8, 4, 32, 48>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  // Scaled dot-product attention, a query sees itself and earlier tokens.
  %h0_s0 = oneflow.batch_matmul %h0_q, %h0_k {transpose_b} : (tensor<4x4x32x16xf32>, tensor<4x4x32x16xf32>) -> tensor<4x4x32x32xf32>
  %h0_s1 = oneflow.scalar_mul %h0_s0, 0.25 : (tensor<4x4x32x32xf32>) -> tensor<4x4x32x32xf32>
  %h0_s = oneflow.masked_fill %h0_s1, %future, -1.0e9 : (tensor<4x4x32x32xf32>, tensor<32x32xi1>) -> tensor<4x4x32x32xf32>
  %h0_p = oneflow.softmax %h0_s : (tensor<4x4x32x32xf32>) -> tensor<4x4x32x32xf32>
  %h0_c0 = oneflow.batch_matmul %h0_p, %h0_v : (tensor<4x4x32x32xf32>, tensor<4x4x32x16xf32>) -> tensor<4x4x32x16xf32>
  // [batch, heads, context, 16] -> [batch * context, heads * 16]
  %h0_c1 = oneflow.transpose %h0_c0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<4x4x32x16xf32>) -> tensor<4x32x4x16xf32>
  %h0_c = oneflow.reshape %h0_c1 : (tensor<4x32x4x16xf32>) -> tensor<128x64xf32>
  %h0_o0 = oneflow.matmul %h0_c, %h0_proj_w : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
  %h0_o = oneflow.add %h0_o0, %h0_proj_b : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %h0_x1 = oneflow.add %x, %h0_o : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>

  %h0_m, %h0_m_mean, %h0_m_rstd = oneflow.layer_norm %h0_x1, %h0_ln2_w, %h0_ln2_b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
  %h0_f0 = oneflow.matmul %h0_m, %h0_fc1_w : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %h0_f1 = oneflow.add %h0_f0, %h0_fc1_b : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %h0_f2 = oneflow.gelu %h0_f1 : (tensor<128x256xf32>) -> tensor<128x256xf32>
  %h0_f3 = oneflow.matmul %h0_f2, %h0_fc2_w : (tensor<128x256xf32>, tensor<256x64xf32>) -> tensor<128x64xf32>
  %h0_f = oneflow.add %h0_f3, %h0_fc2_b : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %h0_out = oneflow.add %h0_x1, %h0_f : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>

  // ---- Layer 1: x = x + attn(ln1(x)); x = x + mlp(ln2(x)) ----
  %h1_ln1_w = oneflow.variable "h1.ln1.weight" {init = #oneflow.init<ones>} : tensor<64xf32>
  %h1_ln1_b = oneflow.variable "h1.ln1.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  // qkv columns are head-major: head h owns columns [48h, 48h + 48), its
  // q, k and v in that order, so a column split keeps whole heads.
  %h1_qkv_w = oneflow.variable "h1.attn.qkv.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 11} : tensor<64x192xf32>
  %h1_qkv_b = oneflow.variable "h1.attn.qkv.bias" {init = #oneflow.init<zeros>} : tensor<192xf32>
  %h1_proj_w = oneflow.variable "h1.attn.proj.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 12} : tensor<64x64xf32>
  %h1_proj_b = oneflow.variable "h1.attn.proj.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  %h1_ln2_w = oneflow.variable "h1.ln2.weight" {init = #oneflow.init<ones>} : tensor<64xf32>
  %h1_ln2_b = oneflow.variable "h1.ln2.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  %h1_fc1_w = oneflow.variable "h1.mlp.fc1.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 13} : tensor<64x256xf32>
  %h1_fc1_b = oneflow.variable "h1.mlp.fc1.bias" {init = #oneflow.init<zeros>} : tensor<256xf32>
  %h1_fc2_w = oneflow.variable "h1.mlp.fc2.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 14} : tensor<256x64xf32>
  %h1_fc2_b = oneflow.variable "h1.mlp.fc2.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>

  %h1_a, %h1_a_mean, %h1_a_rstd = oneflow.layer_norm %h0_out, %h1_ln1_w, %h1_ln1_b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
  %h1_qkv0 = oneflow.matmul %h1_a, %h1_qkv_w : (tensor<128x64xf32>, tensor<64x192xf32>) -> tensor<128x192xf32>
  %h1_qkv1 = oneflow.add %h1_qkv0, %h1_qkv_b : (tensor<128x192xf32>, tensor<192xf32>) -> tensor<128x192xf32>
  // [batch * context, heads * 48] -> [batch, heads, context, 48]
  %h1_qkv2 = oneflow.reshape %h1_qkv1 : (tensor<128x192xf32>) -> tensor<4x32x4x48xf32>
  %h1_qkv = oneflow.transpose %h1_qkv2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<4x32x4x48xf32>) -> tensor<4x4x32x48xf32>
  %h1_q = oneflow.slice %h1_qkv {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 8, 4, 32, 16>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  %h1_k = oneflow.slice %h1_qkv {starts = array<i64: 0, 0, 0, 16>, ends = array<i64: 8, 4, 32, 32>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  %h1_v = oneflow.slice %h1_qkv {starts = array<i64: 0, 0, 0, 32>, ends = array<i64: 8, 4, 32, 48>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x4x32x48xf32>) -> tensor<4x4x32x16xf32>
  // Scaled dot-product attention, a query sees itself and earlier tokens.
  %h1_s0 = oneflow.batch_matmul %h1_q, %h1_k {transpose_b} : (tensor<4x4x32x16xf32>, tensor<4x4x32x16xf32>) -> tensor<4x4x32x32xf32>
  %h1_s1 = oneflow.scalar_mul %h1_s0, 0.25 : (tensor<4x4x32x32xf32>) -> tensor<4x4x32x32xf32>
  %h1_s = oneflow.masked_fill %h1_s1, %future, -1.0e9 : (tensor<4x4x32x32xf32>, tensor<32x32xi1>) -> tensor<4x4x32x32xf32>
  %h1_p = oneflow.softmax %h1_s : (tensor<4x4x32x32xf32>) -> tensor<4x4x32x32xf32>
  %h1_c0 = oneflow.batch_matmul %h1_p, %h1_v : (tensor<4x4x32x32xf32>, tensor<4x4x32x16xf32>) -> tensor<4x4x32x16xf32>
  // [batch, heads, context, 16] -> [batch * context, heads * 16]
  %h1_c1 = oneflow.transpose %h1_c0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<4x4x32x16xf32>) -> tensor<4x32x4x16xf32>
  %h1_c = oneflow.reshape %h1_c1 : (tensor<4x32x4x16xf32>) -> tensor<128x64xf32>
  %h1_o0 = oneflow.matmul %h1_c, %h1_proj_w : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
  %h1_o = oneflow.add %h1_o0, %h1_proj_b : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %h1_x1 = oneflow.add %h0_out, %h1_o : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>

  %h1_m, %h1_m_mean, %h1_m_rstd = oneflow.layer_norm %h1_x1, %h1_ln2_w, %h1_ln2_b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
  %h1_f0 = oneflow.matmul %h1_m, %h1_fc1_w : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %h1_f1 = oneflow.add %h1_f0, %h1_fc1_b : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %h1_f2 = oneflow.gelu %h1_f1 : (tensor<128x256xf32>) -> tensor<128x256xf32>
  %h1_f3 = oneflow.matmul %h1_f2, %h1_fc2_w : (tensor<128x256xf32>, tensor<256x64xf32>) -> tensor<128x64xf32>
  %h1_f = oneflow.add %h1_f3, %h1_fc2_b : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %h1_out = oneflow.add %h1_x1, %h1_f : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>

  // ---- Final LayerNorm, LM head, mean cross-entropy ----
  %lnf_w = oneflow.variable "ln_f.weight" {init = #oneflow.init<ones>} : tensor<64xf32>
  %lnf_b = oneflow.variable "ln_f.bias" {init = #oneflow.init<zeros>} : tensor<64xf32>
  %head_w = oneflow.variable "lm_head.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 3} : tensor<64x96xf32>
  %y, %y_mean, %y_rstd = oneflow.layer_norm %h1_out, %lnf_w, %lnf_b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
  %logits = oneflow.matmul %y, %head_w : (tensor<128x64xf32>, tensor<64x96xf32>) -> tensor<128x96xf32>
  %labels = oneflow.reshape %targets : (tensor<4x32xi64>) -> tensor<128xi64>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<128x96xf32>, tensor<128xi64>) -> (tensor<128x96xf32>, tensor<128xf32>)
  %loss = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<128xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}

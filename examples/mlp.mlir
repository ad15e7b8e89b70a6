// An MLP classifier for 8x8 digit images (64 features, 10 classes) on one
// device: two dense layers with ReLU, softmax cross-entropy, mean loss.
// Run it with `of-run examples/mlp.mlir --input labels=random:0:10`.
// Train it on digits (scripts/make_digits.py DIR) on 4 ranks with a
// strategy (docs/strategies.md):
//   of-run examples/mlp.mlir --train --lr 0.1 --momentum 0.9 --steps 200 \
//     --devices cpu:4 --strategy dp|tp|hybrid|zero \
//     --input images=@DIR/digits_images.npy:loop \
//     --input labels=@DIR/digits_labels.npy:loop

func.func @mlp() {
  %x = oneflow.input "images" : tensor<64x64xf32>
  %labels = oneflow.input "labels" : tensor<64xi64>
  %w1 = oneflow.variable "fc1.weight" {init = #oneflow.init<kaiming_uniform>, seed = 1} : tensor<64x128xf32>
  %b1 = oneflow.variable "fc1.bias" {init = #oneflow.init<zeros>} : tensor<128xf32>
  %w2 = oneflow.variable "fc2.weight" {init = #oneflow.init<kaiming_uniform>, seed = 2} : tensor<128x10xf32>
  %b2 = oneflow.variable "fc2.bias" {init = #oneflow.init<zeros>} : tensor<10xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<64x64xf32>, tensor<64x128xf32>) -> tensor<?x?xf32>
  %hb = oneflow.add %h, %b1 : (tensor<?x?xf32>, tensor<128xf32>) -> tensor<?x?xf32>
  %a = oneflow.relu %hb : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = oneflow.matmul %a, %w2 : (tensor<?x?xf32>, tensor<128x10xf32>) -> tensor<?x?xf32>
  %logits = oneflow.add %o, %b2 : (tensor<?x?xf32>, tensor<10xf32>) -> tensor<?x?xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<?x?xf32>, tensor<64xi64>) -> (tensor<?x?xf32>, tensor<?xf32>)
  %mean = oneflow.reduce_mean %loss {axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  oneflow.output "loss", %mean : tensor<f32>
  oneflow.output "prob", %prob : tensor<?x?xf32>
  return
}

//===- MapVolume.cpp - 3-D convolutions and pools as 2-D ops --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The dialect's windows are 2-D; a node over N, C, D, H, W becomes 2-D ops:
//
// | ONNX        | oneflow                                                 |
// |-------------|---------------------------------------------------------|
// | MaxPool,    | the pool over H, W with C and D as channels, then over  |
// | AveragePool | D (a kd x 1 window) with H W flattened: the maximum and |
// |             | the mean over a box are over one axis of those over the |
// |             | others, and with count_include_pad 0 the divisor is the |
// |             | product of each axis' count of real elements            |
// | Conv        | D zero-padded and moved next to N; for each kernel      |
// |             | depth kd, the depths kd x dilation + od x stride (a     |
// |             | strided slice) as batch, conv2d by the weight's slice   |
// |             | kd; the KD results added, the bias, D moved back        |
//
// Each is made of ops with gradient rules, so it trains; the work is the
// 3-D op's (the slices copy the input KD times). ConvTranspose over 3
// spatial axes is not mapped.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {
/// Builds the ops of one node.
struct Builder3D {
  NodeContext &node;

  DenseI64ArrayAttr ints(llvm::ArrayRef<int64_t> v) {
    return node.b.getDenseI64ArrayAttr(v);
  }
  Value transpose(Value v, llvm::ArrayRef<int64_t> perm) {
    return node.create<TransposeOp>(v, {node.named("perm", ints(perm))})
        ->getResult();
  }
  /// v[..., begin : begin + (count - 1) * step + 1 : step, ...] on `axis`.
  FailureOr<Value> strided(Value v, int64_t axis, int64_t begin, int64_t count,
                           int64_t step) {
    llvm::ArrayRef<int64_t> shape = NodeContext::typeOf(v).getShape();
    llvm::SmallVector<int64_t> starts(shape.size(), 0), ends(shape),
        steps(shape.size(), 1);
    starts[axis] = begin;
    ends[axis] = begin + (count - 1) * step + 1;
    steps[axis] = step;
    return valueOf(node.create<SliceOp>(v, {node.named("starts", ints(starts)),
                                            node.named("ends", ints(ends)),
                                            node.named("steps", ints(steps))}));
  }
  /// `v` with `before` and `after` zeros on `axis`.
  FailureOr<Value> zeroPad(Value v, int64_t axis, int64_t before,
                           int64_t after) {
    if (before == 0 && after == 0)
      return v;
    RankedTensorType type = NodeContext::typeOf(v);
    llvm::SmallVector<Value> parts;
    auto zeros = [&](int64_t n) {
      llvm::SmallVector<int64_t> shape(type.getShape());
      shape[axis] = n;
      return node.fill(RankedTensorType::get(shape, type.getElementType()), 0);
    };
    if (before)
      parts.push_back(zeros(before));
    parts.push_back(v);
    if (after)
      parts.push_back(zeros(after));
    return valueOf(node.create<ConcatOp>(
        parts, {node.named("axis", node.b.getI64IntegerAttr(axis))}));
  }
};
} // namespace

LogicalResult mlir::oneflow::onnx_import::mapPool3D(NodeContext &node,
                                                    bool isMax) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = NodeContext::typeOf(*x);
  if (!type.hasStaticShape())
    return node.error() << "needs a static input shape, got " << type;
  llvm::ArrayRef<int64_t> s = type.getShape(); // N C D H W
  FailureOr<WindowAttrs> w =
      readWindow(node, s.drop_front(2), {}, /*hasDilations=*/isMax);
  if (failed(w))
    return failure();
  if (isMax && node.getInt("storage_order", 0) != 0)
    return node.error() << "storage_order 1 is not supported";
  bool ceil = node.getInt("ceil_mode", 0) != 0;
  bool includePad = !isMax && node.getInt("count_include_pad", 0) != 0;
  const llvm::SmallVector<int64_t> &k = w->kernel, &st = w->strides,
                                   &p = w->pads, &dl = w->dilations;
  for (int i = 0; i < 3; ++i)
    if (s[2 + i] + p[i] + p[3 + i] < dl[i] * (k[i] - 1) + 1)
      return node.error() << "the window of spatial axis " << i
                          << " does not fit its padded input";
  Builder3D b{node};
  // One 2-D pool of `v` (N, C', A, B) with the given window.
  auto pool = [&](Value v, llvm::ArrayRef<int64_t> kernel,
                  llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> pads,
                  llvm::ArrayRef<int64_t> dilations) -> FailureOr<Value> {
    llvm::SmallVector<NamedAttribute> attrs{
        node.named("kernel_size", b.ints(kernel)),
        node.named("strides", b.ints(strides)),
        node.named("pads", b.ints(pads))};
    if (ceil)
      attrs.push_back(node.named("ceil_mode", node.b.getUnitAttr()));
    if (isMax) {
      attrs.push_back(node.named("dilations", b.ints(dilations)));
      return valueOf(node.create<MaxPool2DOp>(v, attrs));
    }
    if (includePad)
      attrs.push_back(node.named("count_include_pad", node.b.getUnitAttr()));
    return valueOf(node.create<AvgPool2DOp>(v, attrs));
  };
  Value v = *x;
  bool floatInput = isa<FloatType>(type.getElementType());
  if (!floatInput) // int8 / uint8 max pooling, exact in f32.
    v = node.cast(v, node.b.getF32Type());
  // Over H, W: (N, C D, H, W).
  FailureOr<Value> hw =
      pool(node.reshape(v, {s[0], s[1] * s[2], s[3], s[4]}), {k[1], k[2]},
           {st[1], st[2]}, {p[1], p[2], p[4], p[5]}, {dl[1], dl[2]});
  if (failed(hw))
    return failure();
  llvm::ArrayRef<int64_t> hwShape = NodeContext::typeOf(*hw).getShape();
  int64_t oh = hwShape[2], ow = hwShape[3];
  // Over D: (N, C, D, OH OW) with a kd x 1 window.
  FailureOr<Value> d =
      pool(node.reshape(*hw, {s[0], s[1], s[2], oh * ow}), {k[0], 1},
           {st[0], 1}, {p[0], 0, p[3], 0}, {dl[0], 1});
  if (failed(d))
    return failure();
  int64_t od = NodeContext::typeOf(*d).getDimSize(2);
  Value y = node.reshape(*d, {s[0], s[1], od, oh, ow});
  if (!floatInput)
    y = node.cast(y, type.getElementType());
  node.setOutput(0, y);
  return success();
}

LogicalResult mlir::oneflow::onnx_import::mapConv3D(NodeContext &node) {
  FailureOr<Value> x = node.input(0), w = node.input(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType type = NodeContext::typeOf(*x),
                   wType = NodeContext::typeOf(*w);
  if (!type.hasStaticShape() || !wType.hasStaticShape())
    return node.error() << "needs static input and weight shapes";
  if (wType.getRank() != 5)
    return node.error() << "the weight must have rank 5";
  llvm::ArrayRef<int64_t> s = type.getShape(), ws = wType.getShape();
  FailureOr<WindowAttrs> win = readWindow(
      node, s.drop_front(2), ws.drop_front(2), /*hasDilations=*/true);
  if (failed(win))
    return failure();
  int64_t groups = node.getInt("group", 1);
  const llvm::SmallVector<int64_t> &k = win->kernel, &st = win->strides,
                                   &p = win->pads, &dl = win->dilations;
  if (s[2] + p[0] + p[3] < dl[0] * (k[0] - 1) + 1)
    return node.error() << "the kernel's depth does not fit the padded input";
  // The output depth (the convolution's rule, no ceil mode).
  int64_t od = (s[2] + p[0] + p[3] - (dl[0] * (k[0] - 1) + 1)) / st[0] + 1;
  Builder3D b{node};
  // (N, D, C, H, W), D zero-padded.
  FailureOr<Value> moved =
      b.zeroPad(b.transpose(*x, {0, 2, 1, 3, 4}), 1, p[0], p[3]);
  if (failed(moved))
    return failure();
  Value sum;
  for (int64_t kd = 0; kd < k[0]; ++kd) {
    // The depths kd dilation + od stride, as batch: (N OD, C, H, W).
    FailureOr<Value> depths = b.strided(*moved, 1, kd * dl[0], od, st[0]);
    FailureOr<Value> kernel = b.strided(*w, 2, kd, 1, 1);
    if (failed(depths) || failed(kernel))
      return failure();
    FailureOr<Value> y = valueOf(node.create<Conv2DOp>(
        {node.reshape(*depths, {s[0] * od, s[1], s[3], s[4]}),
         node.reshape(*kernel, {ws[0], ws[1], ws[3], ws[4]})},
        {node.named("strides", b.ints({st[1], st[2]})),
         node.named("pads", b.ints({p[1], p[2], p[4], p[5]})),
         node.named("dilations", b.ints({dl[1], dl[2]})),
         node.named("groups", node.b.getI64IntegerAttr(groups))}));
    if (failed(y))
      return failure();
    sum = sum ? node.create<AddOp>({sum, *y})->getResult() : *y;
  }
  llvm::ArrayRef<int64_t> out = NodeContext::typeOf(sum).getShape();
  Value y = b.transpose(node.reshape(sum, {s[0], od, ws[0], out[2], out[3]}),
                        {0, 2, 1, 3, 4});
  if (node.hasInput(2)) {
    FailureOr<Value> bias = node.input(2);
    if (failed(bias))
      return failure();
    FailureOr<Value> added = valueOf(
        node.create<AddOp>({y, node.reshape(*bias, {1, ws[0], 1, 1, 1})}));
    if (failed(added))
      return failure();
    y = *added;
  }
  node.setOutput(0, y);
  return success();
}

//===- MapNN.cpp - Convolution, pooling, normalization, softmax -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// | ONNX                  | oneflow                                        |
// |-----------------------|------------------------------------------------|
// | Conv (1-D, 2-D)       | conv2d (1-D: as 2-D of height 1, reshaped)     |
// | ConvTranspose         | conv2d_backward_data (the input as the         |
// |                       | gradient of a convolution of the output's      |
// |                       | shape), add of the bias                        |
// | MaxPool AveragePool   | max_pool2d avg_pool2d (1-D as Conv; MaxPool of |
// |                       | int8/uint8 in f32, cast there and back)        |
// | Conv, pools on NCDHW  | 2-D ops (MapVolume.cpp)                        |
// | GlobalAveragePool     | global_avg_pool2d                              |
// | BatchNormalization    | batch_norm (statistics frozen; training mode:  |
// |                       | batch statistics, running ones computed)       |
// | LayerNormalization    | layer_norm (mean and inverse std reshaped)     |
// | Softmax LogSoftmax    | softmax log_softmax                            |
// | Dropout               | nothing in inference, dropout when training    |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

FailureOr<WindowAttrs> mlir::oneflow::onnx_import::readWindow(
    NodeContext &node, llvm::ArrayRef<int64_t> spatial,
    llvm::ArrayRef<int64_t> kernel, bool hasDilations) {
  size_t dims = spatial.size();
  WindowAttrs w;
  w.strides.assign(dims, 1);
  w.pads.assign(2 * dims, 0);
  w.dilations.assign(dims, 1);
  auto list = [&](llvm::StringRef name, llvm::SmallVector<int64_t> &out,
                  size_t size) -> LogicalResult {
    FailureOr<llvm::SmallVector<int64_t>> v = node.getInts(name);
    if (failed(v))
      return success();
    if (v->size() != size)
      return node.error() << "attribute '" << name << "' has " << v->size()
                          << " values, expected " << size;
    for (int64_t x : *v)
      if (x < 0 || (x == 0 && name != "pads"))
        return node.error() << "attribute '" << name << "' has value " << x;
    out = *v;
    return success();
  };
  w.kernel.assign(kernel.begin(), kernel.end());
  if (failed(list("kernel_shape", w.kernel, dims)) ||
      failed(list("strides", w.strides, dims)) ||
      failed(list("pads", w.pads, 2 * dims)) ||
      (hasDilations && failed(list("dilations", w.dilations, dims))))
    return failure();
  if (w.kernel.size() != dims)
    return node.error() << "needs a " << dims << "-D kernel_shape";
  if (!kernel.empty() && llvm::ArrayRef<int64_t>(w.kernel) != kernel)
    return node.error() << "kernel_shape does not match the weight";
  std::string autoPad = node.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(2 * dims, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < dims; ++i) {
      int64_t out = (spatial[i] + w.strides[i] - 1) / w.strides[i];
      int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - spatial[i]);
      int64_t small = total / 2;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      w.pads[i + dims] = total - w.pads[i];
    }
  } else if (autoPad != "NOTSET") {
    return node.error() << "unsupported auto_pad '" << autoPad << "'";
  }
  if (dims == 1) {
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.pads = {0, w.pads[0], 0, w.pads[1]};
  }
  return w;
}

/// The input of a 1-D (NCL) or 2-D (NCHW) op, as NCHW: a 1-D input is
/// reshaped to height 1, and `finish` drops that height from the result.
static FailureOr<Value> image(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = NodeContext::typeOf(*x);
  if (type.getRank() == 3)
    return node.reshape(
        *x, {type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)});
  if (type.getRank() != 4)
    return node.error() << "only 1-D (NCL) and 2-D (NCHW) inputs are "
                           "supported, not rank "
                        << type.getRank();
  return x;
}

/// The spatial sizes of input 0 as the node sees them (1 or 2 of them).
static llvm::SmallVector<int64_t> spatialOf(NodeContext &node, Value image) {
  llvm::ArrayRef<int64_t> hw =
      NodeContext::typeOf(image).getShape().drop_front(2);
  FailureOr<llvm::SmallVector<int64_t>> given = node.inputShape(0);
  if (succeeded(given) && given->size() == 3)
    return {hw[1]};
  return llvm::SmallVector<int64_t>(hw);
}

/// Sets output 0 to an NCHW `result`, without the height for a 1-D input.
static LogicalResult setImage(NodeContext &node, FailureOr<Value> result) {
  if (failed(result))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> given = node.inputShape(0);
  RankedTensorType type = NodeContext::typeOf(*result);
  if (succeeded(given) && given->size() == 3 && type.getRank() == 4)
    result = node.reshape(
        *result, {type.getDimSize(0), type.getDimSize(1), type.getDimSize(3)});
  node.setOutput(0, *result);
  return success();
}

template <typename OpTy>
static LogicalResult finish(NodeContext &node, FailureOr<OpTy> op) {
  return setImage(node, valueOf(op));
}

/// Whether input 0 has 3 spatial axes (NCDHW).
static bool isVolume(NodeContext &node) {
  FailureOr<llvm::SmallVector<int64_t>> shape = node.inputShape(0);
  return succeeded(shape) && shape->size() == 5;
}

static LogicalResult mapConv(NodeContext &node) {
  if (failed(node.checkArity(2, 3, 1)))
    return failure();
  if (isVolume(node))
    return mapConv3D(node);
  FailureOr<Value> x = image(node), w = node.input(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType wType = NodeContext::typeOf(*w);
  llvm::SmallVector<int64_t> spatial = spatialOf(node, *x);
  if (wType.getRank() != static_cast<int64_t>(spatial.size()) + 2)
    return node.error() << "the weight must have rank " << spatial.size() + 2;
  FailureOr<WindowAttrs> win = readWindow(
      node, spatial, wType.getShape().drop_front(2), /*hasDilations=*/true);
  if (failed(win))
    return failure();
  if (wType.getRank() == 3)
    w = node.reshape(
        *w, {wType.getDimSize(0), wType.getDimSize(1), 1, wType.getDimSize(2)});
  llvm::SmallVector<Value> operands{*x, *w};
  if (node.hasInput(2)) {
    FailureOr<Value> bias = node.input(2);
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  OpBuilder &b = node.b;
  return finish(
      node,
      node.create<Conv2DOp>(
          operands,
          {node.named("strides", b.getDenseI64ArrayAttr(win->strides)),
           node.named("pads", b.getDenseI64ArrayAttr(win->pads)),
           node.named("dilations", b.getDenseI64ArrayAttr(win->dilations)),
           node.named("groups",
                      b.getI64IntegerAttr(node.getInt("group", 1)))}));
}

/// ConvTranspose(x, w) is the gradient of a convolution by w whose input
/// has the output's shape: conv2d_backward_data with that shape, which the
/// strides, pads, dilations and output_padding give (or output_shape).
static LogicalResult mapConvTranspose(NodeContext &node) {
  if (failed(node.checkArity(2, 3, 1)))
    return failure();
  FailureOr<Value> x = image(node), w = node.input(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType xType = NodeContext::typeOf(*x),
                   wType = NodeContext::typeOf(*w);
  llvm::SmallVector<int64_t> spatial = spatialOf(node, *x);
  size_t dims = spatial.size();
  if (wType.getRank() != static_cast<int64_t>(dims) + 2)
    return node.error() << "the weight must have rank " << dims + 2;
  llvm::SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  auto list = [&](llvm::StringRef name, size_t size,
                  int64_t value) -> FailureOr<llvm::SmallVector<int64_t>> {
    FailureOr<llvm::SmallVector<int64_t>> v = node.getInts(name);
    if (failed(v))
      return llvm::SmallVector<int64_t>(size, value);
    if (v->size() != size)
      return node.error() << "attribute '" << name << "' has " << v->size()
                          << " values, expected " << size;
    return *v;
  };
  FailureOr<llvm::SmallVector<int64_t>> strides = list("strides", dims, 1),
                                        dilations = list("dilations", dims, 1),
                                        pads = list("pads", 2 * dims, 0),
                                        extra = list("output_padding", dims, 0),
                                        shape = list("kernel_shape", dims, 0);
  if (failed(strides) || failed(dilations) || failed(pads) || failed(extra) ||
      failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t k) { return k != 0; }) &&
      llvm::ArrayRef<int64_t>(*shape) != llvm::ArrayRef<int64_t>(kernel))
    return node.error() << "kernel_shape does not match the weight";
  for (size_t i = 0; i < dims; ++i)
    if ((*strides)[i] < 1 || (*dilations)[i] < 1 || (*extra)[i] < 0 ||
        (*extra)[i] >= std::max((*strides)[i], (*dilations)[i]))
      return node.error() << "strides and dilations must be positive and "
                             "output_padding below them";
  std::string autoPad = node.getString("auto_pad", "NOTSET");
  FailureOr<llvm::SmallVector<int64_t>> target = node.getInts("output_shape");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return node.error() << "unsupported auto_pad '" << autoPad << "'";
  llvm::SmallVector<int64_t> out;
  for (size_t i = 0; i < dims; ++i) {
    int64_t extent = ((*dilations)[i]) * (kernel[i] - 1) + 1;
    int64_t full = (*strides)[i] * (spatial[i] - 1) + (*extra)[i] + extent;
    if (autoPad == "VALID") {
      (*pads)[i] = (*pads)[i + dims] = 0;
    } else if (succeeded(target) || autoPad != "NOTSET") {
      // ONNX: pads from the wanted size (output_shape, or input x stride).
      int64_t want = succeeded(target) ? (*target)[target->size() - dims + i]
                                       : spatial[i] * (*strides)[i];
      int64_t total = std::max<int64_t>(0, full - want);
      bool upper = autoPad == "SAME_UPPER";
      (*pads)[i] = upper ? total / 2 : total - total / 2;
      (*pads)[i + dims] = total - (*pads)[i];
    }
    out.push_back(full - (*pads)[i] - (*pads)[i + dims]);
    if (out.back() < 1)
      return node.error() << "the output would have size " << out.back()
                          << " on spatial axis " << i;
  }
  if (dims == 1) {
    strides->insert(strides->begin(), 1);
    dilations->insert(dilations->begin(), 1);
    *pads = {0, (*pads)[0], 0, (*pads)[1]};
    out.insert(out.begin(), 1);
    w = node.reshape(
        *w, {wType.getDimSize(0), wType.getDimSize(1), 1, wType.getDimSize(2)});
  }
  int64_t group = node.getInt("group", 1);
  if (group < 1 || xType.getDimSize(1) != wType.getDimSize(0) ||
      wType.getDimSize(0) % group != 0)
    return node.error() << "the weight " << wType << " does not fit the input "
                        << xType << " in " << group << " groups";
  int64_t channels = wType.getDimSize(1) * group;
  OpBuilder &b = node.b;
  FailureOr<Value> y = valueOf(node.create<Conv2DBackwardDataOp>(
      {*x, *w}, {node.named("input_shape",
                            b.getDenseI64ArrayAttr({xType.getDimSize(0),
                                                    channels, out[0], out[1]})),
                 node.named("strides", b.getDenseI64ArrayAttr(*strides)),
                 node.named("pads", b.getDenseI64ArrayAttr(*pads)),
                 node.named("dilations", b.getDenseI64ArrayAttr(*dilations)),
                 node.named("groups", b.getI64IntegerAttr(group))}));
  if (failed(y))
    return failure();
  if (node.hasInput(2)) {
    FailureOr<Value> bias = node.input(2);
    if (failed(bias))
      return failure();
    y = valueOf(
        node.create<AddOp>({*y, node.reshape(*bias, {1, channels, 1, 1})}));
    if (failed(y))
      return failure();
  }
  return setImage(node, y);
}

template <typename OpTy> static LogicalResult mapPool(NodeContext &node) {
  bool isMax = std::is_same_v<OpTy, MaxPool2DOp>;
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  if (isVolume(node))
    return mapPool3D(node, isMax);
  FailureOr<Value> x = image(node);
  if (failed(x))
    return failure();
  FailureOr<WindowAttrs> win =
      readWindow(node, spatialOf(node, *x), {}, /*hasDilations=*/isMax);
  if (failed(win))
    return failure();
  OpBuilder &b = node.b;
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("kernel_size", b.getDenseI64ArrayAttr(win->kernel)),
      node.named("strides", b.getDenseI64ArrayAttr(win->strides)),
      node.named("pads", b.getDenseI64ArrayAttr(win->pads))};
  if (node.getInt("ceil_mode", 0))
    attrs.push_back(node.named("ceil_mode", b.getUnitAttr()));
  if (isMax) {
    attrs.push_back(
        node.named("dilations", b.getDenseI64ArrayAttr(win->dilations)));
    if (node.getInt("storage_order", 0) != 0)
      return node.error() << "storage_order 1 is not supported";
  } else if (node.getInt("count_include_pad", 0)) {
    attrs.push_back(node.named("count_include_pad", b.getUnitAttr()));
  }
  // MaxPool of int8 and uint8 (computed in i32): in f32, which holds them
  // exactly, and back.
  Type element = NodeContext::typeOf(*x).getElementType();
  if (isMax && !isa<FloatType>(element)) {
    FailureOr<Value> pooled =
        valueOf(node.create<OpTy>(node.cast(*x, b.getF32Type()), attrs));
    if (failed(pooled))
      return failure();
    return setImage(node, node.cast(*pooled, element));
  }
  return finish(node, node.create<OpTy>(*x, attrs));
}

static LogicalResult mapGlobalAveragePool(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = image(node);
  if (failed(x))
    return failure();
  return finish(node, node.create<GlobalAvgPool2DOp>(*x));
}

/// x * scalar, x + scalar.
static Value scalarOp(NodeContext &node, StringRef kind, Value x,
                      double scalar) {
  NamedAttribute attr = node.named("scalar", node.b.getF64FloatAttr(scalar));
  if (kind == "mul")
    return *node.create<ScalarMulOp>(x, {attr});
  if (kind == "add")
    return *node.create<ScalarAddOp>(x, {attr});
  return *node.create<ScalarPowOp>(x, {attr});
}

/// running * momentum + current * (1 - momentum), ONNX's running statistic.
static Value runningUpdate(NodeContext &node, Value running, Value current,
                           double momentum) {
  return *node.create<AddOp>(
      ValueRange{scalarOp(node, "mul", running, momentum),
                 scalarOp(node, "mul", current, 1.0 - momentum)});
}

static LogicalResult mapBatchNormalization(NodeContext &node) {
  if (failed(node.checkArity(5, 5, 5)))
    return failure();
  // Training mode (training_mode 1, or before opset 14 the running-statistic
  // outputs): the batch statistics normalize, over the whole logical batch
  // whatever the layout.
  bool training = node.getInt("training_mode", 0) != 0;
  for (unsigned i = 1; i < node.numOutputs(); ++i)
    training |= node.hasOutput(i);
  for (unsigned i = 3; i < node.numOutputs(); ++i)
    if (node.isOutputUsed(i))
      return node.error() << "output " << i << " ('" << node.node.output(i)
                          << "', a saved statistic) is not supported";
  llvm::SmallVector<Value> operands;
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = node.input(i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  OpBuilder &b = node.b;
  double eps = node.getFloat("epsilon", 1e-5);
  double momentum = node.getFloat("momentum", 0.9);
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("epsilon", b.getF64FloatAttr(eps)),
      node.named("momentum", b.getF64FloatAttr(momentum))};
  if (training)
    attrs.push_back(node.named("training", b.getUnitAttr()));
  FailureOr<BatchNormOp> bn = node.create<BatchNormOp>(operands, attrs);
  if (failed(bn))
    return failure();
  node.setOutput(0, bn->getY());
  // The updated running statistics, when the graph reads them (the
  // variance is the batch's population variance, as the ONNX spec says).
  if (node.isOutputUsed(1))
    node.setOutput(1, runningUpdate(node, operands[3], bn->getMean(), momentum));
  if (node.isOutputUsed(2)) {
    Value variance = scalarOp(
        node, "add", scalarOp(node, "pow", bn->getInvVariance(), -2.0), -eps);
    node.setOutput(2, runningUpdate(node, operands[4], variance, momentum));
  }
  return success();
}

static LogicalResult mapLayerNormalization(NodeContext &node) {
  if (failed(node.checkArity(2, 3, 3)))
    return failure();
  FailureOr<Value> x = node.input(0), scale = node.input(1);
  if (failed(x) || failed(scale))
    return failure();
  RankedTensorType xType = NodeContext::typeOf(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", -1), xType.getRank(), "axis");
  if (failed(axis))
    return failure();
  if (node.getInt("stash_type", 1) != 1)
    return node.error() << "only stash_type 1 (float) is supported";
  llvm::ArrayRef<int64_t> normShape = xType.getShape().drop_front(*axis);
  Value gamma = node.reshape(*scale, normShape);
  Value beta;
  if (node.hasInput(2)) {
    FailureOr<Value> bias = node.input(2);
    if (failed(bias))
      return failure();
    beta = node.reshape(*bias, normShape);
  } else {
    beta = node.fill(NodeContext::typeOf(gamma), 0.0);
  }
  OpBuilder &b = node.b;
  FailureOr<LayerNormOp> op = node.create<LayerNormOp>(
      {*x, gamma, beta},
      {node.named("begin_norm_axis", b.getI64IntegerAttr(*axis)),
       node.named("begin_params_axis", b.getI64IntegerAttr(*axis)),
       node.named("epsilon",
                  b.getF64FloatAttr(node.getFloat("epsilon", 1e-5)))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getY());
  // ONNX keeps the normalized axes as 1s in Mean and InvStdDev.
  llvm::SmallVector<int64_t> statShape(xType.getShape().take_front(*axis));
  statShape.append(xType.getRank() - *axis, 1);
  if (node.hasOutput(1))
    node.setOutput(1, node.reshape(op->getMean(), statShape));
  if (node.hasOutput(2))
    node.setOutput(2, node.reshape(op->getInvVariance(), statShape));
  return success();
}

template <typename OpTy> static LogicalResult mapSoftmax(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  return finish(node,
                node.create<OpTy>(
                    *x, {node.named("axis", node.b.getI64IntegerAttr(
                                                node.getInt("axis", -1)))}));
}

/// Dropout: nothing in inference (or at ratio 0), dropout when training.
/// The mask output, when read, is all true then, or where dropout of ones
/// (the same seed, so the same mask) is not zero.
static LogicalResult mapDropout(NodeContext &node) {
  if (failed(node.checkArity(1, 3, 2)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  bool training = false;
  if (node.hasInput(2)) {
    const ConstTensor *mode = node.constInput(2, /*readParameters=*/true);
    if (!mode || mode->numElements() != 1)
      return node.error() << "training_mode must be a constant scalar";
    training = mode->getDouble(0) != 0;
  }
  double ratio = 0.5;
  if (node.hasInput(1)) {
    const ConstTensor *r = node.constInput(1, /*readParameters=*/true);
    if (!r || r->numElements() != 1)
      return node.error() << "ratio must be a constant scalar (a Constant "
                             "or an initializer)";
    ratio = r->getDouble(0);
  }
  int64_t seed = static_cast<int64_t>(node.getFloat("seed", 0));
  RankedTensorType type = NodeContext::typeOf(*x);
  auto maskType = RankedTensorType::get(type.getShape(), node.b.getI1Type());
  if (!training || ratio == 0.0) {
    node.setOutput(0, *x);
    if (node.isOutputUsed(1))
      node.setOutput(1, node.fill(maskType, 1));
    return success();
  }
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("rate", node.b.getF64FloatAttr(ratio)),
      node.named("seed", node.b.getI64IntegerAttr(seed))};
  FailureOr<DropoutOp> y = node.create<DropoutOp>(*x, attrs);
  if (failed(y))
    return failure();
  node.setOutput(0, y->getResult());
  if (node.isOutputUsed(1)) {
    auto ones = RankedTensorType::get(type.getShape(), type.getElementType());
    FailureOr<DropoutOp> kept =
        node.create<DropoutOp>(node.fill(ones, 1), attrs);
    if (failed(kept))
      return failure();
    FailureOr<NotEqualOp> mask = node.create<NotEqualOp>(
        {kept->getResult(),
         node.fill(RankedTensorType::get({}, type.getElementType()), 0)});
    if (failed(mask))
      return failure();
    node.setOutput(1, mask->getResult());
  }
  return success();
}

void mlir::oneflow::onnx_import::addNNLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Conv"] = mapConv;
  table["ConvTranspose"] = mapConvTranspose;
  table["MaxPool"] = mapPool<MaxPool2DOp>;
  table["AveragePool"] = mapPool<AvgPool2DOp>;
  table["GlobalAveragePool"] = mapGlobalAveragePool;
  table["BatchNormalization"] = mapBatchNormalization;
  table["LayerNormalization"] = mapLayerNormalization;
  table["Softmax"] = mapSoftmax<SoftmaxOp>;
  table["LogSoftmax"] = mapSoftmax<LogSoftmaxOp>;
  table["Dropout"] = mapDropout;
}

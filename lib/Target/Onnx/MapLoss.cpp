//===- MapLoss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// ONNX's two classification losses as compositions of oneflow ops, as the
// spec's function bodies define them, so that they differentiate and lay
// out like any other ops:
//
// | ONNX                      | oneflow                                     |
// |---------------------------|---------------------------------------------|
// | NegativeLogLikelihoodLoss | equal(target, classes) picks x[n, t, d...]  |
// |                           | (where, reduce_sum over C, neg); weight by  |
// |                           | gather(weight, target), ignore_index masks; |
// |                           | reduction none, sum, mean (weighted mean)   |
// | SoftmaxCrossEntropyLoss   | log_softmax over C, then the above; output  |
// |                           | 1 is the log-probabilities                  |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {
/// A loss node's options.
struct LossOptions {
  std::string reduction;
  std::optional<int64_t> ignoreIndex;
};
} // namespace

static FailureOr<LossOptions> readLossOptions(NodeContext &node) {
  LossOptions options;
  options.reduction = node.getString("reduction", "mean");
  if (options.reduction != "none" && options.reduction != "sum" &&
      options.reduction != "mean")
    return node.error() << "reduction '" << options.reduction
                        << "' is not none, sum or mean";
  if (node.attr("ignore_index"))
    options.ignoreIndex = node.getInt("ignore_index", 0);
  return options;
}

/// All axes of `value`.
static DenseI64ArrayAttr allAxes(NodeContext &node, Value value) {
  SmallVector<int64_t> axes;
  for (int64_t i = 0, e = NodeContext::typeOf(value).getRank(); i < e; ++i)
    axes.push_back(i);
  return node.b.getDenseI64ArrayAttr(axes);
}

/// An int64 constant of `shape` holding `values`.
static Value intConstant(NodeContext &node, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> values) {
  ConstTensor t;
  t.dtype = onnx::TensorProto::INT64;
  t.shape.assign(shape.begin(), shape.end());
  t.ints.assign(values.begin(), values.end());
  return node.constant(t);
}

/// The negative log-likelihood of log-probabilities `x` ([N, C, d...])
/// against `target` ([N, d...]), weighted by `weight` ([C], may be null),
/// positions whose target is the ignore index masked out, then reduced.
static FailureOr<Value> nllLoss(NodeContext &node, Value x, Value target,
                                Value weight, const LossOptions &options) {
  RankedTensorType xType = NodeContext::typeOf(x);
  RankedTensorType tType = NodeContext::typeOf(target);
  if (xType.getRank() < 2 || !isa<FloatType>(xType.getElementType()))
    return node.error() << "input must be a float tensor (N, C, d...), got "
                        << stripEncoding(xType);
  SmallVector<int64_t> expected = {xType.getDimSize(0)};
  llvm::append_range(expected, xType.getShape().drop_front(2));
  if (tType.getShape() != ArrayRef<int64_t>(expected) ||
      !tType.getElementType().isInteger(64)) {
    InFlightDiagnostic diag = node.error()
                              << "target must be int64 of shape (N, d...) = (";
    llvm::interleaveComma(expected, diag);
    return diag << "), got " << stripEncoding(tType);
  }
  int64_t classes = xType.getDimSize(1);
  if (weight && stripEncoding(NodeContext::typeOf(weight)) !=
                    RankedTensorType::get({classes}, xType.getElementType()))
    return node.error() << "weight must be " << xType.getElementType()
                        << " of shape (" << classes << "), got "
                        << stripEncoding(NodeContext::typeOf(weight));
  Type f = xType.getElementType();
  OpBuilder &b = node.b;

  // picked[n, d...] = x[n, target[n, d...], d...]
  SmallVector<int64_t> spread = {xType.getDimSize(0), 1};
  llvm::append_range(spread, xType.getShape().drop_front(2));
  SmallVector<int64_t> classShape(xType.getRank(), 1), iota;
  classShape[1] = classes;
  for (int64_t c = 0; c < classes; ++c)
    iota.push_back(c);
  FailureOr<EqualOp> mask = node.create<EqualOp>(
      {node.reshape(target, spread), intConstant(node, classShape, iota)});
  if (failed(mask))
    return failure();
  Value zero = node.fill(RankedTensorType::get({}, f), 0.0);
  FailureOr<WhereOp> picked = node.create<WhereOp>({*mask, x, zero});
  if (failed(picked))
    return failure();
  FailureOr<ReduceSumOp> summed = node.create<ReduceSumOp>(
      picked->getResult(), {node.named("axes", b.getDenseI64ArrayAttr({1}))});
  if (failed(summed))
    return failure();
  FailureOr<NegOp> negated = node.create<NegOp>(summed->getResult());
  if (failed(negated))
    return failure();
  Value loss = negated->getResult();

  // Per-position weights: weight[target], 0 where target is ignored.
  Value perPosition;
  if (weight || options.ignoreIndex) {
    Value index = target, valid;
    if (options.ignoreIndex) {
      Value ignored = intConstant(node, {}, {*options.ignoreIndex});
      FailureOr<NotEqualOp> keep = node.create<NotEqualOp>({target, ignored});
      if (failed(keep))
        return failure();
      valid = keep->getResult();
      // An ignored target may lie outside the classes: gather class 0.
      FailureOr<WhereOp> safe =
          node.create<WhereOp>({valid, target, intConstant(node, {}, {0})});
      if (failed(safe))
        return failure();
      index = safe->getResult();
    }
    if (weight) {
      FailureOr<GatherOp> gathered = node.create<GatherOp>({weight, index});
      if (failed(gathered))
        return failure();
      perPosition = gathered->getResult();
    }
    if (valid) {
      Value mask = node.createTyped<CastOp>(
          RankedTensorType::get(tType.getShape(), f), valid);
      if (perPosition) {
        FailureOr<MulOp> both = node.create<MulOp>({perPosition, mask});
        if (failed(both))
          return failure();
        perPosition = both->getResult();
      } else {
        perPosition = mask;
      }
    }
    FailureOr<MulOp> weighted = node.create<MulOp>({loss, perPosition});
    if (failed(weighted))
      return failure();
    loss = weighted->getResult();
  }

  if (options.reduction == "none")
    return loss;
  FailureOr<ReduceSumOp> total =
      node.create<ReduceSumOp>(loss, {node.named("axes", allAxes(node, loss))});
  if (failed(total))
    return failure();
  if (options.reduction == "sum")
    return total->getResult();
  if (!perPosition) {
    FailureOr<ReduceMeanOp> mean = node.create<ReduceMeanOp>(
        loss, {node.named("axes", allAxes(node, loss))});
    if (failed(mean))
      return failure();
    return mean->getResult();
  }
  // The weighted mean: sum(w l) / sum(w).
  FailureOr<ReduceSumOp> weights = node.create<ReduceSumOp>(
      perPosition, {node.named("axes", allAxes(node, perPosition))});
  if (failed(weights))
    return failure();
  FailureOr<DivOp> mean =
      node.create<DivOp>({total->getResult(), weights->getResult()});
  if (failed(mean))
    return failure();
  return mean->getResult();
}

namespace {
/// A loss node's inputs and options.
struct LossNode {
  LossOptions options;
  Value input, target, weight;
};
} // namespace

static FailureOr<LossNode> readLossNode(NodeContext &node, unsigned outputs) {
  if (failed(node.checkArity(2, 3, outputs)))
    return failure();
  FailureOr<LossOptions> options = readLossOptions(node);
  FailureOr<Value> input = node.input(0), target = node.input(1);
  if (failed(options) || failed(input) || failed(target))
    return failure();
  LossNode loss{*options, *input, *target, Value()};
  if (node.hasInput(2)) {
    FailureOr<Value> weight = node.input(2);
    if (failed(weight))
      return failure();
    loss.weight = *weight;
  }
  return loss;
}

static LogicalResult mapNegativeLogLikelihoodLoss(NodeContext &node) {
  FailureOr<LossNode> in = readLossNode(node, 1);
  if (failed(in))
    return failure();
  FailureOr<Value> loss =
      nllLoss(node, in->input, in->target, in->weight, in->options);
  if (failed(loss))
    return failure();
  node.setOutput(0, *loss);
  return success();
}

static LogicalResult mapSoftmaxCrossEntropyLoss(NodeContext &node) {
  FailureOr<LossNode> in = readLossNode(node, 2);
  if (failed(in))
    return failure();
  RankedTensorType scores = NodeContext::typeOf(in->input);
  if (scores.getRank() < 2)
    return node.error() << "scores must be (N, C, d...), got "
                        << stripEncoding(scores);
  FailureOr<LogSoftmaxOp> logProb = node.create<LogSoftmaxOp>(
      in->input, {node.named("axis", node.b.getI64IntegerAttr(1))});
  if (failed(logProb))
    return failure();
  FailureOr<Value> loss =
      nllLoss(node, logProb->getResult(), in->target, in->weight, in->options);
  if (failed(loss))
    return failure();
  node.setOutput(0, *loss);
  if (node.hasOutput(1))
    node.setOutput(1, logProb->getResult());
  return success();
}

void mlir::oneflow::onnx_import::addLossLowerings(
    llvm::StringMap<Lowering> &table) {
  table["NegativeLogLikelihoodLoss"] = mapNegativeLogLikelihoodLoss;
  table["SoftmaxCrossEntropyLoss"] = mapSoftmaxCrossEntropyLoss;
}

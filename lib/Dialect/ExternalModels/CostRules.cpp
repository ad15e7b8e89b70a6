//===- CostRules.cpp - CostInterface of the oneflow ops -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every op of the dialect gets CostInterface as an external model: matrix
// products and convolutions count their multiply-adds; every other op is
// bound by memory and counts one operation per result element. Bytes are
// those of every operand and result; the workspace is what the op's CPU
// kernel keeps besides them. Unknown dimensions count as 1.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Elements of `type`, unknown dimensions counting as 1; 0 for non-tensors.
static double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  double n = 1;
  for (int64_t dim : tensor.getShape())
    n *= ShapedType::isDynamic(dim) ? 1 : dim;
  return n;
}

static double bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return elementsOf(type) *
         std::max<int64_t>(1, tensor.getElementTypeBitWidth() / 8);
}

/// The size of the contracted axis of a matrix product's `a` operand.
template <typename OpTy> static double contractionSize(OpTy op) {
  auto a = cast<RankedTensorType>(op.getA().getType());
  int64_t k = a.getDimSize(a.getRank() - (op.getTransposeA() ? 2 : 1));
  return ShapedType::isDynamic(k) ? 1 : k;
}

static double computeFlops(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<MatmulOp, BatchMatmulOp>([](auto product) {
        return 2 * elementsOf(product.getType()) * contractionSize(product);
      })
      .Case([](Conv2DOp conv) {
        // Each output element sums (C / groups) * KH * KW products.
        auto weight = cast<RankedTensorType>(conv.getWeight().getType());
        double window = elementsOf(weight) /
                        std::max<int64_t>(1, weight.getShape().front());
        return 2 * elementsOf(conv.getType()) * window;
      })
      .Case<RnnOp, RnnGradOp>([](auto rnn) {
        // Per step, direction and sample, the gates' products with the
        // input and the state: 2 G H (I + H). The gradient runs the forward
        // pass again, then the two products of the backward pass.
        double products = 2 * elementsOf(rnn.getW().getType()) +
                          2 * elementsOf(rnn.getR().getType());
        auto x = cast<RankedTensorType>(rnn.getX().getType());
        double steps = elementsOf(x) / std::max<int64_t>(1, x.getShape()[2]);
        double forward = steps * products;
        return isa<RnnGradOp>(rnn.getOperation()) ? 3 * forward : forward;
      })
      .Default([](Operation *other) {
        double n = 0;
        for (Type type : other->getResultTypes())
          n += elementsOf(type);
        return n;
      });
}

/// Whether the reduced axes of `x`, size-1 axes aside, are not all after
/// the kept ones: the CPU kernel transposes `x` into a buffer first.
static bool reducesOutOfOrder(RankedTensorType x, ArrayRef<int64_t> axes) {
  int64_t rank = x.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes)
    if (axis >= -rank && axis < rank)
      reduced[axis < 0 ? axis + rank : axis] = true;
  bool seenReduced = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (x.getDimSize(i) == 1)
      continue;
    if (!reduced[i] && seenReduced)
      return true;
    seenReduced |= reduced[i];
  }
  return false;
}

/// What the CPU kernels keep besides operands and results
/// (lib/Runtime/Kernels/Cpu): the blocked copies oneDNN's convolutions
/// reorder their operands into (counted in full: on processors with wide
/// vectors oneDNN picks blocked layouts), the forward result and
/// workspace a max-pool gradient recomputes, the broadcast copy of a
/// binary op's left operand where oneDNN cannot broadcast it, the
/// transposed copy of a reduction over leading axes, the probabilities of
/// the cross-entropy, and the recurrent layers' weights in oneDNN's layouts
/// (with the gradient's recomputed forward result, its gates and states in
/// oneDNN's workspace, and the weight gradients before their reorder).
static double workspaceBytes(Operation *op) {
  auto lhsExpanded = [](Operation *binary, bool swappable) {
    Type lhs = binary->getOperand(0).getType();
    Type rhs = binary->getOperand(1).getType();
    Type out = binary->getResult(0).getType();
    if (elementsOf(lhs) == elementsOf(out))
      return 0.0;
    return swappable && elementsOf(rhs) == elementsOf(out) ? 0.0 : bytesOf(out);
  };
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<Conv2DOp, Conv2DBnOp, Conv2DBackwardDataOp, Conv2DBackwardFilterOp>(
          [](Operation *conv) {
            double bytes = 0;
            for (Type type : llvm::concat<Type>(conv->getOperandTypes(),
                                                conv->getResultTypes()))
              bytes += bytesOf(type);
            return bytes;
          })
      .Case([](MaxPool2DGradOp grad) {
        // The forward result (f32) and oneDNN's index workspace (one byte
        // per result element for windows below 256 elements).
        return elementsOf(grad.getDy().getType()) * (4 + 1);
      })
      .Case([](AvgPool2DGradOp grad) {
        return grad.getCeilMode() && grad.getCountIncludePad()
                   ? bytesOf(grad.getDy().getType())
                   : 0.0;
      })
      .Case<AddOp, MulOp, MaximumOp, MinimumOp>(
          [&](Operation *binary) { return lhsExpanded(binary, true); })
      .Case<SubOp, DivOp, PowOp>(
          [&](Operation *binary) { return lhsExpanded(binary, false); })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceSumSquareOp>(
          [](auto reduce) {
            auto x = cast<RankedTensorType>(reduce.getX().getType());
            return reducesOutOfOrder(x, reduce.getAxes()) ? bytesOf(x) : 0.0;
          })
      .Case([](SparseSoftmaxCrossEntropyOp loss) {
        return bytesOf(loss->getOperand(0).getType());
      })
      .Case([](RnnOp rnn) {
        return bytesOf(rnn.getW().getType()) + bytesOf(rnn.getR().getType());
      })
      .Case([](RnnGradOp grad) {
        double weights =
            bytesOf(grad.getW().getType()) + bytesOf(grad.getR().getType());
        // Each step's gates and states (two with LSTM's cell), as many
        // values per gate as dy has.
        int64_t gates =
            cast<RankedTensorType>(grad.getW().getType()).getDimSize(1);
        double perStep = std::max<int64_t>(1, gates) + (grad.getC0() ? 2 : 1);
        return 3 * weights + (1 + perStep) * bytesOf(grad.getDy().getType());
      })
      .Default([](Operation *) { return 0.0; });
}

namespace {
/// The cost rule every op of the dialect gets.
template <typename OpTy>
struct OpCostModel
    : public CostInterface::ExternalModel<OpCostModel<OpTy>, OpTy> {
  double getComputeFlops(Operation *op) const { return computeFlops(op); }
  double getMemoryBytes(Operation *op) const {
    double bytes = 0;
    for (Type type : op->getOperandTypes())
      bytes += bytesOf(type);
    for (Type type : op->getResultTypes())
      bytes += bytesOf(type);
    return bytes;
  }
  double getWorkspaceBytes(Operation *op) const { return workspaceBytes(op); }
};
} // namespace

template <typename... OpTys>
static void attachCostModels(MLIRContext &context) {
  (OpTys::template attachInterface<OpCostModel<OpTys>>(context), ...);
}

void mlir::oneflow::attachCostInterfaceModels(MLIRContext &context) {
  attachCostModels<
#define GET_OP_LIST
#include "OneFlowDialect/IR/OneFlowOps.cpp.inc"
      >(context);
}

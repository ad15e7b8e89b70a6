//===- InferShapes.cpp - Refine dynamic result dimensions -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#define DEBUG_TYPE "oneflow-infer-shapes"

namespace mlir::oneflow {
#define GEN_PASS_DEF_INFERSHAPESPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// `declared` with each dynamic dimension taken from `inferred`; the
/// encoding of `declared` is kept.
static RankedTensorType refine(RankedTensorType declared,
                               ArrayRef<int64_t> inferred) {
  SmallVector<int64_t> shape(declared.getShape());
  for (auto [dim, known] : llvm::zip(shape, inferred))
    if (ShapedType::isDynamic(dim))
      dim = known;
  return RankedTensorType::get(shape, declared.getElementType(),
                               declared.getEncoding());
}

/// The shape a reshape produces: a single unknown dimension takes whatever
/// the element count leaves.
static FailureOr<SmallVector<int64_t>> inferReshape(ReshapeOp op) {
  auto in = cast<RankedTensorType>(op.getX().getType());
  auto out = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(out.getShape());
  if (!in.hasStaticShape() || out.getNumDynamicDims() != 1)
    return shape;
  int64_t known = 1;
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim))
      known *= dim;
  if (known == 0 || in.getNumElements() % known != 0)
    return op.emitOpError() << "cannot reshape " << in.getNumElements()
                            << " elements into " << out;
  for (int64_t &dim : shape)
    if (ShapedType::isDynamic(dim))
      dim = in.getNumElements() / known;
  return shape;
}

/// Refines the results of `op`; fails if the op's shape rule does.
static LogicalResult refineResults(Operation *op) {
  SmallVector<SmallVector<int64_t>> shapes;
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    FailureOr<SmallVector<int64_t>> shape = inferReshape(reshape);
    if (failed(shape))
      return failure();
    shapes.push_back(*shape);
  } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> inferred;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return failure();
    for (Type type : inferred)
      shapes.emplace_back(cast<RankedTensorType>(type).getShape());
  } else {
    return success();
  }
  for (auto [result, shape] : llvm::zip(op->getResults(), shapes)) {
    auto declared = dyn_cast<RankedTensorType>(result.getType());
    if (declared && !declared.hasStaticShape())
      result.setType(refine(declared, shape));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct InferShapesPass
    : public mlir::oneflow::impl::InferShapesPassBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp funcOp = getOperation();
    WalkResult walk = funcOp.walk([](Operation *op) {
      return failed(refineResults(op)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // The function's results follow what it returns.
    if (funcOp.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(funcOp.getBody().back().getTerminator());
    funcOp.setType(FunctionType::get(
        funcOp.getContext(), funcOp.getArgumentTypes(), ret.getOperandTypes()));
  }
};
} // namespace

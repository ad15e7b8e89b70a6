//===- Loss.cpp - A training loss on an imported model --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// An exported model ends at its logits; training needs a scalar loss. With
// `loss = "cross_entropy"` the importer adds an int64 labels input, the
// mean sparse softmax cross-entropy of the model's one output against it,
// and an output "loss" that `of-run --train` differentiates.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::oneflow;

LogicalResult
mlir::oneflow::onnx_import::attachLoss(ModuleOp module,
                                       const OnnxImportOptions &options) {
  if (options.loss.empty())
    return success();
  Location loc = module.getLoc();
  if (options.loss != "cross_entropy")
    return emitError(loc) << "unknown loss '" << options.loss
                          << "' (the importer attaches cross_entropy)";
  auto func = module.lookupSymbol<func::FuncOp>("main");
  llvm::SmallVector<OutputOp> outputs(func.getOps<OutputOp>());
  if (outputs.size() != 1)
    return emitError(loc) << "the cross_entropy loss needs a model with one "
                             "output (the logits); this one has "
                          << outputs.size();
  OutputOp logitsOutput = outputs.front();
  Value logits = logitsOutput.getValue();
  auto type = cast<RankedTensorType>(logits.getType());
  if (type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "the cross_entropy loss needs logits of rank 2 "
                             "or more (..., classes), not "
                          << RankedTensorType::get(type.getShape(),
                                                   type.getElementType());
  for (InputOp input : func.getOps<InputOp>())
    if (input.getName() == options.labels)
      return emitError(loc) << "the model has an input '" << options.labels
                            << "' already; name the labels otherwise";
  OpBuilder b(logitsOutput);
  Location lossLoc = NameLoc::get(b.getStringAttr("loss"), loc);
  auto labelsType =
      RankedTensorType::get(type.getShape().drop_back(), b.getI64Type());
  Value labels = InputOp::create(b, lossLoc, labelsType, options.labels);
  auto ce = SparseSoftmaxCrossEntropyOp::create(b, lossLoc, logits, labels);
  llvm::SmallVector<int64_t> axes;
  for (int64_t i = 0; i < labelsType.getRank(); ++i)
    axes.push_back(i);
  Value loss = ReduceMeanOp::create(b, lossLoc, ce.getLoss(),
                                    b.getDenseI64ArrayAttr(axes), UnitAttr());
  OutputOp::create(b, lossLoc, "loss", loss);
  return success();
}

//===- TensorParallel.cpp - Megatron-style layouts from the graph ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The `tp` axis of oneflow-apply-strategy. Walks the function in program
// order and tracks which values still depend on the result of a
// column-parallel matmul (split on its output features) that no
// row-parallel matmul has consumed yet:
//
//   x -> matmul(W1: S(1)) -> +b1 (S(0)) -> relu -> matmul(W2: S(0)) -> +b2 (B)
//        column-parallel       "open"              row-parallel: closes it,
//                                                  one all-reduce after it
//
// so that in a GPT block the qkv and fc1 projections are column-parallel
// and the attention output and fc2 projections row-parallel. A weight is
// decided at its first use as a matmul's `b`; backward ops (which follow
// the forward ones) only reuse what was decided.
//
//===----------------------------------------------------------------------===//

#include "Strategy.h"

#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Whether splitting `variable` on `axis` over `size` ranks gives every
/// rank a non-empty piece.
static bool splits(VariableOp variable, int64_t axis, int64_t size) {
  auto type = cast<RankedTensorType>(variable.getType());
  if (axis >= type.getRank())
    return false;
  MLIRContext *context = variable.getContext();
  auto ndSbp = NdSbpAttr::get(context, {SbpAttr::getSplit(context, axis)});
  return fitsShape(RankedTensorType::get(type.getShape(),
                                         type.getElementType()),
                   ndSbp, {size});
}

/// The 1-D variable added to `result` (a bias), possibly after casts of
/// either, if any.
static VariableOp findBias(Value result) {
  for (Operation *user : result.getUsers()) {
    if (auto cast = dyn_cast<CastOp>(user))
      if (VariableOp bias = findBias(cast.getResult()))
        return bias;
    auto add = dyn_cast<AddOp>(user);
    if (!add)
      continue;
    Value other = add.getLhs() == result ? add.getRhs() : add.getLhs();
    VariableOp variable = getCastVariable(other);
    if (variable && cast<RankedTensorType>(variable.getType()).getRank() == 1)
      return variable;
  }
  return nullptr;
}

DenseMap<Operation *, SbpAttr>
mlir::oneflow::deriveTensorParallel(func::FuncOp func, int64_t size) {
  MLIRContext *context = func.getContext();
  DenseMap<Operation *, SbpAttr> layouts;
  // Weights decided so far: true when column-parallel.
  DenseMap<Operation *, bool> columnParallel;
  DenseSet<Operation *> decided;
  // Values that depend on an open column-parallel result.
  DenseSet<Value> open;

  auto assign = [&](VariableOp variable, int64_t axis) {
    if (variable && !decided.contains(variable) &&
        splits(variable, axis, size))
      layouts[variable] = SbpAttr::getSplit(context, axis);
    if (variable)
      decided.insert(variable);
  };

  func.walk([&](Operation *op) {
    if (auto gather = dyn_cast<GatherOp>(op)) {
      if (gather.getAxis() == 0)
        assign(getCastVariable(gather.getX()), 0);
    }
    auto matmul = dyn_cast<MatmulOp>(op);
    VariableOp weight = matmul ? getCastVariable(matmul.getB()) : nullptr;
    if (!weight) {
      // Any other op: its results are open when an operand is.
      bool anyOpen = llvm::any_of(op->getOperands(),
                                  [&](Value v) { return open.contains(v); });
      if (anyOpen)
        open.insert(op->result_begin(), op->result_end());
      return;
    }
    if (!columnParallel.count(weight)) {
      bool column = !open.contains(matmul.getA());
      columnParallel[weight] = column;
      // Weight (k, n), or (n, k) with transpose_b: column-parallel splits
      // n, row-parallel k.
      bool transposed = matmul.getTransposeB();
      int64_t axis = column != transposed ? 1 : 0;
      assign(weight, axis);
      if (VariableOp bias = findBias(matmul.getResult())) {
        if (column && layouts.count(weight))
          assign(bias, 0);
        decided.insert(bias);
      }
    }
    if (columnParallel[weight] && layouts.count(weight))
      open.insert(matmul.getResult());
  });
  return layouts;
}

//===- MixedPrecision.cpp - oneflow-mixed-precision -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Automatic mixed precision on a forward program: the allow list's ops run
// in bf16 (or f16), gray and clear ops join them where every reader does,
// the rest keeps f32, and casts go on the edges between. The lists follow
// OneFlow's AutoMixedPrecision and PyTorch's autocast.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "oneflow-mixed-precision"

namespace mlir::oneflow {
#define GEN_PASS_DEF_MIXEDPRECISIONPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

namespace {
enum class OpList { Allow, Gray, Clear, Deny };

// Ops whose kernels compute in the low precision with f32 accumulation.
constexpr const char *kAllow[] = {"matmul", "batch_matmul", "conv2d"};
// Element-wise arithmetic and activations: fine in bf16 between allow ops.
constexpr const char *kGray[] = {
    "add",          "sub",         "mul",        "scalar_add", "scalar_mul",
    "scalar_div",   "masked_fill", "where",      "relu",       "gelu",
    "tanh",         "sigmoid",     "leaky_relu", "elu",        "selu",
    "hard_sigmoid", "dropout",     "maximum",    "minimum",    "neg"};
// Ops that only move elements.
constexpr const char *kClear[] = {"reshape", "flatten", "transpose",
                                  "slice",   "concat",  "gather"};

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

struct MixedPrecisionPass
    : public mlir::oneflow::impl::MixedPrecisionPassBase<MixedPrecisionPass> {
  using MixedPrecisionPassBase::MixedPrecisionPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (dtype != "bf16" && dtype != "f16") {
      func.emitError() << "oneflow-mixed-precision: dtype '" << dtype
                       << "' is not bf16 or f16";
      return signalPassFailure();
    }
    Builder b(func.getContext());
    lowType = dtype == "bf16" ? Type(b.getBF16Type()) : Type(b.getF16Type());
    buildLists();
    if (func.getBody().empty())
      return;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    chooseLowOps(ops);
    rewrite(ops);
  }

private:
  void buildLists() {
    auto add = [&](OpList list, StringRef name) {
      lists[name.contains('.') ? name.str() : ("oneflow." + name).str()] = list;
    };
    for (const char *name : kAllow)
      add(OpList::Allow, name);
    for (const char *name : kGray)
      add(OpList::Gray, name);
    for (const char *name : kClear)
      add(OpList::Clear, name);
    for (const std::string &name : allow)
      add(OpList::Allow, name);
    for (const std::string &name : gray)
      add(OpList::Gray, name);
    for (const std::string &name : deny)
      add(OpList::Deny, name);
  }

  OpList listOf(Operation *op) const {
    auto it = lists.find(op->getName().getStringRef());
    return it == lists.end() ? OpList::Deny : it->second;
  }

  /// An op may run in the low precision when its float operands and
  /// results are all f32 (so no f64 op, no region, at least one result).
  static bool eligible(Operation *op) {
    if (op->getNumRegions() != 0 || op->getNumResults() == 0)
      return false;
    bool anyF32 = false;
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !isa<FloatType>(tensor.getElementType()))
        continue;
      if (!tensor.getElementType().isF32())
        return false;
      anyF32 = true;
    }
    return anyF32;
  }

  void chooseLowOps(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      if (listOf(op) == OpList::Allow && eligible(op))
        low.insert(op);
    // Up from the allow ops: a gray or clear op whose f32 results are read
    // only by low ops (readers come later in the block, so are decided).
    for (Operation *op : llvm::reverse(ops)) {
      OpList list = listOf(op);
      if ((list != OpList::Gray && list != OpList::Clear) || !eligible(op))
        continue;
      bool read = false, allLow = true;
      for (Value result : op->getResults())
        if (isF32Tensor(result.getType()))
          for (Operation *user : result.getUsers()) {
            read = true;
            allLow &= low.contains(user);
          }
      if (read && allLow)
        low.insert(op);
    }
    // Down through clear ops: all of their float operands are low.
    for (Operation *op : ops) {
      if (listOf(op) != OpList::Clear || low.contains(op) || !eligible(op))
        continue;
      bool any = false, allLow = true;
      for (Value operand : op->getOperands())
        if (isF32Tensor(operand.getType())) {
          any = true;
          allLow &= low.contains(operand.getDefiningOp());
        }
      if (any && allLow)
        low.insert(op);
    }
  }

  /// `value` cast to `type`'s element type, one cast per value and type,
  /// placed right before `user` (its first reader of that kind).
  Value castOf(Value value, Type element, Operation *user) {
    Value &cast = casts[{value, element}];
    if (!cast) {
      OpBuilder builder(user);
      auto type = cast_or_null<RankedTensorType>(value.getType());
      cast =
          CastOp::create(builder, user->getLoc(), type.clone(element), value);
    }
    return cast;
  }

  void rewrite(ArrayRef<Operation *> ops) {
    Type f32 = Float32Type::get(lowType.getContext());
    for (Operation *op : ops) {
      if (low.contains(op)) {
        for (OpOperand &use : op->getOpOperands())
          if (isF32Tensor(use.get().getType()))
            use.set(castOf(use.get(), lowType, op));
        for (Value result : op->getResults())
          if (isF32Tensor(result.getType())) {
            result.setType(
                cast<RankedTensorType>(result.getType()).clone(lowType));
            lowered.insert(result);
          }
        continue;
      }
      for (OpOperand &use : op->getOpOperands())
        if (lowered.contains(use.get()))
          use.set(castOf(use.get(), f32, op));
    }
  }

  Type lowType;
  llvm::StringMap<OpList> lists;
  llvm::DenseSet<Operation *> low;
  llvm::DenseSet<Value> lowered;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
};
} // namespace

//===- Variants.cpp - Multi-rank variants of a program --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofcheck/Variants.h"

#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::oneflow;

std::string ofcheck::NdSignature::str() const {
  auto join = [](ArrayRef<NdSbpAttr> list) {
    std::string s;
    for (auto [i, ndSbp] : llvm::enumerate(list)) {
      s += i ? ", " : "";
      s += "[";
      for (auto [j, sbp] : llvm::enumerate(ndSbp.getSbps()))
        s += (j ? ", " : "") + stringifySbp(sbp);
      s += "]";
    }
    return s;
  };
  return join(operands) + " -> " + join(results);
}

bool ofcheck::fits(ArrayRef<int64_t> shape, GlobalAttr global) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  ofsupport::TensorLayout layout = toSupportLayout(global);
  if (ofsupport::validateLayout(dims, layout))
    return false;
  for (int64_t id = 0; id < global.getPlacement().getNumRanks(); ++id)
    for (int64_t size : ofsupport::localShape(dims, layout, id))
      if (size == 0)
        return false;
  return true;
}

static ArrayRef<int64_t> shapeOf(Type type) {
  return cast<RankedTensorType>(type).getShape();
}

SmallVector<ofcheck::NdSignature>
ofcheck::getNdSignatures(Operation *op, PlacementAttr placement) {
  auto sbpOp = dyn_cast<SbpInterface>(op);
  if (!sbpOp)
    return {};
  // Propagation's candidates, those that fit the shapes.
  SmallVector<NdSignature> result;
  for (NdSbpSignature &candidate :
       getNdSbpCandidates(sbpOp, placement.getMesh()))
    if (fitsShapes(op, candidate, placement.getMesh()))
      result.push_back(
          {std::move(candidate.operands), std::move(candidate.results)});
  return result;
}

static Type withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               encoding);
}

/// Every oneflow op of every function of `module`, in walk order.
static SmallVector<Operation *> oneflowOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<OneFlowDialect>(op->getDialect()))
      ops.push_back(op);
  });
  return ops;
}

void ofcheck::stripLayouts(ModuleOp module) {
  for (Operation *op : oneflowOps(module)) {
    op->removeAttr(mlir::oneflow::kOperandLayoutsAttrName);
    for (OpResult result : op->getResults())
      result.setType(withEncoding(result.getType(), nullptr));
  }
}

void ofcheck::pinSignature(ModuleOp module, PlacementAttr placement,
                           Operation *target, const NdSignature &signature) {
  MLIRContext *ctx = module.getContext();
  NdSbpAttr allBroadcast = NdSbpAttr::get(
      ctx, SmallVector<SbpAttr>(placement.getMeshRank(),
                                SbpAttr::getBroadcast(ctx)));
  GlobalAttr broadcast = GlobalAttr::get(ctx, placement, allBroadcast);
  for (Operation *op : oneflowOps(module)) {
    bool pinned = op == target;
    for (OpResult result : op->getResults())
      result.setType(withEncoding(
          result.getType(),
          pinned ? GlobalAttr::get(ctx, placement,
                                   signature.results[result.getResultNumber()])
                 : broadcast));
    SmallVector<Attribute> layouts;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      layouts.push_back(pinned ? GlobalAttr::get(ctx, placement,
                                                 signature.operands[i])
                               : broadcast);
    if (!layouts.empty())
      mlir::oneflow::operandLayoutsAttr(ctx).setAttr(
          op, ArrayAttr::get(ctx, layouts));
  }
}

bool ofcheck::hasMaxOrMin(GlobalAttr global) {
  return !hasOnlyPartialSums(global);
}

SmallVector<GlobalAttr> ofcheck::enumerateLayouts(PlacementAttr placement,
                                                  ArrayRef<int64_t> shape,
                                                  bool reductions) {
  MLIRContext *ctx = placement.getContext();
  SmallVector<SbpAttr> choices;
  for (int64_t axis = 0; axis < static_cast<int64_t>(shape.size()); ++axis)
    choices.push_back(SbpAttr::getSplit(ctx, axis));
  choices.push_back(SbpAttr::getBroadcast(ctx));
  choices.push_back(SbpAttr::getPartial(ctx));
  if (reductions) {
    choices.push_back(SbpAttr::getPartial(ctx, PartialReduction::max));
    choices.push_back(SbpAttr::getPartial(ctx, PartialReduction::min));
  }
  SmallVector<GlobalAttr> layouts;
  SmallVector<size_t> index(placement.getMeshRank(), 0);
  while (true) {
    SmallVector<SbpAttr> sbps;
    for (size_t i : index)
      sbps.push_back(choices[i]);
    GlobalAttr global;
    if (!mixesPartialReductions(sbps))
      global = GlobalAttr::get(ctx, placement, NdSbpAttr::get(ctx, sbps));
    if (global && fits(shape, global))
      layouts.push_back(global);
    size_t axis = index.size();
    while (axis > 0 && ++index[axis - 1] == choices.size())
      index[--axis] = 0;
    if (axis == 0)
      break;
  }
  return layouts;
}

/// For each variable an op writes in place (an optimizer's parameter and its
/// states), the first variable that op writes: the update needs all of
/// them in one layout.
static DenseMap<Operation *, Operation *> getUpdateGroups(ModuleOp module) {
  DenseMap<Operation *, Operation *> leader;
  for (Operation *op : oneflowOps(module)) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      continue;
    Operation *first = nullptr;
    for (Value operand : op->getOperands()) {
      Operation *variable = operand.getDefiningOp<VariableOp>();
      if (!variable ||
          !effects.getEffectOnValue<MemoryEffects::Write>(operand))
        continue;
      if (!first)
        first = leader.lookup(variable) ? leader.lookup(variable) : variable;
      leader.try_emplace(variable, first);
    }
  }
  return leader;
}

std::string ofcheck::randomizeSourceLayouts(ModuleOp module,
                                            PlacementAttr placement,
                                            std::mt19937_64 &rng) {
  DenseMap<Operation *, Operation *> groups = getUpdateGroups(module);
  DenseMap<Operation *, GlobalAttr> groupLayouts;
  std::string chosen;
  for (Operation *op : oneflowOps(module)) {
    if (!isa<InputOp, VariableOp>(op))
      continue;
    Value result = op->getResult(0);
    SmallVector<GlobalAttr> layouts =
        enumerateLayouts(placement, shapeOf(result.getType()));
    GlobalAttr global;
    if (Operation *group = groups.lookup(op)) {
      // A variable an optimizer updates is never partial (the update is not
      // linear in it), and shares its parameter's layout.
      GlobalAttr &shared = groupLayouts[group];
      if (!shared) {
        llvm::erase_if(layouts, hasPartial);
        shared = layouts[rng() % layouts.size()];
      }
      global = shared;
    } else {
      global = layouts[rng() % layouts.size()];
    }
    result.setType(withEncoding(result.getType(), global));
    std::string name = op->getAttrOfType<StringAttr>("name").str();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << name << ": " << global.getNdSbp();
    chosen += (chosen.empty() ? "" : "; ") + text;
  }
  return chosen;
}

SmallVector<Operation *> ofcheck::getCheckedOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  for (Operation *op : oneflowOps(module))
    if (isa<SbpInterface>(op) &&
        !isa<InputOp, OutputOp, VariableOp, ConstantOp, FillOp>(op))
      ops.push_back(op);
  return ops;
}

OwningOpRef<ModuleOp> ofcheck::buildBoxingProgram(MLIRContext *context,
                                                  RankedTensorType type,
                                                  GlobalAttr from,
                                                  GlobalAttr to) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, "boxing", b.getFunctionType({}, {}));
  b.setInsertionPointToEnd(func.addEntryBlock());
  Value x = InputOp::create(b, loc, withEncoding(type, from), "x");
  if (to && hasMaxOrMin(to)) {
    x = BoxingOp::create(b, loc, withEncoding(type, to), x);
    SmallVector<SbpAttr> whole;
    for (SbpAttr sbp : to.getNdSbp())
      whole.push_back(sbp.isPartial() ? SbpAttr::getBroadcast(context) : sbp);
    to = GlobalAttr::get(context, to.getPlacement(),
                         NdSbpAttr::get(context, whole));
  }
  auto output = OutputOp::create(b, loc, "y", x);
  mlir::oneflow::operandLayoutsAttr(b.getContext())
      .setAttr(output, b.getArrayAttr({to}));
  func::ReturnOp::create(b, loc);
  return module;
}

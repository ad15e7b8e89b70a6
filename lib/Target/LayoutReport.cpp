//===- LayoutReport.cpp - Per-rank pieces of global tensors ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/LayoutReport.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::oneflow;

/// The location of `value` as `file:line:col` (or its printed form).
static std::string locationString(Value value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  Location loc = value.getLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return s;
}

static llvm::json::Object describe(Value value, GlobalAttr global,
                                   AsmState &state) {
  auto type = cast<RankedTensorType>(value.getType());
  std::string name, placement, ndSbp;
  {
    llvm::raw_string_ostream os(name);
    value.printAsOperand(os, state);
  }
  {
    llvm::raw_string_ostream os(ndSbp);
    for (auto [i, sbp] : llvm::enumerate(global.getNdSbp()))
      os << (i ? ", " : "") << toSupportSbp(sbp).str();
  }
  PlacementAttr place = global.getPlacement();
  llvm::json::Array ranks;
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  ofsupport::TensorLayout layout = toSupportLayout(global);
  for (auto [parallelId, rank] : llvm::enumerate(place.getRanks())) {
    llvm::json::Array offsets, sizes;
    for (const ofsupport::Range &range :
         ofsupport::localSlice(shape, layout, parallelId)) {
      offsets.push_back(range.begin);
      sizes.push_back(range.size);
    }
    ranks.push_back(llvm::json::Object{
        {"rank", rank},
        {"coordinate",
         llvm::json::Array(ofsupport::meshCoordinate(layout.mesh, parallelId))},
        {"offsets", std::move(offsets)},
        {"shape", std::move(sizes)}});
  }
  llvm::json::Object object{
      {"value", name},
      {"op", value.getDefiningOp()
                 ? value.getDefiningOp()->getName().getStringRef().str()
                 : std::string("block argument")},
      {"location", locationString(value)},
      {"shape", llvm::json::Array(type.getShape())},
      {"device", stringifyDeviceKind(place.getDevice()).str()},
      {"mesh", llvm::json::Array(place.getMesh())},
      {"nd_sbp", "[" + ndSbp + "]"},
      {"ranks", std::move(ranks)}};
  // Inputs, variables and outputs carry the user's name for the tensor.
  if (Operation *def = value.getDefiningOp())
    if (auto userName = def->getAttrOfType<StringAttr>("name"))
      object["name"] = userName.getValue().str();
  return object;
}

LogicalResult mlir::oneflow::writeLayoutReport(Operation *root,
                                               llvm::raw_ostream &os) {
  AsmState state(root);
  llvm::json::Array tensors;
  bool ok = true;
  auto visit = [&](Value value) {
    GlobalAttr global = getGlobalEncoding(value.getType());
    if (!global)
      return;
    if (!cast<RankedTensorType>(value.getType()).hasStaticShape()) {
      emitError(value.getLoc())
          << "cannot report the layout of a tensor with unknown dimensions; "
             "run oneflow-infer-shapes first";
      ok = false;
      return;
    }
    tensors.push_back(describe(value, global, state));
  };
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          visit(arg);
    for (Value result : op->getResults())
      visit(result);
  });
  if (!ok)
    return failure();
  os << llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                                 {"tensors", std::move(tensors)}}))
     << "\n";
  return success();
}

void mlir::oneflow::registerLayoutReportTranslation() {
  TranslateFromMLIRRegistration registration(
      "export-layouts-json",
      "write, as JSON, which piece of every global tensor each rank holds",
      [](Operation *op, raw_ostream &os) { return writeLayoutReport(op, os); },
      [](DialectRegistry &registry) {
        registry.insert<OneFlowDialect, func::FuncDialect>();
      });
}

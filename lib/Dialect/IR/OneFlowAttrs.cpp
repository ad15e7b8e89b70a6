//===- OneFlowAttrs.cpp - SBP, placement and encodings --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;

#include "OneFlowDialect/IR/OneFlowEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "OneFlowDialect/IR/OneFlowAttrs.cpp.inc"

// Defined here, in OneFlowAttributes, where the storage classes are
// complete; OneFlowDialect::initialize (OneFlowIR) calls it.
void OneFlowDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "OneFlowDialect/IR/OneFlowAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// Parses `[i, j, ...]` into `values`.
static ParseResult parseIntList(AsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                        [&]() -> ParseResult {
                                          int64_t value;
                                          if (parser.parseInteger(value))
                                            return failure();
                                          values.push_back(value);
                                          return success();
                                        });
}

static void printIntList(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

GlobalAttr mlir::oneflow::getGlobalEncoding(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return dyn_cast_or_null<GlobalAttr>(tensor.getEncoding());
  return {};
}

int64_t mlir::oneflow::getMicroBatches(Operation *func) {
  if (auto count = func->getAttrOfType<IntegerAttr>(kMicroBatchesAttrName))
    return count.getInt();
  return 1;
}

int64_t mlir::oneflow::getStages(Operation *func) {
  if (auto count = func->getAttrOfType<IntegerAttr>(kStagesAttrName))
    return count.getInt();
  return 1;
}

std::optional<int64_t> mlir::oneflow::getStage(Operation *op) {
  if (auto stage = op->getAttrOfType<IntegerAttr>(kStageAttrName))
    return stage.getInt();
  return std::nullopt;
}

ofsupport::Sbp mlir::oneflow::toSupportSbp(SbpAttr sbp) {
  switch (sbp.getKind()) {
  case SbpKind::split:
    return ofsupport::Sbp::split(sbp.getAxis());
  case SbpKind::broadcast:
    return ofsupport::Sbp::broadcast();
  case SbpKind::partial:
    return ofsupport::Sbp::partial(toSupportReduction(sbp.getReduction()));
  }
  llvm_unreachable("unknown SBP kind");
}

ofsupport::Reduction mlir::oneflow::toSupportReduction(PartialReduction r) {
  switch (r) {
  case PartialReduction::sum:
    return ofsupport::Reduction::Sum;
  case PartialReduction::max:
    return ofsupport::Reduction::Max;
  case PartialReduction::min:
    return ofsupport::Reduction::Min;
  }
  llvm_unreachable("unknown partial reduction");
}

PartialReduction mlir::oneflow::fromSupportReduction(ofsupport::Reduction r) {
  switch (r) {
  case ofsupport::Reduction::Sum:
    return PartialReduction::sum;
  case ofsupport::Reduction::Max:
    return PartialReduction::max;
  case ofsupport::Reduction::Min:
    return PartialReduction::min;
  }
  llvm_unreachable("unknown partial reduction");
}

ofsupport::TensorLayout mlir::oneflow::toSupportLayout(GlobalAttr global) {
  ofsupport::TensorLayout layout;
  llvm::append_range(layout.mesh, global.getPlacement().getMesh());
  for (SbpAttr sbp : global.getNdSbp())
    layout.ndSbp.push_back(toSupportSbp(sbp));
  return layout;
}

//===----------------------------------------------------------------------===//
// SbpAttr
//===----------------------------------------------------------------------===//

LogicalResult SbpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              SbpKind kind, int64_t axis,
                              PartialReduction reduction) {
  if (kind == SbpKind::split && axis < 0)
    return emitError() << "split axis must be non-negative, got " << axis;
  if (kind != SbpKind::split && axis != 0)
    return emitError() << "only a split SBP has an axis";
  if (kind != SbpKind::partial && reduction != PartialReduction::sum)
    return emitError() << "only a partial SBP has a reduction";
  return success();
}

SbpAttr SbpAttr::parseBody(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  auto emitError = [&]() { return parser.emitError(loc); };
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return {};
  MLIRContext *ctx = parser.getContext();
  if (keyword == "B")
    return getBroadcast(ctx);
  if (keyword == "P") {
    if (failed(parser.parseOptionalLParen()))
      return getPartial(ctx);
    StringRef name;
    SMLoc nameLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&name))
      return {};
    std::optional<PartialReduction> reduction = symbolizePartialReduction(name);
    if (!reduction) {
      parser.emitError(nameLoc) << "expected a partial reduction (sum, max "
                                   "or min), got '"
                                << name << "'";
      return {};
    }
    if (parser.parseRParen())
      return {};
    return getPartial(ctx, *reduction);
  }
  if (keyword == "S") {
    int64_t axis;
    if (parser.parseLParen() || parser.parseInteger(axis) ||
        parser.parseRParen())
      return {};
    return getChecked(emitError, ctx, SbpKind::split, axis);
  }
  emitError() << "expected an SBP (S(axis), B, P or P(max|min)), got '"
              << keyword << "'";
  return {};
}

void SbpAttr::printBody(AsmPrinter &printer) const {
  switch (getKind()) {
  case SbpKind::split:
    printer << "S(" << getAxis() << ")";
    return;
  case SbpKind::broadcast:
    printer << "B";
    return;
  case SbpKind::partial:
    printer << "P";
    if (getReduction() != PartialReduction::sum)
      printer << "(" << stringifyPartialReduction(getReduction()) << ")";
    return;
  }
}

Attribute SbpAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SbpAttr sbp = parseBody(parser);
  if (!sbp || parser.parseGreater())
    return {};
  return sbp;
}

void SbpAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// NdSbpAttr
//===----------------------------------------------------------------------===//

LogicalResult NdSbpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<SbpAttr> sbps) {
  if (sbps.empty())
    return emitError() << "nd-SBP needs one SBP per mesh axis, got none";
  // Nested partials with different reductions would not commute (a max of
  // sums is not a sum of maxes), so one layout uses one reduction.
  if (mixesPartialReductions(sbps))
    return emitError() << "nd-SBP mixes partial reductions (P, P(max), "
                          "P(min)); the order of nested reductions would "
                          "matter";
  return success();
}

NdSbpAttr NdSbpAttr::parseList(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<SbpAttr> sbps;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       SbpAttr sbp = SbpAttr::parseBody(parser);
                                       if (!sbp)
                                         return failure();
                                       sbps.push_back(sbp);
                                       return success();
                                     }))
    return {};
  return getChecked([&]() { return parser.emitError(loc); },
                    parser.getContext(), sbps);
}

void NdSbpAttr::printList(AsmPrinter &printer) const {
  printer << '[';
  llvm::interleaveComma(getSbps(), printer,
                        [&](SbpAttr sbp) { sbp.printBody(printer); });
  printer << ']';
}

Attribute NdSbpAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  NdSbpAttr ndSbp = parseList(parser);
  if (!ndSbp || parser.parseGreater())
    return {};
  return ndSbp;
}

void NdSbpAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printList(printer);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// PlacementAttr
//===----------------------------------------------------------------------===//

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      DeviceKind device, ArrayRef<int64_t> ranks,
                      ArrayRef<int64_t> mesh) {
  if (ranks.empty())
    return emitError() << "placement has no ranks";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t rank : ranks) {
    if (rank < 0)
      return emitError() << "rank " << rank << " is negative";
    if (!seen.insert(rank).second)
      return emitError() << "rank " << rank << " appears twice in placement";
  }
  if (mesh.empty())
    return emitError() << "placement mesh has no axes";
  int64_t devices = 1;
  for (int64_t dim : mesh) {
    if (dim < 1)
      return emitError() << "mesh axis of size " << dim << " is not positive";
    devices *= dim;
  }
  if (devices != static_cast<int64_t>(ranks.size())) {
    auto diag = emitError() << "mesh [";
    llvm::interleaveComma(mesh, diag);
    return diag << "] holds " << devices << " devices but the placement has "
                << ranks.size() << " ranks";
  }
  return success();
}

Attribute PlacementAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef deviceName;
  SmallVector<int64_t> ranks, mesh;
  if (parser.parseLess() || parser.parseKeyword(&deviceName))
    return {};
  std::optional<DeviceKind> device = symbolizeDeviceKind(deviceName);
  if (!device) {
    parser.emitError(loc) << "unknown device kind '" << deviceName
                          << "', expected 'cpu' or 'cuda'";
    return {};
  }
  if (parser.parseComma() || parser.parseKeyword("ranks") ||
      parser.parseEqual() || parseIntList(parser, ranks))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("mesh") || parser.parseEqual() ||
        parseIntList(parser, mesh))
      return {};
  } else {
    mesh.push_back(ranks.size());
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&]() { return parser.emitError(loc); },
                    parser.getContext(), *device, ranks, mesh);
}

void PlacementAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyDeviceKind(getDevice()) << ", ranks = ";
  printIntList(printer, getRanks());
  // A one-axis mesh over all ranks is the default and is not printed.
  if (getMesh().size() != 1) {
    printer << ", mesh = ";
    printIntList(printer, getMesh());
  }
  printer << '>';
}

int64_t PlacementAttr::getParallelId(int64_t rank) const {
  auto it = llvm::find(getRanks(), rank);
  return it == getRanks().end() ? -1 : it - getRanks().begin();
}

//===----------------------------------------------------------------------===//
// GlobalAttr
//===----------------------------------------------------------------------===//

LogicalResult GlobalAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 PlacementAttr placement, NdSbpAttr ndSbp) {
  if (!placement || !ndSbp)
    return emitError() << "global encoding needs a placement and an nd-SBP";
  if (static_cast<int64_t>(ndSbp.size()) != placement.getMeshRank())
    return emitError() << "nd-SBP has " << ndSbp.size()
                       << " entries but the placement's mesh has "
                       << placement.getMeshRank() << " axes";
  return success();
}

LogicalResult
GlobalAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  for (auto [meshAxis, sbp] : llvm::enumerate(getNdSbp())) {
    if (sbp.isSplit() && sbp.getAxis() >= static_cast<int64_t>(shape.size()))
      return emitError() << "split axis " << sbp.getAxis()
                         << " is out of range for rank-" << shape.size()
                         << " tensor (mesh axis " << meshAxis << ")";
  }
  return success();
}

Attribute GlobalAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  PlacementAttr placement;
  if (parser.parseLess() || parser.parseAttribute(placement) ||
      parser.parseComma())
    return {};
  NdSbpAttr ndSbp = NdSbpAttr::parseList(parser);
  if (!ndSbp || parser.parseGreater())
    return {};
  return getChecked([&]() { return parser.emitError(loc); },
                    parser.getContext(), placement, ndSbp);
}

void GlobalAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttribute(getPlacement());
  printer << ", ";
  getNdSbp().printList(printer);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// InitializerAttr
//===----------------------------------------------------------------------===//

LogicalResult
InitializerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        InitKind kind, ArrayRef<APFloat> values) {
  SmallVector<double> args;
  for (const APFloat &value : values)
    args.push_back(value.convertToDouble());
  size_t expected = 0;
  StringRef what;
  switch (kind) {
  case InitKind::constant:
    expected = 1;
    what = "(value)";
    break;
  case InitKind::uniform:
    expected = 2;
    what = "(low, high)";
    break;
  case InitKind::normal:
    expected = 2;
    what = "(mean, std)";
    break;
  default:
    break;
  }
  if (args.size() != expected) {
    auto diag = emitError() << "initializer '" << stringifyInitKind(kind)
                            << "' takes " << expected << " arguments";
    if (!what.empty())
      diag << " " << what;
    return diag << ", got " << args.size();
  }
  if (kind == InitKind::uniform && args[0] > args[1])
    return emitError() << "uniform initializer has low "
                       << formatDouble(args[0]) << " above high "
                       << formatDouble(args[1]);
  if (kind == InitKind::normal && args[1] < 0)
    return emitError() << "normal initializer has negative std "
                       << formatDouble(args[1]);
  return success();
}

Attribute InitializerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<InitKind> kind = symbolizeInitKind(kindName);
  if (!kind) {
    parser.emitError(loc) << "unknown initializer '" << kindName << "'";
    return {};
  }
  SmallVector<APFloat> args;
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          double value;
          if (parser.parseFloat(value))
            return failure();
          args.push_back(APFloat(value));
          return success();
        }) ||
        parser.parseRParen())
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&]() { return parser.emitError(loc); },
                    parser.getContext(), *kind, args);
}

void InitializerAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyInitKind(getKind());
  if (!getArgs().empty()) {
    printer << '(';
    llvm::interleaveComma(getArgs(), printer, [&](const APFloat &value) {
      printer.printFloat(value);
    });
    printer << ')';
  }
  printer << '>';
}

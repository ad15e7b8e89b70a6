//===- SbpCandidates.cpp - nd-SBP signatures of an op on a mesh -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::oneflow;

int64_t NdSbpSignature::countPieces(ArrayRef<int64_t> mesh) const {
  int64_t pieces = 1;
  for (auto [axis, size] : llvm::enumerate(mesh)) {
    auto notBroadcast = [axis = axis](NdSbpAttr ndSbp) {
      return !ndSbp[axis].isBroadcast();
    };
    if (llvm::any_of(operands, notBroadcast) ||
        llvm::any_of(results, notBroadcast))
      pieces *= size;
  }
  return pieces;
}

static bool sameSignature(const SbpSignature &a, const SbpSignature &b) {
  return a.operands == b.operands && a.results == b.results;
}

SmallVector<NdSbpSignature>
mlir::oneflow::getNdSbpCandidates(SbpInterface op, ArrayRef<int64_t> mesh) {
  MLIRContext *context = op->getContext();
  SbpAttr broadcast = SbpAttr::getBroadcast(context);
  SbpSignature allBroadcast;
  allBroadcast.operands.assign(op->getNumOperands(), broadcast);
  allBroadcast.results.assign(op->getNumResults(), broadcast);

  // The 1-D lists, one per mesh axis.
  SmallVector<SmallVector<SbpSignature>> perAxis;
  for (int64_t size : mesh) {
    SmallVector<SbpSignature> list;
    op.getSbpSignatures(size, list);
    SmallVector<SbpSignature> unique;
    for (SbpSignature &signature : list)
      if (!llvm::any_of(unique, [&](const SbpSignature &seen) {
            return sameSignature(seen, signature);
          }) &&
          !sameSignature(signature, allBroadcast))
        unique.push_back(std::move(signature));
    unique.push_back(allBroadcast);
    perAxis.push_back(std::move(unique));
  }

  // The product, as an odometer whose last digit turns fastest.
  SmallVector<NdSbpSignature> candidates;
  SmallVector<size_t> digits(mesh.size(), 0);
  SmallVector<SbpAttr> sbps;
  while (true) {
    // Mesh axes partial with different reductions make no layout.
    NdSbpSignature candidate;
    bool valid = true;
    for (unsigned i = 0, e = op->getNumOperands(); valid && i < e; ++i) {
      sbps.clear();
      for (auto [axis, digit] : llvm::enumerate(digits))
        sbps.push_back(perAxis[axis][digit].operands[i]);
      valid = !mixesPartialReductions(sbps);
      if (valid)
        candidate.operands.push_back(NdSbpAttr::get(context, sbps));
    }
    for (unsigned i = 0, e = op->getNumResults(); valid && i < e; ++i) {
      sbps.clear();
      for (auto [axis, digit] : llvm::enumerate(digits))
        sbps.push_back(perAxis[axis][digit].results[i]);
      valid = !mixesPartialReductions(sbps);
      if (valid)
        candidate.results.push_back(NdSbpAttr::get(context, sbps));
    }
    if (valid)
      candidates.push_back(std::move(candidate));
    int64_t axis = static_cast<int64_t>(mesh.size()) - 1;
    for (; axis >= 0; --axis) {
      if (++digits[axis] < perAxis[axis].size())
        break;
      digits[axis] = 0;
    }
    if (axis < 0)
      break;
  }
  return candidates;
}

bool mlir::oneflow::fitsShape(RankedTensorType type, NdSbpAttr ndSbp,
                              ArrayRef<int64_t> mesh) {
  SmallVector<int64_t> lengths(type.getShape());
  for (auto [sbp, size] : llvm::zip(ndSbp, mesh)) {
    if (!sbp.isSplit())
      continue;
    int64_t axis = sbp.getAxis();
    if (axis >= type.getRank())
      return false;
    if (ShapedType::isDynamic(lengths[axis]))
      continue;
    // The smallest balanced part must hold an element.
    if (lengths[axis] < size)
      return false;
    lengths[axis] /= size;
  }
  return true;
}

SmallVector<unsigned> mlir::oneflow::getInPlaceOperands(Operation *op) {
  SmallVector<unsigned> operands;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return operands;
  for (OpOperand &operand : op->getOpOperands())
    if (effects.getEffectOnValue<MemoryEffects::Write>(operand.get()))
      operands.push_back(operand.getOperandNumber());
  return operands;
}

SmallVector<unsigned> mlir::oneflow::getLayoutKeepingOperands(Operation *op) {
  SmallVector<unsigned> operands = getInPlaceOperands(op);
  if (auto sbp = dyn_cast<SbpInterface>(op))
    for (unsigned i : sbp.getLayoutKeepingOperands())
      if (!llvm::is_contained(operands, i))
        operands.push_back(i);
  return operands;
}

bool mlir::oneflow::fitsShapes(Operation *op, const NdSbpSignature &candidate,
                               ArrayRef<int64_t> mesh) {
  for (auto [value, ndSbp] : llvm::zip(op->getOperands(), candidate.operands))
    if (!fitsShape(cast<RankedTensorType>(value.getType()), ndSbp, mesh))
      return false;
  for (auto [value, ndSbp] : llvm::zip(op->getResults(), candidate.results))
    if (!fitsShape(cast<RankedTensorType>(value.getType()), ndSbp, mesh))
      return false;
  return true;
}

FailureOr<PlacementAttr> mlir::oneflow::getOpPlacement(Operation *op,
                                                       PlacementAttr fallback,
                                                       std::string &error) {
  PlacementAttr placement;
  for (OpResult result : op->getResults()) {
    GlobalAttr stated = getGlobalEncoding(result.getType());
    if (!stated)
      continue;
    if (!placement) {
      placement = stated.getPlacement();
      continue;
    }
    if (stated.getPlacement() != placement) {
      llvm::raw_string_ostream os(error);
      os << "stated layouts of '" << op->getName() << "' clash: result 0 is on "
         << placement << " but result " << result.getResultNumber() << " on "
         << stated.getPlacement();
      return failure();
    }
  }
  if (!placement)
    placement = op->getAttrOfType<PlacementAttr>(kPlacementAttrName);
  return placement ? placement : fallback;
}

/// The results' nd-SBPs of `candidate`, as `[S(0), B]` or `([P], [B])`.
static std::string stringifyResults(ArrayRef<NdSbpAttr> results) {
  std::string text = llvm::join(llvm::map_range(results, stringifyNdSbp), ", ");
  return results.size() == 1 ? text : "(" + text + ")";
}

FailureOr<SmallVector<NdSbpSignature>>
mlir::oneflow::getLegalSignatures(SbpInterface op, PlacementAttr placement,
                                  ArrayRef<GlobalAttr> operandLayouts,
                                  std::string &error) {
  MLIRContext *context = op->getContext();
  ArrayRef<int64_t> mesh = placement.getMesh();
  llvm::raw_string_ostream os(error);
  SmallVector<NdSbpSignature> all = getNdSbpCandidates(op, mesh);

  // The layouts the results state.
  SmallVector<NdSbpAttr> stated;
  for (Value result : op->getResults()) {
    GlobalAttr layout = getGlobalEncoding(result.getType());
    stated.push_back(layout ? layout.getNdSbp() : NdSbpAttr());
  }
  auto gives = [&](const NdSbpSignature &candidate) {
    return llvm::all_of(llvm::zip(stated, candidate.results), [](auto pair) {
      auto [want, have] = pair;
      return !want || want == have;
    });
  };
  SmallVector<NdSbpSignature> legal;
  llvm::copy_if(all, std::back_inserter(legal), gives);
  auto statedText = [&] {
    SmallVector<std::string> parts;
    for (NdSbpAttr want : stated)
      parts.push_back(want ? stringifyNdSbp(want) : "_");
    std::string text = llvm::join(parts, ", ");
    return parts.size() == 1 ? text : "(" + text + ")";
  };
  if (legal.empty()) {
    SmallVector<std::string> possible;
    for (const NdSbpSignature &candidate : all) {
      std::string text = stringifyResults(candidate.results);
      if (!llvm::is_contained(possible, text))
        possible.push_back(text);
    }
    os << "no signature of " << op->getName() << " gives " << statedText()
       << " on mesh ["
       << llvm::join(llvm::map_range(
                         mesh, [](int64_t n) { return std::to_string(n); }),
                     ", ")
       << "]; it can give: " << llvm::join(possible, " | ");
    return failure();
  }

  // The operand layouts pinned on the op.
  if (ArrayAttr pinned = operandLayoutsAttr(context).getAttr(op)) {
    for (auto [i, attr] : llvm::enumerate(pinned)) {
      auto layout = dyn_cast<GlobalAttr>(attr);
      if (!layout || i >= op->getNumOperands())
        continue;
      if (layout.getPlacement() != placement) {
        os << "'" << op->getName() << "' has operand " << i << " pinned on "
           << layout.getPlacement() << ", not on its placement " << placement;
        return failure();
      }
      llvm::erase_if(legal, [&, i = i](const NdSbpSignature &candidate) {
        return candidate.operands[i] != layout.getNdSbp();
      });
    }
    if (legal.empty()) {
      os << "no signature of " << op->getName() << " that gives "
         << statedText() << " takes the operand layouts pinned on it";
      return failure();
    }
  }

  llvm::erase_if(legal, [&](const NdSbpSignature &candidate) {
    return !fitsShapes(op, candidate, mesh);
  });
  if (legal.empty()) {
    os << "no signature of " << op->getName() << " that gives " << statedText()
       << " fits the shapes: every one leaves some device an empty piece";
    return failure();
  }

  // An operand the op writes in place (an optimizer's variable and states)
  // keeps its layout: boxing it would make the op write into a copy; so
  // does one the op takes others' layouts from.
  SmallVector<unsigned> inPlace = getLayoutKeepingOperands(op);
  if (!inPlace.empty() && !operandLayouts.empty()) {
    llvm::erase_if(legal, [&](const NdSbpSignature &candidate) {
      return llvm::any_of(inPlace, [&](unsigned i) {
        return operandLayouts[i] !=
               GlobalAttr::get(context, placement, candidate.operands[i]);
      });
    });
    if (legal.empty()) {
      os << "no signature of " << op->getName()
         << " keeps the layouts of the operands it writes in place (or "
            "takes layouts from)";
      return failure();
    }
  }
  return legal;
}

std::string mlir::oneflow::stringifyNdSbp(NdSbpAttr ndSbp) {
  return "[" +
         llvm::join(llvm::map_range(ndSbp, [](SbpAttr sbp) {
                      return stringifySbp(sbp);
                    }),
                    ", ") +
         "]";
}

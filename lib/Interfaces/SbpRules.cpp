//===- SbpRules.cpp - SBP signatures from an op's iteration dims ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::oneflow;

/// The rank of `type`, 0 when it is not a ranked tensor.
static int64_t getRankOf(Type type) {
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    return ranked.getRank();
  return 0;
}

/// The static size of axis `axis` of `type`, or dynamic.
static int64_t getDimOf(Type type, int64_t axis) {
  return cast<RankedTensorType>(type).getDimSize(axis);
}

SbpDims::SbpDims(Operation *op) : op(op) {
  for (Type type : op->getOperandTypes())
    operandDims.emplace_back(getRankOf(type), kNone);
  for (Type type : op->getResultTypes())
    resultDims.emplace_back(getRankOf(type), kNone);
}

SbpDims SbpDims::elementwise(Operation *op) {
  SbpDims dims(op);
  Type shapeType = op->getNumResults() ? op->getResult(0).getType()
                                       : op->getOperand(0).getType();
  int64_t rank = getRankOf(shapeType);
  for (int64_t axis = 0; axis < rank; ++axis)
    dims.addDim(SbpDimKind::parallel);
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (getRankOf(type) == rank)
      for (int64_t axis = 0; axis < rank; ++axis)
        dims.mapResultAxis(index, axis, axis);
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes())) {
    int64_t operandRank = getRankOf(type);
    if (operandRank > rank)
      continue;
    for (int64_t axis = 0; axis < operandRank; ++axis) {
      int64_t aligned = rank - operandRank + axis;
      if (getDimOf(type, axis) == 1 && getDimOf(shapeType, aligned) != 1)
        continue;
      dims.mapOperandAxis(index, axis, aligned);
    }
  }
  return dims;
}

int64_t SbpDims::addDim(SbpDimKind kind, PartialReduction reduction) {
  kinds.push_back(kind);
  reductions.push_back(reduction);
  return kinds.size() - 1;
}

void SbpDims::mapOperandAxis(unsigned index, int64_t axis, int64_t dim) {
  assert(dim >= kNone && dim < static_cast<int64_t>(kinds.size()));
  operandDims[index][axis] = dim;
}

void SbpDims::mapResultAxis(unsigned index, int64_t axis, int64_t dim) {
  assert(dim >= kNone && dim < static_cast<int64_t>(kinds.size()));
  resultDims[index][axis] = dim;
}

void SbpDims::mapOperand(unsigned index, ArrayRef<int64_t> dims) {
  assert(dims.size() == operandDims[index].size() && "one dim per axis");
  for (auto [axis, dim] : llvm::enumerate(dims))
    mapOperandAxis(index, axis, dim);
}

void SbpDims::mapResult(unsigned index, ArrayRef<int64_t> dims) {
  assert(dims.size() == resultDims[index].size() && "one dim per axis");
  for (auto [axis, dim] : llvm::enumerate(dims))
    mapResultAxis(index, axis, dim);
}

void SbpDims::addPartials(StringRef rules) {
  SmallVector<StringRef> parts;
  rules.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef rule : parts) {
    auto [operands, result] = rule.split("->");
    operands = operands.trim();
    result = result.trim();
    assert(operands.size() == operandDims.size() && "one letter per operand");
    assert(operands.find_first_not_of("BPMN") == StringRef::npos &&
           "B, P, M or N");
    size_t partial = operands.find_first_not_of('B');
    assert((result.size() == 1 || partial != StringRef::npos) &&
           "a partial operand or a result letter");
    char letter = result.empty() ? operands[partial] : result[0];
    assert(StringRef("PMN").contains(letter) && "a partial result");
    partials.push_back({operands.str(), letter});
  }
}

/// The SBP a letter of a partial rule stands for.
static SbpAttr sbpOfLetter(MLIRContext *ctx, char letter) {
  switch (letter) {
  case 'P':
    return SbpAttr::getPartial(ctx);
  case 'M':
    return SbpAttr::getPartial(ctx, PartialReduction::max);
  case 'N':
    return SbpAttr::getPartial(ctx, PartialReduction::min);
  default:
    return SbpAttr::getBroadcast(ctx);
  }
}

/// Appends `signature` unless it is all-broadcast or already listed.
static void addUnique(const SbpSignature &signature,
                      SmallVectorImpl<SbpSignature> &signatures) {
  auto isB = [](SbpAttr sbp) { return sbp.isBroadcast(); };
  if (llvm::all_of(signature.operands, isB) &&
      llvm::all_of(signature.results, isB))
    return;
  if (llvm::any_of(signatures, [&](const SbpSignature &listed) {
        return listed.operands == signature.operands &&
               listed.results == signature.results;
      }))
    return;
  signatures.push_back(signature);
}

void SbpDims::derive(int64_t meshAxisSize,
                     SmallVectorImpl<SbpSignature> &signatures) const {
  MLIRContext *ctx = op->getContext();
  SbpAttr b = SbpAttr::getBroadcast(ctx);

  // The SBP of a tensor whose axes index `axisDims` when `dim` is split, or
  // null when that axis is too small to split.
  auto sbpFor = [&](Type type, ArrayRef<int64_t> axisDims, int64_t dim,
                    SbpAttr otherwise) -> SbpAttr {
    const int64_t *it = llvm::find(axisDims, dim);
    if (it == axisDims.end())
      return otherwise;
    int64_t axis = it - axisDims.begin();
    int64_t size = getDimOf(type, axis);
    if (!ShapedType::isDynamic(size) && size < meshAxisSize)
      return {};
    return SbpAttr::getSplit(ctx, axis);
  };

  for (auto [dim, kind] : llvm::enumerate(kinds)) {
    if (kind == SbpDimKind::broadcastOnly)
      continue;
    SbpSignature signature;
    bool fits = true;
    for (auto [type, axisDims] :
         llvm::zip(op->getOperandTypes(), operandDims)) {
      SbpAttr sbp = sbpFor(type, axisDims, dim, b);
      fits &= static_cast<bool>(sbp);
      signature.operands.push_back(sbp);
    }
    SbpAttr missing = kind == SbpDimKind::parallel
                          ? b
                          : SbpAttr::getPartial(ctx, reductions[dim]);
    for (auto [type, axisDims] : llvm::zip(op->getResultTypes(), resultDims)) {
      SbpAttr sbp = sbpFor(type, axisDims, dim, missing);
      fits &= static_cast<bool>(sbp);
      signature.results.push_back(sbp);
    }
    if (fits)
      addUnique(signature, signatures);
  }

  for (const auto &[operands, result] : partials) {
    SbpSignature signature;
    for (char letter : operands)
      signature.operands.push_back(sbpOfLetter(ctx, letter));
    signature.results.assign(op->getNumResults(), sbpOfLetter(ctx, result));
    addUnique(signature, signatures);
  }
}

SmallVector<std::pair<int64_t, int64_t>>
mlir::oneflow::getReshapeSplitAxes(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                   int64_t meshAxisSize) {
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  if (ShapedType::isDynamicShape(in) || ShapedType::isDynamicShape(out))
    return pairs;
  int64_t inPrefix = 1;
  for (auto [inAxis, inSize] : llvm::enumerate(in)) {
    int64_t outPrefix = 1;
    for (auto [outAxis, outSize] : llvm::enumerate(out)) {
      if (outPrefix > inPrefix)
        break;
      bool divisible = meshAxisSize > 0 && inSize % meshAxisSize == 0 &&
                       outSize % meshAxisSize == 0;
      if (outPrefix == inPrefix && inSize > 1 && outSize > 1 &&
          (inSize == outSize || divisible)) {
        pairs.emplace_back(inAxis, outAxis);
        break;
      }
      outPrefix *= outSize;
    }
    inPrefix *= inSize;
  }
  return pairs;
}

std::string mlir::oneflow::stringifySbp(SbpAttr sbp) {
  switch (sbp.getKind()) {
  case SbpKind::split:
    return "S(" + std::to_string(sbp.getAxis()) + ")";
  case SbpKind::broadcast:
    return "B";
  case SbpKind::partial:
    return toSupportSbp(sbp).str();
  }
  llvm_unreachable("unknown SBP kind");
}

std::string
mlir::oneflow::stringifySbpSignature(const SbpSignature &signature) {
  auto join = [](ArrayRef<SbpAttr> sbps) {
    return llvm::join(llvm::map_range(sbps, stringifySbp), ", ");
  };
  std::string text = join(signature.operands);
  text += text.empty() ? "->" : " ->";
  if (!signature.results.empty())
    text += " " + join(signature.results);
  return text;
}

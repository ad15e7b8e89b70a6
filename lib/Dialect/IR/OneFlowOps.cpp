//===- OneFlowOps.cpp - OneFlow ops: registration and sources -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Registers the ops and implements the source and sink ops (variable, input,
// constant, fill, output). The other families live in <Family>Ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/ConstantFolding.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::oneflow;

#define GET_OP_CLASSES
#include "OneFlowDialect/IR/OneFlowOps.cpp.inc"

void OneFlowDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "OneFlowDialect/IR/OneFlowOps.cpp.inc"
      >();
}

VariableOp mlir::oneflow::getCastVariable(Value value) {
  while (auto cast = value.getDefiningOp<CastOp>())
    value = cast.getX();
  return value.getDefiningOp<VariableOp>();
}

std::optional<int64_t>
mlir::oneflow::checkedTensorBytes(RankedTensorType type) {
  Type element = type.getElementType();
  int64_t bytes =
      element.isIntOrFloat()
          ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
          : 8;
  std::optional<int64_t> total = bytes;
  for (int64_t dim : type.getShape()) {
    total = llvm::checkedMul(*total, dim);
    if (!total || *total > kMaxTensorBytes)
      return std::nullopt;
  }
  return total;
}

LogicalResult mlir::oneflow::verifyBoundedSizes(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || checkedTensorBytes(tensor))
      continue;
    return op->emitOpError()
           << "result " << i << " of type " << tensor
           << " holds more than 2^48 bytes (256 TiB), more than any "
              "device's memory (a mistyped shape?)";
  }
  return success();
}

/// Checks that `value`'s shape and element type are those of `type`
/// (ignoring its encoding); `what` names the attribute.
static LogicalResult verifyValueMatches(Operation *op, StringRef what,
                                        ElementsAttr value, Type type) {
  auto valueType = cast<ShapedType>(value.getType());
  auto resultType = cast<RankedTensorType>(type);
  if (valueType.getShape() != resultType.getShape() ||
      valueType.getElementType() != resultType.getElementType())
    return op->emitOpError() << what << " of type " << valueType
                             << " does not match result type " << resultType;
  return success();
}

static LogicalResult verifyStaticResult(Operation *op, Type type) {
  if (!cast<RankedTensorType>(type).hasStaticShape())
    return op->emitOpError()
           << "result type " << type << " must have a static shape";
  return success();
}

/// Checks that no two ops of `op`'s kind in its block share a name:
/// inputs, outputs and variables are found by name (feeds, fetches,
/// checkpoints), so two of one name would be silently confused. The first
/// op of its kind checks the whole block, the others only look back to the
/// previous one, so that verifying a block costs one pass over it however
/// many such ops it holds. The error is on the later op of a pair.
template <typename OpTy> static LogicalResult verifyUniqueName(OpTy op) {
  Block *block = op->getBlock();
  if (!block)
    return success();
  for (Operation *before = op->getPrevNode(); before;
       before = before->getPrevNode())
    if (isa<OpTy>(before))
      return success();
  llvm::StringMap<OpTy> seen;
  for (OpTy other : block->getOps<OpTy>()) {
    auto [it, inserted] = seen.try_emplace(other.getName(), other);
    if (!inserted)
      return (other.emitOpError() << "name '" << other.getName()
                                  << "' is already taken by an earlier "
                                  << OpTy::getOperationName())
                 .attachNote(it->second.getLoc())
             << "the earlier one is here";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// VariableOp
//===----------------------------------------------------------------------===//

LogicalResult VariableOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
  if (failed(verifyUniqueName(*this)))
    return failure();
  if (failed(verifyStaticResult(*this, getType())))
    return failure();
  if (getInit().has_value() == getValue().has_value())
    return emitOpError() << "needs exactly one of 'init' and 'value'";
  if (getValue())
    return verifyValueMatches(*this, "value", *getValue(), getType());
  InitKind kind = getInit()->getKind();
  bool random = kind != InitKind::zeros && kind != InitKind::ones &&
                kind != InitKind::constant;
  if (random && !isa<FloatType>(getType().getElementType()))
    return emitOpError() << "initializer '" << stringifyInitKind(kind)
                         << "' needs a floating-point variable, got "
                         << getType().getElementType();
  if ((kind == InitKind::xavier_uniform || kind == InitKind::kaiming_uniform) &&
      getType().getRank() < 2)
    return emitOpError() << "initializer '" << stringifyInitKind(kind)
                         << "' needs a variable of rank 2 or more, got rank "
                         << getType().getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// InputOp and OutputOp
//===----------------------------------------------------------------------===//

LogicalResult InputOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
  if (failed(verifyUniqueName(*this)))
    return failure();
  return verifyStaticResult(*this, getType());
}

LogicalResult OutputOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
  // Ranks' pieces of an output are added up: the layout it asks for (or,
  // once boxing is in, has) may be partial only as a sum.
  GlobalAttr layout = getGlobalEncoding(getValue().getType());
  if (auto asked = operandLayoutsAttr(getContext()).getAttr(*this))
    if (asked.size() == 1)
      layout = dyn_cast<GlobalAttr>(asked[0]);
  if (layout && !hasOnlyPartialSums(layout))
    return emitOpError() << "cannot output a " << layout.getNdSbp()
                         << " value; all-reduce its P(max) or P(min) axes to "
                            "B first";
  return verifyUniqueName(*this);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  return verifyValueMatches(*this, "value", getValue(), getType());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr))
    return failure();
  auto value = dyn_cast<ElementsAttr>(attr);
  if (!value)
    return parser.emitError(loc) << "expected an elements attribute";
  Type type = value.getType();
  if (succeeded(parser.parseOptionalArrow()) && parser.parseType(type))
    return failure();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addAttribute(getValueAttrName(result.name), value);
  result.addTypes(type);
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttribute(getValue());
  if (getType() != getValue().getType())
    printer << " -> " << getType();
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
}

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() { return verifyStaticResult(*this, getType()); }

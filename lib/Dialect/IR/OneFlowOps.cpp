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
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

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

//===----------------------------------------------------------------------===//
// VariableOp
//===----------------------------------------------------------------------===//

LogicalResult VariableOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
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
  return verifyStaticResult(*this, getType());
}

LogicalResult OutputOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
  return success();
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

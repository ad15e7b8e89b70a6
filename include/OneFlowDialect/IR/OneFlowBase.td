//===- OneFlowBase.td - OneFlow dialect definition ---------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The `oneflow` dialect: a logical (single-device) training graph whose
// tensors may carry their distribution, placement plus nd-SBP, as a typed
// tensor encoding.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWBASE_TD
#define ONEFLOWDIALECT_IR_ONEFLOWBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def OneFlow_Dialect : Dialect {
  let name = "oneflow";
  let cppNamespace = "::mlir::oneflow";
  let summary = "Logical deep-learning graphs with SBP-typed distribution";
  let description = [{
    The `oneflow` dialect models a training program written for one device.
    Each tensor may carry a `#oneflow.global<placement, [sbp, ...]>` encoding
    that says on which ranks it lives (the placement and its device mesh) and
    how each mesh axis lays it out: split along a tensor axis `S(i)`,
    broadcast `B`, or partial sum `P` (OneFlow's SBP).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // func.func holds programs; its ops are needed by every pass we run.
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerOps();
  }];
  // The layouts an op's chosen signature needs of its operands (one
  // #oneflow.global per operand), recorded by oneflow-sbp-propagation or
  // oneflow-auto-parallel and realized by oneflow-insert-boxing
  // (docs/multi-rank-plans.md): `oneflow.operand_layouts`.
  let discardableAttrs = (ins "::mlir::ArrayAttr":$operand_layouts);
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def OneFlow_SbpKind : I32EnumAttr<"SbpKind", "kind of an SBP", [
    I32EnumAttrCase<"split", 0, "S">,
    I32EnumAttrCase<"broadcast", 1, "B">,
    I32EnumAttrCase<"partial", 2, "P">
  ]> {
  let cppNamespace = "::mlir::oneflow";
  let genSpecializedAttr = 0;
}

def OneFlow_PartialReduction
    : I32EnumAttr<"PartialReduction", "how the pieces of a partial tensor combine", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::mlir::oneflow";
  let genSpecializedAttr = 0;
}

def OneFlow_DeviceKind : I32EnumAttr<"DeviceKind", "device kind of a placement", [
    I32EnumAttrCase<"cpu", 0>,
    I32EnumAttrCase<"cuda", 1>
  ]> {
  let cppNamespace = "::mlir::oneflow";
  let genSpecializedAttr = 0;
}

def OneFlow_InitKind : I32EnumAttr<"InitKind", "initializer of a variable", [
    I32EnumAttrCase<"zeros", 0>,
    I32EnumAttrCase<"ones", 1>,
    I32EnumAttrCase<"constant", 2>,
    I32EnumAttrCase<"uniform", 3>,
    I32EnumAttrCase<"normal", 4>,
    I32EnumAttrCase<"xavier_uniform", 5>,
    I32EnumAttrCase<"kaiming_uniform", 6>
  ]> {
  let cppNamespace = "::mlir::oneflow";
  let genSpecializedAttr = 0;
}

def OneFlow_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>
  ]> {
  let cppNamespace = "::mlir::oneflow";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class OneFlow_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<OneFlow_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Every result tensor of a static shape fits in memory arithmetic: its byte
// size, computed with checked multiplication, is at most 2^48 (256 TiB), so
// that sizes, offsets and sums of them never overflow (verifyBoundedSizes).
def OneFlow_BoundedSizes : NativeOpTrait<"BoundedSizes"> {
  let cppNamespace = "::mlir::oneflow";
}

class OneFlow_Op<string mnemonic, list<Trait> traits = []>
    : Op<OneFlow_Dialect, mnemonic, !listconcat(traits, [OneFlow_BoundedSizes])>;

#endif // ONEFLOWDIALECT_IR_ONEFLOWBASE_TD

//===- OneFlowOpBase.td - Shared op classes and constraints -*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWOPBASE_TD
#define ONEFLOWDIALECT_IR_ONEFLOWOPBASE_TD

include "OneFlowDialect/IR/OneFlowAttrs.td"
include "OneFlowDialect/Interfaces/SbpInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// Every tensor is ranked; dimensions may be dynamic (`?`) until
// `oneflow-infer-shapes` refines them. The encoding, when present, is a
// #oneflow.global and is checked by the tensor type itself.
def OneFlow_Tensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;
def OneFlow_FloatTensor : RankedTensorOf<[AnyFloat]>;
def OneFlow_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def OneFlow_IndexTensor : RankedTensorOf<[I32, I64]>;
def OneFlow_BoolTensor : RankedTensorOf<[I1]>;
// What a program's edges may also hold: ui8 (image data) and ONNX's other
// unsigned integers, which inputs read, outputs write and casts convert;
// nothing computes on them.
def OneFlow_EdgeTensor
    : RankedTensorOf<[AnyFloat, AnySignlessInteger, UI8, UI16, UI32, UI64]>;

//===----------------------------------------------------------------------===//
// Shape inference
//===----------------------------------------------------------------------===//

// Result types are inferred from operand types; declared result types are
// compatible when element types match and shapes agree where both are
// static. Encodings are layouts, not shapes, and are not compared.
def OneFlow_InferLogicalType : InferTypeOpAdaptorBase<[{
    static bool isCompatibleReturnTypes(::mlir::TypeRange l,
                                        ::mlir::TypeRange r) {
      return ::mlir::oneflow::areCompatibleLogicalTypes(l, r);
    }
  }]>;

// An op whose result types are inferred; `traits` come first.
class OneFlow_InferredOp<string mnemonic, list<Trait> traits = []>
    : OneFlow_Op<mnemonic, !listconcat(traits, [OneFlow_InferLogicalType])>;

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

// The op lists its SBP signatures; it defines `getSbpSignatures` in C++ or
// takes `OneFlow_ElementwiseSbp<...>.definition` as (part of) its
// `extraClassDefinition`.
defvar OneFlow_HasSbp = DeclareOpInterfaceMethods<OneFlow_SbpInterface>;

// `getSbpSignatures` of an op that is element-wise with numpy broadcasting
// (every axis of the result parallel), with the partial rules `partials`
// (see `SbpDims::addPartials`: "PP" for add, "PB,BP" for mul, "MM" for
// maximum).
class OneFlow_ElementwiseSbp<string partials = ""> {
  code definition = [{
    void $cppClass::getSbpSignatures(int64_t meshAxisSize,
        ::llvm::SmallVectorImpl<::mlir::oneflow::SbpSignature> &signatures) {
      auto dims = ::mlir::oneflow::SbpDims::elementwise(getOperation());
      dims.addPartials("}] # partials # [{");
      dims.derive(meshAxisSize, signatures);
    }
  }];
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWOPBASE_TD

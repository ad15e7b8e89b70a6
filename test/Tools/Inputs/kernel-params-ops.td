// Ops whose attributes of-tblgen turns into kernel parameters
// (of-tblgen.test): every kind a plan carries, defaults, optional ones, and
// kinds kernels read from the OpDesc.
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def Test_Dialect : Dialect {
  let name = "kptest";
  let cppNamespace = "::kptest";
}

def Test_KindsOp : Op<Test_Dialect, "kinds"> {
  let arguments = (ins I64Attr:$count, F64Attr:$scale, BoolAttr:$flag,
                       UnitAttr:$fast, StrAttr:$mode,
                       DenseI64ArrayAttr:$axes, DenseF64ArrayAttr:$weights,
                       StrArrayAttr:$labels,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<StrAttr, "\"linear\"">:$kind,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       OptionalAttr<F64Attr>:$clip,
                       ElementsAttr:$value);
}

def Test_PlainOp : Op<Test_Dialect, "plain">;

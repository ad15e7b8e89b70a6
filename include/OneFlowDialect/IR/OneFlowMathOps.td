//===- OneFlowMathOps.td - Element-wise arithmetic ---------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWMATHOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWMATHOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

// Numpy-style broadcasting of two operands of one element type. Comparisons
// give i1.
// `partials` are its partial-sum rules (see `OneFlow_ElementwiseSbp`).
class OneFlow_BinaryOp<string mnemonic, string desc, bit isComparison = 0,
                       string partials = "", Type operand = OneFlow_Tensor>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    Element-wise with numpy broadcasting: shapes are aligned at the trailing
    axis and each pair of dimensions must be equal or one of them 1.

    ```mlir
    %z = oneflow.}] # mnemonic # [{ %x, %y : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16x}]
      # !if(isComparison, "i1", "f32") # [{>
    ```
  }];
  let arguments = (ins operand:$lhs, operand:$rhs);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::oneflow::inferBroadcastBinary(
          location, getOperationName(), adaptor.getLhs().getType(),
          adaptor.getRhs().getType(), /*isComparison=*/}] # isComparison # [{, types);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::oneflow::foldElementwiseOp(*this, adaptor.getOperands());
    }
  }] # OneFlow_ElementwiseSbp<partials>.definition;
  // Constants fold (ElementwiseFolding.cpp).
  let hasFolder = 1;
}

def OneFlow_AddOp : OneFlow_BinaryOp<"add", "element-wise sum", 0, "PP">;
def OneFlow_SubOp : OneFlow_BinaryOp<"sub", "element-wise difference", 0, "PP">;
def OneFlow_MulOp : OneFlow_BinaryOp<"mul", "element-wise product", 0, "PB,BP">;
def OneFlow_DivOp : OneFlow_BinaryOp<"div", "element-wise quotient", 0, "PB">;
def OneFlow_PowOp : OneFlow_BinaryOp<"pow", "element-wise power", 0>;
def OneFlow_MaximumOp : OneFlow_BinaryOp<"maximum", "element-wise maximum", 0, "MM">;
def OneFlow_MinimumOp : OneFlow_BinaryOp<"minimum", "element-wise minimum", 0, "NN">;
def OneFlow_EqualOp : OneFlow_BinaryOp<"equal", "element-wise ==", 1>;
def OneFlow_NotEqualOp : OneFlow_BinaryOp<"not_equal", "element-wise !=", 1>;
def OneFlow_LessOp : OneFlow_BinaryOp<"less", "element-wise <", 1>;
def OneFlow_LessEqualOp : OneFlow_BinaryOp<"less_equal", "element-wise <=", 1>;
def OneFlow_GreaterOp : OneFlow_BinaryOp<"greater", "element-wise >", 1>;
def OneFlow_GreaterEqualOp : OneFlow_BinaryOp<"greater_equal", "element-wise >=", 1>;
def OneFlow_LogicalAndOp : OneFlow_BinaryOp<"logical_and",
    "element-wise and of i1 tensors", 1, "", OneFlow_BoolTensor>;
def OneFlow_LogicalOrOp : OneFlow_BinaryOp<"logical_or",
    "element-wise or of i1 tensors", 1, "", OneFlow_BoolTensor>;
def OneFlow_LogicalXorOp : OneFlow_BinaryOp<"logical_xor",
    "element-wise exclusive or of i1 tensors", 1, "", OneFlow_BoolTensor>;

def OneFlow_GeluGradOp : OneFlow_BinaryOp<"gelu_grad",
    "gelu's gradient: dy times gelu'(x)", 0, "BP", OneFlow_FloatTensor> {
  let description = [{
    What gelu's gradient rule builds: `dy * (Phi(x) + x phi(x))`, element
    by element with numpy broadcasting, where Phi and phi are the standard
    normal distribution and density: one pass over `x` and `dy` (oneDNN's
    eltwise backward on the CPU) instead of the eleven element-wise ops of
    its composition. Linear in `dy`: `x` broadcast and `dy` partial give a
    partial result. No gradient of its own.

    ```mlir
    %dx = oneflow.gelu_grad %x, %dy : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    ```
  }];
}

def OneFlow_BitShiftOp : OneFlow_InferredOp<"bit_shift", [Pure, OneFlow_HasSbp]> {
  let summary = "element-wise shift of unsigned integers";
  let description = [{
    `x` and `shift` hold unsigned integers of `width` bits (8, 16, 32 or
    64) in signless integers of at least that width (ONNX's unsigned types
    are computed in i32 and i64, a 64-bit one in its bits). "left" shifts
    x left and keeps the low `width` bits; "right" shifts the `width`-bit
    value right, filling with zeros; a shift of `width` or more gives 0.
    Element-wise with numpy broadcasting; integers only, no gradient.

    ```mlir
    %y = oneflow.bit_shift %x, %s {direction = "left", width = 8}
        : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins OneFlow_IntTensor:$x, OneFlow_IntTensor:$shift,
                       StrAttr:$direction, I64Attr:$width);
  let results = (outs OneFlow_IntTensor:$result);
  let assemblyFormat = "$x `,` $shift attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// `partials` are its partial rules (see `OneFlow_ElementwiseSbp`): "P" for a
// linear op.
class OneFlow_UnaryOp<string mnemonic, string desc, bit floatOnly = 1,
                      string partials = "">
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    ```mlir
    %y = oneflow.}] # mnemonic # [{ %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins !if(floatOnly, OneFlow_FloatTensor, OneFlow_Tensor):$x);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(::mlir::oneflow::stripEncoding(adaptor.getX().getType()));
      return ::mlir::success();
    }
  }] # OneFlow_ElementwiseSbp<partials>.definition;
}

def OneFlow_ReluOp : OneFlow_UnaryOp<"relu", "max(x, 0)", 0>;
def OneFlow_GeluOp : OneFlow_UnaryOp<"gelu", "Gaussian error linear unit (exact, erf form)">;
def OneFlow_TanhOp : OneFlow_UnaryOp<"tanh", "hyperbolic tangent">;
def OneFlow_SigmoidOp : OneFlow_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def OneFlow_ExpOp : OneFlow_UnaryOp<"exp", "natural exponential">;
def OneFlow_LogOp : OneFlow_UnaryOp<"log", "natural logarithm">;
def OneFlow_SqrtOp : OneFlow_UnaryOp<"sqrt", "square root">;
def OneFlow_RsqrtOp : OneFlow_UnaryOp<"rsqrt", "reciprocal square root">;
// -max(a, b) = min(-a, -b): P(max) and P(min) trade places.
def OneFlow_NegOp : OneFlow_UnaryOp<"neg", "negation", 0, "P,M->N,N->M"> {
  let hasFolder = 1;
}
def OneFlow_AbsOp : OneFlow_UnaryOp<"abs", "absolute value", 0>;
def OneFlow_ErfOp : OneFlow_UnaryOp<"erf", "Gauss error function">;
def OneFlow_ReciprocalOp : OneFlow_UnaryOp<"reciprocal", "1 / x">;
def OneFlow_SinOp : OneFlow_UnaryOp<"sin", "sine">;
def OneFlow_CosOp : OneFlow_UnaryOp<"cos", "cosine">;
def OneFlow_FloorOp : OneFlow_UnaryOp<"floor", "the largest integer not above x">;
def OneFlow_CeilOp : OneFlow_UnaryOp<"ceil", "the smallest integer not below x">;
def OneFlow_RoundOp : OneFlow_UnaryOp<"round", "the nearest integer, halves to even">;
def OneFlow_SignOp : OneFlow_UnaryOp<"sign", "-1, 0 or 1 by the sign of x", 0>;
def OneFlow_SoftplusOp : OneFlow_UnaryOp<"softplus", "log(1 + exp(x))">;
def OneFlow_TanOp : OneFlow_UnaryOp<"tan", "tangent">;
def OneFlow_AsinOp : OneFlow_UnaryOp<"asin", "arcsine">;
def OneFlow_AcosOp : OneFlow_UnaryOp<"acos", "arccosine">;
def OneFlow_AtanOp : OneFlow_UnaryOp<"atan", "arctangent">;
def OneFlow_SinhOp : OneFlow_UnaryOp<"sinh", "hyperbolic sine">;
def OneFlow_CoshOp : OneFlow_UnaryOp<"cosh", "hyperbolic cosine">;
def OneFlow_AsinhOp : OneFlow_UnaryOp<"asinh", "inverse hyperbolic sine">;
def OneFlow_AcoshOp : OneFlow_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def OneFlow_AtanhOp : OneFlow_UnaryOp<"atanh", "inverse hyperbolic tangent">;

// An element-wise function of a float tensor with float parameters
// (`params`, attributes with defaults).
class OneFlow_UnaryParamOp<string mnemonic, string desc, dag params>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    ```mlir
    %y = oneflow.}] # mnemonic # [{ %x {alpha = 0.1 : f64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = !con((ins OneFlow_FloatTensor:$x), params);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(::mlir::oneflow::stripEncoding(adaptor.getX().getType()));
      return ::mlir::success();
    }
  }] # OneFlow_ElementwiseSbp<"">.definition;
}

def OneFlow_LogicalNotOp : OneFlow_UnaryOp<"logical_not",
    "element-wise negation of an i1 tensor", 0> {
  let arguments = (ins OneFlow_BoolTensor:$x);
}

def OneFlow_LeakyReluOp : OneFlow_UnaryParamOp<"leaky_relu",
    "x, or alpha x below 0", (ins DefaultValuedAttr<F64Attr, "0.01">:$alpha)>;
def OneFlow_EluOp : OneFlow_UnaryParamOp<"elu",
    "x, or alpha (exp(x) - 1) below 0",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
// ONNX's defaults (those of the SELU paper, as f32).
def OneFlow_SeluOp : OneFlow_UnaryParamOp<"selu",
    "gamma x, or gamma alpha (exp(x) - 1) below 0",
    (ins DefaultValuedAttr<F64Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F64Attr, "1.05070102214813232421875">:$gamma)>;
def OneFlow_HardSigmoidOp : OneFlow_UnaryParamOp<"hard_sigmoid",
    "max(0, min(1, alpha x + beta))",
    (ins DefaultValuedAttr<F64Attr, "0.2">:$alpha,
         DefaultValuedAttr<F64Attr, "0.5">:$beta)>;

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

// A `linear` op (x * scalar, x / scalar) also maps P to P.
class OneFlow_ScalarOp<string mnemonic, string desc, bit linear = 0>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    A tensor combined element-wise with a compile-time scalar.

    ```mlir
    %y = oneflow.}] # mnemonic # [{ %x, 2.0 : (tensor<8xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, F64Attr:$scalar);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x `,` $scalar attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(::mlir::oneflow::stripEncoding(adaptor.getX().getType()));
      return ::mlir::success();
    }
  }] # OneFlow_ElementwiseSbp<!if(linear, "P", "")>.definition;
}

def OneFlow_ScalarAddOp : OneFlow_ScalarOp<"scalar_add", "x + scalar">;
def OneFlow_ScalarMulOp : OneFlow_ScalarOp<"scalar_mul", "x * scalar", 1>;
def OneFlow_ScalarDivOp : OneFlow_ScalarOp<"scalar_div", "x / scalar", 1>;
def OneFlow_ScalarPowOp : OneFlow_ScalarOp<"scalar_pow", "x ** scalar">;

//===----------------------------------------------------------------------===//
// Selection and conversion
//===----------------------------------------------------------------------===//

def OneFlow_WhereOp : OneFlow_InferredOp<"where", [Pure, OneFlow_HasSbp]> {
  let summary = "cond ? x : y, with broadcasting";
  let description = [{
    ```mlir
    %z = oneflow.where %c, %x, %y
        : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins OneFlow_BoolTensor:$condition, OneFlow_Tensor:$x,
                       OneFlow_Tensor:$y);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $x `,` $y attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
  let hasFolder = 1;
}

def OneFlow_MaskedFillOp
    : OneFlow_InferredOp<"masked_fill", [Pure, OneFlow_HasSbp]> {
  let summary = "x with `value` where the broadcast mask is true";
  let description = [{
    ```mlir
    %y = oneflow.masked_fill %x, %mask, -1.0e9
        : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, OneFlow_BoolTensor:$mask,
                       F64Attr:$value);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $x `,` $mask `,` $value attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
}

def OneFlow_CastOp : OneFlow_Op<"cast", [Pure, OneFlow_HasSbp]> {
  let summary = "element-type conversion";
  let description = [{
    ```mlir
    %y = oneflow.cast %x : (tensor<8xi64>) -> tensor<8xf32>
    ```
    Casts also convert the unsigned values at a program's edges (ui8,
    ui16, ui32, ui64; integers wrap). A partial sum passes through a cast
    that widens a float (bf16 or f16 to f32, f32 to f64): each piece
    converts exactly and the sum happens in the wider type, so the
    gradients of bf16 ops are reduced and accumulated in f32.
  }];
  let arguments = (ins OneFlow_EdgeTensor:$x);
  let results = (outs OneFlow_EdgeTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWMATHOPS_TD

//===- ElementwiseFolding.cpp - Constant evaluation of element-wise ops ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Arithmetic, comparisons, logic, selection and casts of constants: the fold
// hooks of add, sub, ..., neg, where and cast, and the ONNX importer's
// evaluation of the same nodes (ConstantFolding.h). Operands are broadcast
// first (foldBroadcast); each element is then computed as a Scalar, floats
// in double and integers in int64, and written back in the result's type.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/ConstantFolding.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// One element: `f` of a float type, `i` of an integer type (i1 as 0/1).
struct Scalar {
  double f = 0;
  int64_t i = 0;
};
} // namespace

static SmallVector<Scalar> scalarsOf(DenseElementsAttr x) {
  SmallVector<Scalar> out;
  out.reserve(x.getNumElements());
  if (isa<FloatType>(x.getElementType())) {
    for (const APFloat &v : x.getValues<APFloat>())
      out.push_back({v.convertToDouble(), 0});
    return out;
  }
  bool unsignedValues =
      x.getElementType().isInteger(1) || x.getElementType().isUnsignedInteger();
  for (const APInt &v : x.getValues<APInt>())
    out.push_back({0, unsignedValues ? static_cast<int64_t>(v.getZExtValue())
                                     : v.getSExtValue()});
  return out;
}

static DenseElementsAttr elementsOf(RankedTensorType type,
                                    ArrayRef<Scalar> values) {
  if (isa<FloatType>(type.getElementType()))
    return denseOfDoubles(
        type, llvm::map_to_vector(values, [](Scalar v) { return v.f; }));
  return denseOfInts(type,
                     llvm::map_to_vector(values, [](Scalar v) { return v.i; }));
}

/// Whether `v` is a value of a signed integer of `width` bits.
static bool fitsSigned(int64_t v, unsigned width) {
  if (width >= 64)
    return true;
  int64_t limit = int64_t(1) << (width - 1);
  return v >= -limit && v < limit;
}

/// Two's-complement arithmetic without signed overflow.
static int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }

/// One element of `kind`, its operands `a` of element type `element`;
/// nullopt where it does not fold.
static std::optional<Scalar> apply(ElementwiseFold kind, ArrayRef<Scalar> a,
                                   Type element) {
  bool isFloat = isa<FloatType>(element);
  auto boolean = [](bool b) { return Scalar{0, b ? 1 : 0}; };
  auto compare = [&](auto cmp) {
    return boolean(isFloat ? cmp(a[0].f, a[1].f) : cmp(a[0].i, a[1].i));
  };
  uint64_t x = a[0].i, y = a.size() > 1 ? a[1].i : 0;
  switch (kind) {
  case ElementwiseFold::add:
    return isFloat ? Scalar{a[0].f + a[1].f, 0} : Scalar{0, wrap(x + y)};
  case ElementwiseFold::sub:
    return isFloat ? Scalar{a[0].f - a[1].f, 0} : Scalar{0, wrap(x - y)};
  case ElementwiseFold::mul:
    return isFloat ? Scalar{a[0].f * a[1].f, 0} : Scalar{0, wrap(x * y)};
  case ElementwiseFold::div: {
    if (isFloat)
      return Scalar{a[0].f / a[1].f, 0};
    if (a[1].i == 0 || (a[1].i == -1 && a[0].i == INT64_MIN))
      return std::nullopt;
    int64_t q = a[0].i / a[1].i; // Truncates, as the kernels do.
    if (!fitsSigned(q, element.getIntOrFloatBitWidth()))
      return std::nullopt;
    return Scalar{0, q};
  }
  case ElementwiseFold::pow:
    if (!isFloat)
      return std::nullopt;
    return Scalar{std::pow(a[0].f, a[1].f), 0};
  case ElementwiseFold::maximum:
  case ElementwiseFold::minimum: {
    bool max = kind == ElementwiseFold::maximum;
    if (!isFloat)
      return Scalar{0,
                    max ? std::max(a[0].i, a[1].i) : std::min(a[0].i, a[1].i)};
    if (std::isnan(a[0].f) || std::isnan(a[1].f))
      return std::nullopt;
    return Scalar{max ? std::max(a[0].f, a[1].f) : std::min(a[0].f, a[1].f), 0};
  }
  case ElementwiseFold::equal:
    return compare([](auto l, auto r) { return l == r; });
  case ElementwiseFold::notEqual:
    return compare([](auto l, auto r) { return l != r; });
  case ElementwiseFold::less:
    return compare([](auto l, auto r) { return l < r; });
  case ElementwiseFold::lessEqual:
    return compare([](auto l, auto r) { return l <= r; });
  case ElementwiseFold::greater:
    return compare([](auto l, auto r) { return l > r; });
  case ElementwiseFold::greaterEqual:
    return compare([](auto l, auto r) { return l >= r; });
  case ElementwiseFold::logicalAnd:
    return boolean(a[0].i && a[1].i);
  case ElementwiseFold::logicalOr:
    return boolean(a[0].i || a[1].i);
  case ElementwiseFold::logicalXor:
    return boolean((a[0].i != 0) != (a[1].i != 0));
  case ElementwiseFold::neg:
    return isFloat ? Scalar{-a[0].f, 0} : Scalar{0, wrap(0 - x)};
  case ElementwiseFold::where:
    return a[0].i ? a[1] : a[2];
  }
  return std::nullopt;
}

/// The shape `operands` broadcast to, or nullopt when they do not.
static std::optional<SmallVector<int64_t>>
broadcastShapeOf(ArrayRef<DenseElementsAttr> operands) {
  SmallVector<int64_t> shape;
  for (DenseElementsAttr x : operands) {
    ArrayRef<int64_t> s = x.getType().getShape();
    if (s.size() > shape.size())
      shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t &d = shape[shape.size() - s.size() + k];
      if (d == 1)
        d = s[k];
      else if (s[k] != 1 && s[k] != d)
        return std::nullopt;
    }
  }
  return shape;
}

DenseElementsAttr
mlir::oneflow::foldElementwise(ElementwiseFold kind,
                               ArrayRef<DenseElementsAttr> operands) {
  size_t arity = kind == ElementwiseFold::neg     ? 1
                 : kind == ElementwiseFold::where ? 3
                                                  : 2;
  if (operands.size() != arity || llvm::is_contained(operands, nullptr))
    return {};
  // The operands computed together, and the result's element type.
  ArrayRef<DenseElementsAttr> same = operands;
  Type element = operands[0].getElementType();
  Type result = element;
  if (kind == ElementwiseFold::where) {
    if (!element.isInteger(1))
      return {};
    same = operands.drop_front();
    element = result = same[0].getElementType();
  } else if (kind >= ElementwiseFold::equal &&
             kind <= ElementwiseFold::logicalXor) {
    result = IntegerType::get(element.getContext(), 1);
  }
  for (DenseElementsAttr x : same)
    if (x.getElementType() != element)
      return {};
  if (kind >= ElementwiseFold::logicalAnd &&
      kind <= ElementwiseFold::logicalXor && !element.isInteger(1))
    return {};

  std::optional<SmallVector<int64_t>> shape = broadcastShapeOf(operands);
  if (!shape)
    return {};
  SmallVector<SmallVector<Scalar>> values;
  for (DenseElementsAttr x : operands) {
    DenseElementsAttr whole =
        x.getType().getShape() == ArrayRef<int64_t>(*shape)
            ? x
            : foldBroadcast(x, *shape);
    if (!whole)
      return {}; // Too large.
    values.push_back(scalarsOf(whole));
  }
  int64_t count = values[0].size();
  if (count > kMaxFoldedElements)
    return {};
  SmallVector<Scalar> out, args(arity);
  out.reserve(count);
  for (int64_t n = 0; n < count; ++n) {
    for (size_t k = 0; k < arity; ++k)
      args[k] = values[k][n];
    std::optional<Scalar> v = apply(kind, args, element);
    if (!v)
      return {};
    out.push_back(*v);
  }
  return elementsOf(RankedTensorType::get(*shape, result), out);
}

DenseElementsAttr mlir::oneflow::foldCast(DenseElementsAttr x,
                                          Type elementType) {
  if (!x || !elementType.isIntOrFloat())
    return {};
  if (x.getElementType() == elementType)
    return x;
  if (x.getNumElements() > kMaxFoldedElements)
    return {};
  auto type = RankedTensorType::get(x.getType().getShape(), elementType);
  bool fromFloat = isa<FloatType>(x.getElementType());
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    if (fromFloat) // Exact in double, then rounded once.
      return elementsOf(type, scalarsOf(x));
    // From integers: rounded once, also above 2^53.
    bool boolean = x.getElementType().isInteger(1) ||
                   x.getElementType().isUnsignedInteger();
    SmallVector<APFloat> out;
    for (const APInt &v : x.getValues<APInt>()) {
      APFloat f(floatType.getFloatSemantics());
      f.convertFromAPInt(v, /*IsSigned=*/!boolean,
                         APFloat::rmNearestTiesToEven);
      out.push_back(f);
    }
    return DenseElementsAttr::get(type, out);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<Scalar> values = scalarsOf(x);
  if (fromFloat) {
    for (Scalar &v : values) {
      if (width == 1) {
        v.i = v.f != 0;
        continue;
      }
      double t = std::trunc(v.f);
      if (!std::isfinite(t) || t < -std::ldexp(1.0, width - 1) ||
          t >= std::ldexp(1.0, width - 1))
        return {};
      v.i = static_cast<int64_t>(t);
    }
  }
  return elementsOf(type, values);
}

DenseElementsAttr mlir::oneflow::denseOfDoubles(RankedTensorType type,
                                                ArrayRef<double> values) {
  auto floatType = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> out;
  out.reserve(values.size());
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    out.push_back(f);
  }
  return DenseElementsAttr::get(type, out);
}

DenseElementsAttr mlir::oneflow::denseOfInts(RankedTensorType type,
                                             ArrayRef<int64_t> values) {
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  out.reserve(values.size());
  for (int64_t v : values)
    out.push_back(width == 1 ? APInt(1, v != 0)
                             : APInt(width, static_cast<uint64_t>(v),
                                     /*isSigned=*/true,
                                     /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, out);
}

//===----------------------------------------------------------------------===//
// Fold hooks
//===----------------------------------------------------------------------===//

OpFoldResult mlir::oneflow::foldElementwiseOp(Operation *op,
                                              ArrayRef<Attribute> operands) {
  using K = ElementwiseFold;
  std::optional<K> kind =
      llvm::TypeSwitch<Operation *, std::optional<K>>(op)
          .Case([](AddOp) { return K::add; })
          .Case([](SubOp) { return K::sub; })
          .Case([](MulOp) { return K::mul; })
          .Case([](DivOp) { return K::div; })
          .Case([](PowOp) { return K::pow; })
          .Case([](MaximumOp) { return K::maximum; })
          .Case([](MinimumOp) { return K::minimum; })
          .Case([](EqualOp) { return K::equal; })
          .Case([](NotEqualOp) { return K::notEqual; })
          .Case([](LessOp) { return K::less; })
          .Case([](LessEqualOp) { return K::lessEqual; })
          .Case([](GreaterOp) { return K::greater; })
          .Case([](GreaterEqualOp) { return K::greaterEqual; })
          .Case([](LogicalAndOp) { return K::logicalAnd; })
          .Case([](LogicalOrOp) { return K::logicalOr; })
          .Case([](LogicalXorOp) { return K::logicalXor; })
          .Case([](NegOp) { return K::neg; })
          .Case([](WhereOp) { return K::where; })
          .Default(std::optional<K>());
  Type result = op->getResult(0).getType();
  SmallVector<DenseElementsAttr> values;
  for (Attribute operand : operands)
    values.push_back(constantFoldOperand(operand, result));
  if (!kind || llvm::is_contained(values, nullptr))
    return {};
  DenseElementsAttr folded = foldElementwise(*kind, values);
  if (!folded || folded.getType() != result)
    return {};
  return folded;
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldElementwiseOp(*this, adaptor.getOperands());
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  return foldElementwiseOp(*this, adaptor.getOperands());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  // Unsigned types are for a program's edges: no constant holds them.
  if (getElementTypeOrSelf(getType()).isUnsignedInteger())
    return {};
  DenseElementsAttr x = constantFoldOperand(adaptor.getX(), getType());
  if (!x)
    return {};
  return foldCast(x, getElementTypeOrSelf(getType()));
}

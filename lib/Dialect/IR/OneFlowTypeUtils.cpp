//===- OneFlowTypeUtils.cpp - Shape inference helpers ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::oneflow;

RankedTensorType mlir::oneflow::stripEncoding(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

bool mlir::oneflow::areCompatibleLogicalTypes(TypeRange inferred,
                                              TypeRange declared) {
  if (inferred.size() != declared.size())
    return false;
  for (auto [lhs, rhs] : llvm::zip(inferred, declared)) {
    auto l = dyn_cast<RankedTensorType>(lhs);
    auto r = dyn_cast<RankedTensorType>(rhs);
    if (!l || !r) {
      if (lhs != rhs)
        return false;
      continue;
    }
    if (l.getElementType() != r.getElementType() ||
        failed(verifyCompatibleShape(l.getShape(), r.getShape())))
      return false;
  }
  return true;
}

std::string mlir::oneflow::formatDouble(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

InFlightDiagnostic mlir::oneflow::emitInferError(std::optional<Location> loc,
                                                 StringRef opName) {
  if (!loc)
    return InFlightDiagnostic();
  return mlir::emitError(*loc) << "'" << opName << "' op ";
}

LogicalResult mlir::oneflow::checkAxis(std::optional<Location> loc,
                                       StringRef opName, StringRef what,
                                       int64_t axis, int64_t rank) {
  if (axis >= -rank && axis < rank)
    return success();
  return emitInferError(loc, opName)
         << what << " " << axis << " is out of range for rank-" << rank
         << " tensor";
}

/// Prints a shape as `4x?x8` (or `scalar`).
static std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return s;
}

LogicalResult mlir::oneflow::broadcastShapes(std::optional<Location> loc,
                                             StringRef opName,
                                             ArrayRef<RankedTensorType> types,
                                             SmallVectorImpl<int64_t> &shape) {
  int64_t rank = 0;
  for (RankedTensorType t : types)
    rank = std::max(rank, t.getRank());
  shape.assign(rank, 1);
  for (RankedTensorType t : types) {
    int64_t offset = rank - t.getRank();
    for (auto [i, dim] : llvm::enumerate(t.getShape())) {
      int64_t &out = shape[offset + i];
      if (dim == 1)
        continue;
      if (out == 1 || ShapedType::isDynamic(out)) {
        // A dynamic result dim stays dynamic only if nothing static fixes it.
        if (out == 1 || !ShapedType::isDynamic(dim))
          out = dim;
        continue;
      }
      if (ShapedType::isDynamic(dim) || dim == out)
        continue;
      auto diag = emitInferError(loc, opName) << "cannot broadcast shapes";
      for (RankedTensorType each : types)
        diag << " " << shapeStr(each.getShape());
      return diag;
    }
  }
  return success();
}

LogicalResult mlir::oneflow::inferBroadcastBinary(
    std::optional<Location> loc, StringRef opName, Type lhs, Type rhs,
    bool isComparison, SmallVectorImpl<Type> &types) {
  auto l = cast<RankedTensorType>(lhs);
  auto r = cast<RankedTensorType>(rhs);
  if (l.getElementType() != r.getElementType())
    return emitInferError(loc, opName)
           << "operands have different element types " << l.getElementType()
           << " and " << r.getElementType();
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, opName, {l, r}, shape)))
    return failure();
  Type element =
      isComparison ? IntegerType::get(lhs.getContext(), 1) : l.getElementType();
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult mlir::oneflow::inferReduce(std::optional<Location> loc,
                                         StringRef opName, Type input,
                                         ArrayRef<int64_t> axes, bool keepDims,
                                         SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(input);
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (failed(checkAxis(loc, opName, "reduction axis", axis, rank)))
      return failure();
    int64_t a = normalizeAxis(axis, rank);
    if (reduced[a])
      return emitInferError(loc, opName)
             << "reduction axis " << axis << " is listed twice";
    reduced[a] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(type.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult mlir::oneflow::inferArgReduce(std::optional<Location> loc,
                                            StringRef opName, Type input,
                                            int64_t axis, bool keepDims,
                                            SmallVectorImpl<Type> &types) {
  SmallVector<Type> reduced;
  if (failed(inferReduce(loc, opName, input, {axis}, keepDims, reduced)))
    return failure();
  auto shape = cast<RankedTensorType>(reduced.front()).getShape();
  types.push_back(
      RankedTensorType::get(shape, IntegerType::get(input.getContext(), 64)));
  return success();
}

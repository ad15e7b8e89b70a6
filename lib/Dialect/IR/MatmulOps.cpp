//===- MatmulOps.cpp - Matrix products ------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Whether two dimensions may be equal (either dynamic, or both the same).
static bool dimsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Infers the (rows, cols) of a matrix product from the last two axes of
/// `a` and `b`, checking the contraction sizes.
static LogicalResult inferMatrixDims(std::optional<Location> loc,
                                     StringRef opName, RankedTensorType a,
                                     RankedTensorType b, bool transposeA,
                                     bool transposeB, int64_t &m, int64_t &n) {
  int64_t ra = a.getRank(), rb = b.getRank();
  int64_t aRows = a.getDimSize(ra - 2), aCols = a.getDimSize(ra - 1);
  int64_t bRows = b.getDimSize(rb - 2), bCols = b.getDimSize(rb - 1);
  m = transposeA ? aCols : aRows;
  int64_t ka = transposeA ? aRows : aCols;
  int64_t kb = transposeB ? bCols : bRows;
  n = transposeB ? bRows : bCols;
  if (!dimsAgree(ka, kb))
    return emitInferError(loc, opName)
           << "contraction sizes differ: " << ka << " (a) and " << kb << " (b)";
  return success();
}

/// The (m, n) result of a 2-D product of `a` and `b` (matmul, matmul_bias:
/// their adaptors).
template <typename Adaptor>
static FailureOr<RankedTensorType>
inferMatrixProduct(std::optional<Location> loc, StringRef opName,
                   Adaptor adaptor) {
  auto a = cast<RankedTensorType>(adaptor.getA().getType());
  auto b = cast<RankedTensorType>(adaptor.getB().getType());
  bool transposeA = adaptor.getTransposeA(),
       transposeB = adaptor.getTransposeB();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitInferError(loc, opName)
           << "operands must be matrices, got ranks " << a.getRank() << " and "
           << b.getRank() << " (use batch_matmul for batches)";
  if (a.getElementType() != b.getElementType())
    return emitInferError(loc, opName)
           << "operands have different element types " << a.getElementType()
           << " and " << b.getElementType();
  int64_t m, n;
  if (failed(inferMatrixDims(loc, opName, a, b, transposeA, transposeB, m, n)))
    return failure();
  return RankedTensorType::get({m, n}, a.getElementType());
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> result =
      inferMatrixProduct(loc, getOperationName(), adaptor);
  if (failed(result))
    return failure();
  types.push_back(*result);
  return success();
}

LogicalResult MatmulBiasOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> result =
      inferMatrixProduct(loc, getOperationName(), adaptor);
  if (failed(result))
    return failure();
  auto bias = stripEncoding(adaptor.getBias().getType());
  auto want = RankedTensorType::get({result->getDimSize(1)},
                                    result->getElementType());
  if (bias.getElementType() != want.getElementType() ||
      failed(verifyCompatibleShape(bias, want)))
    return emitInferError(loc, getOperationName())
           << "bias " << bias << " must be " << want
           << " (one value per column of the result)";
  types.push_back(*result);
  return success();
}

LogicalResult BatchMatmulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto a = cast<RankedTensorType>(adaptor.getA().getType());
  auto b = cast<RankedTensorType>(adaptor.getB().getType());
  if (a.getRank() < 2 || b.getRank() < 2 ||
      std::max(a.getRank(), b.getRank()) < 3)
    return emitInferError(loc, getOperationName())
           << "needs operands of rank 2 or more, at least one with batch "
              "axes; got ranks "
           << a.getRank() << " and " << b.getRank();
  if (a.getElementType() != b.getElementType())
    return emitInferError(loc, getOperationName())
           << "operands have different element types " << a.getElementType()
           << " and " << b.getElementType();
  if (std::optional<APFloat> alpha = adaptor.getAlpha();
      alpha && !alpha->isFinite())
    return emitInferError(loc, getOperationName())
           << "alpha must be finite, got " << alpha->convertToDouble();
  int64_t m, n;
  if (failed(inferMatrixDims(loc, getOperationName(), a, b,
                             adaptor.getTransposeA(), adaptor.getTransposeB(),
                             m, n)))
    return failure();
  auto batchOf = [](RankedTensorType t) {
    return RankedTensorType::get(t.getShape().drop_back(2), t.getElementType());
  };
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, getOperationName(), {batchOf(a), batchOf(b)},
                             shape)))
    return failure();
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

/// Maps the last two axes of operand `index` to (rows, cols), swapped when
/// `transposed`.
static void mapMatrixAxes(SbpDims &dims, unsigned index, int64_t rank,
                          int64_t rows, int64_t cols, bool transposed) {
  dims.mapOperandAxis(index, rank - 2, transposed ? cols : rows);
  dims.mapOperandAxis(index, rank - 1, transposed ? rows : cols);
}

/// Adds m, n (parallel) and k (reduction) after the batch dimensions, maps
/// the matrix axes of both operands and of the result, and lets P pass
/// through either operand while the other is B (OneFlow's five rows).
template <typename OpTy>
static void deriveMatmulSbp(OpTy op, SbpDims &dims, int64_t meshAxisSize,
                            SmallVectorImpl<SbpSignature> &signatures) {
  int64_t ra = cast<RankedTensorType>(op.getA().getType()).getRank();
  int64_t rb = cast<RankedTensorType>(op.getB().getType()).getRank();
  int64_t rc = cast<RankedTensorType>(op.getType()).getRank();
  int64_t m = dims.addDim(SbpDimKind::parallel);
  int64_t n = dims.addDim(SbpDimKind::parallel);
  int64_t k = dims.addDim(SbpDimKind::reduction);
  mapMatrixAxes(dims, 0, ra, m, k, op.getTransposeA());
  mapMatrixAxes(dims, 1, rb, k, n, op.getTransposeB());
  dims.mapResultAxis(0, rc - 2, m);
  dims.mapResultAxis(0, rc - 1, n);
  dims.addPartials("PB,BP");
  dims.derive(meshAxisSize, signatures);
}

void MatmulOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(*this);
  deriveMatmulSbp(*this, dims, meshAxisSize, signatures);
}

void MatmulBiasOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // matmul's rows and columns, the bias along the columns; k stays whole
  // and nothing is partial (the bias would be added once per piece).
  SbpDims dims(*this);
  int64_t m = dims.addDim(SbpDimKind::parallel);
  int64_t n = dims.addDim(SbpDimKind::parallel);
  int64_t k = dims.addDim(SbpDimKind::broadcastOnly);
  mapMatrixAxes(dims, 0, 2, m, k, getTransposeA());
  mapMatrixAxes(dims, 1, 2, k, n, getTransposeB());
  dims.mapOperandAxis(2, 0, n);
  dims.mapResultAxis(0, 0, m);
  dims.mapResultAxis(0, 1, n);
  dims.derive(meshAxisSize, signatures);
}

void BatchMatmulOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // Batch axes broadcast numpy-style: an operand's size-1 (or missing) batch
  // axis is B when the result's is split.
  SbpDims dims(*this);
  auto result = cast<RankedTensorType>(getType());
  int64_t batchRank = result.getRank() - 2;
  for (int64_t axis = 0; axis < batchRank; ++axis) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapResultAxis(0, axis, dim);
    for (auto [index, value] : llvm::enumerate(getOperands())) {
      auto type = cast<RankedTensorType>(value.getType());
      int64_t aligned = axis - (result.getRank() - type.getRank());
      if (aligned < 0 ||
          (type.getDimSize(aligned) == 1 && result.getDimSize(axis) != 1))
        continue;
      dims.mapOperandAxis(index, aligned, dim);
    }
  }
  deriveMatmulSbp(*this, dims, meshAxisSize, signatures);
}

//===- Pieces.cpp - Pieces of logical tensors -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Pieces.h"

#include <cstring>

using namespace ofrt;

namespace {

/// Calls row(srcOffset, dstOffset, count) for every innermost row of the
/// box, with offsets and count in elements.
template <typename Row>
void forEachRow(const std::vector<int64_t> &srcShape,
                const std::vector<int64_t> &srcBegin,
                const std::vector<int64_t> &dstShape,
                const std::vector<int64_t> &dstBegin,
                const std::vector<int64_t> &size, Row &&row) {
  size_t rank = size.size();
  for (int64_t dim : size)
    if (dim == 0)
      return;
  if (rank == 0) {
    row(0, 0, 1);
    return;
  }
  std::vector<int64_t> srcStrides(rank, 1), dstStrides(rank, 1);
  for (size_t d = rank; d-- > 1;) {
    srcStrides[d - 1] = srcStrides[d] * srcShape[d];
    dstStrides[d - 1] = dstStrides[d] * dstShape[d];
  }
  int64_t src = 0, dst = 0;
  for (size_t d = 0; d < rank; ++d) {
    src += srcBegin[d] * srcStrides[d];
    dst += dstBegin[d] * dstStrides[d];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t inner = size[rank - 1];
  while (true) {
    row(src, dst, inner);
    size_t d = rank - 1;
    while (d-- > 0) {
      if (++index[d] < size[d]) {
        src += srcStrides[d];
        dst += dstStrides[d];
        break;
      }
      src -= srcStrides[d] * (size[d] - 1);
      dst -= dstStrides[d] * (size[d] - 1);
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

template <typename T>
void addRows(const TensorView &src, const std::vector<int64_t> &srcBegin,
             const TensorView &dst, const std::vector<int64_t> &dstBegin,
             const std::vector<int64_t> &size) {
  const T *in = src.as<const T>();
  T *out = dst.as<T>();
  forEachRow(src.desc.shape, srcBegin, dst.desc.shape, dstBegin, size,
             [&](int64_t s, int64_t d, int64_t n) {
               for (int64_t i = 0; i < n; ++i)
                 out[d + i] += in[s + i];
             });
}

} // namespace

void ofrt::copyBox(const TensorView &src, const std::vector<int64_t> &srcBegin,
                   const TensorView &dst, const std::vector<int64_t> &dstBegin,
                   const std::vector<int64_t> &size) {
  size_t elem = dtypeSize(src.desc.dtype);
  const auto *in = static_cast<const uint8_t *>(src.data);
  auto *out = static_cast<uint8_t *>(dst.data);
  forEachRow(src.desc.shape, srcBegin, dst.desc.shape, dstBegin, size,
             [&](int64_t s, int64_t d, int64_t n) {
               std::memcpy(out + d * elem, in + s * elem, n * elem);
             });
}

absl::Status ofrt::addBox(const TensorView &src,
                          const std::vector<int64_t> &srcBegin,
                          const TensorView &dst,
                          const std::vector<int64_t> &dstBegin,
                          const std::vector<int64_t> &size) {
  switch (src.desc.dtype) {
  case DType::F32:
    addRows<float>(src, srcBegin, dst, dstBegin, size);
    return absl::OkStatus();
  case DType::F64:
    addRows<double>(src, srcBegin, dst, dstBegin, size);
    return absl::OkStatus();
  case DType::I32:
    addRows<int32_t>(src, srcBegin, dst, dstBegin, size);
    return absl::OkStatus();
  case DType::I64:
    addRows<int64_t>(src, srcBegin, dst, dstBegin, size);
    return absl::OkStatus();
  default:
    return absl::UnimplementedError(std::string("cannot sum ") +
                                    dtypeName(src.desc.dtype) +
                                    " pieces (f32, f64, i32, i64 only)");
  }
}

absl::StatusOr<PieceLayout>
ofrt::readPieceLayout(const OpDesc &op, const std::vector<int64_t> &local) {
  auto bad = [&](const std::string &message) {
    return absl::InvalidArgumentError(op.where() + ": " + message);
  };
  PieceLayout layout;
  if (const PieceLayout *piece = op.layoutAs<PieceLayout>())
    layout = *piece;
  else if (const SinkLayout *sink = op.layoutAs<SinkLayout>())
    layout = sink->piece;
  else
    layout = {local, std::vector<int64_t>(local.size(), 0), false};
  auto str = [](const std::vector<int64_t> &v) {
    std::string text = "[";
    for (size_t i = 0; i < v.size(); ++i)
      text += (i ? ", " : "") + std::to_string(v[i]);
    return text + "]";
  };
  if (layout.logicalShape.size() != local.size() ||
      layout.begin.size() != local.size())
    return bad("the logical shape " + str(layout.logicalShape) +
               " and piece begin " + str(layout.begin) +
               " must have one entry per axis of its " + str(local) +
               " piece");
  for (size_t d = 0; d < local.size(); ++d)
    if (layout.begin[d] < 0 ||
        layout.begin[d] + local[d] > layout.logicalShape[d])
      return bad("its " + str(local) + " piece at " + str(layout.begin) +
                 " does not fit in the logical shape " +
                 str(layout.logicalShape));
  return layout;
}

absl::StatusOr<OutputPiece> ofrt::readOutputPiece(const OpDesc &op,
                                                  int64_t rank) {
  OutputPiece piece;
  const std::vector<int64_t> &local =
      op.inputs.empty() ? std::vector<int64_t>() : op.inputs[0].shape;
  absl::StatusOr<PieceLayout> layout = readPieceLayout(op, local);
  if (!layout.ok())
    return layout.status();
  piece.layout = std::move(*layout);
  if (const SinkLayout *sink = op.layoutAs<SinkLayout>()) {
    piece.partial = sink->partial;
    piece.primary = sink->primary;
  } else {
    piece.partial = false;
    piece.primary = rank == 0;
  }
  return piece;
}

absl::StatusOr<TensorData>
ofrt::assemblePieces(const std::string &name,
                     const std::vector<OutputPiece> &pieces) {
  const OutputPiece *first = nullptr;
  for (const OutputPiece &piece : pieces)
    if (piece.primary && !first)
      first = &piece;
  if (!first)
    return absl::InvalidArgumentError("output '" + name +
                                      "' has no primary piece on any rank");
  TensorData result;
  result.desc = {first->value.desc.dtype, first->layout.logicalShape};
  result.bytes.assign(result.desc.bytes(), 0);
  int64_t covered = 0;
  for (const OutputPiece &piece : pieces) {
    if (!piece.primary)
      continue;
    if (piece.layout.logicalShape != result.desc.shape ||
        piece.value.desc.dtype != result.desc.dtype ||
        piece.partial != first->partial)
      return absl::InvalidArgumentError(
          "output '" + name + "' has pieces of different logical types (" +
          result.desc.str() + " and " +
          TensorDesc{piece.value.desc.dtype, piece.layout.logicalShape}.str() +
          ") or both partial and non-partial pieces");
    if (piece.value.bytes.size() != piece.value.desc.bytes()) {
      // Never computed (the run ended before the output's first step).
      result.bytes.clear();
      return result;
    }
    TensorView src{const_cast<uint8_t *>(piece.value.bytes.data()),
                   piece.value.desc};
    std::vector<int64_t> origin(src.desc.rank(), 0);
    if (piece.partial) {
      if (absl::Status s = addBox(src, origin, result.view(),
                                  piece.layout.begin, src.desc.shape);
          !s.ok())
        return absl::InvalidArgumentError("output '" + name +
                                          "': " + std::string(s.message()));
    } else {
      copyBox(src, origin, result.view(), piece.layout.begin, src.desc.shape);
      covered += src.desc.numel();
    }
  }
  if (!first->partial && covered != result.desc.numel())
    return absl::InvalidArgumentError(
        "output '" + name + "': its primary pieces hold " +
        std::to_string(covered) + " elements but the logical " +
        result.desc.str() + " has " + std::to_string(result.desc.numel()));
  return result;
}

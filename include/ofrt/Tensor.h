//===- Tensor.h - Element types, tensor descriptions and views --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The runtime's view of tensors: an element type, a static shape, and a
// non-owning pointer into a regst buffer. No MLIR here (the runtime never
// includes MLIR; the plan schema is the contract with the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_TENSOR_H
#define OFRT_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ofrt {

/// Element types. Bool is one byte per element (0 or 1).
/// U8, U16, U32, U64 and I16 are for values at a program's edges (image
/// data, ONNX's unsigned and 16-bit integers read from or written to .npy);
/// the compiler casts them to a computing type there.
enum class DType {
  F32,
  F64,
  F16,
  BF16,
  I8,
  I32,
  I64,
  Bool,
  U8,
  I16,
  U16,
  U32,
  U64
};

/// Bytes per element.
size_t dtypeSize(DType dtype);
/// "f32", "i64", "i1" (MLIR spelling).
const char *dtypeName(DType dtype);
bool isFloat(DType dtype);

/// Element `index` of `data` (elements of `dtype`) as a double, for
/// printing and comparing values.
double loadElement(DType dtype, const void *data, int64_t index);

/// The most bytes one tensor may hold (2^48, 256 TiB; the compiler's
/// verifier has the same bound), so that sizes, offsets and their sums
/// never overflow.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// An element type and a static row-major shape.
struct TensorDesc {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  int64_t numel() const;
  size_t bytes() const { return numel() * dtypeSize(dtype); }
  /// The byte size, or -1 when it overflows or exceeds kMaxTensorBytes
  /// (plans from elsewhere are checked with it before bytes() is used).
  int64_t checkedBytes() const;
  int64_t rank() const { return shape.size(); }
  /// "8x16xf32".
  std::string str() const;
  bool operator==(const TensorDesc &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorDesc &other) const { return !(*this == other); }
};

/// A dense row-major tensor in memory someone else owns.
struct TensorView {
  void *data = nullptr;
  TensorDesc desc;

  template <typename T> T *as() const { return static_cast<T *>(data); }
};

/// A tensor that owns its bytes (constants, variable values, test data).
struct TensorData {
  TensorDesc desc;
  std::vector<uint8_t> bytes;

  TensorView view() { return {bytes.data(), desc}; }
};

} // namespace ofrt

#endif // OFRT_TENSOR_H

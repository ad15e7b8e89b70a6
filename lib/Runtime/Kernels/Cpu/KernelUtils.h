//===- KernelUtils.h - Validation and plain-code helpers --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Shared by the CPU kernels: errors that name the op, attribute readers that
// apply the dialect's defaults and reject mistyped values, shape checks,
// numpy broadcasting, and element-type dispatch for the plain-code paths.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_KERNELUTILS_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_KERNELUTILS_H

#include "Kernels/Common/ElementwiseFunctions.h"
#include "ofrt/Kernel.h"
#include "ofrt/KernelChecks.h"
#include "ofrt/Status.h"

#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ofrt {
namespace cpu {

using Shape = std::vector<int64_t>;
using ofrt::checkArity;
using ofrt::checkResult;
using ofrt::opError;
using ofrt::readAttr;
using ofrt::shapeStr;

int64_t numel(const Shape &shape);
Shape rowMajorStrides(const Shape &shape);

/// Normalizes `axis` of a rank-`rank` tensor (negative counts from the end).
absl::Status normalizeAxis(const OpDesc &op, const std::string &what,
                           int64_t axis, int64_t rank, int64_t &out);

/// The numpy broadcast of `shapes`, or nullopt when they do not broadcast.
std::optional<Shape> broadcastShapes(const std::vector<Shape> &shapes);
/// Strides (in elements) that read `in` as if broadcast to `out` (0 along
/// broadcast axes, missing leading axes included).
Shape broadcastStrides(const Shape &in, const Shape &out);
/// `shape` with leading 1s up to `rank`.
Shape padShape(const Shape &shape, size_t rank);

/// Calls body(offsets) for every element of `shape`, in row-major order,
/// with the offsets of N operands whose strides are `strides`.
template <size_t N, typename Body>
void forEachIndex(const Shape &shape, const std::array<Shape, N> &strides,
                  Body &&body) {
  int64_t total = numel(shape);
  if (total == 0)
    return;
  size_t rank = shape.size();
  if (rank == 0) {
    std::array<int64_t, N> offsets{};
    body(offsets);
    return;
  }
  int64_t inner = shape[rank - 1];
  std::array<int64_t, N> innerStride;
  for (size_t k = 0; k < N; ++k)
    innerStride[k] = strides[k][rank - 1];
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> base{};
  for (int64_t done = 0; done < total; done += inner) {
    std::array<int64_t, N> offsets = base;
    for (int64_t j = 0; j < inner; ++j) {
      body(offsets);
      for (size_t k = 0; k < N; ++k)
        offsets[k] += innerStride[k];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k)
          base[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        base[k] -= strides[k][d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

/// Writes `src` of `srcShape`, broadcast to `outShape`, densely into `dst`
/// (elements of `elemSize` bytes: 1, 2, 4 or 8).
void broadcastCopy(const void *src, const Shape &srcShape, void *dst,
                   const Shape &outShape, size_t elemSize);

/// A type for element-type dispatch.
template <typename T> struct TypeTag { using type = T; };
/// Calls f(TypeTag<T>()) for the plain-code types F32, F64, I8, I32, I64,
/// Bool and U8 (both as uint8_t) and returns true; false for other types.
template <typename F> bool visitPlainType(DType dtype, F &&f) {
  switch (dtype) {
  case DType::F32:
    f(TypeTag<float>());
    return true;
  case DType::F64:
    f(TypeTag<double>());
    return true;
  case DType::I8:
    f(TypeTag<int8_t>());
    return true;
  case DType::I32:
    f(TypeTag<int32_t>());
    return true;
  case DType::I64:
    f(TypeTag<int64_t>());
    return true;
  case DType::Bool:
  case DType::U8:
    f(TypeTag<uint8_t>());
    return true;
  default:
    return false;
  }
}

/// Converts a double to an element of `dtype` (saturating for integers,
/// nonzero -> 1 for Bool), F16/BF16 excluded.
template <typename T> T fromDouble(double value, bool isBool = false) {
  if (isBool)
    return value != 0.0 ? 1 : 0;
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else {
    return elementwise::saturate<T>(value);
  }
}

/// Writes `values` as elements of `dtype` into `out` (numel of them).
/// F16/BF16 go through a oneDNN reorder from f32. Error if unsupported.
absl::Status storeValues(const std::vector<double> &values, DType dtype,
                         uint8_t *out);

/// A kernel that keeps the op's description for messages.
class CpuKernel : public Kernel {
public:
  explicit CpuKernel(const OpDesc &op) : where(op.where()) {}

protected:
  std::string where;
};

/// Checks that the int list attribute `name` has `size` values of at least
/// `min` (window sizes, strides, pads).
absl::Status checkList(const OpDesc &op, const std::string &name,
                       const std::vector<int64_t> &values, size_t size,
                       int64_t min);

/// A kernel that copies its operand's bytes to its result (reshapes, and
/// ops that leave their operand unchanged).
class CopyKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (out[0].data != in[0].data)
      std::memcpy(out[0].data, in[0].data, out[0].desc.bytes());
    return absl::OkStatus();
  }
};

/// A kernel that does nothing (zero-sized results).
class NoopKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &) override {
    return absl::OkStatus();
  }
};

using KernelOr = absl::StatusOr<std::unique_ptr<Kernel>>;

/// Kernels whose operands and results together take at most this many
/// bytes are created and run on one OpenMP thread: forking a team for them
/// costs more than it saves (PyTorch's parallel_for grain is 32,768
/// elements, 128 KiB of floats).
constexpr size_t kOneThreadMaxBytes = 128 * 1024;
/// Whether the kernel of `op` runs on one thread (kOneThreadMaxBytes).
bool runsOnOneThread(const OpDesc &op);

/// Registers `factory` for CPU, turning oneDNN and other exceptions thrown
/// while the kernel is created into errors that name the op; kernels of few
/// bytes are created and run on one OpenMP thread.
void addKernel(KernelRegistry &registry, const std::string &type,
               KernelFactory factory);

} // namespace cpu
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_KERNELUTILS_H

//===- KernelTestUtils.h - Building and running CPU kernels in tests
//-------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Tensors from double values, an OpDesc builder, and a runner that creates a
// kernel from the CPU registry, poisons its results and computes them.
// Expected values in the tests come from naive loops written there, never
// from oneDNN.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_KERNELS_KERNELTESTUTILS_H
#define ONEFLOW_UNITTESTS_RUNTIME_KERNELS_KERNELTESTUTILS_H

#include "../TestRoles.h"
#include "ofrt/Kernel.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

namespace ofrt {
namespace test {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

inline int64_t count(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A tensor of `dtype` and `shape` holding `values` (converted).
inline TensorData tensor(DType dtype, const Shape &shape,
                         const Values &values) {
  TensorData t;
  t.desc = {dtype, shape};
  t.bytes.assign(t.desc.bytes(), 0);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.desc.numel())
      << "test bug: wrong number of values for " << t.desc.str();
  for (size_t i = 0; i < values.size() && i < size_t(t.desc.numel()); ++i) {
    double v = values[i];
    uint8_t *p = t.bytes.data() + i * dtypeSize(dtype);
    switch (dtype) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(p, &v, 8);
      break;
    case DType::I8: {
      int8_t x = static_cast<int8_t>(v);
      std::memcpy(p, &x, 1);
      break;
    }
    case DType::I32: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::I64: {
      int64_t x = static_cast<int64_t>(v);
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::Bool:
      *p = v != 0;
      break;
    case DType::BF16: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t half = static_cast<uint16_t>(bits >> 16); // exact for tests
      std::memcpy(p, &half, 2);
      break;
    }
    default:
      ADD_FAILURE() << "test bug: no test conversion for " << dtypeName(dtype);
    }
  }
  return t;
}

inline TensorData f32(const Shape &shape, const Values &values) {
  return tensor(DType::F32, shape, values);
}

/// The elements of `t` as doubles.
inline Values values(const TensorData &t) {
  Values out(t.desc.numel());
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t *p = t.bytes.data() + i * dtypeSize(t.desc.dtype);
    switch (t.desc.dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = f;
      break;
    }
    case DType::F64:
      std::memcpy(&out[i], p, 8);
      break;
    case DType::I8:
      out[i] = *reinterpret_cast<const int8_t *>(p);
      break;
    case DType::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      out[i] = x;
      break;
    }
    case DType::I64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      out[i] = static_cast<double>(x);
      break;
    }
    case DType::Bool:
      out[i] = *p;
      break;
    case DType::BF16: {
      uint16_t half;
      std::memcpy(&half, p, 2);
      uint32_t bits = uint32_t(half) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out[i] = f;
      break;
    }
    default:
      ADD_FAILURE() << "test bug: no test conversion for "
                    << dtypeName(t.desc.dtype);
    }
  }
  return out;
}

/// `n` uniform values in [lo, hi), reproducible from `seed`.
inline Values randomValues(int64_t n, unsigned seed, double lo = -1.0,
                           double hi = 1.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(n);
  for (double &x : v)
    x = static_cast<float>(dist(gen)); // exactly representable in f32
  return v;
}

/// `n` integers in [lo, hi], reproducible from `seed`.
inline Values randomInts(int64_t n, unsigned seed, int64_t lo, int64_t hi) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  Values v(n);
  for (double &x : v)
    x = static_cast<double>(dist(gen));
  return v;
}

/// An OpDesc of type "oneflow.<name>", with the role the compiler gives it.
inline OpDesc op(const std::string &name, std::vector<TensorDesc> inputs,
                 std::vector<TensorDesc> outputs,
                 std::map<std::string, AttrValue> attrs = {}) {
  OpDesc desc;
  desc.type = "oneflow." + name;
  desc.role = oftest::roleOf(desc.type);
  desc.inputs = std::move(inputs);
  desc.outputs = std::move(outputs);
  desc.attrs = std::move(attrs);
  desc.name = "test_" + name;
  desc.location = "test.mlir:1:1";
  return desc;
}

inline std::vector<TensorDesc> descs(const std::vector<TensorData> &tensors) {
  std::vector<TensorDesc> out;
  for (const TensorData &t : tensors)
    out.push_back(t.desc);
  return out;
}

inline const KernelRegistry &registry() { return KernelRegistry::global(); }

inline absl::StatusOr<std::unique_ptr<Kernel>> create(const OpDesc &desc) {
  return registry().create(DeviceKind::Cpu, desc);
}

/// Computes with an existing kernel; results start as 0xA5 garbage so that
/// unwritten elements show.
inline absl::StatusOr<std::vector<TensorData>>
compute(Kernel &kernel, const OpDesc &desc, std::vector<TensorData> inputs,
        int64_t step = 0) {
  std::vector<TensorView> in, out;
  for (TensorData &t : inputs)
    in.push_back(t.view());
  std::vector<TensorData> results(desc.outputs.size());
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].desc = desc.outputs[i];
    results[i].bytes.assign(results[i].desc.bytes(), 0xA5);
    out.push_back(results[i].view());
  }
  KernelContext context;
  context.step = step;
  absl::Status status = kernel.compute(context, in, out);
  if (!status.ok())
    return status;
  return results;
}

/// Creates the kernel for `desc` and computes it once.
inline absl::StatusOr<std::vector<TensorData>>
run(const OpDesc &desc, std::vector<TensorData> inputs, int64_t step = 0) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
  if (!kernel.ok())
    return kernel.status();
  return compute(**kernel, desc, std::move(inputs), step);
}

/// Runs `name` on `inputs` with results `outputs` and returns the results,
/// failing the test on an error.
inline std::vector<TensorData>
runOk(const std::string &name, std::vector<TensorData> inputs,
      std::vector<TensorDesc> outputs,
      std::map<std::string, AttrValue> attrs = {}) {
  OpDesc desc = op(name, descs(inputs), std::move(outputs), std::move(attrs));
  absl::StatusOr<std::vector<TensorData>> results = run(desc, inputs);
  EXPECT_TRUE(results.ok()) << results.status();
  if (!results.ok()) {
    // Zeros of the results' types and shapes: the test's comparisons then
    // fail instead of reading past empty buffers.
    std::vector<TensorData> zeros;
    for (const TensorDesc &out : desc.outputs)
      zeros.push_back({out, std::vector<uint8_t>(out.bytes(), 0)});
    return zeros;
  }
  return *results;
}

/// Element-wise |actual - expected| <= atol + rtol * |expected|; NaNs match
/// NaNs and infinities match infinities of the same sign.
inline ::testing::AssertionResult near(const Values &actual,
                                       const Values &expected,
                                       double atol = 1e-5, double rtol = 1e-5) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " vs " << expected.size();
  int failures = 0;
  auto result = ::testing::AssertionSuccess();
  for (size_t i = 0; i < actual.size(); ++i) {
    double a = actual[i], e = expected[i];
    bool ok;
    if (std::isnan(e))
      ok = std::isnan(a);
    else if (std::isinf(e))
      ok = a == e;
    else
      ok = std::abs(a - e) <= atol + rtol * std::abs(e);
    if (!ok && failures++ < 8) {
      if (failures == 1)
        result = ::testing::AssertionFailure();
      result << "\n  [" << i << "] got " << a << ", expected " << e;
    }
  }
  if (failures > 8)
    result << "\n  ... " << failures << " mismatches in all";
  return result;
}

/// Expects `status` to be an error whose message contains every fragment.
inline void expectError(const absl::Status &status,
                        const std::vector<std::string> &fragments) {
  ASSERT_FALSE(status.ok()) << "expected an error containing '"
                            << (fragments.empty() ? "" : fragments[0]) << "'";
  std::string message(status.message());
  for (const std::string &fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "message '" << message << "' lacks '" << fragment << "'";
}

/// Expects creating `desc` to fail with a message naming the op and
/// containing `fragment`.
inline void expectCreateError(const OpDesc &desc, const std::string &fragment) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
  ASSERT_FALSE(kernel.ok())
      << desc.type << " was created but should fail (" << fragment << ")";
  expectError(kernel.status(),
              {desc.type, "'" + desc.name + "'", "test.mlir:1:1", fragment});
}

/// Row-major strides of `shape`.
inline Shape strides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

/// The multi-index of flat `index` in `shape`.
inline Shape unravel(int64_t index, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = index % shape[d];
    index /= shape[d];
  }
  return idx;
}

/// The flat index in `shape` of the broadcast multi-index `outIdx` (of a
/// shape of rank >= shape's rank, aligned at the trailing axis).
inline int64_t broadcastIndex(const Shape &outIdx, const Shape &shape) {
  size_t offset = outIdx.size() - shape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : outIdx[offset + d]);
  return flat;
}

} // namespace test
} // namespace ofrt

#endif // ONEFLOW_UNITTESTS_RUNTIME_KERNELS_KERNELTESTUTILS_H

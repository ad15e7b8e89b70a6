//===- CudaKernelTests.h - CUDA kernels against CPU kernels ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each case creates an op's CPU kernel and its CUDA kernel, runs both on
// the same random inputs (odd, empty, broadcast and batched shapes) and
// compares every result, and every operand an in-place op writes, within
// the tolerance of the element type (toleranceOf). Without a usable GPU
// every test is skipped, never passed.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDAKERNELTESTS_H
#define ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDAKERNELTESTS_H

#include "../Kernels/KernelTestUtils.h"

#include "Kernels/Common/ElementwiseFunctions.h"
#include "ofrt/Backend.h"

#include <optional>

namespace ofrt {
namespace test {

/// |gpu - cpu| <= atol + rtol * |cpu| per element type (f32: the two
/// libraries sum in different orders); integers and i1 agree exactly.
struct Tolerance {
  double atol, rtol;
};
inline Tolerance toleranceOf(DType dtype) {
  switch (dtype) {
  case DType::F32: // Sums of ~100 products of [-2, 2] differ by ~1e-5.
    return {1e-4, 1e-5};
  case DType::F64:
    return {1e-12, 1e-11};
  case DType::BF16:
  case DType::F16:
    return {1e-2, 1e-2};
  default:
    return {0, 0};
  }
}

class CudaKernels : public ::testing::Test {
protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Device>> created =
        createDevice(DeviceKind::Cuda, 0);
    if (!created.ok())
      GTEST_SKIP() << "no GPU: " << created.status().message();
    device = std::move(*created);
    absl::StatusOr<std::unique_ptr<Stream>> s = device->createStream("compute");
    ASSERT_TRUE(s.ok()) << s.status();
    stream = std::move(*s);
    absl::StatusOr<std::unique_ptr<ThreadBinding>> b =
        device->bindThread(stream.get());
    ASSERT_TRUE(b.ok()) << b.status();
    binding = std::move(*b);
  }
  void TearDown() override {
    binding.reset();
    stream.reset();
    device.reset();
  }

  /// The operands, then the results filled with 0xA5 bytes (so that
  /// unwritten elements show).
  static std::vector<TensorData>
  withResults(const OpDesc &desc, const std::vector<TensorData> &inputs) {
    std::vector<TensorData> all = inputs;
    for (const TensorDesc &out : desc.outputs)
      all.push_back({out, std::vector<uint8_t>(out.bytes(), 0xA5)});
    return all;
  }

  /// Runs `desc` on the GPU `firings` times (steps and micro-batches 0, 1,
  /// ...): the results, then the operands as the kernel left them.
  std::vector<TensorData>
  runGpu(const OpDesc &desc, std::vector<TensorData> inputs, int firings = 1) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        KernelRegistry::global().create(DeviceKind::Cuda, desc);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok())
      return {};
    std::vector<TensorData> all = withResults(desc, inputs);
    std::vector<void *> buffers;
    std::vector<TensorView> in, out;
    for (size_t i = 0; i < all.size(); ++i) {
      absl::StatusOr<void *> buffer = device->allocate(all[i].bytes.size());
      EXPECT_TRUE(buffer.ok()) << buffer.status();
      buffers.push_back(*buffer);
      EXPECT_TRUE(device
                      ->copyToDevice(*stream, *buffer, all[i].bytes.data(),
                                     all[i].bytes.size())
                      .ok());
      (i < inputs.size() ? in : out).push_back({*buffer, all[i].desc});
    }
    for (int step = 0; step < firings; ++step) {
      KernelContext context{step, stream.get(), device.get(), step, firings};
      absl::Status status = (*kernel)->compute(context, in, out);
      EXPECT_TRUE(status.ok()) << status;
    }
    for (size_t i = 0; i < all.size(); ++i)
      EXPECT_TRUE(device
                      ->copyToHost(*stream, all[i].bytes.data(), buffers[i],
                                   all[i].bytes.size())
                      .ok());
    absl::Status synced = stream->synchronize();
    EXPECT_TRUE(synced.ok()) << synced;
    for (void *buffer : buffers)
      device->deallocate(buffer);
    std::rotate(all.begin(), all.begin() + inputs.size(), all.end());
    return all;
  }

  /// The same on the CPU kernel: results start as 0xA5 bytes and keep
  /// their buffers over the firings, operands are updated in place.
  std::vector<TensorData>
  runCpu(const OpDesc &desc, std::vector<TensorData> inputs, int firings = 1) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok())
      return {};
    std::vector<TensorData> all = withResults(desc, inputs);
    std::vector<TensorView> in, out;
    for (size_t i = 0; i < all.size(); ++i)
      (i < inputs.size() ? in : out).push_back(all[i].view());
    for (int step = 0; step < firings; ++step) {
      KernelContext context;
      context.step = step;
      context.micro = step;
      context.microBatches = firings;
      absl::Status status = (*kernel)->compute(context, in, out);
      EXPECT_TRUE(status.ok()) << status;
    }
    std::rotate(all.begin(), all.begin() + inputs.size(), all.end());
    return all;
  }

  /// Runs both and compares every result and operand, within `given` or
  /// the element type's tolerance.
  void expectSame(const OpDesc &desc, const std::vector<TensorData> &inputs,
                  int firings = 1, std::optional<Tolerance> given = {}) {
    SCOPED_TRACE(
        desc.type + " on " +
        (inputs.empty() ? std::string("no operands") : inputs[0].desc.str()));
    std::vector<TensorData> cpu = runCpu(desc, inputs, firings);
    std::vector<TensorData> gpu = runGpu(desc, inputs, firings);
    ASSERT_EQ(cpu.size(), gpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
      Tolerance tolerance = given.value_or(toleranceOf(cpu[i].desc.dtype));
      EXPECT_TRUE(
          near(values(gpu[i]), values(cpu[i]), tolerance.atol, tolerance.rtol))
          << "tensor #" << i << " (" << cpu[i].desc.str() << ")";
    }
  }

  std::unique_ptr<Device> device;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<ThreadBinding> binding;
};

/// Random values of `dtype` and `shape` in [lo, hi] (integers rounded).
inline TensorData randomTensor(DType dtype, const Shape &shape, unsigned seed,
                               double lo = -2, double hi = 2) {
  if (dtype == DType::Bool)
    return tensor(dtype, shape, randomInts(count(shape), seed, 0, 1));
  if (!isFloat(dtype))
    return tensor(
        dtype, shape,
        randomInts(count(shape), seed, int64_t(lo * 8), int64_t(hi * 8)));
  return tensor(dtype, shape, randomValues(count(shape), seed, lo, hi));
}

/// NumPy's broadcast of two shapes (the test's shapes broadcast).
inline Shape broadcastShape(Shape a, Shape b) {
  if (a.size() < b.size())
    std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = a[i] == 1 ? b[i] : a[i];
  return a;
}

inline const std::vector<Shape> kShapes = {{7, 13}, {0, 5}, {1}, {3, 1, 129}};

} // namespace test
} // namespace ofrt

#endif // ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDAKERNELTESTS_H

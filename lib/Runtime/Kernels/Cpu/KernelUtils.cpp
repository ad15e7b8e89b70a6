//===- KernelUtils.cpp - Validation and plain-code helpers ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "DnnlUtils.h"

#include <omp.h>

using namespace ofrt;
using namespace ofrt::cpu;

int64_t cpu::numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Shape cpu::rowMajorStrides(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

absl::Status cpu::normalizeAxis(const OpDesc &op, const std::string &what,
                                int64_t axis, int64_t rank, int64_t &out) {
  if (axis < -rank || axis >= rank)
    return opError(op, what + " " + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(rank));
  out = axis < 0 ? axis + rank : axis;
  return absl::OkStatus();
}

std::optional<Shape> cpu::broadcastShapes(const std::vector<Shape> &shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[offset + i];
      if (s[i] == 1)
        continue;
      if (o == 1)
        o = s[i];
      else if (o != s[i])
        return std::nullopt;
    }
  }
  return out;
}

Shape cpu::broadcastStrides(const Shape &in, const Shape &out) {
  Shape strides(out.size(), 0);
  Shape own = rowMajorStrides(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[offset + i] = in[i] == 1 && out[offset + i] != 1 ? 0 : own[i];
  return strides;
}

Shape cpu::padShape(const Shape &shape, size_t rank) {
  Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

namespace {
template <size_t B> struct Word { uint8_t bytes[B]; };
template <size_t B>
void broadcastWords(const void *src, const Shape &strides, void *dst,
                    const Shape &outShape) {
  const Word<B> *x = static_cast<const Word<B> *>(src);
  Word<B> *y = static_cast<Word<B> *>(dst);
  int64_t i = 0;
  forEachIndex<1>(outShape, {strides},
                  [&](const std::array<int64_t, 1> &o) { y[i++] = x[o[0]]; });
}
} // namespace

void cpu::broadcastCopy(const void *src, const Shape &srcShape, void *dst,
                        const Shape &outShape, size_t elemSize) {
  Shape strides = broadcastStrides(srcShape, outShape);
  switch (elemSize) {
  case 1:
    return broadcastWords<1>(src, strides, dst, outShape);
  case 2:
    return broadcastWords<2>(src, strides, dst, outShape);
  case 4:
    return broadcastWords<4>(src, strides, dst, outShape);
  default:
    return broadcastWords<8>(src, strides, dst, outShape);
  }
}

absl::Status cpu::storeValues(const std::vector<double> &values, DType dtype,
                              uint8_t *out) {
  bool isBool = dtype == DType::Bool;
  bool done = visitPlainType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *typed = reinterpret_cast<T *>(out);
    for (size_t i = 0; i < values.size(); ++i)
      typed[i] = fromDouble<T>(values[i], isBool);
  });
  if (done)
    return absl::OkStatus();
  if (dtype != DType::F16 && dtype != DType::BF16)
    return absl::InvalidArgumentError(std::string("cannot store values as ") +
                                      dtypeName(dtype));
  if (values.empty())
    return absl::OkStatus();
  std::vector<float> f32(values.begin(), values.end());
  Shape shape = {static_cast<int64_t>(values.size())};
  try {
    MemDesc src = plainDesc(shape, dt::f32);
    MemDesc dst = plainDesc(shape, *dnnlType(dtype));
    dnnl::reorder::primitive_desc pd(cpuEngine(), src, cpuEngine(), dst);
    dnnl::memory from = wrap(src, f32.data()), to = wrap(dst, out);
    dnnl::reorder(pd).execute(cpuStream(), from, to);
    cpuStream().wait();
  } catch (const dnnl::error &e) {
    return absl::InternalError(std::string("oneDNN cannot convert to ") +
                               dtypeName(dtype) + ": " + e.what());
  }
  return absl::OkStatus();
}

namespace {

/// Sets this thread's OpenMP count to 1 for its lifetime (the count is per
/// thread: other streams keep theirs).
class OneOmpThread {
public:
  OneOmpThread() {
    if (omp_get_max_threads() > 1) {
      saved = omp_get_max_threads();
      omp_set_num_threads(1);
    }
  }
  ~OneOmpThread() {
    if (saved > 0)
      omp_set_num_threads(saved);
  }

private:
  int saved = 0;
};

/// A kernel of few bytes, created and run on one OpenMP thread.
class SmallKernel : public Kernel {
public:
  explicit SmallKernel(std::unique_ptr<Kernel> inner)
      : inner(std::move(inner)) {}
  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    OneOmpThread limit;
    return inner->compute(context, inputs, outputs);
  }

private:
  std::unique_ptr<Kernel> inner;
};

} // namespace

bool cpu::runsOnOneThread(const OpDesc &op) {
  // Sources and sinks compute nothing; their callbacks (of-run's progress,
  // checkpoints) see the stream's count.
  if (isDataEndpoint(op.role))
    return false;
  size_t bytes = 0;
  for (const TensorDesc &desc : op.inputs)
    bytes += desc.bytes();
  for (const TensorDesc &desc : op.outputs)
    bytes += desc.bytes();
  return bytes <= kOneThreadMaxBytes;
}

static KernelFactory guard(KernelFactory factory) {
  return [factory](const OpDesc &op) -> KernelOr {
    try {
      if (cpu::runsOnOneThread(op)) {
        // oneDNN sizes some primitives' work split by the thread count at
        // creation, so creation too runs under the limit.
        OneOmpThread limit;
        KernelOr kernel = factory(op);
        if (!kernel.ok())
          return kernel;
        return std::unique_ptr<Kernel>(new SmallKernel(std::move(*kernel)));
      }
      return factory(op);
    } catch (const dnnl::error &e) {
      return opError(op, std::string("oneDNN has no primitive for it (") +
                             e.what() + ")");
    } catch (const std::exception &e) {
      return absl::InternalError(op.where() + ": " + e.what());
    }
  };
}

void cpu::addKernel(KernelRegistry &registry, const std::string &type,
                    KernelFactory factory) {
  registry.add(DeviceKind::Cpu, type, guard(std::move(factory)));
}

absl::Status cpu::checkList(const OpDesc &op, const std::string &name,
                            const std::vector<int64_t> &values, size_t size,
                            int64_t min) {
  if (values.size() != size)
    return opError(op, name + " needs " + std::to_string(size) +
                           " values, got " + std::to_string(values.size()));
  for (int64_t v : values)
    if (v < min)
      return opError(op, name + " value " + std::to_string(v) + " is below " +
                             std::to_string(min));
  return absl::OkStatus();
}

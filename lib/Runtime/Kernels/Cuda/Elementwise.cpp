//===- Elementwise.cpp - Unary and binary ops on a GPU --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// f32, f64, bf16 (computed in f32, rounded once, as oneDNN does on the
// CPU), integer and i1 tensors run the kernels of Elementwise.cu, as do
// casts between those types and dropout (the CPU kernel's mask: the same
// counter-based bits, RandomBits.h). f16 tensors, integer division (whose
// errors, division by zero and minimum / -1, the CPU kernel reports) and
// dropout on a piece of a global tensor run staged.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/OpParams.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"

#include "ofrt/KernelChecks.h"
#include "ofrt/KernelParams.h"
#include "ofrt/Pieces.h"
#include "ofrt/Random.h"

using namespace ofrt;
using namespace ofrt::cuda;
using namespace ofrt::elementwise;

namespace {

bool nativeType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 ||
         dtype == DType::BF16 || dtype == DType::I8 ||
         dtype == DType::I32 || dtype == DType::I64 || dtype == DType::Bool;
}

class UnaryKernel : public CudaKernel {
public:
  UnaryKernel(const OpDesc &op, Fn fn, cpu::UnaryParams params)
      : CudaKernel(op), fn(fn), params(params) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchUnary(fn, in[0].desc.dtype, in[0].data, out[0].data,
                             in[0].desc.numel(), params.s, params.q,
                             stream.handle()),
                 "the element-wise kernel");
  }

private:
  Fn fn;
  cpu::UnaryParams params;
};

class BinaryKernel : public CudaKernel {
public:
  BinaryKernel(const OpDesc &op, Op kind, BroadcastShape shape, int64_t n)
      : CudaKernel(op), kind(kind), shape(shape), n(n) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchBinary(kind, in[0].desc.dtype, out[0].desc.dtype,
                              in[0].data, in[1].data, out[0].data, shape, n,
                              stream.handle()),
                 "the broadcasting kernel");
  }

private:
  Op kind;
  BroadcastShape shape;
  int64_t n;
};

/// The result's shape with the operands' strides, neighbouring axes that
/// both operands treat alike merged and size-1 axes dropped; false when
/// more than kMaxAxes remain.
bool broadcastShape(const std::vector<int64_t> &out,
                    const std::vector<int64_t> &a,
                    const std::vector<int64_t> &b, BroadcastShape &shape) {
  size_t rank = out.size();
  auto padded = [&](const std::vector<int64_t> &s) {
    std::vector<int64_t> p(rank - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  std::vector<int64_t> pa = padded(a), pb = padded(b);
  std::vector<int64_t> dims, sa, sb; // Merged axes, and their kinds.
  std::vector<bool> ka, kb;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1)
      continue;
    bool fullA = pa[d] == out[d], fullB = pb[d] == out[d];
    if (!dims.empty() && ka.back() == fullA && kb.back() == fullB) {
      dims.back() *= out[d];
      continue;
    }
    dims.push_back(out[d]);
    ka.push_back(fullA);
    kb.push_back(fullB);
  }
  if (dims.size() > static_cast<size_t>(kMaxAxes))
    return false;
  shape.rank = static_cast<int>(dims.size());
  int64_t strideA = 1, strideB = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    shape.shape[d] = dims[d];
    shape.aStrides[d] = ka[d] ? strideA : 0;
    shape.bStrides[d] = kb[d] ? strideB : 0;
    if (ka[d])
      strideA *= dims[d];
    if (kb[d])
      strideB *= dims[d];
  }
  return true;
}

class CastKernel : public CudaKernel {
public:
  using CudaKernel::CudaKernel;
  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchCast(in[0].desc.dtype, out[0].desc.dtype, in[0].data,
                            out[0].data, in[0].desc.numel(), stream.handle()),
                 "the cast kernel");
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> createCast(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  if (!nativeType(op.inputs[0].dtype) || !nativeType(op.outputs[0].dtype))
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new CastKernel(op));
}

class DropoutKernel : public CudaKernel {
public:
  DropoutKernel(const OpDesc &op, double rate, uint64_t seed)
      : CudaKernel(op), rate(rate), seed(seed) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    uint64_t key = randomKey(seed, static_cast<uint64_t>(context.step));
    return check(launchDropout(in[0].desc.dtype, in[0].data, out[0].data,
                               out[1].as<uint8_t>(), in[0].desc.numel(), key,
                               rate, 1.0 / (1.0 - rate), stream.handle()),
                 "the dropout kernel");
  }

private:
  double rate;
  uint64_t seed;
};

/// dropout of a whole tensor (a piece of a global one runs staged: its
/// logical indices are not its own).
absl::StatusOr<std::unique_ptr<Kernel>> createDropout(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  absl::StatusOr<PieceLayout> piece = readPieceLayout(op, x.shape);
  if (!piece.ok())
    return piece.status();
  if (!piece->whole(x.shape) ||
      (x.dtype != DType::F32 && x.dtype != DType::F64))
    return stageOnHost(std::move(*cpuKernel));
  OFRT_READ_PARAMS(declared, params::DropoutOp, op);
  return std::unique_ptr<Kernel>(new DropoutKernel(
      op, declared.rate, static_cast<uint64_t>(declared.seed)));
}

} // namespace

void cuda::registerElementwiseKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::DropoutOp::kOpName, createDropout);
  registry.add(DeviceKind::Cuda, params::CastOp::kOpName, createCast);
  for (const FnInfo &info : kFns)
    registry.add(
        DeviceKind::Cuda, std::string("oneflow.") + info.name,
        [&info](const OpDesc &op) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          absl::StatusOr<cpu::UnaryParams> params =
              cpu::readUnaryParams(op, info);
          if (!params.ok())
            return params.status();
          if (!nativeType(op.inputs[0].dtype))
            return stagedCpuKernel(op);
          return std::unique_ptr<Kernel>(new UnaryKernel(op, info.fn, *params));
        });
  for (const OpInfo &info : kOps)
    registry.add(
        DeviceKind::Cuda, std::string("oneflow.") + info.name,
        [&info](const OpDesc &op) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          absl::StatusOr<std::vector<int64_t>> shape =
              cpu::readBinaryShape(op, info);
          if (!shape.ok())
            return shape.status();
          DType dtype = op.inputs[0].dtype;
          BroadcastShape broadcast;
          if (!nativeType(dtype) || (info.op == Op::Div && !isFloat(dtype)) ||
              !broadcastShape(*shape, op.inputs[0].shape, op.inputs[1].shape,
                              broadcast))
            return stagedCpuKernel(op);
          int64_t n = 1;
          for (int64_t d : *shape)
            n *= d;
          return std::unique_ptr<Kernel>(
              new BinaryKernel(op, info.op, broadcast, n));
        });
}

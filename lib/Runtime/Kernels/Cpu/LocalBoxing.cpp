//===- LocalBoxing.cpp - local_slice, to_partial --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The boxing steps that need no other rank (docs/multi-rank-plans.md):
// local_slice keeps this rank's piece of a broadcast tensor (B -> S(i));
// to_partial writes this rank's contribution into zeros (B or S(i) -> P);
// accumulate sums a value over the micro-batches of a step (P -> B on the
// micro-batch axis, docs/pipelines.md).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "KernelUtils.h"

#include "ofrt/Pieces.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

class LocalSliceKernel : public CpuKernel {
public:
  LocalSliceKernel(const OpDesc &op, Shape begin, Shape microStride)
      : CpuKernel(op), begin(std::move(begin)),
        microStride(std::move(microStride)) {}
  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    Shape at = begin;
    for (size_t d = 0; d < microStride.size() && d < at.size(); ++d)
      at[d] += context.micro * microStride[d];
    copyBox(in[0], at, out[0], Shape(at.size(), 0), out[0].desc.shape);
    return absl::OkStatus();
  }

private:
  Shape begin;
  /// A slice over micro-batches: the box moves by this per micro-batch.
  Shape microStride;
};

class ToPartialKernel : public CpuKernel {
public:
  ToPartialKernel(const OpDesc &op, Shape begin, bool keep)
      : CpuKernel(op), begin(std::move(begin)), keep(keep) {}
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    std::memset(out[0].data, 0, out[0].desc.bytes());
    if (keep)
      copyBox(in[0], Shape(begin.size(), 0), out[0], begin, in[0].desc.shape);
    return absl::OkStatus();
  }

private:
  Shape begin;
  bool keep;
};

/// Fires once per micro-batch and writes its output once per step: the
/// first micro-batch's value, plus each later one's.
class AccumulateKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (context.micro == 0) {
      std::memcpy(out[0].data, in[0].data, out[0].desc.bytes());
      return absl::OkStatus();
    }
    int64_t n = out[0].desc.numel();
    visitPlainType(out[0].desc.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *x = in[0].as<T>();
      T *y = out[0].as<T>();
      for (int64_t i = 0; i < n; ++i)
        y[i] += x[i];
    });
    return absl::OkStatus();
  }
};

/// Reads the box's begin (the LocalBoxingLayout) and checks that the box of
/// `inner` at it lies in `outer`.
absl::Status readBegin(const OpDesc &op, const TensorDesc &inner,
                       const TensorDesc &outer, Shape &begin) {
  const LocalBoxingLayout *box = op.layoutAs<LocalBoxingLayout>();
  if (!box)
    return opError(op, "needs a local boxing layout (the box this rank "
                       "keeps)");
  begin = box->begin;
  if (inner.dtype != outer.dtype || inner.rank() != outer.rank())
    return opError(op, "operand " + op.inputs[0].str() + " and result " +
                           op.outputs[0].str() +
                           " differ in rank or element type");
  if (begin.size() != inner.shape.size())
    return opError(op, "the box begin " + shapeStr(begin) +
                           " needs one entry per axis of " + inner.str());
  for (size_t d = 0; d < begin.size(); ++d)
    if (begin[d] < 0 || begin[d] + inner.shape[d] > outer.shape[d])
      return opError(op, "the " + inner.str() + " piece at begin " +
                             shapeStr(begin) + " is outside the " +
                             outer.str() + " tensor");
  return absl::OkStatus();
}

KernelOr createLocalSlice(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  Shape begin;
  OFRT_RETURN_IF_ERROR(readBegin(op, op.outputs[0], op.inputs[0], begin));
  Shape stride = op.layoutAs<LocalBoxingLayout>()->microStride;
  if (!stride.empty() && stride.size() != begin.size())
    return opError(op, "the micro-batch stride " + shapeStr(stride) +
                           " needs one entry per axis of " +
                           op.inputs[0].str());
  return std::make_unique<LocalSliceKernel>(op, std::move(begin),
                                            std::move(stride));
}

KernelOr createToPartial(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  Shape begin;
  bool keep = false;
  OFRT_RETURN_IF_ERROR(readBegin(op, op.inputs[0], op.outputs[0], begin));
  keep = op.layoutAs<LocalBoxingLayout>()->keep;
  return std::make_unique<ToPartialKernel>(op, std::move(begin), keep);
}

KernelOr createAccumulate(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  if (op.inputs[0] != op.outputs[0])
    return opError(op, "sums " + op.inputs[0].str() + " values into " +
                           op.outputs[0].str() + "; they must be alike");
  bool plain = visitPlainType(op.outputs[0].dtype, [](auto) {});
  if (!plain)
    return opError(op, "cannot sum " + op.outputs[0].str() + " values");
  return std::make_unique<AccumulateKernel>(op);
}

} // namespace

void cpu::registerLocalBoxingKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.local_slice", createLocalSlice);
  addKernel(registry, "oneflow.to_partial", createToPartial);
  addKernel(registry, "oneflow.accumulate", createAccumulate);
}

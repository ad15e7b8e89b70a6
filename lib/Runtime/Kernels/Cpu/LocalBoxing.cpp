//===- LocalBoxing.cpp - local_slice, to_partial --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The boxing steps that need no other rank (docs/multi-rank-plans.md):
// local_slice keeps this rank's piece of a broadcast tensor (B -> S(i));
// to_partial writes this rank's contribution into zeros (B or S(i) -> P).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "KernelUtils.h"

#include "ofrt/Pieces.h"

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

class LocalSliceKernel : public CpuKernel {
public:
  LocalSliceKernel(const OpDesc &op, Shape begin)
      : CpuKernel(op), begin(std::move(begin)) {}
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    copyBox(in[0], begin, out[0], Shape(begin.size(), 0), out[0].desc.shape);
    return absl::OkStatus();
  }

private:
  Shape begin;
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
  return std::make_unique<LocalSliceKernel>(op, std::move(begin));
}

KernelOr createToPartial(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  Shape begin;
  bool keep = false;
  OFRT_RETURN_IF_ERROR(readBegin(op, op.inputs[0], op.outputs[0], begin));
  keep = op.layoutAs<LocalBoxingLayout>()->keep;
  return std::make_unique<ToPartialKernel>(op, std::move(begin), keep);
}

} // namespace

void cpu::registerLocalBoxingKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.local_slice", createLocalSlice);
  addKernel(registry, "oneflow.to_partial", createToPartial);
}

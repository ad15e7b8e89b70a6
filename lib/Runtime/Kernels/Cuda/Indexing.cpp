//===- Indexing.cpp - gather, gather_grad, layer_norm(_grad) on a GPU -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The kernels are in Indexing.cu. gather and gather_grad read their indices
// back for the CPU kernel's check (an index outside [-D, D) fails the
// firing with the index and its position), at the cost of a stream
// synchronization per firing. gather_grad adds with atomics, so its sums
// are rounded in a varying order. The CPU kernels check the ops; f16/bf16
// gather_grad and layer_norm are not theirs either.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"

#include "ofrt/ActorLayout.h"
#include "ofrt/KernelChecks.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

IndexCheck::~IndexCheck() {
  if (record)
    cudaFree(record);
}

absl::StatusOr<int64_t *> IndexCheck::arm(CudaStream &stream,
                                          const std::string &where) {
  cudaError_t error = cudaSuccess;
  if (!record)
    error = cudaMalloc(reinterpret_cast<void **>(&record), sizeof(int64_t));
  if (error == cudaSuccess)
    error = cudaMemsetAsync(record, 0x7f, sizeof(int64_t), stream.handle());
  if (error != cudaSuccess)
    return cudaFailure(where, "arming the index check", error);
  return record;
}

absl::StatusOr<std::optional<std::pair<int64_t, int64_t>>>
IndexCheck::firstBad(CudaStream &stream, const std::string &where,
                     const void *indices, DType indexType) {
  int64_t position = kNoBadIndex;
  cudaError_t error = cudaMemcpyAsync(&position, record, sizeof(position),
                                      cudaMemcpyDeviceToHost, stream.handle());
  if (error == cudaSuccess)
    error = cudaStreamSynchronize(stream.handle());
  if (error != cudaSuccess)
    return cudaFailure(where, "reading the index check", error);
  if (position == kNoBadIndex)
    return std::nullopt;
  size_t size = dtypeSize(indexType);
  int64_t wide = 0;
  int32_t narrow = 0;
  void *value = size == 8 ? static_cast<void *>(&wide) : &narrow;
  error = cudaMemcpyAsync(value,
                          static_cast<const char *>(indices) + position * size,
                          size, cudaMemcpyDeviceToHost, stream.handle());
  if (error == cudaSuccess)
    error = cudaStreamSynchronize(stream.handle());
  if (error != cudaSuccess)
    return cudaFailure(where, "reading the bad index", error);
  return std::make_pair(position, size == 8 ? wide : int64_t(narrow));
}

namespace {

using Shape = std::vector<int64_t>;

int64_t numel(Shape::const_iterator begin, Shape::const_iterator end) {
  int64_t n = 1;
  for (auto it = begin; it != end; ++it)
    n *= *it;
  return n;
}

/// gather (`grad` false) or gather_grad over [outer, dim, inner] of the
/// table, rows [begin, begin + dim) of `limit`.
class GatherKernel : public CudaKernel {
public:
  GatherKernel(const OpDesc &op, bool grad, int64_t outer, int64_t dim,
               int64_t inner, int64_t begin, int64_t limit)
      : CudaKernel(op), grad(grad), outer(outer), dim(dim), inner(inner),
        begin(begin), limit(limit) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    absl::StatusOr<int64_t *> record = indexCheck.arm(stream, where);
    if (!record.ok())
      return record.status();
    const TensorView &indices = in[1];
    int64_t count = indices.desc.numel();
    DType dtype = in[0].desc.dtype;
    cudaError_t error =
        grad ? launchGatherGrad(dtype, in[0].data, indices.desc.dtype,
                                indices.data, out[0].data, outer, dim, count,
                                inner, begin, limit, *record, stream.handle())
             : launchGather(in[0].data, indices.desc.dtype, indices.data,
                            out[0].data, outer, dim, count,
                            inner * int64_t(dtypeSize(dtype)), begin, limit,
                            *record, stream.handle());
    OFRT_RETURN_IF_ERROR(check(error, "the gather kernel"));
    absl::StatusOr<std::optional<std::pair<int64_t, int64_t>>> bad =
        indexCheck.firstBad(stream, where, indices.data, indices.desc.dtype);
    if (!bad.ok())
      return bad.status();
    if (!*bad)
      return absl::OkStatus();
    return absl::OutOfRangeError(
        where + ": index " + std::to_string((*bad)->second) + " at position " +
        std::to_string((*bad)->first) + " is outside [-" +
        std::to_string(limit) + ", " + std::to_string(limit) + ")");
  }

private:
  bool grad;
  int64_t outer, dim, inner, begin, limit;
  IndexCheck indexCheck;
};

absl::StatusOr<std::unique_ptr<Kernel>> createGather(const OpDesc &op,
                                                     bool grad) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  // The table: gather's operand, gather_grad's result.
  const TensorDesc &table = grad ? op.outputs[0] : op.inputs[0];
  int64_t axis = 0, begin = 0, limit = 0;
  if (grad) {
    OFRT_READ_PARAMS(declared, params::GatherGradOp, op);
    axis = declared.axis;
    limit = declared.dim_size;
  } else {
    OFRT_READ_PARAMS(declared, params::GatherOp, op);
    axis = declared.axis;
  }
  if (axis < 0)
    axis += table.rank();
  int64_t dim = table.shape[axis];
  if (!grad)
    limit = dim;
  if (const IndexRange *range = op.layoutAs<IndexRange>()) {
    begin = range->begin;
    limit = range->limit;
  }
  return std::unique_ptr<Kernel>(new GatherKernel(
      op, grad, numel(table.shape.begin(), table.shape.begin() + axis), dim,
      numel(table.shape.begin() + axis + 1, table.shape.end()), begin, limit));
}

class LayerNormKernel : public CudaKernel {
public:
  LayerNormKernel(const OpDesc &op, int64_t outer, int64_t inner,
                  int64_t params, float eps)
      : CudaKernel(op), outer(outer), inner(inner), params(params), eps(eps) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchLayerNorm(in[0].as<float>(), in[1].as<float>(),
                                 in[2].as<float>(), out[0].as<float>(),
                                 out[1].as<float>(), out[2].as<float>(), outer,
                                 inner, params, eps, stream.handle()),
                 "the layer norm kernel");
  }

private:
  int64_t outer, inner, params;
  float eps;
};

absl::StatusOr<std::unique_ptr<Kernel>> createLayerNorm(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::LayerNormOp, op);
  int64_t normAxis = declared.begin_norm_axis;
  if (normAxis < 0)
    normAxis += x.rank();
  double eps = declared.epsilon;
  int64_t outer = numel(x.shape.begin(), x.shape.begin() + normAxis);
  int64_t inner = numel(x.shape.begin() + normAxis, x.shape.end());
  return std::unique_ptr<Kernel>(new LayerNormKernel(
      op, outer, inner, op.inputs[1].numel(), static_cast<float>(eps)));
}

class LayerNormGradKernel : public CudaKernel {
public:
  LayerNormGradKernel(const OpDesc &op, int64_t outer, int64_t inner)
      : CudaKernel(op), outer(outer), inner(inner) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchLayerNormGrad(in[0].as<float>(), in[1].as<float>(),
                                     in[2].as<float>(), in[3].as<float>(),
                                     in[4].as<float>(), out[0].as<float>(),
                                     out[1].as<float>(), out[2].as<float>(),
                                     outer, inner, stream.handle()),
                 "the layer norm gradient kernel");
  }

private:
  int64_t outer, inner;
};

absl::StatusOr<std::unique_ptr<Kernel>> createLayerNormGrad(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  int64_t inner = op.inputs[4].numel();
  return std::unique_ptr<Kernel>(
      new LayerNormGradKernel(op, inner ? x.numel() / inner : 0, inner));
}

} // namespace

void cuda::registerIndexingKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::GatherOp::kOpName,
               [](const OpDesc &op) { return createGather(op, false); });
  registry.add(DeviceKind::Cuda, params::GatherGradOp::kOpName,
               [](const OpDesc &op) { return createGather(op, true); });
  registry.add(DeviceKind::Cuda, params::LayerNormOp::kOpName, createLayerNorm);
  registry.add(DeviceKind::Cuda, params::LayerNormGradOp::kOpName,
               createLayerNormGrad);
}

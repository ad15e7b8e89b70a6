//===- DnnlUtils.h - oneDNN engine, stream and descriptors ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One process-wide CPU engine, one stream per thread, memory descriptors
// from TensorDescs, and the conversion of dnnl::error into absl errors.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_DNNLUTILS_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_DNNLUTILS_H

#include "KernelUtils.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <optional>
#include <unordered_map>

namespace ofrt {
namespace cpu {

using dt = dnnl::memory::data_type;
using Dims = dnnl::memory::dims;
using MemDesc = dnnl::memory::desc;

/// The CPU engine (index 0), created on first use.
const dnnl::engine &cpuEngine();
/// This thread's stream on cpuEngine().
dnnl::stream &cpuStream();

/// Primitive attributes with a user-managed scratchpad, for every primitive
/// descriptor: oneDNN's library scratchpad is per thread and binds a
/// primitive to the thread that created it, but kernels are created on one
/// thread and run on their stream's. execute() hands the primitive a
/// scratchpad of the running thread.
dnnl::primitive_attr scratchpadAttr();

/// The oneDNN type of `dtype`, if it has one (f32, bf16, f16, s8, s32, and
/// u8 for Bool).
std::optional<dt> dnnlType(DType dtype);

/// Dims of `shape`; a rank-0 tensor is one element of shape [1].
Dims dnnlDims(const Shape &shape);
/// A dense row-major descriptor.
MemDesc plainDesc(const Shape &shape, dt type);
/// A descriptor with explicit strides (in elements).
MemDesc stridedDesc(const Shape &dims, const Shape &strides, dt type);

/// A oneDNN type and a trailing axis of `words` that copies elements of
/// `dtype` bit for bit (for reorders and concats of any element type, 8-byte
/// ones included): 4- and 8-byte elements as s32 words, others as bytes.
struct CopyType {
  dt type;
  int64_t words;
};
CopyType copyType(DType dtype);

/// Checks that the tensor's rank (plus `extra` axes) fits oneDNN.
absl::Status checkDnnlRank(const OpDesc &op, int64_t rank, int64_t extra = 0);

/// Wraps `data` (owned by the caller) as a oneDNN memory.
inline dnnl::memory wrap(const MemDesc &desc, const void *data) {
  return dnnl::memory(desc, cpuEngine(), const_cast<void *>(data));
}

/// Runs `prim` with `args` (plus this thread's scratchpad when `prim` needs
/// one) on this thread's stream and waits; a dnnl::error becomes an
/// Internal error that names the op.
absl::Status execute(const std::string &where, const dnnl::primitive &prim,
                     const std::unordered_map<int, dnnl::memory> &args);

/// The arguments of one primitive of a kernel, kept from call to call:
/// each argument's memory is created on the first call and only pointed at
/// the call's buffer after (creating a oneDNN memory and an argument map
/// costs several allocations, more than a small primitive's work). An
/// argument keeps the descriptor of its first call.
class DnnlArgs {
public:
  DnnlArgs &operator()(int arg, const MemDesc &desc, const void *data);
  std::unordered_map<int, dnnl::memory> &map() { return args; }

  /// The primitive's scratchpad, once known (bytes -1: not yet asked).
  int64_t scratchpadBytes = -1;
  MemDesc scratchpadDesc;

private:
  std::unordered_map<int, dnnl::memory> args;
  /// Each argument's memory (sharing the map's) and the buffer it points
  /// at now; a few, so a linear search.
  struct Bound {
    int arg;
    dnnl::memory memory;
    const void *data;
  };
  std::vector<Bound> bound;
};

/// execute() with kept arguments (and a kept scratchpad argument).
absl::Status execute(const std::string &where, const dnnl::primitive &prim,
                     DnnlArgs &args);

/// A oneDNN reorder from one memory description to another (transposes,
/// casts between float types).
class ReorderKernel : public CpuKernel {
public:
  ReorderKernel(const OpDesc &op, MemDesc from, MemDesc to)
      : CpuKernel(op), from(from), to(to) {
    prim = dnnl::reorder(
        dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return execute(where, prim,
                   args(DNNL_ARG_FROM, from, in[0].data)(DNNL_ARG_TO, to,
                                                         out[0].data));
  }

private:
  MemDesc from, to;
  dnnl::reorder prim;
  DnnlArgs args;
};

/// A oneDNN eltwise primitive (`alg` with `alpha`, `beta`) of one
/// operand and a result of `desc`.
class DnnlEltwiseKernel : public CpuKernel {
public:
  DnnlEltwiseKernel(const OpDesc &op, dnnl::algorithm alg, float alpha,
                    float beta, MemDesc desc)
      : CpuKernel(op), desc(desc) {
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg,
                                    desc, alpha, beta),
        scratchpadAttr(), cpuEngine());
    prim = dnnl::eltwise_forward(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return execute(
        where, prim,
        args(DNNL_ARG_SRC, desc, in[0].data)(DNNL_ARG_DST, desc, out[0].data));
  }

private:
  DnnlArgs args;
  MemDesc desc;
  dnnl::eltwise_forward prim;
};

/// A oneDNN backward primitive of two operands and a result of one shape
/// and type (`first`, DNNL_ARG_SRC or DNNL_ARG_DST, and DNNL_ARG_DIFF_DST
/// to DNNL_ARG_DIFF_SRC): gelu's and softmax's gradients. `make` builds
/// the primitive for a descriptor of `shape`; bf16 and f16 run in the type
/// where oneDNN has a primitive for it, otherwise in f32 between reorders
/// (the buffers are the kernel's).
class DnnlBackwardKernel : public CpuKernel {
public:
  using Make = std::function<dnnl::primitive(const MemDesc &)>;
  DnnlBackwardKernel(const OpDesc &op, const Shape &shape, dt type, int first,
                     const Make &make);

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override;

private:
  int first;
  MemDesc narrow, desc; ///< The operands' type; what the primitive runs in.
  dnnl::primitive prim;
  dnnl::reorder toWide, toNarrow;
  DnnlArgs args, firstArgs, dyArgs, dxArgs;
  std::vector<float> wide; ///< Both operands and dx in f32, when widened.
};

/// Whether any shape has a zero dimension (oneDNN is never asked to build a
/// primitive for an empty tensor: some of them divide by a zero size).
bool anyEmpty(std::initializer_list<const Shape *> shapes);

/// Whether oneDNN computes with AVX-512 here (its effective ISA, which
/// ONEDNN_MAX_CPU_ISA may lower): layouts and libraries follow it.
bool dnnlHasAvx512();
/// The instructions oneDNN uses here: "AVX2", "AVX-512 BF16", ...
const char *dnnlIsaName();

} // namespace cpu
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_DNNLUTILS_H

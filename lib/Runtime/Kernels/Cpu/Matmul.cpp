//===- Matmul.cpp - matmul and batch_matmul (oneDNN matmul) ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Transposes are strided memory descriptors, and broadcast batch axes are
// size-1 axes of an operand: oneDNN's matmul reads both directly. A matmul
// with `constant_b` (oneflow-pack-constant-weights) packs b into the
// primitive's preferred layout once. f32 matrix products run on OpenBLAS
// instead where it is the faster here (Gemm.h). matmul_bias adds its bias
// through oneDNN's matmul bias, or on OpenBLAS by filling the result's rows
// with it and multiplying with beta = 1.
//
//===----------------------------------------------------------------------===//

#include "ConvUtils.h"
#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "Gemm.h"
#include "OpParams.h"
#include "ofrt/KernelParams.h"

#include <climits>
#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// `rows` copies of the `rowBytes` at `row`, one after another at `out`.
void fillRows(const void *row, void *out, int64_t rows, size_t rowBytes) {
  auto *to = static_cast<char *>(out);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(to + r * rowBytes, row, rowBytes);
}

class MatmulKernel : public CpuKernel {
public:
  /// `constantB`: b's buffer keeps its contents while its address stays
  /// (a variable nothing writes): it is packed once per address.
  /// `bias` (matmul_bias: [1, n], else empty) is added to every row.
  /// Every product is scaled by `alpha` (oneDNN's output scale).
  MatmulKernel(const OpDesc &op, MemDesc a, MemDesc b, MemDesc c,
               bool constantB, MemDesc bias = MemDesc(), float alpha = 1.0f)
      : CpuKernel(op), aDesc(a), bDesc(b), cDesc(c), biasDesc(bias) {
    MemDesc weights =
        constantB ? MemDesc(b.dims(), b.data_type(),
                            dnnl::memory::format_tag::any)
                  : b;
    dnnl::primitive_attr attr = scratchpadAttr();
    if (alpha != 1.0f)
      attr.set_output_scales(0, {alpha});
    dnnl::matmul::primitive_desc pd(
        bias.is_zero() ? dnnl::matmul::desc(a, weights, c)
                       : dnnl::matmul::desc(a, weights, bias, c),
        attr, cpuEngine());
    prim = dnnl::matmul(pd);
    if (constantB)
      packedB = Staged(b, pd.weights_desc(), /*toInner=*/true);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *b = in[1].data;
    if (packedB.needed()) {
      if (packedFrom != b) {
        OFRT_RETURN_IF_ERROR(packedB.run(where, b, packedB.buffer.data(),
                                         /*toInner=*/true));
        packedFrom = b;
      }
      b = packedB.buffer.data();
    }
    args(DNNL_ARG_SRC, aDesc, in[0].data)(
        DNNL_ARG_WEIGHTS, packedB.needed() ? packedB.inner : bDesc, b)(
        DNNL_ARG_DST, cDesc, out[0].data);
    if (!biasDesc.is_zero())
      args(DNNL_ARG_BIAS, biasDesc, in[2].data);
    return execute(where, prim, args);
  }

private:
  MemDesc aDesc, bDesc, cDesc, biasDesc;
  dnnl::matmul prim;
  DnnlArgs args;
  Staged packedB;
  const void *packedFrom = nullptr;
};

/// A 2-D f32 product on OpenBLAS (f32GemmLibrary chose it): operands as
/// stored, row-major, transposed in place by the call.
class OpenBlasMatmulKernel : public CpuKernel {
public:
  OpenBlasMatmulKernel(const OpDesc &op, const MatmulParams &p)
      : CpuKernel(op), p(p) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    // Stored a is m x k, or k x m when transposed; b k x n or n x k. A bias
    // fills the rows first and the product adds to it (beta = 1), where
    // beta = 0 would have cleared them.
    auto *c = static_cast<float *>(out[0].data);
    if (p.bias)
      fillRows(in[2].data, c, p.m, p.n * sizeof(float));
    openBlasSgemm(p.transposeA, p.transposeB, p.m, p.n, p.k,
                  static_cast<const float *>(in[0].data),
                  p.transposeA ? p.m : p.k,
                  static_cast<const float *>(in[1].data),
                  p.transposeB ? p.k : p.n, c, p.bias ? 1.0f : 0.0f);
    return absl::OkStatus();
  }

private:
  MatmulParams p;
};

/// An empty contraction (k = 0): the product is zero, or the bias on
/// every row.
class ZeroKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (in.size() == 3)
      fillRows(in[2].data, out[0].data,
               out[0].desc.numel() / std::max<int64_t>(in[2].desc.numel(), 1),
               in[2].desc.bytes());
    else
      std::memset(out[0].data, 0, out[0].desc.bytes());
    return absl::OkStatus();
  }
};

/// The descriptor of a matrix operand of shape `shape` (row-major in
/// memory) read as [batch..., rows, cols] of rank `rank`, transposed when
/// `transpose` (a strided view, no copy).
MemDesc operandDesc(const Shape &shape, size_t rank, bool transpose, dt type) {
  Shape dims = padShape(shape, rank);
  Shape strides = rowMajorStrides(dims);
  if (transpose) {
    std::swap(dims[rank - 2], dims[rank - 1]);
    std::swap(strides[rank - 2], strides[rank - 1]);
  }
  return stridedDesc(dims, strides, type);
}

/// Reads the transposes of matmul or batch_matmul (`Params`, from ODS).
template <typename Params>
absl::Status readTransposes(const OpDesc &op, MatmulParams &p) {
  OFRT_READ_PARAMS(declared, Params, op);
  p.transposeA = declared.transpose_a;
  p.transposeB = declared.transpose_b;
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<MatmulParams> cpu::readMatmulParams(const OpDesc &op,
                                                   bool batched) {
  MatmulParams p;
  p.bias = op.type == params::MatmulBiasOp::kOpName;
  OFRT_RETURN_IF_ERROR(checkArity(op, p.bias ? 3 : 2, 1));
  const TensorDesc &a = op.inputs[0], &b = op.inputs[1];
  OFRT_RETURN_IF_ERROR(batched  ? readTransposes<params::BatchMatmulOp>(op, p)
                       : p.bias ? readTransposes<params::MatmulBiasOp>(op, p)
                                : readTransposes<params::MatmulOp>(op, p));
  if (batched) {
    OFRT_READ_PARAMS(declared, params::BatchMatmulOp, op);
    p.alpha = declared.alpha.value_or(1.0);
    if (!std::isfinite(p.alpha))
      return opError(op,
                     "alpha must be finite, got " + std::to_string(p.alpha));
  }
  if (a.dtype != b.dtype)
    return opError(op, "operands have different element types " + a.str() +
                           " and " + b.str());
  if (!isFloat(a.dtype))
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(a.dtype) + " (f32, bf16, f16)");
  int64_t ra = a.rank(), rb = b.rank();
  if (!batched && (ra != 2 || rb != 2))
    return opError(op, "operands must be matrices, got ranks " +
                           std::to_string(ra) + " and " + std::to_string(rb));
  if (batched && (ra < 2 || rb < 2 || std::max(ra, rb) < 3))
    return opError(op, "needs operands of rank 2 or more, one with batch "
                       "axes; got ranks " +
                           std::to_string(ra) + " and " + std::to_string(rb));
  p.m = p.transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  p.k = p.transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  int64_t kb = p.transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
  p.n = p.transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  if (p.k != kb)
    return opError(op, "contraction sizes differ: " + std::to_string(p.k) +
                           " (a) and " + std::to_string(kb) + " (b)");
  std::optional<Shape> batch =
      broadcastShapes({Shape(a.shape.begin(), a.shape.end() - 2),
                       Shape(b.shape.begin(), b.shape.end() - 2)});
  if (!batch)
    return opError(op, "batch axes of " + a.str() + " and " + b.str() +
                           " do not broadcast");
  p.batch = *batch;
  if (p.bias && (op.inputs[2].dtype != a.dtype ||
                 op.inputs[2].shape != Shape{p.n}))
    return opError(op, "bias " + op.inputs[2].str() + " must be " +
                           TensorDesc{a.dtype, {p.n}}.str() +
                           " (one value per column of the result)");
  Shape outShape = *batch;
  outShape.push_back(p.m);
  outShape.push_back(p.n);
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {a.dtype, outShape}));
  return p;
}

namespace {

KernelOr createMatmul(const OpDesc &op, bool batched) {
  absl::StatusOr<MatmulParams> params = readMatmulParams(op, batched);
  if (!params.ok())
    return params.status();
  const TensorDesc &a = op.inputs[0], &b = op.inputs[1];
  bool transposeA = params->transposeA, transposeB = params->transposeB;
  int64_t ka = params->k;
  if (!dnnlType(a.dtype))
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(a.dtype) + " (f32, bf16, f16)");
  Shape outShape = params->batch;
  outShape.push_back(params->m);
  outShape.push_back(params->n);
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, outShape.size()));
  if (numel(outShape) == 0)
    return std::make_unique<NoopKernel>(op);
  if (ka == 0)
    return std::make_unique<ZeroKernel>(op);
  bool constantB = false;
  if (params->bias) {
    OFRT_READ_PARAMS(declared, params::MatmulBiasOp, op);
    constantB = declared.constant_b;
  } else if (!batched) {
    OFRT_READ_PARAMS(declared, params::MatmulOp, op);
    constantB = declared.constant_b;
  }
  if (!batched && a.dtype == DType::F32 &&
      std::max({params->m, params->n, ka}) <= INT_MAX) {
    absl::StatusOr<GemmLibrary> library = f32GemmLibrary();
    if (!library.ok())
      return opError(op, std::string(library.status().message()));
    if (*library == GemmLibrary::OpenBlas)
      return std::make_unique<OpenBlasMatmulKernel>(op, *params);
  }
  size_t rank = outShape.size();
  dt type = *dnnlType(a.dtype);
  return std::make_unique<MatmulKernel>(
      op, operandDesc(a.shape, rank, transposeA, type),
      operandDesc(b.shape, rank, transposeB, type), plainDesc(outShape, type),
      constantB, params->bias ? plainDesc({1, params->n}, type) : MemDesc(),
      static_cast<float>(params->alpha));
}

} // namespace

void cpu::registerMatmulKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.matmul",
            [](const OpDesc &op) { return createMatmul(op, false); });
  addKernel(registry, "oneflow.batch_matmul",
            [](const OpDesc &op) { return createMatmul(op, true); });
  addKernel(registry, params::MatmulBiasOp::kOpName,
            [](const OpDesc &op) { return createMatmul(op, false); });
}

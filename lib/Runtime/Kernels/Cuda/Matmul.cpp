//===- Matmul.cpp - matmul and batch_matmul through cuBLASLt --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// cuBLAS is column-major: a row-major [R, C] matrix is a column-major C x R
// one, so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T, with B's
// buffer as cuBLAS's first operand. f32 computes in f32 (TF32 when the
// device allows it), f64 in f64, bf16 and f16 with f32 accumulation. Batch
// axes that each operand either has whole or not at all become one strided
// batched call (stride 0 for the broadcast operand); other broadcasts loop
// over the result's matrices. The algorithm comes from cuBLASLt's
// heuristic on the first firing, for the stream's handle and workspace.
// matmul_bias copies its bias into every row of the result first and
// multiplies with beta = 1 (never run on a GPU yet).
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/OpParams.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"

#include "ofrt/KernelChecks.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

constexpr size_t kWorkspaceBytes = 32 << 20;

cudaDataType_t cudaType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return CUDA_R_64F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

/// One matrix operand's batch: its element offset for each of the result's
/// batch indices, and whether those offsets are `index * stride`.
struct OperandBatch {
  std::vector<int64_t> offsets;
  bool strided = true;
  int64_t stride = 0;
};

OperandBatch operandBatch(const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &batch) {
  size_t rank = batch.size(), own = shape.size() - 2;
  int64_t matrix = shape[own] * shape[own + 1];
  std::vector<int64_t> dims(rank, 1), strides(rank, 0);
  int64_t stride = matrix;
  for (size_t i = 0; i < own; ++i) {
    size_t d = rank - 1 - i, s = own - 1 - i;
    dims[d] = shape[s];
    strides[d] = shape[s] == 1 ? 0 : stride;
    stride *= shape[s];
  }
  int64_t count = 1;
  for (int64_t d : batch)
    count *= d;
  OperandBatch out;
  out.offsets.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, offset = 0;
    for (size_t d = rank; d-- > 0;) {
      offset += (rest % batch[d]) * strides[d];
      rest /= batch[d];
    }
    out.offsets[i] = offset;
  }
  out.stride = count > 1 ? out.offsets[1] - out.offsets[0] : 0;
  for (int64_t i = 0; i < count; ++i)
    out.strided &= out.offsets[i] == i * out.stride;
  return out;
}

class MatmulKernel : public CudaKernel {
public:
  MatmulKernel(const OpDesc &op, cpu::MatmulParams p)
      : CudaKernel(op), p(std::move(p)), dtype(op.inputs[0].dtype),
        a(operandBatch(op.inputs[0].shape, this->p.batch)),
        b(operandBatch(op.inputs[1].shape, this->p.batch)) {
    count = static_cast<int64_t>(a.offsets.size());
    batched = a.strided && b.strided;
  }
  ~MatmulKernel() override { release(); }

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    cudaStream_t handle = stream.handle();
    if (out[0].desc.numel() == 0)
      return absl::OkStatus();
    if (p.bias) {
      // matmul_bias (2-D): every row of the result starts as the bias, and
      // the product adds to it (beta = 1).
      StridedCopy rows;
      rows.rank = 2;
      rows.shape[0] = p.m;
      rows.shape[1] = p.n;
      rows.srcStrides[1] = 1;
      rows.dstStrides[0] = p.n;
      rows.dstStrides[1] = 1;
      OFRT_RETURN_IF_ERROR(check(launchStridedCopy(dtypeSize(dtype), in[2].data,
                                                   out[0].data, rows,
                                                   p.m * p.n, handle),
                                 "the strided copy kernel"));
      if (p.k == 0)
        return absl::OkStatus();
    }
    if (p.k == 0)
      return check(cudaMemsetAsync(out[0].data, 0, out[0].desc.bytes(), handle),
                   "cudaMemsetAsync");
    absl::StatusOr<cublasLtHandle_t> lt = stream.cublasLt();
    if (!lt.ok())
      return lt.status();
    absl::StatusOr<void *> workspace = stream.workspace(kWorkspaceBytes);
    if (!workspace.ok())
      return workspace.status();
    if (!ready)
      OFRT_RETURN_IF_ERROR(setUp(*lt, stream.allowTf32()));
    size_t size = dtypeSize(dtype);
    auto *pa = static_cast<const char *>(in[0].data);
    auto *pb = static_cast<const char *>(in[1].data);
    auto *pc = static_cast<char *>(out[0].data);
    int64_t calls = batched ? 1 : count;
    for (int64_t i = 0; i < calls; ++i) {
      const void *x = pb + (batched ? 0 : b.offsets[i] * size);
      const void *y = pa + (batched ? 0 : a.offsets[i] * size);
      void *z = pc + (batched ? 0 : i * p.m * p.n * size);
      cublasStatus_t status = cublasLtMatmul(
          *lt, desc, alpha(), x, layoutA, y, layoutB, beta(), z, layoutC, z,
          layoutC, &algo, *workspace, kWorkspaceBytes, handle);
      if (status != CUBLAS_STATUS_SUCCESS)
        return cublasFailure(where, "cublasLtMatmul", status);
    }
    return absl::OkStatus();
  }

private:
  const void *alpha() const {
    return dtype == DType::F64 ? static_cast<const void *>(&alphaD)
                               : static_cast<const void *>(&alphaF);
  }
  const void *beta() const {
    if (p.bias)
      return dtype == DType::F64 ? static_cast<const void *>(&oneD)
                                 : static_cast<const void *>(&oneF);
    return dtype == DType::F64 ? static_cast<const void *>(&zeroD)
                               : static_cast<const void *>(&zeroF);
  }

  /// A row-major [rows, cols] operand as cuBLASLt's column-major layout.
  absl::Status layout(cublasLtMatrixLayout_t &out, int64_t rows, int64_t cols,
                      int64_t stride) {
    cublasStatus_t status =
        cublasLtMatrixLayoutCreate(&out, cudaType(dtype), cols, rows, cols);
    if (status == CUBLAS_STATUS_SUCCESS && batched && count > 1) {
      int32_t batchCount = static_cast<int32_t>(count);
      status = cublasLtMatrixLayoutSetAttribute(
          out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batchCount,
          sizeof(batchCount));
      if (status == CUBLAS_STATUS_SUCCESS)
        status = cublasLtMatrixLayoutSetAttribute(
            out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
            sizeof(stride));
    }
    if (status != CUBLAS_STATUS_SUCCESS)
      return cublasFailure(where, "cublasLtMatrixLayoutCreate", status);
    return absl::OkStatus();
  }

  void release() {
    if (desc)
      cublasLtMatmulDescDestroy(desc);
    for (cublasLtMatrixLayout_t layout : {layoutA, layoutB, layoutC})
      if (layout)
        cublasLtMatrixLayoutDestroy(layout);
    desc = nullptr;
    layoutA = layoutB = layoutC = nullptr;
  }

  /// The alignment cuBLASLt may assume of an operand whose matrices start
  /// at these element offsets of a buffer: regst buffers are 64-byte
  /// aligned (the heuristic's default, 256, would be wrong).
  uint32_t alignment(const std::vector<int64_t> &offsets) const {
    uint32_t bytes = 64;
    for (int64_t offset : offsets)
      while (bytes > 1 && (offset * int64_t(dtypeSize(dtype))) % bytes)
        bytes /= 2;
    return bytes;
  }

  absl::Status setUp(cublasLtHandle_t lt, bool allowTf32) {
    release();
    cublasComputeType_t compute =
        dtype == DType::F64
            ? CUBLAS_COMPUTE_64F
            : (dtype == DType::F32 && allowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                : CUBLAS_COMPUTE_32F);
    cudaDataType_t scale = dtype == DType::F64 ? CUDA_R_64F : CUDA_R_32F;
    cublasStatus_t status = cublasLtMatmulDescCreate(&desc, compute, scale);
    // cuBLAS's first operand is B: transposed when B is.
    cublasOperation_t opA = p.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opB = p.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                              &opA, sizeof(opA));
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                              &opB, sizeof(opB));
    if (status != CUBLAS_STATUS_SUCCESS)
      return cublasFailure(where, "cublasLtMatmulDescCreate", status);
    // Stored shapes: B is [k, n] ([n, k] transposed), A [m, k] ([k, m]).
    OFRT_RETURN_IF_ERROR(layout(layoutA, p.transposeB ? p.n : p.k,
                                p.transposeB ? p.k : p.n, b.stride));
    OFRT_RETURN_IF_ERROR(layout(layoutB, p.transposeA ? p.k : p.m,
                                p.transposeA ? p.m : p.k, a.stride));
    OFRT_RETURN_IF_ERROR(layout(layoutC, p.m, p.n, p.m * p.n));
    cublasLtMatmulPreference_t preference = nullptr;
    status = cublasLtMatmulPreferenceCreate(&preference);
    size_t workspace = kWorkspaceBytes;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulPreferenceSetAttribute(
          preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
          sizeof(workspace));
    std::vector<int64_t> cOffsets(count);
    for (int64_t i = 0; i < count; ++i)
      cOffsets[i] = i * p.m * p.n;
    // cuBLAS's A is our B, its B our A; C and D are our result.
    uint32_t alignments[4] = {alignment(b.offsets), alignment(a.offsets),
                              alignment(cOffsets), alignment(cOffsets)};
    cublasLtMatmulPreferenceAttributes_t keys[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; ++i)
      status = cublasLtMatmulPreferenceSetAttribute(
          preference, keys[i], &alignments[i], sizeof(alignments[i]));
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulAlgoGetHeuristic(lt, desc, layoutA, layoutB,
                                              layoutC, layoutC, preference, 1,
                                              &result, &found);
    if (preference)
      cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS)
      return cublasFailure(where, "cublasLtMatmulAlgoGetHeuristic", status);
    if (found == 0)
      return absl::UnimplementedError(
          where + ": cuBLASLt has no algorithm for this matmul");
    algo = result.algo;
    ready = true;
    return absl::OkStatus();
  }

  cpu::MatmulParams p;
  DType dtype;
  OperandBatch a, b;
  int64_t count = 1;
  bool batched = true;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutC = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  bool ready = false;
  float oneF = 1, zeroF = 0, alphaF = static_cast<float>(p.alpha);
  double oneD = 1, zeroD = 0, alphaD = p.alpha;
};

absl::StatusOr<std::unique_ptr<Kernel>> createMatmul(const OpDesc &op,
                                                     bool batched) {
  absl::StatusOr<cpu::MatmulParams> params = cpu::readMatmulParams(op, batched);
  if (!params.ok())
    return params.status();
  return std::unique_ptr<Kernel>(new MatmulKernel(op, std::move(*params)));
}

} // namespace

void cuda::registerMatmulKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::MatmulOp::kOpName,
               [](const OpDesc &op) { return createMatmul(op, false); });
  registry.add(DeviceKind::Cuda, params::BatchMatmulOp::kOpName,
               [](const OpDesc &op) { return createMatmul(op, true); });
  registry.add(DeviceKind::Cuda, params::MatmulBiasOp::kOpName,
               [](const OpDesc &op) { return createMatmul(op, false); });
}

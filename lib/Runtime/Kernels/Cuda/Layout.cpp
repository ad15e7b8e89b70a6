//===- Layout.cpp - transpose, slice, concat, reshape, reductions ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// transpose, slice and concat are strided copies (Layout.cu), one per
// operand, as are the local boxing ops local_slice (its box moving with the
// micro-batch) and to_partial (zeros around the box); accumulate copies the
// first micro-batch's value and adds the others'. reshape and flatten copy
// their operand. reduce_sum, reduce_mean (with the layout's
// divisor on several ranks), reduce_max and reduce_sum_square run one block
// per result (or several and a second pass, for few results),
// arg_max and arg_min one thread per result.
// The CPU's readers check each op; ops of more than kMaxAxes axes and f16
// reductions run staged (bf16 ones sum in f32, as oneDNN's do).
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/OpParams.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"

#include "ofrt/ActorLayout.h"
#include "ofrt/KernelChecks.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

using Shape = std::vector<int64_t>;

Shape rowMajor(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

int64_t numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// One strided copy per operand: from operand `input` at `srcOffset`
/// elements to the result at `dstOffset`.
struct Piece {
  size_t input;
  int64_t srcOffset, dstOffset;
  StridedCopy copy;
  int64_t n;
};

class CopiesKernel : public CudaKernel {
public:
  CopiesKernel(const OpDesc &op, std::vector<Piece> pieces)
      : CudaKernel(op), pieces(std::move(pieces)),
        size(dtypeSize(op.outputs[0].dtype)) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    for (const Piece &piece : pieces) {
      const char *src = static_cast<const char *>(in[piece.input].data) +
                        piece.srcOffset * size;
      char *dst = static_cast<char *>(out[0].data) + piece.dstOffset * size;
      // A reshape whose result took its operand's bytes
      // (oneflow-plan-memory): nothing to move.
      if (src == dst && piece.copy.rank == 1 &&
          piece.copy.srcStrides[0] == piece.copy.dstStrides[0])
        continue;
      OFRT_RETURN_IF_ERROR(check(launchStridedCopy(size, src, dst, piece.copy,
                                                   piece.n, stream.handle()),
                                 "the strided copy kernel"));
    }
    return absl::OkStatus();
  }

private:
  std::vector<Piece> pieces;
  size_t size;
};

/// A piece copying `shape` with the given strides; false when it has more
/// than kMaxAxes axes.
bool makePiece(size_t input, int64_t srcOffset, int64_t dstOffset,
               const Shape &shape, const Shape &srcStrides,
               const Shape &dstStrides, std::vector<Piece> &pieces) {
  if (shape.size() > static_cast<size_t>(kMaxAxes))
    return false;
  Piece piece{input, srcOffset, dstOffset, {}, numel(shape)};
  piece.copy.rank = static_cast<int>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    piece.copy.shape[d] = shape[d];
    piece.copy.srcStrides[d] = srcStrides[d];
    piece.copy.dstStrides[d] = dstStrides[d];
  }
  if (piece.n != 0)
    pieces.push_back(piece);
  return true;
}

absl::StatusOr<std::unique_ptr<Kernel>> copies(const OpDesc &op, bool fits,
                                               std::vector<Piece> pieces) {
  if (!fits)
    return stagedCpuKernel(op);
  return std::unique_ptr<Kernel>(new CopiesKernel(op, std::move(pieces)));
}

absl::StatusOr<std::unique_ptr<Kernel>> createTranspose(const OpDesc &op) {
  absl::StatusOr<Shape> perm = cpu::readTransposePerm(op);
  if (!perm.ok())
    return perm.status();
  Shape inStrides = rowMajor(op.inputs[0].shape), srcStrides;
  for (int64_t p : *perm)
    srcStrides.push_back(inStrides[p]);
  const Shape &out = op.outputs[0].shape;
  std::vector<Piece> pieces;
  bool fits = makePiece(0, 0, 0, out, srcStrides, rowMajor(out), pieces);
  return copies(op, fits, std::move(pieces));
}

absl::StatusOr<std::unique_ptr<Kernel>> createSlice(const OpDesc &op) {
  absl::StatusOr<cpu::SliceParams> p = cpu::readSliceParams(op);
  if (!p.ok())
    return p.status();
  std::vector<Piece> pieces;
  bool fits = makePiece(0, p->base, 0, p->shape, p->strides, rowMajor(p->shape),
                        pieces);
  return copies(op, fits, std::move(pieces));
}

absl::StatusOr<std::unique_ptr<Kernel>> createConcat(const OpDesc &op) {
  absl::StatusOr<int64_t> axis = cpu::readConcatAxis(op);
  if (!axis.ok())
    return axis.status();
  Shape outStrides = rowMajor(op.outputs[0].shape);
  std::vector<Piece> pieces;
  bool fits = true;
  int64_t at = 0;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Shape &shape = op.inputs[i].shape;
    fits &= makePiece(i, 0, at * outStrides[*axis], shape, rowMajor(shape),
                      outStrides, pieces);
    at += shape[*axis];
  }
  return copies(op, fits, std::move(pieces));
}

/// reshape and flatten: their CPU kernels check the op.
absl::StatusOr<std::unique_ptr<Kernel>> createReshape(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const Shape &shape = op.outputs[0].shape;
  std::vector<Piece> pieces;
  // One contiguous run: a rank-1 copy.
  bool fits = makePiece(0, 0, 0, {numel(shape)}, {1}, {1}, pieces);
  return copies(op, fits, std::move(pieces));
}

/// local_slice (the box at begin + micro * microStride of the operand) and
/// to_partial (zeros, and the operand at begin unless `keep` is off).
class LocalBoxKernel : public CudaKernel {
public:
  LocalBoxKernel(const OpDesc &op, bool slice, LocalBoxingLayout box)
      : CudaKernel(op), slice(slice), box(std::move(box)),
        size(dtypeSize(op.inputs[0].dtype)) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    const Shape &whole = slice ? in[0].desc.shape : out[0].desc.shape;
    const Shape &piece = slice ? out[0].desc.shape : in[0].desc.shape;
    Shape wholeStrides = rowMajor(whole);
    int64_t offset = 0;
    for (size_t d = 0; d < box.begin.size(); ++d) {
      int64_t at = box.begin[d];
      if (slice && d < box.microStride.size())
        at += context.micro * box.microStride[d];
      offset += at * wholeStrides[d];
    }
    if (!slice) {
      OFRT_RETURN_IF_ERROR(check(
          cudaMemsetAsync(out[0].data, 0, out[0].desc.bytes(), stream.handle()),
          "cudaMemsetAsync"));
      if (!box.keep)
        return absl::OkStatus();
    }
    std::vector<Piece> pieces;
    makePiece(0, slice ? offset : 0, slice ? 0 : offset, piece,
              slice ? wholeStrides : rowMajor(piece),
              slice ? rowMajor(piece) : wholeStrides, pieces);
    for (const Piece &p : pieces)
      OFRT_RETURN_IF_ERROR(check(
          launchStridedCopy(
              size, static_cast<const char *>(in[0].data) + p.srcOffset * size,
              static_cast<char *>(out[0].data) + p.dstOffset * size, p.copy,
              p.n, stream.handle()),
          "the strided copy kernel"));
    return absl::OkStatus();
  }

private:
  bool slice;
  LocalBoxingLayout box;
  size_t size;
};

absl::StatusOr<std::unique_ptr<Kernel>> createLocalBox(const OpDesc &op,
                                                       bool slice) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const LocalBoxingLayout *box = op.layoutAs<LocalBoxingLayout>();
  if (!box || op.inputs[0].rank() > kMaxAxes)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new LocalBoxKernel(op, slice, *box));
}

/// accumulate: the first micro-batch's value, plus each later one's.
class AccumulateKernel : public CudaKernel {
public:
  using CudaKernel::CudaKernel;
  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    int64_t n = out[0].desc.numel();
    if (context.micro == 0)
      return check(cudaMemcpyAsync(out[0].data, in[0].data, out[0].desc.bytes(),
                                   cudaMemcpyDeviceToDevice, stream.handle()),
                   "cudaMemcpyAsync");
    BroadcastShape shape;
    shape.rank = 1;
    shape.shape[0] = n;
    shape.aStrides[0] = shape.bStrides[0] = 1;
    DType dtype = out[0].desc.dtype;
    return check(launchBinary(elementwise::Op::Add, dtype, dtype, out[0].data,
                              in[0].data, out[0].data, shape, n,
                              stream.handle()),
                 "the accumulate kernel");
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> createAccumulate(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  DType dtype = op.outputs[0].dtype;
  if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::I32 &&
      dtype != DType::I64 && dtype != DType::I8)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new AccumulateKernel(op));
}

class ArgReduceKernel : public CudaKernel {
public:
  ArgReduceKernel(const OpDesc &op, bool max, bool last, int64_t outer,
                  int64_t length, int64_t inner)
      : CudaKernel(op), max(max), last(last), outer(outer), length(length),
        inner(inner) {}
  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return check(launchArgReduce(in[0].desc.dtype, max, last, in[0].data,
                                 out[0].as<int64_t>(), outer, length, inner,
                                 stream.handle()),
                 "the arg reduction kernel");
  }

private:
  bool max, last;
  int64_t outer, length, inner;
};

absl::StatusOr<std::unique_ptr<Kernel>> createArgReduce(const OpDesc &op,
                                                        bool max) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  int64_t axis = 0;
  bool last = false;
  if (max) {
    OFRT_READ_PARAMS(declared, params::ArgMaxOp, op);
    axis = declared.axis;
    last = declared.select_last_index;
  } else {
    OFRT_READ_PARAMS(declared, params::ArgMinOp, op);
    axis = declared.axis;
    last = declared.select_last_index;
  }
  if (axis < 0)
    axis += x.rank();
  int64_t outer = 1, inner = 1, length = x.rank() ? x.shape[axis] : 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      (d < axis ? outer : inner) *= x.shape[d];
  if (x.dtype != DType::F32 && x.dtype != DType::F64 && x.dtype != DType::I8 &&
      x.dtype != DType::I32 && x.dtype != DType::I64)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(
      new ArgReduceKernel(op, max, last, outer, length, inner));
}

class ReduceKernel : public CudaKernel {
public:
  ReduceKernel(const OpDesc &op, ReduceKind kind, ReduceShape shape,
               int64_t count, int64_t divisor)
      : CudaKernel(op), kind(kind), shape(shape), count(count),
        divisor(divisor) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    DType dtype = in[0].desc.dtype;
    int64_t n = out[0].desc.numel();
    void *scratch = nullptr;
    if (size_t bytes = reduceScratchBytes(dtype, n, count)) {
      absl::StatusOr<void *> workspace = stream.workspace(bytes);
      if (!workspace.ok())
        return workspace.status();
      scratch = *workspace;
    }
    return check(launchReduce(kind, dtype, in[0].data, out[0].data, shape, n,
                              count, divisor, scratch, stream.handle()),
                 "the reduction kernel");
  }

private:
  ReduceKind kind;
  ReduceShape shape;
  int64_t count, divisor;
};

template <typename Params>
absl::StatusOr<std::unique_ptr<Kernel>> createReduce(const OpDesc &op,
                                                     ReduceKind kind) {
  // The CPU kernel's creation checks the op (axes, result, divisor).
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  DType dtype = x.dtype;
  if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::BF16 &&
      dtype != DType::I8 && dtype != DType::I32 && dtype != DType::I64)
    return stageOnHost(std::move(*cpuKernel));
  OFRT_READ_PARAMS(declared, Params, op);
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t axis : declared.axes)
    reduced[axis < 0 ? axis + x.rank() : axis] = true;
  Shape strides = rowMajor(x.shape);
  ReduceShape shape;
  int64_t count = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int &rank = reduced[d] ? shape.reducedRank : shape.keptRank;
    if (rank == kMaxAxes)
      return stageOnHost(std::move(*cpuKernel));
    (reduced[d] ? shape.reduced : shape.kept)[rank] = x.shape[d];
    (reduced[d] ? shape.reducedStrides : shape.keptStrides)[rank] = strides[d];
    ++rank;
    if (reduced[d])
      count *= x.shape[d];
  }
  int64_t divisor = count;
  if (const MeanDivisor *split = op.layoutAs<MeanDivisor>();
      split && kind == ReduceKind::Mean)
    divisor = split->divisor;
  return std::unique_ptr<Kernel>(
      new ReduceKernel(op, kind, shape, count, divisor));
}

} // namespace

void cuda::registerLayoutKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::TransposeOp::kOpName,
               createTranspose);
  registry.add(DeviceKind::Cuda, params::SliceOp::kOpName, createSlice);
  registry.add(DeviceKind::Cuda, params::ConcatOp::kOpName, createConcat);
  registry.add(DeviceKind::Cuda, params::ReshapeOp::kOpName, createReshape);
  registry.add(DeviceKind::Cuda, params::FlattenOp::kOpName, createReshape);
  registry.add(DeviceKind::Cuda, params::LocalSliceOp::kOpName,
               [](const OpDesc &op) { return createLocalBox(op, true); });
  registry.add(DeviceKind::Cuda, params::ToPartialOp::kOpName,
               [](const OpDesc &op) { return createLocalBox(op, false); });
  registry.add(DeviceKind::Cuda, params::AccumulateOp::kOpName,
               createAccumulate);
  registry.add(DeviceKind::Cuda, params::ArgMaxOp::kOpName,
               [](const OpDesc &op) { return createArgReduce(op, true); });
  registry.add(DeviceKind::Cuda, params::ArgMinOp::kOpName,
               [](const OpDesc &op) { return createArgReduce(op, false); });
  registry.add(DeviceKind::Cuda, params::ReduceSumOp::kOpName,
               [](const OpDesc &op) {
                 return createReduce<params::ReduceSumOp>(op, ReduceKind::Sum);
               });
  registry.add(DeviceKind::Cuda, params::ReduceMeanOp::kOpName,
               [](const OpDesc &op) {
                 return createReduce<params::ReduceMeanOp>(op,
                                                           ReduceKind::Mean);
               });
  registry.add(DeviceKind::Cuda, params::ReduceMaxOp::kOpName,
               [](const OpDesc &op) {
                 return createReduce<params::ReduceMaxOp>(op, ReduceKind::Max);
               });
  registry.add(DeviceKind::Cuda, params::ReduceSumSquareOp::kOpName,
               [](const OpDesc &op) {
                 return createReduce<params::ReduceSumSquareOp>(
                     op, ReduceKind::SumSquare);
               });
}

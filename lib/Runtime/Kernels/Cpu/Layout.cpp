//===- Layout.cpp - transpose, concat, reshape, flatten, slice ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// transpose is a oneDNN reorder from a permuted-strides view, or a copy of
// rows when it keeps the last axis and the rows are long; concat is
// oneDNN's concat. Both move bits, not values: elements are copied as s32
// words or bytes (copyType) with an extra innermost axis, so every element
// type works, 8-byte ones included. reshape and flatten are copies; slice
// is a plain strided copy.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "OpParams.h"
#include "ofrt/KernelParams.h"

#include <limits>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// A transpose whose rows (its last axis, kept) have at least this many
/// bytes copies them whole; shorter ones go to oneDNN's reorder.
constexpr int64_t kMinCopiedRowBytes = 64;

/// `shape` with the copy type's word axis appended (when it has one).
Shape withWords(Shape shape, const CopyType &copy) {
  if (copy.words > 1)
    shape.push_back(copy.words);
  return shape;
}

} // namespace

absl::StatusOr<Shape> cpu::readTransposePerm(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::TransposeOp, op);
  const std::vector<int64_t> &perm = declared.perm;
  if (static_cast<int64_t>(perm.size()) != x.rank())
    return opError(op, "perm has " + std::to_string(perm.size()) +
                           " entries for a rank-" + std::to_string(x.rank()) +
                           " operand");
  std::vector<bool> seen(x.rank(), false);
  Shape outShape;
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= x.rank() || seen[p])
      return opError(op, "perm " + shapeStr(perm) +
                             " is not a permutation of 0.." +
                             std::to_string(x.rank() - 1));
    seen[p] = true;
    outShape.push_back(x.shape[p]);
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, outShape}));
  return perm;
}

namespace {

template <size_t B> struct Word { uint8_t bytes[B]; };

/// Writes densely the elements of the input at `base` plus the sum of
/// index times `strides` for every index of `outShape`: a slice, or a
/// transpose that keeps the last axis (rows copied whole).
class StridedCopyKernel : public CpuKernel {
public:
  StridedCopyKernel(const OpDesc &op, const Shape &outShape, int64_t base,
                    const Shape &strides)
      : CpuKernel(op), outShape(outShape), base(base), strides(strides),
        size(dtypeSize(op.inputs[0].dtype)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    switch (size) {
    case 1:
      return run<1>(in[0], out[0]);
    case 2:
      return run<2>(in[0], out[0]);
    case 4:
      return run<4>(in[0], out[0]);
    default:
      return run<8>(in[0], out[0]);
    }
  }

private:
  template <size_t B>
  absl::Status run(const TensorView &in, const TensorView &out) {
    const Word<B> *x = in.as<Word<B>>() + base;
    Word<B> *y = out.as<Word<B>>();
    if (strides.empty() || strides.back() != 1) {
      int64_t i = 0;
      forEachIndex<1>(outShape, {strides}, [&](const std::array<int64_t, 1> &o) {
        y[i++] = x[o[0]];
      });
      return absl::OkStatus();
    }
    // Unit step on the last axis: whole rows, one memcpy each.
    Shape rows(outShape.begin(), outShape.end() - 1);
    Shape rowStrides(strides.begin(), strides.end() - 1);
    int64_t row = outShape.back();
    forEachIndex<1>(rows, {rowStrides}, [&](const std::array<int64_t, 1> &o) {
      std::memcpy(y, x + o[0], row * B);
      y += row;
    });
    return absl::OkStatus();
  }

  Shape outShape;
  int64_t base;
  Shape strides;
  size_t size;
};

KernelOr createTranspose(const OpDesc &op) {
  absl::StatusOr<Shape> readPerm = readTransposePerm(op);
  if (!readPerm.ok())
    return readPerm.status();
  const Shape &perm = *readPerm;
  const TensorDesc &x = op.inputs[0];
  const Shape &outShape = op.outputs[0].shape;
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (identity)
    return std::make_unique<CopyKernel>(op);
  Shape inStrides = rowMajorStrides(x.shape), strides;
  // The last axis kept, in rows of at least kMinCopiedRowBytes: a copy of
  // rows (attention's heads, 8x128x4x64 f32 to 8x4x128x64: 0.085 ms where
  // oneDNN's reorder took 0.17 under AVX2, one thread).
  if (perm.back() == x.rank() - 1 &&
      outShape.back() * int64_t(dtypeSize(x.dtype)) >= kMinCopiedRowBytes) {
    for (int64_t p : perm)
      strides.push_back(inStrides[p]);
    return std::make_unique<StridedCopyKernel>(op, outShape, 0, strides);
  }
  CopyType copy = copyType(x.dtype);
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank(), copy.words > 1));
  for (int64_t p : perm)
    strides.push_back(inStrides[p] * copy.words);
  if (copy.words > 1)
    strides.push_back(1);
  Shape dims = withWords(outShape, copy);
  return std::make_unique<ReorderKernel>(
      op, stridedDesc(dims, strides, copy.type), plainDesc(dims, copy.type));
}

class ConcatKernel : public CpuKernel {
public:
  ConcatKernel(const OpDesc &op, const std::vector<size_t> &used,
               const std::vector<MemDesc> &srcs, const MemDesc &dst, int axis)
      : CpuKernel(op), used(used), srcs(srcs), dst(dst) {
    prim = dnnl::concat(
        dnnl::concat::primitive_desc(dst, axis, srcs, cpuEngine(),
                                     scratchpadAttr()));
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    args(DNNL_ARG_DST, dst, out[0].data);
    for (size_t i = 0; i < used.size(); ++i)
      args(DNNL_ARG_MULTIPLE_SRC + i, srcs[i], in[used[i]].data);
    return execute(where, prim, args);
  }

private:
  DnnlArgs args;
  std::vector<size_t> used; // the non-empty inputs
  std::vector<MemDesc> srcs;
  MemDesc dst;
  dnnl::concat prim;
};

/// The only non-empty input of a concat, copied whole.
class ConcatOneKernel : public CpuKernel {
public:
  ConcatOneKernel(const OpDesc &op, size_t index)
      : CpuKernel(op), index(index) {}
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    std::memcpy(out[0].data, in[index].data, out[0].desc.bytes());
    return absl::OkStatus();
  }

private:
  size_t index;
};

/// A concat whose inputs are runs of whole rows of at least kRowBytes: for
/// each of the `outer` rows, each input's slab is copied into place with
/// memcpy (oneDNN's concat builds a memory object per input each call,
/// which costs more than the copy for the small gradients of a bucket).
class RowsConcatKernel : public CpuKernel {
public:
  static constexpr int64_t kRowBytes = 256;

  RowsConcatKernel(const OpDesc &op, int64_t outer,
                   std::vector<std::pair<size_t, int64_t>> slabs)
      : CpuKernel(op), outer(outer), slabs(std::move(slabs)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    auto *dst = static_cast<uint8_t *>(out[0].data);
    for (int64_t o = 0; o < outer; ++o)
      for (const auto &[input, bytes] : slabs) {
        std::memcpy(dst, static_cast<const uint8_t *>(in[input].data) +
                             o * bytes,
                    bytes);
        dst += bytes;
      }
    return absl::OkStatus();
  }

private:
  int64_t outer;
  /// Per non-empty input: its index and the bytes of one of its slabs.
  std::vector<std::pair<size_t, int64_t>> slabs;
};

} // namespace

absl::StatusOr<int64_t> cpu::readConcatAxis(const OpDesc &op) {
  if (op.inputs.empty())
    return opError(op, "needs at least one input");
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, op.inputs.size(), 1));
  const TensorDesc &first = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::ConcatOp, op);
  int64_t axis = 0;
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "axis", declared.axis, first.rank(), axis));
  Shape outShape = first.shape;
  outShape[axis] = 0;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const TensorDesc &t = op.inputs[i];
    if (t.rank() != first.rank() || t.dtype != first.dtype)
      return opError(op, "input " + std::to_string(i) + " " + t.str() +
                             " does not match the rank and element type of "
                             "input 0, " +
                             first.str());
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.shape[d] != first.shape[d])
        return opError(op, "input " + std::to_string(i) + " has size " +
                               std::to_string(t.shape[d]) + " on axis " +
                               std::to_string(d) + " where input 0 has " +
                               std::to_string(first.shape[d]));
    outShape[axis] += t.shape[axis];
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {first.dtype, outShape}));
  return axis;
}

namespace {

KernelOr createConcat(const OpDesc &op) {
  absl::StatusOr<int64_t> readAxis = readConcatAxis(op);
  if (!readAxis.ok())
    return readAxis.status();
  int64_t axis = *readAxis;
  const TensorDesc &first = op.inputs[0];
  const Shape &outShape = op.outputs[0].shape;
  std::vector<size_t> used;
  for (size_t i = 0; i < op.inputs.size(); ++i)
    if (op.inputs[i].numel() != 0)
      used.push_back(i);
  if (used.empty())
    return std::make_unique<NoopKernel>(op);
  if (used.size() == 1)
    return std::make_unique<ConcatOneKernel>(op, used[0]);
  int64_t outer = numel(Shape(first.shape.begin(), first.shape.begin() + axis));
  std::vector<std::pair<size_t, int64_t>> slabs;
  int64_t smallest = std::numeric_limits<int64_t>::max();
  for (size_t i : used) {
    int64_t bytes = op.inputs[i].bytes() / std::max<int64_t>(outer, 1);
    slabs.push_back({i, bytes});
    smallest = std::min(smallest, bytes);
  }
  if (outer == 1 || smallest >= RowsConcatKernel::kRowBytes)
    return std::make_unique<RowsConcatKernel>(op, outer, std::move(slabs));
  CopyType copy = copyType(first.dtype);
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, first.rank(), copy.words > 1));
  std::vector<MemDesc> srcs;
  for (size_t i : used)
    srcs.push_back(plainDesc(withWords(op.inputs[i].shape, copy), copy.type));
  return std::make_unique<ConcatKernel>(
      op, used, srcs, plainDesc(withWords(outShape, copy), copy.type),
      static_cast<int>(axis));
}

KernelOr createReshape(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0], &y = op.outputs[0];
  if (x.dtype != y.dtype)
    return opError(op, std::string("changes the element type from ") +
                           dtypeName(x.dtype) + " to " + dtypeName(y.dtype));
  if (x.numel() != y.numel())
    return opError(op, "cannot reshape " + x.str() + " into " + y.str());
  return std::make_unique<CopyKernel>(op);
}

KernelOr createFlatten(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::FlattenOp, op);
  int64_t startAttr = declared.start_dim, endAttr = declared.end_dim,
          start = 0, end = 0;
  int64_t rank = std::max<int64_t>(x.rank(), 1);
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "start_dim", startAttr, rank, start));
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "end_dim", endAttr, rank, end));
  if (start > end)
    return opError(op, "start_dim " + std::to_string(start) +
                           " is after end_dim " + std::to_string(end));
  Shape outShape;
  if (x.rank() == 0) {
    outShape = {1};
  } else {
    outShape.assign(x.shape.begin(), x.shape.begin() + start);
    outShape.push_back(
        numel(Shape(x.shape.begin() + start, x.shape.begin() + end + 1)));
    outShape.insert(outShape.end(), x.shape.begin() + end + 1, x.shape.end());
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, outShape}));
  return std::make_unique<CopyKernel>(op);
}

} // namespace

absl::StatusOr<SliceParams> cpu::readSliceParams(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::SliceOp, op);
  const std::vector<int64_t> &starts = declared.starts, &ends = declared.ends,
                             &steps = declared.steps;
  size_t rank = x.rank();
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank)
    return opError(op, "needs one start, end and step per axis (" +
                           std::to_string(rank) + "), got " +
                           std::to_string(starts.size()) + ", " +
                           std::to_string(ends.size()) + " and " +
                           std::to_string(steps.size()));
  Shape inStrides = rowMajorStrides(x.shape);
  SliceParams p;
  for (size_t i = 0; i < rank; ++i) {
    if (steps[i] < 1)
      return opError(op, "step " + std::to_string(steps[i]) + " on axis " +
                             std::to_string(i) + " is not positive");
    int64_t dim = x.shape[i];
    auto clamp = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::min(std::max<int64_t>(v, 0), dim);
    };
    int64_t begin = clamp(starts[i]), end = clamp(ends[i]);
    p.shape.push_back(end > begin ? (end - begin + steps[i] - 1) / steps[i]
                                  : 0);
    p.base += begin * inStrides[i];
    p.strides.push_back(inStrides[i] * steps[i]);
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, p.shape}));
  return p;
}

namespace {

KernelOr createSlice(const OpDesc &op) {
  absl::StatusOr<SliceParams> params = readSliceParams(op);
  if (!params.ok())
    return params.status();
  const Shape &outShape = params->shape, &strides = params->strides;
  int64_t base = params->base;
  if (numel(outShape) == 0)
    return std::make_unique<NoopKernel>(op);
  return std::make_unique<StridedCopyKernel>(op, outShape, base, strides);
}

} // namespace

void cpu::registerLayoutKernels(KernelRegistry &registry) {
  addKernel(registry, params::TransposeOp::kOpName, createTranspose);
  addKernel(registry, params::ConcatOp::kOpName, createConcat);
  addKernel(registry, params::ReshapeOp::kOpName, createReshape);
  addKernel(registry, params::FlattenOp::kOpName, createFlatten);
  addKernel(registry, params::SliceOp::kOpName, createSlice);
}

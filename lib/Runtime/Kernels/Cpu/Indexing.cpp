//===- Indexing.cpp - gather, gather_elements, their gradients, top_k -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Plain code (oneDNN has no gather). Indices follow ONNX Gather: valid in
// [-D, D) where D is the size of `axis`, negative ones counting from the
// end; anything else makes compute() fail with the index and its position.
// gather_grad is the scatter-add that transposes gather: a zero table, and
// each row of dy added into the row its index names. gather_elements
// (torch.gather) picks one element of x per index, at the index's position
// with the index along `axis`; gather_elements_grad adds dy back there.
// top_k sorts each line's positions by value (std::partial_sort, lower
// index first among equals) and keeps the first k.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

#include <algorithm>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// Fails naming the first index outside [-limit, limit).
template <typename I>
absl::Status checkIndices(const std::string &where, const I *indices,
                          int64_t count, int64_t limit) {
  for (int64_t j = 0; j < count; ++j)
    if (indices[j] < -limit || indices[j] >= limit)
      return absl::OutOfRangeError(
          where + ": index " + std::to_string(indices[j]) + " at position " +
          std::to_string(j) + " is outside [-" + std::to_string(limit) + ", " +
          std::to_string(limit) + ")");
  return absl::OkStatus();
}

/// Reads which of `limit` rows along the indexed axis this piece holds:
/// [begin, begin + held). Multi-rank plans give a piece of a table split
/// along that axis an IndexRange; without one, `begin` and `limit` keep the
/// values they come with.
absl::Status readIndexRange(const OpDesc &op, int64_t held, int64_t &begin,
                            int64_t &limit) {
  if (const IndexRange *range = op.layoutAs<IndexRange>()) {
    begin = range->begin;
    limit = range->limit;
  }
  if (begin < 0 || limit < begin + held)
    return opError(op, "rows [" + std::to_string(begin) + ", " +
                           std::to_string(begin + held) +
                           ") of the table are outside its " +
                           std::to_string(limit) + " rows");
  return absl::OkStatus();
}

class GatherKernel : public CpuKernel {
public:
  GatherKernel(const OpDesc &op, int64_t outer, int64_t dim, int64_t inner,
               int64_t begin, int64_t limit)
      : CpuKernel(op), outer(outer), dim(dim), begin(begin), limit(limit),
        rowBytes(inner * dtypeSize(op.inputs[0].dtype)),
        count(op.inputs[1].numel()), wide(op.inputs[1].dtype == DType::I64) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return wide ? run(in[0], in[1].as<int64_t>(), out[0])
                : run(in[0], in[1].as<int32_t>(), out[0]);
  }

private:
  template <typename I>
  absl::Status run(const TensorView &x, const I *indices, const TensorView &y) {
    OFRT_RETURN_IF_ERROR(checkIndices(where, indices, count, limit));
    const uint8_t *src = x.as<uint8_t>();
    uint8_t *dst = y.as<uint8_t>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < count; ++j) {
        int64_t index = (indices[j] < 0 ? indices[j] + limit : indices[j]) -
                        begin;
        uint8_t *row = dst + (o * count + j) * rowBytes;
        // A row this piece of a split table does not hold is zero: the
        // pieces of the result are partial sums.
        if (index < 0 || index >= dim)
          std::memset(row, 0, rowBytes);
        else
          std::memcpy(row, src + (o * dim + index) * rowBytes, rowBytes);
      }
    return absl::OkStatus();
  }

  /// The rows this piece holds are [begin, begin + dim) of `limit`.
  int64_t outer, dim, begin, limit;
  size_t rowBytes;
  int64_t count;
  bool wide;
};

KernelOr createGather(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &x = op.inputs[0], &indices = op.inputs[1];
  OFRT_READ_PARAMS(declared, params::GatherOp, op);
  int64_t axisAttr = declared.axis, axis = 0;
  if (x.rank() < 1)
    return opError(op, "cannot gather from a scalar");
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", axisAttr, x.rank(), axis));
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    return opError(op, "indices must be i32 or i64, got " + indices.str());
  Shape outShape(x.shape.begin(), x.shape.begin() + axis);
  outShape.insert(outShape.end(), indices.shape.begin(), indices.shape.end());
  outShape.insert(outShape.end(), x.shape.begin() + axis + 1, x.shape.end());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, outShape}));
  int64_t outer = numel(Shape(x.shape.begin(), x.shape.begin() + axis));
  int64_t inner = numel(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  int64_t begin = 0, limit = x.shape[axis];
  OFRT_RETURN_IF_ERROR(readIndexRange(op, x.shape[axis], begin, limit));
  return std::make_unique<GatherKernel>(op, outer, x.shape[axis], inner, begin,
                                        limit);
}

class GatherGradKernel : public CpuKernel {
public:
  GatherGradKernel(const OpDesc &op, int64_t outer, int64_t dim, int64_t inner,
                   int64_t begin, int64_t limit)
      : CpuKernel(op), outer(outer), dim(dim), inner(inner), begin(begin),
        limit(limit), count(op.inputs[1].numel()),
        wide(op.inputs[1].dtype == DType::I64),
        isDouble(op.inputs[0].dtype == DType::F64) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (wide)
      return isDouble ? run<double>(in[0], in[1].as<int64_t>(), out[0])
                      : run<float>(in[0], in[1].as<int64_t>(), out[0]);
    return isDouble ? run<double>(in[0], in[1].as<int32_t>(), out[0])
                    : run<float>(in[0], in[1].as<int32_t>(), out[0]);
  }

private:
  template <typename T, typename I>
  absl::Status run(const TensorView &dyView, const I *indices,
                   const TensorView &dxView) {
    OFRT_RETURN_IF_ERROR(checkIndices(where, indices, count, limit));
    const T *dy = dyView.as<T>();
    T *dx = dxView.as<T>();
    std::fill_n(dx, outer * dim * inner, T(0));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < count; ++j) {
        int64_t row = (indices[j] < 0 ? indices[j] + limit : indices[j]) -
                      begin;
        // Rows another piece of a split table holds are its to add.
        if (row < 0 || row >= dim)
          continue;
        const T *src = dy + (o * count + j) * inner;
        T *dst = dx + (o * dim + row) * inner;
        for (int64_t k = 0; k < inner; ++k)
          dst[k] += src[k];
      }
    return absl::OkStatus();
  }

  /// This piece holds rows [begin, begin + dim) of `limit`.
  int64_t outer, dim, inner, begin, limit, count;
  bool wide, isDouble;
};

KernelOr createGatherGrad(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &dy = op.inputs[0], &indices = op.inputs[1];
  const TensorDesc &dx = op.outputs[0];
  OFRT_READ_PARAMS(declared, params::GatherGradOp, op);
  int64_t axisAttr = declared.axis, axis = 0;
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    return opError(op, "indices must be i32 or i64, got " + indices.str());
  if (dy.dtype != DType::F32 && dy.dtype != DType::F64)
    return opError(op, "has a CPU kernel for f32 and f64 only, got " +
                           dy.str());
  if (dx.rank() < 1 || dy.rank() != dx.rank() + indices.rank() - 1)
    return opError(op, "dy " + dy.str() + " and indices " + indices.str() +
                           " do not fit the result " + dx.str());
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", axisAttr, dx.rank(), axis));
  Shape expected(dx.shape.begin(), dx.shape.begin() + axis);
  expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
  expected.insert(expected.end(), dx.shape.begin() + axis + 1, dx.shape.end());
  if (dy != TensorDesc{dx.dtype, expected})
    return opError(op, "dy is " + dy.str() + ", needs " +
                           TensorDesc{dx.dtype, expected}.str() +
                           " for the result " + dx.str());
  int64_t begin = 0, limit = declared.dim_size;
  OFRT_RETURN_IF_ERROR(readIndexRange(op, dx.shape[axis], begin, limit));
  int64_t outer = numel(Shape(dx.shape.begin(), dx.shape.begin() + axis));
  int64_t inner = numel(Shape(dx.shape.begin() + axis + 1, dx.shape.end()));
  return std::make_unique<GatherGradKernel>(op, outer, dx.shape[axis], inner,
                                            begin, limit);
}

/// gather_elements (`grad` false) and gather_elements_grad: walks the
/// indices with x's (or dx's) offsets of the other axes; the index gives the
/// position along `axis`. A piece of x (dx) split along `axis` holds
/// positions [begin, begin + its size) of `limit`: others give zeros (add
/// nothing), and the pieces of the result are partial sums.
class GatherElementsKernel : public CpuKernel {
public:
  GatherElementsKernel(const OpDesc &op, bool grad, int64_t axis, int64_t begin,
                       int64_t limit)
      : CpuKernel(op), grad(grad), walk(op.inputs[1].shape), begin(begin),
        limit(limit), elemSize(dtypeSize(op.outputs[0].dtype)),
        wide(op.inputs[1].dtype == DType::I64),
        isDouble(op.outputs[0].dtype == DType::F64) {
    const Shape &big = grad ? op.outputs[0].shape : op.inputs[0].shape;
    bigStrides = rowMajorStrides(big);
    axisStride = bigStrides[axis];
    held = big[axis];
    bigStrides[axis] = 0;
    bigCount = numel(big);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (wide)
      return dispatch(in[0], in[1].as<int64_t>(), out[0]);
    return dispatch(in[0], in[1].as<int32_t>(), out[0]);
  }

private:
  template <typename I>
  absl::Status dispatch(const TensorView &x, const I *indices,
                        const TensorView &y) {
    OFRT_RETURN_IF_ERROR(checkIndices(where, indices, numel(walk), limit));
    if (!grad)
      return gather(x.as<uint8_t>(), indices, y.as<uint8_t>());
    return isDouble ? scatterAdd(x.as<double>(), indices, y.as<double>())
                    : scatterAdd(x.as<float>(), indices, y.as<float>());
  }

  /// Calls f(n, offset in x or dx) for each index n, with offset -1 where
  /// another piece holds the position.
  template <typename F, typename I> void visit(const I *indices, F &&f) {
    int64_t n = 0;
    forEachIndex<1>(walk, {bigStrides}, [&](const std::array<int64_t, 1> &o) {
      int64_t index =
          (indices[n] < 0 ? indices[n] + limit : indices[n]) - begin;
      f(n++, index < 0 || index >= held ? -1 : o[0] + index * axisStride);
    });
  }

  template <typename I>
  absl::Status gather(const uint8_t *x, const I *indices, uint8_t *y) {
    visit(indices, [&](int64_t n, int64_t at) {
      if (at < 0)
        std::memset(y + n * elemSize, 0, elemSize);
      else
        std::memcpy(y + n * elemSize, x + at * elemSize, elemSize);
    });
    return absl::OkStatus();
  }

  template <typename T, typename I>
  absl::Status scatterAdd(const T *dy, const I *indices, T *dx) {
    std::fill_n(dx, bigCount, T(0));
    visit(indices, [&](int64_t n, int64_t at) {
      if (at >= 0)
        dx[at] += dy[n];
    });
    return absl::OkStatus();
  }

  bool grad;
  Shape walk, bigStrides;
  /// x (dx) holds positions [begin, begin + held) of `limit` along the axis.
  int64_t begin = 0, limit = 0, held = 0;
  int64_t axisStride = 0, bigCount = 0;
  size_t elemSize;
  bool wide, isDouble;
};

/// Checks gather_elements(x, indices) -> y or gather_elements_grad(dy,
/// indices) -> dx: `small` (y or dy) has the indices' shape, `big` (x or
/// dx) their rank and no smaller size on the other axes.
/// The axis gather_elements and its gradient declare.
absl::StatusOr<int64_t> readElementsAxis(const OpDesc &op, bool grad) {
  if (grad) {
    OFRT_READ_PARAMS(declared, params::GatherElementsGradOp, op);
    return declared.axis;
  }
  OFRT_READ_PARAMS(declared, params::GatherElementsOp, op);
  return declared.axis;
}

KernelOr createGatherElements(const OpDesc &op, bool grad) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &indices = op.inputs[1];
  const TensorDesc &big = grad ? op.outputs[0] : op.inputs[0];
  const TensorDesc &small = grad ? op.inputs[0] : op.outputs[0];
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    return opError(op, "indices must be i32 or i64, got " + indices.str());
  if (grad && big.dtype != DType::F32 && big.dtype != DType::F64)
    return opError(op,
                   "has a CPU kernel for f32 and f64 only, got " + big.str());
  if (small != TensorDesc{big.dtype, indices.shape})
    return opError(op, std::string(grad ? "dy" : "the result") + " is " +
                           small.str() + ", needs " +
                           TensorDesc{big.dtype, indices.shape}.str());
  if (big.rank() < 1 || indices.rank() != big.rank())
    return opError(op, "indices " + indices.str() + " must have the rank of " +
                           big.str());
  absl::StatusOr<int64_t> axisAttr = readElementsAxis(op, grad);
  if (!axisAttr.ok())
    return axisAttr.status();
  int64_t axis = 0;
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", *axisAttr, big.rank(), axis));
  for (int64_t j = 0; j < big.rank(); ++j)
    if (j != axis && indices.shape[j] > big.shape[j])
      return opError(op, "indices " + indices.str() + " are larger than " +
                             big.str() + " on axis " + std::to_string(j));
  int64_t begin = 0, limit = big.shape[axis];
  OFRT_RETURN_IF_ERROR(readIndexRange(op, big.shape[axis], begin, limit));
  return std::make_unique<GatherElementsKernel>(op, grad, axis, begin, limit);
}

/// top_k over lines of `length` elements `inner` apart.
template <typename T> class TopKKernel : public CpuKernel {
public:
  TopKKernel(const OpDesc &op, int64_t outer, int64_t length, int64_t inner,
             int64_t k, bool smallest)
      : CpuKernel(op), outer(outer), length(length), inner(inner), k(k),
        smallest(smallest), order(length) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    T *values = out[0].as<T>();
    int64_t *indices = out[1].as<int64_t>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *line = x + o * length * inner + i;
        for (int64_t j = 0; j < length; ++j)
          order[j] = j;
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          [&](int64_t a, int64_t b) {
                            T va = line[a * inner], vb = line[b * inner];
                            if (va != vb)
                              return smallest ? va < vb : va > vb;
                            return a < b;
                          });
        for (int64_t j = 0; j < k; ++j) {
          int64_t at = (o * k + j) * inner + i;
          values[at] = line[order[j] * inner];
          indices[at] = order[j];
        }
      }
    return absl::OkStatus();
  }

private:
  int64_t outer, length, inner, k;
  bool smallest;
  std::vector<int64_t> order;
};

KernelOr createTopK(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 2));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::TopKOp, op);
  int64_t axisAttr = declared.axis, axis = 0, k = declared.k;
  if (x.rank() < 1)
    return opError(op, "cannot take the top k of a scalar");
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", axisAttr, x.rank(), axis));
  if (k < 0 || k > x.shape[axis])
    return opError(op, "k " + std::to_string(k) + " is outside [0, " +
                           std::to_string(x.shape[axis]) + "]");
  Shape shape = x.shape;
  shape[axis] = k;
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, shape}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {DType::I64, shape}));
  int64_t outer = numel(Shape(x.shape.begin(), x.shape.begin() + axis));
  int64_t inner = numel(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  bool smallest = declared.smallest;
  std::unique_ptr<Kernel> kernel;
  bool known = x.dtype != DType::Bool && visitPlainType(x.dtype, [&](auto tag) {
                 using T = typename decltype(tag)::type;
                 kernel = std::make_unique<TopKKernel<T>>(
                     op, outer, x.shape[axis], inner, k, smallest);
               });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype));
  return kernel;
}

} // namespace

void cpu::registerIndexingKernels(KernelRegistry &registry) {
  addKernel(registry, params::GatherOp::kOpName, createGather);
  addKernel(registry, params::GatherGradOp::kOpName, createGatherGrad);
  addKernel(registry, params::TopKOp::kOpName, createTopK);
  addKernel(registry, params::GatherElementsOp::kOpName, [](const OpDesc &op) {
    return createGatherElements(op, /*grad=*/false);
  });
  addKernel(registry, params::GatherElementsGradOp::kOpName,
            [](const OpDesc &op) {
              return createGatherElements(op, /*grad=*/true);
            });
}

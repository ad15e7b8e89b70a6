//===- CollectiveKernels.cpp - all_reduce, reduce_scatter, ... ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Collectives in an axis group of n ranks. The group-level tensor L is split
// balanced along one axis (OneFlow's split: 10 over 4 is 3, 3, 2, 2). The
// communicator moves chunks that are contiguous in rank order, so a split on
// an axis with a non-trivial axis before it is packed first (reduce_scatter,
// all_to_all's sends) or unpacked after (all_gather, all_to_all's
// receives), one box copy per chunk.
//
//===----------------------------------------------------------------------===//

#include "ofrt/CollectiveKernels.h"
#include "ofrt/Pieces.h"
#include "ofsupport/Layout.h"

#include "ofrt/KernelChecks.h"
#include "ofrt/Status.h"

using namespace ofrt;

namespace {

using Shape = std::vector<int64_t>;
using KernelOr = absl::StatusOr<std::unique_ptr<Kernel>>;

/// `shape` with axis `axis` set to `size`.
Shape withAxis(Shape shape, int64_t axis, int64_t size) {
  shape[axis] = size;
  return shape;
}

/// The box origin that starts at `begin` along `axis`.
Shape originAt(size_t rank, int64_t axis, int64_t begin) {
  Shape origin(rank, 0);
  origin[axis] = begin;
  return origin;
}

/// Whether a split along `axis` of `shape` is contiguous in row-major order.
bool contiguousSplit(const Shape &shape, int64_t axis) {
  for (int64_t d = 0; d < axis; ++d)
    if (shape[d] != 1)
      return false;
  return true;
}

/// A collective kernel: the communicator of its group and the op's text.
class CollectiveKernel : public Kernel {
public:
  CollectiveKernel(const OpDesc &op, Communicator *comm, int globalRank)
      : comm(comm), globalRank(globalRank) {}

protected:
  /// `status`, prefixed with this rank's global number.
  absl::Status tag(absl::Status status) const {
    if (status.ok())
      return status;
    return absl::Status(status.code(), "global rank " +
                                           std::to_string(globalRank) + ", " +
                                           std::string(status.message()));
  }
  Communicator *comm;
  int globalRank;
};

class AllReduceKernel : public CollectiveKernel {
public:
  AllReduceKernel(const OpDesc &op, Communicator *comm, int globalRank,
                  ReduceOp reduce)
      : CollectiveKernel(op, comm, globalRank), reduce(reduce) {}
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return tag(comm->allReduce(in[0].desc.dtype, in[0].data, out[0].data,
                               in[0].desc.numel(), reduce));
  }

private:
  ReduceOp reduce;
};

/// reduce_scatter and all_gather along `axis` of the group-level `full`.
class SplitKernel : public CollectiveKernel {
public:
  SplitKernel(const OpDesc &op, Communicator *comm, int globalRank,
              bool scatter, Shape full, int64_t axis, ReduceOp reduce)
      : CollectiveKernel(op, comm, globalRank), scatter(scatter),
        full(std::move(full)), axis(axis), reduce(reduce) {
    dtype = op.inputs[0].dtype;
    count = TensorDesc{dtype, this->full}.numel();
    rowSize = this->full[axis] ? count / this->full[axis] : 1;
    if (!contiguousSplit(this->full, axis))
      packed.resize(count * dtypeSize(dtype));
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (count == 0)
      return absl::OkStatus();
    if (packed.empty())
      return tag(scatter ? comm->reduceScatter(dtype, in[0].data, out[0].data,
                                               count, rowSize, reduce)
                         : comm->allGather(dtype, in[0].data, out[0].data,
                                           count, rowSize));
    const TensorView &whole = scatter ? in[0] : out[0];
    std::vector<ofsupport::Range> parts =
        ofsupport::balancedSplit(full[axis], comm->size());
    if (scatter)
      forEachChunk(parts, [&](const TensorView &chunk, const Shape &origin) {
        copyBox(whole, origin, chunk, Shape(full.size(), 0), chunk.desc.shape);
      });
    absl::Status status =
        scatter
            ? comm->reduceScatter(dtype, packed.data(), out[0].data, count,
                                  rowSize, reduce)
            : comm->allGather(dtype, in[0].data, packed.data(), count, rowSize);
    if (!status.ok() || scatter)
      return tag(status);
    forEachChunk(parts, [&](const TensorView &chunk, const Shape &origin) {
      copyBox(chunk, Shape(full.size(), 0), whole, origin, chunk.desc.shape);
    });
    return absl::OkStatus();
  }

private:
  /// Calls fn(chunkView, originInWhole) for each rank's chunk in `packed`.
  template <typename Fn>
  void forEachChunk(const std::vector<ofsupport::Range> &parts, Fn &&fn) {
    size_t offset = 0;
    for (const ofsupport::Range &part : parts) {
      TensorView chunk{packed.data() + offset,
                       {dtype, withAxis(full, axis, part.size)}};
      fn(chunk, originAt(full.size(), axis, part.begin));
      offset += chunk.desc.bytes();
    }
  }

  bool scatter;
  Shape full;
  int64_t axis;
  ReduceOp reduce;
  DType dtype;
  int64_t count, rowSize;
  std::vector<uint8_t> packed;
};

/// all_to_all from a split on `inAxis` to a split on `outAxis` of `full`.
class AllToAllKernel : public CollectiveKernel {
public:
  AllToAllKernel(const OpDesc &op, Communicator *comm, int globalRank,
                 Shape full, int64_t inAxis, int64_t outAxis)
      : CollectiveKernel(op, comm, globalRank), full(std::move(full)),
        inAxis(inAxis), outAxis(outAxis) {
    const TensorDesc &in = op.inputs[0], &out = op.outputs[0];
    int n = comm->size();
    for (int k = 0; k < n; ++k) {
      ofsupport::Range send = ofsupport::balancedPart(this->full[outAxis], n, k);
      ofsupport::Range recv = ofsupport::balancedPart(this->full[inAxis], n, k);
      sends.push_back({in.dtype, withAxis(in.shape, outAxis, send.size)});
      sendBegins.push_back(originAt(in.shape.size(), outAxis, send.begin));
      recvs.push_back({in.dtype, withAxis(out.shape, inAxis, recv.size)});
      recvBegins.push_back(originAt(out.shape.size(), inAxis, recv.begin));
      sendCounts.push_back(sends.back().numel());
      recvCounts.push_back(recvs.back().numel());
    }
    sendBuffer.resize(in.bytes());
    recvBuffer.resize(out.bytes());
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    Shape zeros(full.size(), 0);
    size_t offset = 0;
    for (size_t k = 0; k < sends.size(); ++k) {
      TensorView chunk{sendBuffer.data() + offset, sends[k]};
      copyBox(in[0], sendBegins[k], chunk, zeros, sends[k].shape);
      offset += sends[k].bytes();
    }
    OFRT_RETURN_IF_ERROR(tag(comm->allToAllV(in[0].desc.dtype,
                                             sendBuffer.data(), sendCounts,
                                             recvBuffer.data(), recvCounts)));
    offset = 0;
    for (size_t k = 0; k < recvs.size(); ++k) {
      TensorView chunk{recvBuffer.data() + offset, recvs[k]};
      copyBox(chunk, zeros, out[0], recvBegins[k], recvs[k].shape);
      offset += recvs[k].bytes();
    }
    return absl::OkStatus();
  }

private:
  Shape full;
  int64_t inAxis, outAxis;
  std::vector<TensorDesc> sends, recvs;
  std::vector<Shape> sendBegins, recvBegins;
  std::vector<int64_t> sendCounts, recvCounts;
  std::vector<uint8_t> sendBuffer, recvBuffer;
};

/// The `group` attribute: its ranks, and this rank's position among them.
struct Group {
  std::vector<int64_t> ranks;
  int size = 0, me = 0;
};

/// `status` with the op's where() in front.
absl::Status named(const OpDesc &op, const absl::Status &status) {
  return absl::Status(status.code(),
                      op.where() + ": " + std::string(status.message()));
}

/// The op's collective layout, or an error naming the op.
absl::StatusOr<const CollectiveLayout *> layoutOf(const OpDesc &op) {
  const CollectiveLayout *layout = op.layoutAs<CollectiveLayout>();
  if (!layout)
    return opError(op, "needs a collective layout (its group and axes)");
  return layout;
}

/// Reads and checks the group without joining it.
absl::StatusOr<Group> readGroup(const OpDesc &op, CommunicatorPool &pool) {
  absl::StatusOr<const CollectiveLayout *> layout = layoutOf(op);
  if (!layout.ok())
    return layout.status();
  Group group;
  group.ranks = (*layout)->group;
  absl::StatusOr<int> me = pool.positionIn(group.ranks);
  if (!me.ok())
    return named(op, me.status());
  group.size = group.ranks.size();
  group.me = *me;
  return group;
}

/// Joins the group (once every attribute and shape has been checked).
absl::StatusOr<Communicator *> joinGroup(const OpDesc &op,
                                         CommunicatorPool &pool,
                                         const Group &group) {
  absl::StatusOr<Communicator *> comm = pool.get(group.ranks);
  if (!comm.ok())
    return named(op, comm.status());
  return comm;
}

/// Reads the split axis `name` (a field of the collective layout) of a
/// tensor of rank `rank`.
absl::Status readAxis(const OpDesc &op, const char *name, int64_t rank,
                      int64_t &axis) {
  absl::StatusOr<const CollectiveLayout *> layout = layoutOf(op);
  if (!layout.ok())
    return layout.status();
  std::string field = name;
  axis = field == "in_axis"    ? (*layout)->inAxis
         : field == "out_axis" ? (*layout)->outAxis
                               : (*layout)->axis;
  if (axis < 0 || axis >= rank)
    return opError(op, "the collective's " + field + " is " +
                           std::to_string(axis) + " but the tensor has rank " +
                           std::to_string(rank));
  return absl::OkStatus();
}

KernelOr createAllReduce(const OpDesc &op, CommunicatorPool &pool) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, op.inputs[0]));
  if (!isReducible(op.inputs[0].dtype))
    return opError(op, std::string("cannot sum ") +
                           dtypeName(op.inputs[0].dtype) +
                           " (f32, f64, i32, i64 only)");
  absl::StatusOr<Group> group = readGroup(op, pool);
  if (!group.ok())
    return group.status();
  absl::StatusOr<Communicator *> comm = joinGroup(op, pool, *group);
  if (!comm.ok())
    return comm.status();
  return std::make_unique<AllReduceKernel>(
      op, *comm, pool.rank(), op.layoutAs<CollectiveLayout>()->reduce);
}

/// reduce_scatter (scatter) or all_gather: the whole tensor is the input or
/// the output; the other is this rank's piece of it along `axis`.
KernelOr createSplit(const OpDesc &op, CommunicatorPool &pool, bool scatter) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &whole = scatter ? op.inputs[0] : op.outputs[0];
  const TensorDesc &piece = scatter ? op.outputs[0] : op.inputs[0];
  int64_t axis;
  OFRT_RETURN_IF_ERROR(readAxis(op, "axis", whole.rank(), axis));
  if (scatter && !isReducible(whole.dtype))
    return opError(op, std::string("cannot sum ") + dtypeName(whole.dtype) +
                           " (f32, f64, i32, i64 only)");
  absl::StatusOr<Group> group = readGroup(op, pool);
  if (!group.ok())
    return group.status();
  Shape expected = withAxis(
      whole.shape, axis,
      ofsupport::balancedPart(whole.shape[axis], group->size, group->me).size);
  if (piece.dtype != whole.dtype || piece.shape != expected)
    return opError(op, std::string(scatter ? "result" : "operand") + " is " +
                           piece.str() + " but rank " +
                           std::to_string(group->me) + " of its group of " +
                           std::to_string(group->size) + " holds " +
                           shapeStr(expected) + " of the " + whole.str() +
                           " split along axis " + std::to_string(axis));
  absl::StatusOr<Communicator *> comm = joinGroup(op, pool, *group);
  if (!comm.ok())
    return comm.status();
  return std::make_unique<SplitKernel>(op, *comm, pool.rank(), scatter,
                                       whole.shape, axis,
                                       op.layoutAs<CollectiveLayout>()->reduce);
}

KernelOr createAllToAll(const OpDesc &op, CommunicatorPool &pool) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &in = op.inputs[0], &out = op.outputs[0];
  if (in.rank() != out.rank() || in.dtype != out.dtype)
    return opError(op, "operand " + in.str() + " and result " + out.str() +
                           " differ in rank or element type");
  int64_t inAxis, outAxis;
  OFRT_RETURN_IF_ERROR(readAxis(op, "in_axis", in.rank(), inAxis));
  OFRT_RETURN_IF_ERROR(readAxis(op, "out_axis", in.rank(), outAxis));
  if (inAxis == outAxis)
    return opError(op, "in_axis and out_axis are both " +
                           std::to_string(inAxis));
  absl::StatusOr<Group> group = readGroup(op, pool);
  if (!group.ok())
    return group.status();
  int n = group->size, me = group->me;
  Shape full = withAxis(out.shape, outAxis, in.shape[outAxis]);
  Shape inExpected =
      withAxis(full, inAxis, ofsupport::balancedPart(full[inAxis], n, me).size);
  Shape outExpected = withAxis(
      full, outAxis, ofsupport::balancedPart(full[outAxis], n, me).size);
  if (in.shape != inExpected || out.shape != outExpected)
    return opError(op, "operand " + in.str() + " and result " + out.str() +
                           " are not rank " + std::to_string(me) + "'s pieces (" +
                           shapeStr(inExpected) + ", " +
                           shapeStr(outExpected) + ") of a " +
                           shapeStr(full) + " tensor in a group of " +
                           std::to_string(n));
  absl::StatusOr<Communicator *> comm = joinGroup(op, pool, *group);
  if (!comm.ok())
    return comm.status();
  return std::make_unique<AllToAllKernel>(op, *comm, pool.rank(), full, inAxis,
                                          outAxis);
}

} // namespace

absl::StatusOr<std::unique_ptr<Kernel>>
ofrt::createCollectiveKernel(const OpDesc &op, CommunicatorPool &pool) {
  switch (op.role) {
  case OpRole::AllReduce:
    return createAllReduce(op, pool);
  case OpRole::ReduceScatter:
    return createSplit(op, pool, /*scatter=*/true);
  case OpRole::AllGather:
    return createSplit(op, pool, /*scatter=*/false);
  case OpRole::AllToAll:
    return createAllToAll(op, pool);
  case OpRole::Transfer:
    return createTransferKernel(op, pool);
  default:
    return opError(op, "is not a collective op");
  }
}

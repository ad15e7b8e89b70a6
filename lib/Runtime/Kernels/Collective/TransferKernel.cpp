//===- TransferKernel.cpp - oneflow.transfer between placements -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A transfer moves a tensor from one placement to another as a list of
// point-to-point records, [peer, tag, begin x rank, size x rank] each: a send
// slices the box out of this rank's input, a recv writes it into this rank's
// output (or adds it, for a `reduce` transfer from a partial source). Every
// rank walks its records merged in increasing tag order, sends before recvs
// of the same tag; since tags follow one global order, blocking sends and
// recvs cannot deadlock. A record whose peer is this rank is a local copy,
// matched to the recv of the same tag.
//
//===----------------------------------------------------------------------===//

#include "ofrt/CollectiveKernels.h"
#include "ofrt/Pieces.h"

#include "ofrt/KernelChecks.h"
#include "ofrt/Status.h"

#include <algorithm>
#include <map>

using namespace ofrt;

namespace {

using Shape = std::vector<int64_t>;
using KernelOr = absl::StatusOr<std::unique_ptr<Kernel>>;

/// Tags from here up are reserved for the runtime (none uses them now:
/// reports go over the control channel).
constexpr int64_t kFirstReservedTag = (int64_t(1) << 32) - (int64_t(1) << 16);

/// A send or a receive, in walking order.
struct Record : PointToPoint {
  bool isRecv = false;
};

class TransferKernel : public Kernel {
public:
  TransferKernel(const OpDesc &op, Communicator *comm, int globalRank,
                 DType dtype, std::vector<Record> records, bool reduce)
      : comm(comm), globalRank(globalRank), dtype(dtype),
        records(std::move(records)), reduce(reduce) {
    size_t largest = 0;
    for (const Record &record : this->records)
      largest = std::max<size_t>(largest, record.numel() * dtypeSize(dtype));
    buffer.resize(largest);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (reduce && !out.empty())
      std::memset(out[0].data, 0, out[0].desc.bytes());
    std::map<uint32_t, std::vector<uint8_t>> local;
    for (const Record &record : records) {
      TensorView piece{buffer.data(), {dtype, record.size}};
      std::vector<int64_t> origin(record.size.size(), 0);
      bool self = record.peer == comm->rank();
      if (!record.isRecv) {
        copyBox(in[0], record.begin, piece, origin, record.size);
        if (self)
          local[record.tag].assign(buffer.begin(),
                                   buffer.begin() + piece.desc.bytes());
        else
          OFRT_RETURN_IF_ERROR(tagged(
              comm->send(dtype, buffer.data(), record.numel(), record.peer,
                         record.tag)));
        continue;
      }
      if (self)
        piece.data = local[record.tag].data();
      else
        OFRT_RETURN_IF_ERROR(tagged(comm->recv(dtype, buffer.data(),
                                               record.numel(), record.peer,
                                               record.tag)));
      if (reduce)
        OFRT_RETURN_IF_ERROR(
            addBox(piece, origin, out[0], record.begin, record.size));
      else
        copyBox(piece, origin, out[0], record.begin, record.size);
    }
    return absl::OkStatus();
  }

private:
  absl::Status tagged(absl::Status status) const {
    if (status.ok())
      return status;
    return absl::Status(status.code(),
                        "global rank " + std::to_string(globalRank) +
                            ", transfer: " + std::string(status.message()));
  }

  Communicator *comm;
  int globalRank;
  DType dtype;
  std::vector<Record> records; ///< Merged in walking order.
  bool reduce;
  std::vector<uint8_t> buffer;
};

/// Checks the `name` records (sends or recvs) of the layout against
/// `desc` (the input for sends, the output for recvs; null when the rank
/// has none) and appends them.
absl::Status readRecords(const OpDesc &op, const char *name, bool isRecv,
                         const std::vector<PointToPoint> &given,
                         const TensorDesc *desc, int64_t groupSize,
                         std::vector<Record> &records) {
  if (given.empty())
    return absl::OkStatus();
  const char *what = isRecv ? "output" : "input";
  if (!desc)
    return opError(op, std::string("has ") + name + " but no " + what +
                           " on this rank");
  size_t rank = desc->shape.size();
  for (size_t i = 0; i < given.size(); ++i) {
    const PointToPoint &p2p = given[i];
    std::string which = std::string(name) + " record " + std::to_string(i);
    if (p2p.begin.size() != rank || p2p.size.size() != rank)
      return opError(op, which + " has a box of " +
                             std::to_string(p2p.begin.size()) + " and " +
                             std::to_string(p2p.size.size()) +
                             " axes, not the " + std::to_string(rank) +
                             " of its " + what + " " + desc->str());
    if (p2p.peer < 0 || p2p.peer >= groupSize)
      return opError(op, which + " has peer " + std::to_string(p2p.peer) +
                             ", outside its group of " +
                             std::to_string(groupSize));
    if (p2p.tag >= kFirstReservedTag)
      return opError(op, which + " has tag " + std::to_string(p2p.tag) +
                             ", outside [0, " +
                             std::to_string(kFirstReservedTag) + ")");
    Record record;
    static_cast<PointToPoint &>(record) = p2p;
    record.isRecv = isRecv;
    for (size_t d = 0; d < rank; ++d)
      if (record.begin[d] < 0 || record.size[d] < 0 ||
          record.begin[d] + record.size[d] > desc->shape[d])
        return opError(op, which + " is outside its " + what + " " +
                               desc->str());
    records.push_back(std::move(record));
  }
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<std::unique_ptr<Kernel>>
ofrt::createTransferKernel(const OpDesc &op, CommunicatorPool &pool) {
  if (op.inputs.size() > 1 || op.outputs.size() > 1 ||
      (op.inputs.empty() && op.outputs.empty()))
    return opError(op, "needs at most one operand and one result, and one "
                       "of them, got " +
                           std::to_string(op.inputs.size()) + " and " +
                           std::to_string(op.outputs.size()));
  const TensorDesc *in = op.inputs.empty() ? nullptr : &op.inputs[0];
  const TensorDesc *out = op.outputs.empty() ? nullptr : &op.outputs[0];
  if (in && out && (in->dtype != out->dtype || in->rank() != out->rank()))
    return opError(op, "operand " + in->str() + " and result " + out->str() +
                           " differ in rank or element type");
  DType dtype = in ? in->dtype : out->dtype;
  const TransferLayout *layout = op.layoutAs<TransferLayout>();
  if (!layout)
    return opError(op, "needs a transfer layout (its group, sends and recvs)");
  bool reduce = layout->reduce;
  if (reduce && !isReducible(dtype))
    return opError(op, std::string("cannot sum ") + dtypeName(dtype) +
                           " (f32, f64, i32, i64 only)");
  const std::vector<int64_t> &group = layout->group;
  std::vector<Record> records;
  OFRT_RETURN_IF_ERROR(readRecords(op, "sends", false, layout->sends, in,
                                   group.size(), records));
  OFRT_RETURN_IF_ERROR(readRecords(op, "recvs", true, layout->recvs, out,
                                   group.size(), records));
  std::stable_sort(records.begin(), records.end(),
                   [](const Record &a, const Record &b) {
                     return std::make_pair(a.tag, a.isRecv) <
                            std::make_pair(b.tag, b.isRecv);
                   });
  // Tags pair one send with one recv: each appears once per direction.
  std::map<std::pair<bool, uint32_t>, const Record *> byTag;
  for (const Record &record : records)
    if (!byTag.emplace(std::make_pair(record.isRecv, record.tag), &record)
             .second)
      return opError(op, std::string("has two ") +
                             (record.isRecv ? "recvs" : "sends") +
                             " with tag " + std::to_string(record.tag));
  absl::StatusOr<int> position = pool.positionIn(group);
  if (!position.ok())
    return absl::Status(position.status().code(),
                        op.where() + ": " +
                            std::string(position.status().message()));
  int self = *position;
  for (const Record &record : records) {
    if (record.peer != self)
      continue;
    auto match = byTag.find({!record.isRecv, record.tag});
    if (match == byTag.end() || match->second->peer != self ||
        match->second->size != record.size)
      return opError(op, std::string("has a local ") +
                             (record.isRecv ? "recv" : "send") + " with tag " +
                             std::to_string(record.tag) +
                             " and no local " +
                             (record.isRecv ? "send" : "recv") +
                             " of the same size and tag");
  }
  absl::StatusOr<Communicator *> comm = pool.get(group);
  if (!comm.ok())
    return absl::Status(comm.status().code(),
                        op.where() + ": " + std::string(comm.status().message()));
  return std::make_unique<TransferKernel>(op, *comm, pool.rank(), dtype,
                                          std::move(records), reduce);
}

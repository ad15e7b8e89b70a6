//===- RankReport.cpp - What a rank sends rank 0 after its run ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RankReport.h"

#include "pieces.pb.h"

using namespace ofrt;
using namespace ofrt::multirank;

static proto::RankReport makeReport(int rank, const RankState &state,
                                    bool firings) {
  proto::RankReport report;
  report.set_rank(rank);
  report.set_host(state.host);
  report.set_epoch_ns(state.epochNs);
  for (size_t i = 0; firings && i < state.result.firings.size(); ++i) {
    const Firing &f = state.result.firings[i];
    proto::FiringRecord *out = report.add_firings();
    out->set_actor(f.actor);
    out->set_step(f.step);
    out->set_start_us(f.startUs);
    out->set_end_us(f.endUs);
    out->set_micro(f.micro);
  }
  report.set_steps(state.result.steps);
  report.set_seconds(state.result.seconds);
  report.set_threads(state.result.threads);
  for (const StepLoad &load : state.result.stepLoads) {
    report.add_step_compute_us(load.computeUs);
    report.add_step_end_us(load.endUs);
  }
  for (const auto &[name, piece] : state.pieces) {
    proto::OutputPiece *out = report.add_pieces();
    out->set_name(name);
    out->set_dtype(static_cast<int>(piece.value.desc.dtype));
    for (int64_t dim : piece.value.desc.shape)
      out->add_shape(dim);
    for (int64_t dim : piece.layout.logicalShape)
      out->add_logical_shape(dim);
    for (int64_t begin : piece.layout.begin)
      out->add_slice_begin(begin);
    out->set_partial(piece.partial);
    out->set_primary(piece.primary);
    out->set_data(piece.value.bytes.data(), piece.value.bytes.size());
  }
  for (const TensorData &value : state.variables)
    report.add_variables(value.bytes.data(), value.bytes.size());
  return report;
}

/// Reads rank `report.rank()`'s report into `state`; `own` is rank 0's
/// state, whose clock firings from its host move onto.
static void readReport(const proto::RankReport &report,
                       const std::vector<VariablePiece> *variables,
                       const RankState &own, RankState &state) {
  state.result.steps = report.steps();
  state.result.seconds = report.seconds();
  state.result.threads = report.threads();
  double shiftUs = !own.host.empty() && report.host() == own.host
                       ? (report.epoch_ns() - own.epochNs) / 1e3
                       : 0;
  for (const proto::FiringRecord &f : report.firings())
    state.result.firings.push_back({f.actor(), f.step(), f.start_us() + shiftUs,
                                    f.end_us() + shiftUs, f.micro()});
  for (int s = 0;
       s < report.step_compute_us_size() && s < report.step_end_us_size(); ++s)
    state.result.stepLoads.push_back(
        {report.step_compute_us(s), report.step_end_us(s)});
  for (const proto::OutputPiece &in : report.pieces()) {
    OutputPiece piece;
    piece.value.desc.dtype = static_cast<DType>(in.dtype());
    piece.value.desc.shape.assign(in.shape().begin(), in.shape().end());
    piece.value.bytes.assign(in.data().begin(), in.data().end());
    piece.layout.logicalShape.assign(in.logical_shape().begin(),
                                     in.logical_shape().end());
    piece.layout.begin.assign(in.slice_begin().begin(), in.slice_begin().end());
    piece.partial = in.partial();
    piece.primary = in.primary();
    state.pieces.push_back({in.name(), std::move(piece)});
  }
  for (int i = 0; variables && i < report.variables_size(); ++i) {
    TensorData value;
    if (i < static_cast<int>(variables->size()))
      value.desc = (*variables)[i].desc;
    value.bytes.assign(report.variables(i).begin(), report.variables(i).end());
    state.variables.push_back(std::move(value));
  }
}

std::string multirank::encodeReport(int rank, const RankState &state,
                                    bool firings) {
  return makeReport(rank, state, firings).SerializeAsString();
}

absl::Status
multirank::decodeReport(const std::string &bytes, int rank,
                        const std::vector<VariablePiece> *variables,
                        const RankState &own, RankState &state) {
  proto::RankReport report;
  if (!report.ParseFromString(bytes))
    return absl::DataLossError("rank " + std::to_string(rank) +
                               " sent a corrupt report");
  readReport(report, variables, own, state);
  return absl::OkStatus();
}

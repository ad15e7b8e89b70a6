//===- Progress.cpp - Per-step progress and metrics of a run --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Progress.h"
#include "ofdriver/Nonfinite.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Pieces.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

using namespace ofdriver;

namespace {

bool isWatchable(const ofrt::TensorDesc &desc) {
  return desc.numel() == 1 &&
         (desc.dtype == ofrt::DType::F32 || desc.dtype == ofrt::DType::F64 ||
          desc.dtype == ofrt::DType::I32 || desc.dtype == ofrt::DType::I64);
}

} // namespace

std::map<std::string, int64_t>
Progress::watchedOutputs(const std::vector<ofrt::RankProgram> &ranks) {
  std::map<std::string, int64_t> watched;
  for (const ofrt::RankProgram &program : ranks)
    for (const ofrt::ActorSpec &actor : program.actors) {
      const ofrt::OpDesc &op = actor.op;
      // The gradient check is the monitor's (Nonfinite.h), not a metric.
      if (op.role != ofrt::OpRole::Output || op.inputs.empty() ||
          !isWatchable(op.inputs[0]) ||
          ofrt::userName(op) == kNonfiniteOutput)
        continue;
      // Values a rank holds whole (not a piece or a partial sum), from the
      // first rank that does (a pipeline's loss is on its last stage).
      absl::StatusOr<ofrt::OutputPiece> piece =
          ofrt::readOutputPiece(op, program.rank);
      if (piece.ok() && !piece->partial &&
          piece->layout.whole(op.inputs[0].shape))
        watched.emplace(ofrt::userName(op), program.rank);
    }
  return watched;
}

int64_t Progress::reportingRank(const std::vector<ofrt::RankProgram> &ranks) {
  int64_t first = -1;
  for (const auto &[name, rank] : watchedOutputs(ranks))
    first = first < 0 ? rank : std::min(first, rank);
  return std::max<int64_t>(first, 0);
}

absl::StatusOr<std::unique_ptr<Progress>>
Progress::create(const std::vector<ofrt::RankProgram> &ranks, int64_t steps,
                 const std::string &csvPath, bool live, int64_t logEvery) {
  std::unique_ptr<Progress> p(new Progress());
  p->steps = steps;
  p->live = live;
  p->logEvery = logEvery;
  p->schedule = ofrt::LearningRateSchedule::ofPlan(ranks);
  p->watchedRank = watchedOutputs(ranks);
  for (const auto &[name, rank] : p->watchedRank)
    p->names.push_back(name);
  // Samples per step: the batch of the first input.
  bool counted = false;
  for (const ofrt::RankProgram &program : ranks)
    for (const ofrt::ActorSpec &actor : program.actors) {
      const ofrt::OpDesc &op = actor.op;
      if (op.role == ofrt::OpRole::Input && !counted && !op.outputs.empty() &&
          op.outputs[0].rank() > 0) {
        // A rank's piece of the step's batch: count the whole batch.
        const ofrt::PieceLayout *piece = op.layoutAs<ofrt::PieceLayout>();
        const std::vector<int64_t> &logical =
            piece && !piece->logicalShape.empty() ? piece->logicalShape
                                                  : op.outputs[0].shape;
        p->samplesPerStep = logical[0];
        counted = true;
      }
    }
  std::sort(p->names.begin(), p->names.end());
  if (!csvPath.empty()) {
    p->csv = std::fopen(csvPath.c_str(), "w");
    if (!p->csv)
      return absl::NotFoundError("cannot write metrics file '" + csvPath +
                                 "': " + std::strerror(errno));
    std::fprintf(p->csv, "step,seconds,samples_per_second");
    for (const std::string &name : p->names)
      std::fprintf(p->csv, ",%s", name.c_str());
    std::fprintf(p->csv, "\n");
  }
  p->start = std::chrono::steady_clock::now();
  return p;
}

Progress::~Progress() {
  if (csv)
    std::fclose(csv);
}

ofrt::OutputObserver Progress::observer() {
  return [this](int64_t rank, const std::string &name, int64_t step,
                const ofrt::TensorView &value, bool whole) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen = std::max(seen, step);
    }
    auto watched = watchedRank.find(name);
    if (whole && isWatchable(value.desc) && watched != watchedRank.end() &&
        watched->second == rank)
      record(name, step, ofrt::loadElement(value.desc.dtype, value.data, 0));
  };
}

void Progress::setFirstStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mutex);
  firstStep = step;
  done = seen = step - 1;
}

void Progress::record(const std::string &name, int64_t step, double value) {
  std::lock_guard<std::mutex> lock(mutex);
  std::map<std::string, double> &row = pending[step];
  row[name] = value;
  // Outputs run on one stream in order, so steps complete in order.
  while (!pending.empty() && pending.begin()->second.size() == names.size()) {
    auto [s, values] = *pending.begin();
    pending.erase(pending.begin());
    done = s;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double rate =
        (s + 1 - firstStep) * samplesPerStep / std::max(seconds, 1e-9);
    for (const auto &[n, v] : values) {
      first.emplace(n, v);
      last[n] = v;
      histories[n].push_back(v);
    }
    if (onStep)
      onStep(s, values);
    if (csv) {
      std::fprintf(csv, "%lld,%.6f,%.1f", static_cast<long long>(s), seconds,
                   rate);
      for (const std::string &n : names)
        std::fprintf(csv, ",%.9g", values[n]);
      std::fprintf(csv, "\n");
    }
    // Redraw at most every 0.1 s, and at the last step.
    bool last = s + 1 == firstStep + steps;
    if (live && (seconds - drawn >= 0.1 || last)) {
      drawn = seconds;
      std::fprintf(stderr, "\r%s   ", line(s, values, seconds, rate).c_str());
      std::fflush(stderr);
    } else if (!live && logEvery > 0 && ((s + 1) % logEvery == 0 || last)) {
      std::fprintf(stderr, "%s\n", line(s, values, seconds, rate).c_str());
    }
  }
}

std::string Progress::line(int64_t s,
                           const std::map<std::string, double> &values,
                           double seconds, double rate) const {
  std::string text = "step " + std::to_string(s + 1);
  if (steps > 0)
    text += "/" + std::to_string(firstStep + steps);
  char buf[96];
  for (const std::string &n : names) {
    std::snprintf(buf, sizeof buf, " | %s %.5g", n.c_str(), values.at(n));
    text += buf;
  }
  if (schedule) {
    std::snprintf(buf, sizeof buf, " | lr %.3g", schedule->at(s));
    text += buf;
  }
  std::snprintf(buf, sizeof buf, " | %.0f samples/s | %.1f s", rate, seconds);
  text += buf;
  if (steps > 0) {
    std::snprintf(buf, sizeof buf, ", %.1f s left",
                  seconds / (s + 1 - firstStep) * (firstStep + steps - s - 1));
    text += buf;
  }
  return text;
}

std::map<std::string, std::vector<double>> Progress::history() const {
  std::lock_guard<std::mutex> lock(mutex);
  return histories;
}

void Progress::endLine() {
  std::lock_guard<std::mutex> lock(mutex);
  if (live && done >= 0)
    std::fprintf(stderr, "\n");
  live = false;
  if (csv)
    std::fflush(csv);
  end = std::chrono::steady_clock::now();
}

std::string Progress::summary() {
  std::lock_guard<std::mutex> lock(mutex);
  double seconds = std::chrono::duration<double>(
                       end.value_or(std::chrono::steady_clock::now()) - start)
                       .count();
  // Without a watched scalar output, a step is done when any output is.
  int64_t ran = (names.empty() ? seen : done) + 1 - firstStep;
  char buf[128];
  std::snprintf(buf, sizeof buf, "summary: %lld steps in %.2f s, %.0f samples/s",
                static_cast<long long>(ran), seconds,
                ran * samplesPerStep / std::max(seconds, 1e-9));
  std::string text = buf;
  for (const std::string &n : names)
    if (first.count(n)) {
      std::snprintf(buf, sizeof buf, " %.6g -> %.6g", first[n], last[n]);
      text += "; " + n + buf;
    }
  return text;
}

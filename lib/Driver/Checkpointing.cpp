//===- Checkpointing.cpp - Saving and resuming a run's variables ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Checkpointing.h"
#include "ofdriver/Nonfinite.h"

#include <cstdio>
#include <cstdlib>

using namespace ofdriver;

absl::StatusOr<std::unique_ptr<Checkpointing>>
Checkpointing::create(const ofrt::LoadedPlan &plan,
                      const CheckpointOptions &options,
                      NonfiniteAction onNonfinite, bool allRanksHere,
                      bool verbose) {
  std::unique_ptr<Checkpointing> result(new Checkpointing());
  Checkpointing &c = *result;
  c.verbose = verbose;
  c.saveRoot = options.save;
  c.every = options.saveEvery;
  c.saveOptions.keep = options.keep;
  if (c.every < 0)
    return absl::InvalidArgumentError("--save-every must not be negative");
  if (c.saveOptions.keep < 1)
    return absl::InvalidArgumentError("--keep must be at least 1");
  if (c.every > 0 && c.saveRoot.empty())
    return absl::InvalidArgumentError("--save-every needs --save DIR");
  if (c.saveOptions.keep != CheckpointOptions().keep && c.saveRoot.empty())
    return absl::InvalidArgumentError(
        "--keep counts the step directories --save keeps; it needs --save "
        "DIR");
  if (c.every > 0 && !allRanksHere)
    return absl::InvalidArgumentError(
        "--save-every needs every rank in this process (--devices cpu:N); "
        "with several processes of-run saves once, after the run");
  if (options.resumePartial && options.resume.empty())
    return absl::InvalidArgumentError("--resume-partial needs --resume");
  // Test hook: kill this process after N files of a save (a crash mid-save).
  if (const char *kill = std::getenv("OF_RUN_TEST_FAIL_SAVE_AFTER"))
    c.saveOptions.killAfterFiles = std::atoll(kill);

  bool needVariables = !c.saveRoot.empty() || !options.resume.empty();
  if (!needVariables)
    return result;
  absl::StatusOr<std::vector<std::vector<ofrt::VariablePiece>>> variables =
      ofrt::planVariables(plan.ranks);
  if (!variables.ok())
    return variables.status();
  c.variables = std::move(*variables);
  c.index.resize(c.variables.size());
  for (size_t r = 0; r < c.variables.size(); ++r)
    for (size_t i = 0; i < c.variables[r].size(); ++i) {
      c.index[r][c.variables[r][i].name] = i;
      c.primaryPieces += c.variables[r][i].primary;
    }
  c.allowNonfinite = savesNonfinite(onNonfinite);
  if (std::string path = options.resume; !path.empty()) {
    absl::StatusOr<std::unique_ptr<ofrt::CheckpointReader>> reader =
        ofrt::CheckpointReader::open(path);
    if (!reader.ok())
      return reader.status();
    if (absl::Status status = (*reader)->checkAgainst(
            ofrt::logicalVariables(c.variables),
            options.resumePartial);
        !status.ok())
      return status;
    c.resume = std::move(*reader);
    if (absl::Status status = c.checkResumedValues(); !status.ok())
      return status;
    if (verbose)
      std::printf("resumed from %s at step %lld (%zu tensors)\n",
                  c.resume->directory().c_str(),
                  static_cast<long long>(c.resume->step()),
                  c.resume->tensors().size());
  }
  return result;
}

int64_t Checkpointing::firstStep() const {
  return resume ? resume->step() : 0;
}

void Checkpointing::configure(ofrt::MultiRankOptions &options) {
  options.run.firstStep = firstStep();
  options.session.restore = resume.get();
  options.collectVariables = !saveRoot.empty();
  if (every > 0)
    options.session.onVariable = [this](int64_t rank, const std::string &name,
                                        int64_t step,
                                        const ofrt::TensorView &value) {
      observe(rank, name, step, value);
    };
}

void Checkpointing::observe(int64_t rank, const std::string &name,
                            int64_t step, const ofrt::TensorView &value) {
  if (step % every != 0 || rank < 0 ||
      rank >= static_cast<int64_t>(index.size()))
    return;
  auto it = index[rank].find(name);
  if (it == index[rank].end() || !variables[rank][it->second].primary)
    return;
  const auto *bytes = static_cast<const uint8_t *>(value.data);
  ofrt::TensorData copy{value.desc,
                        std::vector<uint8_t>(bytes, bytes + value.desc.bytes())};
  std::lock_guard<std::mutex> lock(mutex);
  auto &[values, count] = pending[step];
  if (values.empty()) {
    values.resize(variables.size());
    for (size_t r = 0; r < variables.size(); ++r)
      values[r].resize(variables[r].size());
  }
  values[rank][it->second] = std::move(copy);
  if (++count < primaryPieces)
    return;
  auto snapshot = std::move(values);
  pending.erase(step);
  absl::StatusOr<std::map<std::string, ofrt::TensorData>> tensors =
      ofrt::assembleVariables(variables, snapshot);
  absl::Status status = tensors.ok() ? save(step, *tensors) : tensors.status();
  if (!status.ok() && saveError.ok())
    saveError = status;
}

absl::Status Checkpointing::checkResumedValues() const {
  for (const auto &[name, entry] : resume->tensors()) {
    absl::StatusOr<ofrt::TensorData> value = resume->readBox(
        name, std::vector<int64_t>(entry.desc.shape.size(), 0),
        entry.desc.shape);
    if (!value.ok())
      return value.status();
    std::string where = findNonfinite(*value);
    if (where.empty())
      continue;
    std::string message = "checkpoint " + resume->directory() + ": '" +
                          name + "' holds " + where;
    if (!allowNonfinite)
      return absl::DataLossError(
          message + "; resuming would train on it (--on-nonfinite warn "
                    "resumes anyway)");
    std::fprintf(stderr, "%s: warning: %s; resuming with it\n",
                 programName(), message.c_str());
  }
  return absl::OkStatus();
}

absl::Status
Checkpointing::save(int64_t step,
                    const std::map<std::string, ofrt::TensorData> &tensors) {
  if (!allowNonfinite)
    for (const auto &[name, value] : tensors)
      if (std::string where = findNonfinite(value); !where.empty())
        return absl::DataLossError(
            "did not save the checkpoint of step " + std::to_string(step) +
            ": variable '" + name + "' holds " + where +
            "; earlier checkpoints are kept (--on-nonfinite warn saves such "
            "values)");
  absl::StatusOr<std::string> dir =
      ofrt::saveCheckpoint(saveRoot, step, tensors, saveOptions);
  if (!dir.ok())
    return dir.status();
  if (verbose)
    std::printf("saved checkpoint %s (step %lld)\n", dir->c_str(),
                static_cast<long long>(step));
  return absl::OkStatus();
}

absl::Status Checkpointing::finish(const ofrt::MultiRankResult &result) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!saveError.ok())
      return saveError;
  }
  if (saveRoot.empty() || result.ranks.empty())
    return absl::OkStatus();
  return save(firstStep() + result.ranks[0].steps, result.variables);
}

absl::StatusOr<std::map<std::string, ofrt::TensorData>>
Checkpointing::resumedVariables() {
  std::map<std::string, ofrt::TensorData> values;
  if (!resume)
    return values;
  for (const auto &[name, desc] : ofrt::logicalVariables(variables)) {
    if (!resume->tensors().count(name))
      continue; // --resume-partial: it keeps its initializer.
    absl::StatusOr<ofrt::TensorData> value = resume->readBox(
        name, std::vector<int64_t>(desc.shape.size(), 0), desc.shape);
    if (!value.ok())
      return value.status();
    values[name] = std::move(*value);
  }
  return values;
}

absl::StatusOr<std::map<std::string, ofrt::TensorData>>
ofdriver::checkpointVariables(const ofrt::LoadedPlan &plan,
                              const CheckpointOptions &options,
                              NonfiniteAction onNonfinite) {
  absl::StatusOr<std::unique_ptr<Checkpointing>> checkpointing =
      Checkpointing::create(plan, options, onNonfinite, /*allRanksHere=*/true,
                            /*verbose=*/true);
  if (!checkpointing.ok())
    return checkpointing.status();
  return (*checkpointing)->resumedVariables();
}

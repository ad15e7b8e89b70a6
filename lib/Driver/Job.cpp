//===- Job.cpp - Where this process stands in a job -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Run.h"

#include "ofrt/Backend.h"
#include "ofrt/Collectives.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <tuple>

using namespace ofdriver;

absl::Status ofdriver::parseDevices(const std::string &devices, Job &job) {
  constexpr int64_t kMaxDevices = 4096;
  absl::string_view count = devices;
  int64_t n = 0;
  std::string kind = absl::ConsumePrefix(&count, "cuda:") ? "cuda" : "cpu";
  if ((kind == "cpu" && !absl::ConsumePrefix(&count, "cpu:")) ||
      !absl::SimpleAtoi(count, &n) || count.empty() ||
      !absl::ascii_isdigit(count[0]))
    return absl::InvalidArgumentError("--devices '" + devices +
                                      "' is not cpu:COUNT or cuda:COUNT");
  if (n < 1 || n > kMaxDevices)
    return absl::InvalidArgumentError(
        "--devices '" + devices + "' asks for " + std::string(count) +
        " ranks; one process runs 1 to " + std::to_string(kMaxDevices));
  if (kind == "cuda") {
    if (!ofrt::findBackend(ofrt::DeviceKind::Cuda).ok())
      return absl::InvalidArgumentError(
          "--devices '" + devices +
          "': this of-run was built without the CUDA backend (no CUDA "
          "toolkit was found when it was built)");
    if (n != 1)
      return absl::InvalidArgumentError(
          "--devices '" + devices +
          "': ranks on several GPUs cannot talk yet: the collective and "
          "transfer kernels pack pieces with host code that cannot touch "
          "GPU memory; use cuda:1");
  }
  job.devices = static_cast<int>(n);
  job.device = kind;
  return absl::OkStatus();
}

namespace {

/// An error unless `path` (when set) can be written: an existing directory
/// for `isDirectory`, else a file in an existing directory.
absl::Status checkWritable(const char *flag, const std::string &path,
                           bool isDirectory) {
  if (path.empty())
    return absl::OkStatus();
  std::error_code error;
  std::filesystem::path target(path);
  if (isDirectory) {
    if (!std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "' is not an existing directory");
  } else {
    if (std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "' is a directory; it needs a file");
    if (std::filesystem::exists(target, error)) {
      if (access(path.c_str(), W_OK) != 0)
        return absl::InvalidArgumentError(
            std::string(flag) + " '" + path +
            "' cannot be written: " + std::strerror(errno));
      return absl::OkStatus();
    }
    target = target.parent_path();
    if (target.empty())
      target = ".";
    if (!std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "': the directory '" + target.string() +
                                        "' does not exist");
  }
  if (access(target.c_str(), W_OK) != 0)
    return absl::InvalidArgumentError(
        std::string(flag) + " '" + path +
        "' cannot be written: " + std::strerror(errno));
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<Job> ofdriver::makeJob(const JobOptions &options) {
  Job job;
  if (absl::Status status = parseDevices(options.devices, job); !status.ok())
    return status;
  job.processes = options.processes;
  if (job.processes < 0)
    return absl::InvalidArgumentError(
        "--nproc-per-node must not be negative");
  // Checked before anything compiles for that many ranks (Launch.cpp's
  // limit).
  if (job.processes > 4096)
    return absl::InvalidArgumentError(
        "--nproc-per-node " + std::to_string(job.processes) +
        " is more than the 4096 processes one launcher starts");
  absl::StatusOr<std::optional<ProcessRank>> launched = rankFromEnvironment();
  if (!launched.ok())
    return launched.status();
  job.launched = *launched;
  job.storeDir = options.storeDir;
  job.redis = options.redis;
  job.jobId = options.jobId;
  job.hostname = options.hostname;
  if (job.launched && job.processes > 0)
    std::fprintf(stderr,
                 "%s: note: --nproc-per-node %d is ignored: %s=%d makes this "
                 "process one rank of %d already started\n",
                 programName(), job.processes,
                 job.launched->rankVariable.c_str(), job.launched->rank,
                 job.launched->world);
  if (job.launched && job.devices != 1)
    return absl::InvalidArgumentError(
        "--devices " + job.device + ":" + std::to_string(job.devices) +
        " runs several ranks in one process; under a launcher each process "
        "is one rank");
  if (!job.launched && job.processes > 0 && job.devices != 1)
    return absl::InvalidArgumentError(
        "--nproc-per-node and --devices cpu:N both set the ranks; pick one");
  if (!job.launched && job.processes == 0 && !job.hostname.empty())
    return absl::InvalidArgumentError(
        "--hostname is the address a launched rank listens on; it needs a "
        "launcher (torchrun, mpirun, srun, --nproc-per-node)");
  if (job.jobId != JobOptions().jobId && job.redis.empty())
    return absl::InvalidArgumentError(
        "--job-id prefixes this job's keys on the Redis server; it needs "
        "--redis HOST:PORT");
  if (!job.launched && (!job.storeDir.empty() || !job.redis.empty()))
    return absl::InvalidArgumentError(
        "--store-dir and --redis need a launcher (torchrun, mpirun, srun, "
        "--nproc-per-node) to set this process's rank");
  return job;
}

absl::Status ofdriver::checkRunOptions(const RunOptions &run,
                                       const ReportOptions &report) {
  if (run.threads < 0)
    return absl::InvalidArgumentError("--threads must not be negative");
  if (run.logEvery < 0)
    return absl::InvalidArgumentError("--log-every must not be negative");
  if (report.printLimit < 0)
    return absl::InvalidArgumentError(
        "--print-limit " + std::to_string(report.printLimit) +
        " is negative (0 prints only each output's type)");
  // Files written after the run are checked before it, so that a long run
  // does not end in an error about a path.
  for (auto [flag, path, isDirectory] :
       {std::tuple<const char *, std::string, bool>{"--trace", report.trace,
                                                    false},
        {"--metrics", run.metrics, false},
        {"--save-outputs", report.saveOutputs, true}})
    if (absl::Status status = checkWritable(flag, path, isDirectory);
        !status.ok())
      return status;
  if (run.timeoutMs < 1)
    return absl::InvalidArgumentError("--timeout-ms must be positive");
  const std::string &streams = run.streamThreads;
  if (streams != "auto" && streams != "each" && streams != "one")
    return absl::InvalidArgumentError("--stream-threads '" + streams +
                                      "' is not auto, each or one");
  const std::string &progress = run.progress;
  if (progress != "on" && progress != "off" && progress != "auto")
    return absl::InvalidArgumentError("--progress '" + progress +
                                      "' is not on, off or auto");
  if (!run.collectives.empty() &&
      !ofrt::CollectivesRegistry::global().contains(run.collectives))
    return absl::InvalidArgumentError(
        "--collectives '" + run.collectives +
        "' is not a collective library of this runtime (it has " +
        ofrt::CollectivesRegistry::global().names() + ")");
  return absl::OkStatus();
}

absl::Status ofdriver::checkPlanRanks(const ofrt::LoadedPlan &plan,
                                      const Job &job, const std::string &model) {
  int ranks = plan.ranks.size(), wanted = job.ranks();
  if (job.device == "cuda")
    for (const ofrt::RankProgram &rank : plan.ranks)
      if (rank.device != ofrt::DeviceKind::Cuda)
        return absl::InvalidArgumentError(
            "plan '" + model + "' puts rank " + std::to_string(rank.rank) +
            " on a " + ofrt::deviceKindName(rank.device) +
            " device but --devices asks for cuda; compile it for cuda");
  if (ranks == wanted)
    return absl::OkStatus();
  return absl::InvalidArgumentError(
      "plan '" + model + "' has " + std::to_string(ranks) +
      (ranks == 1 ? " rank" : " ranks") + " but " +
      (job.launched ? "the launcher started " + std::to_string(wanted) +
                          " processes"
       : job.processes > 0
           ? "--nproc-per-node asks for " + std::to_string(wanted)
           : "--devices asks for " + std::to_string(wanted)) +
      "; compile it for " + std::to_string(wanted) +
      (wanted == 1 ? " device" : " devices"));
}

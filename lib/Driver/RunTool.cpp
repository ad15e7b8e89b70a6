//===- RunTool.cpp - What the tools that run plans do around a run --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// of-run and of-run-plan parse their flags into the driver's options and
// call these: kernel plugins, --list-devices, and a run that launches
// processes or runs this process's ranks and reports.
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Run.h"

#include "ofdriver/Interrupt.h"

#include "ofrt/Backend.h"
#include "ofrt/KernelPlugin.h"
#include "ofrt/Status.h"

#include <cstdio>

using namespace ofdriver;

absl::Status ofdriver::loadKernelPlugins(const std::vector<std::string> &paths) {
  static bool loaded = false;
  if (loaded)
    return absl::OkStatus();
  loaded = true;
  for (const std::string &path : paths) {
    absl::StatusOr<bool> kernels = ofrt::isKernelPlugin(path);
    if (!kernels.ok())
      return absl::InvalidArgumentError(
          "--plugin: " + std::string(kernels.status().message()));
    if (*kernels)
      OFRT_RETURN_IF_ERROR(ofrt::loadKernelPlugin(path));
  }
  return absl::OkStatus();
}

std::string ofdriver::describeDevices() {
  std::string text;
  for (const ofrt::Backend &backend : ofrt::builtinBackends()) {
    absl::StatusOr<std::vector<std::string>> devices = backend.listDevices();
    if (!devices.ok()) {
      text += backend.name + ": none usable: " +
              std::string(devices.status().message()) + "\n";
      continue;
    }
    for (const std::string &device : *devices)
      text += device + "\n";
    // What --precision may ask of this backend here.
    for (ofrt::DType dtype : {ofrt::DType::BF16, ofrt::DType::F16}) {
      absl::Status status = backend.checkPrecision(dtype);
      text += backend.name + ": " + ofrt::dtypeName(dtype) + " " +
              (status.ok() ? "yes" : "no: ") + std::string(status.message()) +
              "\n";
    }
  }
  return text;
}

absl::StatusOr<int>
ofdriver::runAndReport(const Job &job, const ofrt::LoadedPlan &plan,
                       RunOptions options, const ReportOptions &report,
                       const std::vector<std::string> &childArgs,
                       const VariablesHook &afterRun) {
  if (job.launches())
    return launchProcesses(job.processes, childArgs,
                           std::chrono::milliseconds(options.timeoutMs));
  if (options.steps < 1)
    return absl::InvalidArgumentError("--steps must be at least 1");
  OFRT_RETURN_IF_ERROR(loadKernelPlugins(options.plugins));
  options.collectVariables = afterRun != nullptr;
  absl::StatusOr<RunResult> result = run(job, plan, options);
  if (absl::IsCancelled(result.status())) {
    // Stopped by a signal before any step: as after Ctrl-C, not an error.
    std::fprintf(stderr, "%s: %s\n", programName(),
                 std::string(result.status().message()).c_str());
    return kInterruptedExit;
  }
  if (!result.ok())
    return result.status();
  if (result->rank == 0 && afterRun)
    if (int code = afterRun(result->run.variables); code != 0)
      return code;
  OFRT_RETURN_IF_ERROR(ofdriver::report(plan, *result, report));
  return result->exitCode;
}

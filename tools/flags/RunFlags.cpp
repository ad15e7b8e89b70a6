//===- RunFlags.cpp - The flags of every program that runs plans ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RunFlags.h"

#include "absl/flags/flag.h"

#include <cstdio>
#include <cstdlib>

using namespace ofrt;
using namespace ofrun;

// The defaults are the driver library's (ofdriver/Options.h), written once.
static const ofdriver::RunOptions kRun;
static const ofdriver::JobOptions kJob;
static const ofdriver::ReportOptions kReport;

ABSL_FLAG(std::vector<std::string>, plugin, {},
          "Shared libraries of a research plugin: kernel plugins (exporting "
          "ofrtRegisterKernels) add kernels for its ops; with of-run, dialect "
          "plugins (as of-opt --load-dialect-plugin takes them) add its ops "
          "and their rules to the compiler. Repeat or separate with commas");
ABSL_FLAG(int64_t, steps, kRun.steps, "Steps to run (each input delivers one batch per step)");
ABSL_FLAG(int, threads, kRun.threads, "Threads for each kernel (0: the library's default)");
ABSL_FLAG(std::string, devices, kJob.devices,
          "Devices to run on in this process, as cpu:COUNT (one rank each) "
          "or cuda:1 (the process's first GPU)");
ABSL_FLAG(bool, list_devices, false,
          "Print the devices this runtime can use (one line each: the "
          "--devices name and what it is) and exit");
ABSL_FLAG(bool, allow_tf32, kRun.allowTf32,
          "GPU matmuls on f32 tensors may round operands to TF32 (faster, "
          "about 1e-3 relative)");
ABSL_FLAG(int, nproc_per_node, kJob.processes,
          "Run this many processes of of-run on this machine, one rank each, "
          "meeting through a fresh store directory");
ABSL_FLAG(std::string, store_dir, "",
          "Under torchrun, mpirun or srun: an empty directory every rank "
          "sees, where ranks meet");
ABSL_FLAG(std::string, redis, "",
          "Under torchrun, mpirun or srun on several machines: meet through "
          "the Redis server at HOST:PORT (keys under --job-id)");
ABSL_FLAG(std::string, job_id, kJob.jobId,
          "Prefix of this job's keys on the Redis server");
ABSL_FLAG(std::string, hostname, "",
          "The address this rank listens on (default: 127.0.0.1, or this "
          "machine's hostname with --redis)");
ABSL_FLAG(std::string, collectives, "",
          "The collective library: inproc (ranks that are threads of this "
          "process; the default for --devices cpu:N), mpi (the default under "
          "mpirun), gloo (the default under other launchers; needs "
          "--store-dir or --redis)");
ABSL_FLAG(std::string, stream_threads, kRun.streamThreads,
          "How each rank's plan streams map to threads: each (a thread per "
          "stream, so streams overlap), one (one thread per rank, no "
          "hand-offs between streams; pipeline stages then take turns), or "
          "auto (one when this process's ranks outnumber its cores, except "
          "for pipeline stages)");
ABSL_FLAG(int64_t, timeout_ms, kRun.timeoutMs,
          "How long a rank waits for its peers, in a collective or when "
          "joining a group, before it fails");
ABSL_FLAG(std::vector<std::string>, input, {},
          "Data for an input, NAME=SOURCE with SOURCE one of random (what "
          "an input without --input gets), random:LOW:HIGH, fill:VALUE, "
          "@FILE.npy (a NumPy array: consecutive batches along its first "
          "axis), @FILE (raw little-endian batches), and either file form "
          "with :loop to start over at its end; repeat --input or separate "
          "with commas");
ABSL_FLAG(uint64_t, seed, kRun.seed, "Seed of the generated inputs");
ABSL_FLAG(std::string, trace, "", "Write a Chrome trace of every actor firing to this file");
ABSL_FLAG(int, print_limit, kReport.printLimit, "Elements of each output to print");
ABSL_FLAG(std::string, save_outputs, "",
          "Write each output at the last step to DIR/<name>.npy (the "
          "directory must exist)");
ABSL_FLAG(std::string, metrics, "",
          "Write one CSV row per step: time, samples/s and every scalar "
          "output rank 0 holds whole (a loss)");
ABSL_FLAG(bool, profile, false,
          "After the run, print the kernel time of each op type (from rank "
          "0's firings)");
ABSL_FLAG(int64_t, log_every, kRun.logEvery,
          "Without a progress line (--progress off, or stderr not a "
          "terminal): print a plain progress line every N steps (0: none)");
ABSL_FLAG(std::string, save, "",
          "Save the variables (parameters and optimizer states) under this "
          "directory after the run, also when Ctrl-C stops it: DIR/step-N/ "
          "and DIR/latest, written atomically");
ABSL_FLAG(int64_t, save_every, kRun.checkpoint.saveEvery, "With --save: also save after every N steps");
ABSL_FLAG(int64_t, keep, kRun.checkpoint.keep,
          "With --save: the number of newest step directories to keep");
ABSL_FLAG(std::string, resume, "",
          "Start from this checkpoint (a step directory, or a --save "
          "directory with `latest`): its variables and its step count");
ABSL_FLAG(bool, resume_partial, false,
          "With --resume: variables the checkpoint lacks start from their "
          "initializers instead of being an error");
ABSL_FLAG(std::string, on_nonfinite,
          ofdriver::nonfiniteActionName(kRun.onNonfinite),
          "When a step's loss or gradients hold a NaN or an infinity: stop "
          "(after that step, which updates nothing), skip (report; such "
          "steps update nothing), warn (report and train on with them) or "
          "off (check nothing). Checkpoints with values that are not finite "
          "are written only with warn or off");
ABSL_FLAG(std::string, progress, kRun.progress,
          "Redraw a progress line on stderr: on, off, or auto (when stderr "
          "is a terminal)");

std::vector<oftools::FlagGroup> ofrun::runFlagGroups() {
  return {
      {"Model and inputs",
       {"steps", "input", "seed", "onnx_dim", "emit_plan", "export_onnx",
        "plugin"}},
      {"Devices and launch",
       {"devices", "list_devices", "allow_tf32", "threads", "stream_threads",
        "nproc_per_node", "store_dir", "redis", "job_id", "hostname",
        "collectives", "timeout_ms"}},
      {"Checkpoints",
       {"save", "save_every", "keep", "resume", "resume_partial"}},
      {"NaN and infinity", {"on_nonfinite"}},
      {"Output and profiling",
       {"print_limit", "save_outputs", "metrics", "progress", "log_every",
        "profile", "trace"}},
  };
}

std::vector<std::string>
ofrun::parseFlags(int argc, char **argv, const oftools::ToolInfo &tool,
                  std::vector<std::string> &normalized) {
  ofdriver::setProgramName(tool.name);
  std::vector<std::string> args =
      oftools::parseToolFlags(argc, argv, tool, normalized);
  if (absl::GetFlag(FLAGS_list_devices)) {
    std::fputs(ofdriver::describeDevices().c_str(), stdout);
    std::exit(0);
  }
  return args;
}

int ofrun::fail(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", ofdriver::programName(), message.c_str());
  return 1;
}

ofdriver::JobOptions ofrun::jobOptionsFromFlags() {
  ofdriver::JobOptions job;
  job.devices = absl::GetFlag(FLAGS_devices);
  job.processes = absl::GetFlag(FLAGS_nproc_per_node);
  job.storeDir = absl::GetFlag(FLAGS_store_dir);
  job.redis = absl::GetFlag(FLAGS_redis);
  job.jobId = absl::GetFlag(FLAGS_job_id);
  job.hostname = absl::GetFlag(FLAGS_hostname);
  return job;
}

absl::StatusOr<ofdriver::RunOptions> ofrun::runOptionsFromFlags() {
  ofdriver::RunOptions run;
  run.steps = absl::GetFlag(FLAGS_steps);
  run.threads = absl::GetFlag(FLAGS_threads);
  run.allowTf32 = absl::GetFlag(FLAGS_allow_tf32);
  run.streamThreads = absl::GetFlag(FLAGS_stream_threads);
  run.collectives = absl::GetFlag(FLAGS_collectives);
  run.timeoutMs = absl::GetFlag(FLAGS_timeout_ms);
  run.seed = absl::GetFlag(FLAGS_seed);
  absl::StatusOr<std::map<std::string, InputSource>> inputs =
      ofdriver::parseInputs(absl::GetFlag(FLAGS_input));
  if (!inputs.ok())
    return inputs.status();
  run.inputs = std::move(*inputs);
  run.plugins = absl::GetFlag(FLAGS_plugin);
  absl::StatusOr<ofdriver::NonfiniteAction> action =
      ofdriver::parseNonfiniteAction(absl::GetFlag(FLAGS_on_nonfinite));
  if (!action.ok())
    return action.status();
  run.onNonfinite = *action;
  run.checkpoint.save = absl::GetFlag(FLAGS_save);
  run.checkpoint.saveEvery = absl::GetFlag(FLAGS_save_every);
  run.checkpoint.keep = absl::GetFlag(FLAGS_keep);
  run.checkpoint.resume = absl::GetFlag(FLAGS_resume);
  run.checkpoint.resumePartial = absl::GetFlag(FLAGS_resume_partial);
  run.metrics = absl::GetFlag(FLAGS_metrics);
  run.progress = absl::GetFlag(FLAGS_progress);
  run.logEvery = absl::GetFlag(FLAGS_log_every);
  run.gatherFirings = !absl::GetFlag(FLAGS_trace).empty();
  return run;
}

ofdriver::ReportOptions ofrun::reportOptionsFromFlags() {
  ofdriver::ReportOptions report;
  report.printLimit = absl::GetFlag(FLAGS_print_limit);
  report.saveOutputs = absl::GetFlag(FLAGS_save_outputs);
  report.trace = absl::GetFlag(FLAGS_trace);
  report.profile = absl::GetFlag(FLAGS_profile);
  return report;
}

absl::StatusOr<Job> ofrun::jobFromFlags() {
  absl::StatusOr<Job> job = ofdriver::makeJob(jobOptionsFromFlags());
  if (!job.ok())
    return job.status();
  absl::StatusOr<ofdriver::RunOptions> run = runOptionsFromFlags();
  if (!run.ok())
    return run.status();
  if (absl::Status status =
          ofdriver::checkRunOptions(*run, reportOptionsFromFlags());
      !status.ok())
    return status;
  return job;
}

int ofrun::runPlan(const Job &job, const ofrt::LoadedPlan &plan,
                   const std::vector<std::string> &childArgs,
                   const ofdriver::VariablesHook &afterRun) {
  absl::StatusOr<ofdriver::RunOptions> options = runOptionsFromFlags();
  if (!options.ok())
    return fail(std::string(options.status().message()));
  absl::StatusOr<int> code = ofdriver::runAndReport(
      job, plan, *options, reportOptionsFromFlags(), childArgs, afterRun);
  if (!code.ok())
    return fail(std::string(code.status().message()));
  return *code;
}

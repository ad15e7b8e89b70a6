//===- RunFlags.cpp - The flags of every program that runs plans ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RunFlags.h"
#include "Launch.h"

#include "ofrt/Backend.h"
#include "ofrt/KernelPlugin.h"
#include "ofrt/Status.h"

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"

#include <cstdio>
#include <cstdlib>

using namespace ofrt;

ABSL_FLAG(std::vector<std::string>, plugin, {},
          "Shared libraries of a research plugin: kernel plugins (exporting "
          "ofrtRegisterKernels) add kernels for its ops; with of-run, dialect "
          "plugins (as of-opt --load-dialect-plugin takes them) add its ops "
          "and their rules to the compiler. Repeat or separate with commas");
ABSL_FLAG(int64_t, steps, 1, "Steps to run (each input delivers one batch per step)");
ABSL_FLAG(int, threads, 0, "Threads for each kernel (0: the library's default)");
ABSL_FLAG(std::string, devices, "cpu:1",
          "Devices to run on in this process, as cpu:COUNT (one rank each) "
          "or cuda:1 (the process's first GPU)");
ABSL_FLAG(bool, list_devices, false,
          "Print the devices this runtime can use (one line each: the "
          "--devices name and what it is) and exit");
ABSL_FLAG(bool, allow_tf32, false,
          "GPU matmuls on f32 tensors may round operands to TF32 (faster, "
          "about 1e-3 relative)");
ABSL_FLAG(int, nproc_per_node, 0,
          "Run this many processes of of-run on this machine, one rank each, "
          "meeting through a fresh store directory");
ABSL_FLAG(std::string, store_dir, "",
          "Under torchrun, mpirun or srun: an empty directory every rank "
          "sees, where ranks meet");
ABSL_FLAG(std::string, redis, "",
          "Under torchrun, mpirun or srun on several machines: meet through "
          "the Redis server at HOST:PORT (keys under --job-id)");
ABSL_FLAG(std::string, job_id, "of-run",
          "Prefix of this job's keys on the Redis server");
ABSL_FLAG(std::string, hostname, "",
          "The address this rank listens on (default: 127.0.0.1, or this "
          "machine's hostname with --redis)");
ABSL_FLAG(std::string, collectives, "",
          "The collective library: inproc (ranks that are threads of this "
          "process; the default for --devices cpu:N), mpi (the default under "
          "mpirun), gloo (the default under other launchers; needs "
          "--store-dir or --redis)");
ABSL_FLAG(std::string, stream_threads, "auto",
          "How each rank's plan streams map to threads: each (a thread per "
          "stream, so streams overlap), one (one thread per rank, no "
          "hand-offs between streams; pipeline stages then take turns), or "
          "auto (one when this process's ranks outnumber its cores, except "
          "for pipeline stages)");
ABSL_FLAG(int64_t, timeout_ms, 60000,
          "How long a rank waits for its peers, in a collective or when "
          "joining a group, before it fails");
ABSL_FLAG(std::vector<std::string>, input, {},
          "Data for an input, NAME=SOURCE with SOURCE one of random (what "
          "an input without --input gets), random:LOW:HIGH, fill:VALUE, "
          "@FILE.npy (a NumPy array: consecutive batches along its first "
          "axis), @FILE (raw little-endian batches), and either file form "
          "with :loop to start over at its end; repeat --input or separate "
          "with commas");
ABSL_FLAG(uint64_t, seed, 0, "Seed of the generated inputs");
ABSL_FLAG(std::string, trace, "", "Write a Chrome trace of every actor firing to this file");
ABSL_FLAG(int, print_limit, 8, "Elements of each output to print");
ABSL_FLAG(std::string, save_outputs, "",
          "Write each output at the last step to DIR/<name>.npy (the "
          "directory must exist)");
ABSL_FLAG(std::string, metrics, "",
          "Write one CSV row per step: time, samples/s and every scalar "
          "output rank 0 holds whole (a loss)");
ABSL_FLAG(bool, profile, false,
          "After the run, print the kernel time of each op type (from rank "
          "0's firings)");
ABSL_FLAG(int64_t, log_every, 0,
          "Without a progress line (--progress off, or stderr not a "
          "terminal): print a plain progress line every N steps (0: none)");
ABSL_FLAG(std::string, progress, "auto",
          "Redraw a progress line on stderr: on, off, or auto (when stderr "
          "is a terminal)");

static const char *currentProgram = "of-run";

const char *ofrun::programName() { return currentProgram; }
void ofrun::setProgramName(const char *name) { currentProgram = name; }

std::vector<oftools::FlagGroup> ofrun::runFlagGroups() {
  return {
      {"Model and inputs",
       {"steps", "input", "seed", "onnx_dim", "emit_plan", "export_onnx",
        "plugin"}},
      {"Devices and launch",
       {"devices", "list_devices", "allow_tf32", "threads", "stream_threads",
        "nproc_per_node", "store_dir", "redis", "job_id", "hostname",
        "collectives", "timeout_ms"}},
      {"Training",
       {"train",
        "loss",
        "labels",
        "optimizer",
        "lr",
        "momentum",
        "nesterov",
        "weight_decay",
        "beta1",
        "beta2",
        "epsilon",
        "clip_norm",
        "warmup_steps",
        "total_steps",
        "min_lr",
        "strategy",
        "search",
        "mesh",
        "memory_limit",
        "cluster",
        "recalibrate",
        "explain",
        "micro_batches",
        "stages",
        "pipeline_schedule",
        "recompute",
        "precision",
        "batch_norm_statistics",
        "batch_norm_groups"}},
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
  setProgramName(tool.name);
  std::vector<std::string> args =
      oftools::parseToolFlags(argc, argv, tool, normalized);
  if (absl::GetFlag(FLAGS_list_devices)) {
    for (const ofrt::Backend &backend : ofrt::builtinBackends()) {
      absl::StatusOr<std::vector<std::string>> devices = backend.listDevices();
      if (!devices.ok()) {
        std::printf("%s: none usable: %s\n", backend.name.c_str(),
                    std::string(devices.status().message()).c_str());
        continue;
      }
      for (const std::string &device : *devices)
        std::printf("%s\n", device.c_str());
      // What --precision may ask of this backend here.
      for (ofrt::DType dtype : {ofrt::DType::BF16, ofrt::DType::F16}) {
        absl::Status status = backend.checkPrecision(dtype);
        std::printf("%s: %s %s%s\n", backend.name.c_str(),
                    ofrt::dtypeName(dtype), status.ok() ? "yes" : "no: ",
                    std::string(status.message()).c_str());
      }
    }
    std::exit(0);
  }
  return args;
}

int ofrun::fail(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", programName(), message.c_str());
  return 1;
}

absl::StatusOr<InputSource> ofrun::parseInputSource(const std::string &spec) {
  InputSource source;
  auto number = [&](const std::string &text,
                    double &out) -> absl::Status {
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      return absl::InvalidArgumentError("'" + text + "' in input source '" +
                                        spec + "' is not a number");
    return absl::OkStatus();
  };
  if (!spec.empty() && spec[0] == '@') {
    source.kind = InputSource::Kind::File;
    absl::string_view path = absl::string_view(spec).substr(1);
    source.loop = path.size() > 5 && absl::ConsumeSuffix(&path, ":loop");
    source.path = std::string(path);
    return source;
  }
  if (absl::StartsWith(spec, "fill:")) {
    source.kind = InputSource::Kind::Fill;
    if (absl::Status s = number(spec.substr(5), source.value); !s.ok())
      return s;
    return source;
  }
  if (spec == "random")
    return source;
  if (absl::StartsWith(spec, "random:")) {
    std::string rest = spec.substr(7);
    size_t colon = rest.find(':');
    if (colon == std::string::npos)
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs random:LOW:HIGH");
    if (absl::Status s = number(rest.substr(0, colon), source.low); !s.ok())
      return s;
    if (absl::Status s = number(rest.substr(colon + 1), source.high); !s.ok())
      return s;
    if (!(source.low < source.high))
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs LOW below HIGH");
    return source;
  }
  return absl::InvalidArgumentError(
      "unknown input source '" + spec +
      "'; use random, random:LOW:HIGH, fill:VALUE, @FILE or @FILE:loop");
}

absl::Status ofrun::loadKernelPlugins() {
  static bool loaded = false;
  if (loaded)
    return absl::OkStatus();
  loaded = true;
  for (const std::string &path : absl::GetFlag(FLAGS_plugin)) {
    absl::StatusOr<bool> kernels = ofrt::isKernelPlugin(path);
    if (!kernels.ok())
      return absl::InvalidArgumentError(
          "--plugin: " + std::string(kernels.status().message()));
    if (*kernels)
      OFRT_RETURN_IF_ERROR(ofrt::loadKernelPlugin(path));
  }
  return absl::OkStatus();
}

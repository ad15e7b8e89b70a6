//===- Options.h - What a run of a plan is asked to do ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The typed options of the driver library's run half (Run.h): where the
// ranks run, what feeds the inputs, checkpoints, the non-finite checks,
// progress and what is reported after the run. The tools fill them from
// their flags (tools/flags/RunFlags.cpp), the Python package from keyword
// arguments; nothing here reads a flag. Defaults are written here only.
// Messages name the tools' flags ("--save-every"), the spelling users of
// both see in the docs.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_OPTIONS_H
#define OFDRIVER_OPTIONS_H

#include "ofrt/Session.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ofdriver {

/// What a training run does on a NaN or an infinity in its loss,
/// gradients, variables or inputs.
enum class NonfiniteAction {
  /// Stop after the step (its update skipped, where the plan skips).
  Stop,
  /// Report, and go on without the step's update.
  Skip,
  /// Report, and train on with the values that are not finite.
  Warn,
  /// Check nothing.
  Off,
};

/// "stop", "skip", "warn" or "off" (--on-nonfinite's spelling).
absl::StatusOr<NonfiniteAction> parseNonfiniteAction(const std::string &mode);
/// The spelling parseNonfiniteAction reads ("stop", ...).
const char *nonfiniteActionName(NonfiniteAction action);

/// Where this process's ranks run and how they meet.
struct JobOptions {
  /// "cpu:N" (N ranks that are threads of this process) or "cuda:1".
  std::string devices = "cpu:1";
  /// Ranks as processes of this program on this machine (0: none).
  int processes = 0;
  /// Under a launcher: where ranks meet (a directory or a Redis server at
  /// HOST:PORT, keys under jobId), and the address this rank listens on.
  std::string storeDir, redis, jobId = "of-run", hostname;
};

struct CheckpointOptions {
  /// Save the variables under this directory after the run (and every
  /// `saveEvery` steps): DIR/step-N and DIR/latest.
  std::string save;
  int64_t saveEvery = 0;
  /// Step directories kept.
  int64_t keep = 2;
  /// Start from this checkpoint; `resumePartial`: variables it lacks start
  /// from their initializers.
  std::string resume;
  bool resumePartial = false;
};

/// The scalar outputs a rank holds whole (the loss, ...) at one step.
using StepCallback =
    std::function<void(int64_t step, const std::map<std::string, double> &)>;

struct RunOptions {
  int64_t steps = 1;
  /// Threads for each kernel (0: the library's default).
  int threads = 0;
  /// GPU matmuls of f32 may round operands to TF32.
  bool allowTf32 = false;
  /// How a rank's streams map to threads: "auto", "each" or "one".
  std::string streamThreads = "auto";
  /// The collective library ("": the default for the job).
  std::string collectives;
  /// How long a rank waits for its peers.
  int64_t timeoutMs = 60000;
  /// Plugin libraries; runAndReport loads the kernel plugins among them
  /// (loadKernelPlugins) before the run.
  std::vector<std::string> plugins;
  /// Data by input name; inputs not listed get random data.
  std::map<std::string, ofrt::InputSource> inputs;
  /// Seed of the generated inputs.
  uint64_t seed = 0;
  /// Training runs only (plans that update variables).
  NonfiniteAction onNonfinite = NonfiniteAction::Stop;
  CheckpointOptions checkpoint;
  /// One CSV row per step ("": none).
  std::string metrics;
  /// The progress line on stderr: "on", "off" or "auto" (a terminal).
  std::string progress = "auto";
  /// Without a progress line: a plain line every N steps (0: none).
  int64_t logEvery = 0;
  /// Under a launcher, the other processes send rank 0 their firings (for
  /// a trace of the whole job); this process's are always recorded.
  bool gatherFirings = false;
  /// Return every variable's logical value after the run.
  bool collectVariables = false;
  /// Called on the reporting process once a step's scalar outputs are all
  /// in, in step order (from a stream thread: keep it short).
  StepCallback onStep;
};

/// What the tools print after a run, beyond what the run prints itself.
struct ReportOptions {
  /// Elements of each output printed (0: only its type).
  int printLimit = 8;
  /// Write each output at the last step to DIR/<name>.npy.
  std::string saveOutputs;
  /// Write a Chrome trace of every firing (needs RunOptions::recordFirings
  /// for the firings of other processes).
  std::string trace;
  /// Print the kernel time of each op type (from rank 0's firings).
  bool profile = false;
};

/// Parses an input source: "random", "random:LOW:HIGH", "fill:V", "@PATH"
/// or "@PATH:loop" (the syntax of --input NAME=SOURCE).
absl::StatusOr<ofrt::InputSource> parseInputSource(const std::string &spec);

/// Parses `bindings`, each NAME=SOURCE (--input's syntax), into inputs by
/// name.
absl::StatusOr<std::map<std::string, ofrt::InputSource>>
parseInputs(const std::vector<std::string> &bindings);

/// A device mesh as the tools spell it: sizes joined by x ("2x2", "8").
struct Mesh {
  std::vector<int64_t> sizes;
  /// Written the old way, with commas ("2,2"): read alike, and the tools
  /// print a note (meshNote).
  bool oldSpelling = false;
};

/// Parses `text`, given by the flag `flag` ("--mesh"); its sizes must
/// multiply to `ranks`, the count the flag `ranksFlag` gives ("--devices").
absl::StatusOr<Mesh> parseMesh(const std::string &text, int64_t ranks,
                               const std::string &flag = "--mesh",
                               const std::string &ranksFlag = "--devices");

/// "<program>: note: --mesh 2,2 is the old spelling; write 2x2" (with a
/// newline) for a mesh written with commas; empty for the others.
std::string meshNote(const std::string &text, const Mesh &mesh,
                     const std::string &flag = "--mesh");

/// The running program's name, which prefixes messages ("of-run").
const char *programName();
void setProgramName(const char *name);

} // namespace ofdriver

#endif // OFDRIVER_OPTIONS_H

//===- Checkpoint.h - Saving and loading variables --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Checkpoints of a run's variables (parameters and optimizer states), in
// format version 1 (docs/checkpoints.md):
//
//   DIR/manifest.json  {"format": "oneflow-checkpoint", "version": 1,
//                       "step": <steps completed>,
//                       "tensors": {NAME: {"file": F, "dtype": "f32",
//                                          "shape": [...], "crc32": C}}}
//   DIR/F              one .npy file (v1.0, little-endian, C order) per
//                      LOGICAL variable, whatever the layout it was trained in
//
// A save root holds step-<N>/ directories and a file `latest` naming the
// newest complete one. Saving writes into a temporary directory, fsyncs
// every file, renames the directory into place and then replaces `latest`
// by a rename, so a crash at any point leaves the previous checkpoint as
// `latest`. Loading reads, per rank, only the box of each tensor the rank
// holds, so a checkpoint loads into any layout and rank count.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_CHECKPOINT_H
#define OFRT_CHECKPOINT_H

#include "ofrt/Pieces.h"
#include "ofrt/Program.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ofrt {

/// One tensor of a manifest.
struct CheckpointEntry {
  std::string file; ///< File name inside the checkpoint directory.
  TensorDesc desc;  ///< The logical type.
  uint32_t crc32 = 0;
};

/// The file name of variable `name`: characters outside [A-Za-z0-9._-]
/// become '_', then ".npy" (as scripts/oneflow_checkpoint.py names them).
std::string checkpointFileName(const std::string &name);

//===----------------------------------------------------------------------===//
// Variables of a plan
//===----------------------------------------------------------------------===//

/// A variable actor of one rank: its name, regst and piece.
struct VariablePiece {
  std::string name;
  int64_t regst = 0;
  TensorDesc desc; ///< The piece's (local) type.
  PieceLayout layout;
  /// The copy that saves it: the lowest rank holding this box (ranks with
  /// `zero` hold none).
  bool primary = false;
};

/// The variables of every rank of a plan (element r: rank r's), with
/// `primary` set. Two variables of one name that disagree on the logical
/// type, or primary pieces that do not cover a variable, are an error.
absl::StatusOr<std::vector<std::vector<VariablePiece>>>
planVariables(const std::vector<RankProgram> &ranks);

/// The logical type of each variable of a plan, by name.
std::map<std::string, TensorDesc>
logicalVariables(const std::vector<std::vector<VariablePiece>> &variables);

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

struct SaveOptions {
  /// Step directories kept under the root (the newest; at least 1).
  int64_t keep = 2;
  /// Test hook: after this many files of a save are written, the process
  /// kills itself (SIGKILL) to show that a crash mid-save leaves the
  /// previous checkpoint intact. -1: never.
  int64_t killAfterFiles = -1;
};

/// Writes `tensors` (logical values by variable name) as the checkpoint of
/// `step` under `root`: root/step-<step>/, then root/latest; then removes
/// all but the newest `keep` step directories. Returns the step directory.
/// Errors name the root or the file that could not be written.
absl::StatusOr<std::string>
saveCheckpoint(const std::string &root, int64_t step,
               const std::map<std::string, TensorData> &tensors,
               const SaveOptions &options = {});

/// Assembles the logical value of every variable from the primary pieces
/// of every rank (`values[r][i]` is the value of `variables[r][i]`).
absl::StatusOr<std::map<std::string, TensorData>>
assembleVariables(const std::vector<std::vector<VariablePiece>> &variables,
                  const std::vector<std::vector<TensorData>> &values);

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// An opened checkpoint. Thread-safe: ranks in one process share one.
class CheckpointReader {
public:
  /// Opens `path`: a checkpoint directory (with manifest.json), or a save
  /// root whose `latest` names one. Checks the manifest (JSON, format,
  /// version, entries); errors name the file.
  static absl::StatusOr<std::unique_ptr<CheckpointReader>>
  open(const std::string &path);
  /// The checkpoint in directory `dir` whose manifest.json holds `text`,
  /// checked as open() checks it (the manifest fuzzer's door).
  static absl::StatusOr<std::unique_ptr<CheckpointReader>>
  fromManifest(const std::string &text, const std::string &dir);

  const std::string &directory() const { return dir; }
  int64_t step() const { return stepCount; }
  const std::map<std::string, CheckpointEntry> &tensors() const {
    return entries;
  }

  /// Checks the checkpoint against the variables of a program: a variable
  /// missing from the checkpoint (unless `partial`), a tensor the program
  /// has no variable for, or a dtype or shape that differs is an error
  /// naming the tensor and the checkpoint.
  absl::Status
  checkAgainst(const std::map<std::string, TensorDesc> &variables,
               bool partial) const;

  /// The box [begin, begin + shape) of tensor `name`, read from its file
  /// after the file's size, header and CRC-32 are checked (once per file).
  absl::StatusOr<TensorData> readBox(const std::string &name,
                                     const std::vector<int64_t> &begin,
                                     const std::vector<int64_t> &shape);

private:
  CheckpointReader() = default;
  /// Checks the file of `name` and returns where its data starts.
  absl::StatusOr<int64_t> verify(const std::string &name);

  std::string dir;
  int64_t stepCount = 0;
  std::map<std::string, CheckpointEntry> entries;
  std::mutex mutex;
  std::map<std::string, int64_t> verified; ///< Data offset by tensor.
};

} // namespace ofrt

#endif // OFRT_CHECKPOINT_H

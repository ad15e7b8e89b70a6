//===- Checkpoint.cpp - Saving variables ----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The variables of a plan, and the atomic writer of checkpoint directories
// (format in Checkpoint.h). Files are written with POSIX calls so that each
// can be fsynced before the directory that holds it is renamed into place.
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelParams.h"
#include "ofrt/Checkpoint.h"

#include "ofrt/Npy.h"

#include <nlohmann/json.hpp>

#include <zlib.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

using namespace ofrt;
namespace fs = std::filesystem;

std::string ofrt::checkpointFileName(const std::string &name) {
  std::string file = name;
  for (char &c : file)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-')
      c = '_';
  return file + ".npy";
}

//===----------------------------------------------------------------------===//
// Variables of a plan
//===----------------------------------------------------------------------===//

absl::StatusOr<std::vector<std::vector<VariablePiece>>>
ofrt::planVariables(const std::vector<RankProgram> &ranks) {
  std::vector<std::vector<VariablePiece>> result(ranks.size());
  // Per variable: its logical type, the boxes a primary copy holds, and the
  // elements they cover.
  struct Seen {
    TensorDesc logical;
    std::set<std::vector<int64_t>> boxes;
    int64_t covered = 0;
    std::string where;
  };
  std::map<std::string, Seen> seen;
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (const ActorSpec &actor : ranks[r].actors) {
      const OpDesc &op = actor.op;
      if (op.role != OpRole::Variable || op.outputs.empty() ||
          actor.outputs.empty())
        continue;
      VariablePiece piece;
      piece.name = ofrt::userName(op);
      piece.regst = actor.outputs[0];
      piece.desc = op.outputs[0];
      absl::StatusOr<PieceLayout> layout = readPieceLayout(op, piece.desc.shape);
      if (!layout.ok())
        return layout.status();
      piece.layout = std::move(*layout);
      TensorDesc logical{piece.desc.dtype, piece.layout.logicalShape};
      auto [it, fresh] = seen.try_emplace(piece.name);
      Seen &var = it->second;
      if (fresh) {
        var.logical = logical;
        var.where = op.where();
      } else if (var.logical != logical) {
        return absl::InvalidArgumentError(
            "variable '" + piece.name + "' is " + var.logical.str() + " at " +
            var.where + " but " + logical.str() + " at " + op.where() +
            " on rank " + std::to_string(r));
      }
      std::vector<int64_t> box = piece.layout.begin;
      box.insert(box.end(), piece.desc.shape.begin(), piece.desc.shape.end());
      if (!piece.layout.zero && var.boxes.insert(box).second) {
        piece.primary = true;
        var.covered += piece.desc.numel();
      }
      result[r].push_back(std::move(piece));
    }
  }
  for (const auto &[name, var] : seen)
    if (var.covered != var.logical.numel())
      return absl::InvalidArgumentError(
          "variable '" + name + "' (" + var.where + "): the ranks' pieces hold " +
          std::to_string(var.covered) + " of its " +
          std::to_string(var.logical.numel()) + " elements");
  return result;
}

std::map<std::string, TensorDesc>
ofrt::logicalVariables(const std::vector<std::vector<VariablePiece>> &variables) {
  std::map<std::string, TensorDesc> result;
  for (const std::vector<VariablePiece> &rank : variables)
    for (const VariablePiece &piece : rank)
      result[piece.name] = {piece.desc.dtype, piece.layout.logicalShape};
  return result;
}

absl::StatusOr<std::map<std::string, TensorData>> ofrt::assembleVariables(
    const std::vector<std::vector<VariablePiece>> &variables,
    const std::vector<std::vector<TensorData>> &values) {
  std::map<std::string, std::vector<OutputPiece>> byName;
  for (size_t r = 0; r < variables.size(); ++r) {
    for (size_t i = 0; i < variables[r].size(); ++i) {
      const VariablePiece &variable = variables[r][i];
      if (!variable.primary)
        continue;
      if (r >= values.size() || i >= values[r].size() ||
          values[r][i].desc != variable.desc ||
          values[r][i].bytes.size() != variable.desc.bytes())
        return absl::InternalError("rank " + std::to_string(r) +
                                   " has no value of its piece of variable '" +
                                   variable.name + "'");
      OutputPiece piece;
      piece.value = values[r][i];
      piece.layout = variable.layout;
      byName[variable.name].push_back(std::move(piece));
    }
  }
  std::map<std::string, TensorData> result;
  for (const auto &[name, pieces] : byName) {
    absl::StatusOr<TensorData> value = assemblePieces(name, pieces);
    if (!value.ok())
      return value.status();
    result[name] = std::move(*value);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// Writes checkpoint files: each is written whole, fsynced and counted
/// (for the kill-after test hook).
class FileWriter {
public:
  explicit FileWriter(const SaveOptions &options) : options(options) {}

  /// Writes `parts` one after the other into a new file `path`; returns
  /// the CRC-32 of what it wrote.
  absl::StatusOr<uint32_t> write(const std::string &path,
                                 const std::vector<std::string_view> &parts) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                    0644);
    if (fd < 0)
      return error("cannot create", path);
    uLong crc = crc32(0L, Z_NULL, 0);
    for (std::string_view part : parts) {
      const char *data = part.data();
      size_t left = part.size();
      crc = crc32_z(crc, reinterpret_cast<const Bytef *>(data), left);
      while (left > 0) {
        ssize_t n = ::write(fd, data, left);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          absl::Status status = error("cannot write", path);
          ::close(fd);
          return status;
        }
        data += n;
        left -= n;
      }
    }
    if (::fsync(fd) != 0) {
      absl::Status status = error("cannot fsync", path);
      ::close(fd);
      return status;
    }
    if (::close(fd) != 0)
      return error("cannot close", path);
    if (++written == options.killAfterFiles)
      ::kill(::getpid(), SIGKILL);
    return static_cast<uint32_t>(crc);
  }

  static absl::Status error(const std::string &what, const std::string &path) {
    return absl::PermissionDeniedError("checkpoint: " + what + " '" + path +
                                       "': " + std::strerror(errno));
  }

private:
  const SaveOptions &options;
  int64_t written = 0;
};

/// Flushes a directory's entries (new files, renames) to disk.
absl::Status syncDirectory(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return FileWriter::error("cannot open directory", path);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0)
    return FileWriter::error("cannot fsync directory", path);
  return absl::OkStatus();
}

/// The step of a directory named "step-<N>", or -1.
int64_t stepOfName(const std::string &name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5 ||
      name.find_first_not_of("0123456789", 5) != std::string::npos ||
      name.size() > 5 + 18)
    return -1;
  return std::stoll(name.substr(5));
}

absl::Status fsError(const std::string &what, const std::string &path,
                     const std::error_code &error) {
  return absl::PermissionDeniedError("checkpoint: " + what + " '" + path +
                                     "': " + error.message());
}

/// Removes all but the newest `keep` step directories under `root` (never
/// `current`), and leftovers of interrupted saves.
void prune(const std::string &root, int64_t keep, const std::string &current) {
  std::vector<std::pair<int64_t, fs::path>> steps;
  std::vector<fs::path> leftovers;
  std::error_code error;
  for (const fs::directory_entry &entry : fs::directory_iterator(root, error)) {
    std::string name = entry.path().filename().string();
    if (int64_t step = stepOfName(name); step >= 0 && entry.is_directory())
      steps.push_back({step, entry.path()});
    else if (name.rfind(".tmp-", 0) == 0 && stepOfName(name.substr(5)) >= 0)
      leftovers.push_back(entry.path());
  }
  for (const fs::path &leftover : leftovers)
    fs::remove_all(leftover, error);
  std::sort(steps.begin(), steps.end());
  for (size_t i = 0; i + keep < steps.size(); ++i)
    if (steps[i].second.filename() != current)
      fs::remove_all(steps[i].second, error);
}

} // namespace

absl::StatusOr<std::string>
ofrt::saveCheckpoint(const std::string &root, int64_t step,
                     const std::map<std::string, TensorData> &tensors,
                     const SaveOptions &options) {
  if (options.keep < 1)
    return absl::InvalidArgumentError("checkpoint: keep must be at least 1");
  std::error_code error;
  fs::create_directories(root, error);
  if (error || !fs::is_directory(root))
    return fsError("cannot create the directory", root,
                   error ? error : std::make_error_code(std::errc::not_a_directory));
  std::string name = "step-" + std::to_string(step);
  std::string tmp = (fs::path(root) / (".tmp-" + name)).string();
  fs::remove_all(tmp, error);
  if (!fs::create_directory(tmp, error))
    return fsError("cannot create", tmp, error);

  FileWriter writer(options);
  nlohmann::ordered_json entries = nlohmann::ordered_json::object();
  std::set<std::string> files;
  for (const auto &[variable, value] : tensors) {
    std::string file = checkpointFileName(variable);
    if (!files.insert(file).second)
      return absl::InvalidArgumentError(
          "checkpoint: two variables map to the file name '" + file +
          "' (one is '" + variable + "')");
    const char *dtype = dtypeName(value.desc.dtype);
    if (value.desc.dtype != DType::F32 && value.desc.dtype != DType::F64 &&
        value.desc.dtype != DType::I32 && value.desc.dtype != DType::I64)
      return absl::InvalidArgumentError(
          "checkpoint: variable '" + variable + "' is " + value.desc.str() +
          "; checkpoints hold f32, f64, i32 and i64 tensors");
    absl::StatusOr<std::string> header = encodeNpyHeader(value.desc);
    if (!header.ok())
      return header.status();
    absl::StatusOr<uint32_t> crc = writer.write(
        (fs::path(tmp) / file).string(),
        {*header, std::string_view(reinterpret_cast<const char *>(
                                       value.bytes.data()),
                                   value.bytes.size())});
    if (!crc.ok())
      return crc.status();
    entries[variable] = {{"file", file},
                         {"dtype", dtype},
                         {"shape", value.desc.shape},
                         {"crc32", *crc}};
  }
  nlohmann::ordered_json manifest = {{"format", "oneflow-checkpoint"},
                                     {"version", 1},
                                     {"step", step},
                                     {"tensors", std::move(entries)}};
  std::string text = manifest.dump(1) + "\n";
  if (absl::StatusOr<uint32_t> crc =
          writer.write((fs::path(tmp) / "manifest.json").string(), {text});
      !crc.ok())
    return crc.status();
  if (absl::Status status = syncDirectory(tmp); !status.ok())
    return status;

  // Into place: a step directory of the same name (a save at the step a
  // run resumed from) is replaced.
  std::string target = (fs::path(root) / name).string();
  std::string old = (fs::path(root) / (".old-" + name)).string();
  fs::remove_all(old, error);
  if (fs::exists(target))
    fs::rename(target, old, error);
  if (error)
    return fsError("cannot move aside", target, error);
  fs::rename(tmp, target, error);
  if (error)
    return fsError("cannot rename into place", target, error);
  if (absl::Status status = syncDirectory(root); !status.ok())
    return status;
  std::string latestTmp = (fs::path(root) / ".latest.tmp").string();
  if (absl::StatusOr<uint32_t> crc = writer.write(latestTmp, {name + "\n"});
      !crc.ok())
    return crc.status();
  fs::rename(latestTmp, fs::path(root) / "latest", error);
  if (error)
    return fsError("cannot replace", (fs::path(root) / "latest").string(),
                   error);
  if (absl::Status status = syncDirectory(root); !status.ok())
    return status;
  fs::remove_all(old, error);
  prune(root, options.keep, name);
  return target;
}

//===- CheckpointReader.cpp - Loading variables ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Reads a checkpoint's manifest (nlohmann::json), checks each file once (size,
// .npy header, CRC-32) and reads boxes of logical tensors with pread, one
// contiguous run at a time, so that a rank reads only its piece.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Checkpoint.h"

#include "ofrt/Npy.h"

#include <nlohmann/json.hpp>

#include <set>
#include <vector>

#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

using namespace ofrt;
namespace fs = std::filesystem;

namespace {

absl::Status manifestError(const std::string &path, const std::string &why) {
  return absl::InvalidArgumentError("checkpoint '" + path + "': " + why);
}

/// Reads a whole small file.
absl::StatusOr<std::string> readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError("checkpoint: cannot open '" + path +
                               "': " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<DType> parseDType(const std::string &name) {
  if (name == "f32")
    return DType::F32;
  if (name == "f64")
    return DType::F64;
  if (name == "i32")
    return DType::I32;
  if (name == "i64")
    return DType::I64;
  return absl::InvalidArgumentError("dtype '" + name +
                                    "' is not f32, f64, i32 or i64");
}

using Json = nlohmann::json;

/// The string member `key` of `object`, if it is one.
std::optional<std::string> getString(const Json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
}

/// The integer member `key` of `object`, if it is one.
std::optional<int64_t> getInteger(const Json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer())
    return std::nullopt;
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::nullopt;
  return it->get<int64_t>();
}

/// One manifest entry; errors say what is wrong with it.
absl::StatusOr<CheckpointEntry> parseEntry(const Json &object) {
  if (!object.is_object())
    return absl::InvalidArgumentError("is not an object");
  CheckpointEntry entry;
  std::optional<std::string> file = getString(object, "file");
  if (!file || file->empty() || file->find('/') != std::string::npos ||
      *file == "." || *file == "..")
    return absl::InvalidArgumentError(
        "needs \"file\", a file name inside the checkpoint directory");
  entry.file = *file;
  std::optional<std::string> dtype = getString(object, "dtype");
  if (!dtype)
    return absl::InvalidArgumentError("needs \"dtype\", a string");
  absl::StatusOr<DType> parsed = parseDType(*dtype);
  if (!parsed.ok())
    return parsed.status();
  entry.desc.dtype = *parsed;
  auto shape = object.find("shape");
  if (shape == object.end() || !shape->is_array())
    return absl::InvalidArgumentError("needs \"shape\", a list of sizes");
  int64_t bytes = static_cast<int64_t>(dtypeSize(entry.desc.dtype));
  for (const Json &dim : *shape) {
    std::optional<int64_t> size =
        dim.is_number_integer() && !(dim.is_number_unsigned() &&
                                     dim.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
            ? std::optional<int64_t>(dim.get<int64_t>())
            : std::nullopt;
    if (!size || *size < 0)
      return absl::InvalidArgumentError(
          "has a \"shape\" entry that is not a size");
    // A tensor whose bytes overflow would wrap the file-size check.
    if (__builtin_mul_overflow(bytes, *size, &bytes))
      return absl::InvalidArgumentError(
          "has a \"shape\" of more bytes than a file can hold");
    entry.desc.shape.push_back(*size);
  }
  std::optional<int64_t> crc = getInteger(object, "crc32");
  if (!crc || *crc < 0 || *crc > 0xFFFFFFFFll)
    return absl::InvalidArgumentError(
        "needs \"crc32\", an unsigned 32-bit integer");
  entry.crc32 = static_cast<uint32_t>(*crc);
  return entry;
}

} // namespace

absl::StatusOr<std::unique_ptr<CheckpointReader>>
CheckpointReader::open(const std::string &path) {
  std::string dir = path;
  std::error_code error;
  if (!fs::exists(fs::path(dir) / "manifest.json", error)) {
    fs::path latest = fs::path(path) / "latest";
    if (!fs::exists(latest, error))
      return absl::NotFoundError("checkpoint '" + path +
                                 "' has neither manifest.json nor latest");
    absl::StatusOr<std::string> name = readText(latest.string());
    if (!name.ok())
      return name.status();
    while (!name->empty() && std::isspace(static_cast<unsigned char>(name->back())))
      name->pop_back();
    if (name->empty() || name->find('/') != std::string::npos)
      return manifestError(latest.string(), "does not name a step directory");
    dir = (fs::path(path) / *name).string();
    if (!fs::exists(fs::path(dir) / "manifest.json", error))
      return absl::NotFoundError("checkpoint '" + latest.string() +
                                 "' names '" + *name +
                                 "', which has no manifest.json");
  }
  std::string manifestPath = (fs::path(dir) / "manifest.json").string();
  absl::StatusOr<std::string> text = readText(manifestPath);
  if (!text.ok())
    return text.status();
  return fromManifest(*text, dir);
}

absl::StatusOr<std::unique_ptr<CheckpointReader>>
CheckpointReader::fromManifest(const std::string &text,
                               const std::string &dir) {
  std::string manifestPath = (fs::path(dir) / "manifest.json").string();
  // Strictly: bytes after the JSON (a padded or torn write) and keys given
  // twice (only one would count) are errors, not quietly dropped.
  if (size_t nul = text.find('\0'); nul != std::string::npos)
    return manifestError(manifestPath, "holds a NUL byte at offset " +
                                           std::to_string(nul) +
                                           " (a padded or torn write)");
  Json manifest;
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto strict = [&](int, Json::parse_event_t event, Json &parsed) {
    if (event == Json::parse_event_t::object_start)
      keys.emplace_back();
    else if (event == Json::parse_event_t::object_end && !keys.empty())
      keys.pop_back();
    else if (event == Json::parse_event_t::key && !keys.empty() &&
             !keys.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  try {
    manifest = Json::parse(text, strict);
  } catch (const Json::exception &error) {
    // parse_error, and out_of_range for a number no double holds (1e999).
    return manifestError(manifestPath,
                         std::string("invalid JSON: ") + error.what());
  }
  if (!duplicate.empty())
    return manifestError(manifestPath, "has the key \"" + duplicate +
                                           "\" twice in one object");
  if (!manifest.is_object())
    return manifestError(manifestPath, "is not a JSON object");
  std::optional<std::string> format = getString(manifest, "format");
  if (!format || *format != "oneflow-checkpoint")
    return manifestError(manifestPath,
                         "\"format\" is not \"oneflow-checkpoint\"");
  std::optional<int64_t> version = getInteger(manifest, "version");
  if (!version)
    return manifestError(manifestPath, "has no integer \"version\"");
  if (*version != 1)
    return manifestError(manifestPath,
                         "format version " + std::to_string(*version) +
                             " is not one this runtime reads (version 1)");
  std::optional<int64_t> step = getInteger(manifest, "step");
  if (!step || *step < 0)
    return manifestError(manifestPath,
                         "\"step\" is not a count of steps (an integer >= 0)");
  auto tensors = manifest.find("tensors");
  if (tensors == manifest.end() || !tensors->is_object())
    return manifestError(manifestPath, "has no \"tensors\" object");
  std::unique_ptr<CheckpointReader> reader(new CheckpointReader());
  reader->dir = dir;
  reader->stepCount = *step;
  for (const auto &[name, value] : tensors->items()) {
    absl::StatusOr<CheckpointEntry> entry = parseEntry(value);
    if (!entry.ok())
      return manifestError(manifestPath, "tensor '" + name + "' " +
                                             std::string(entry.status().message()));
    reader->entries[name] = std::move(*entry);
  }
  return reader;
}

/// When `name` is an optimizer state of a variable `names` has (the
/// optimizer pass names them <variable>.momentum for SGD with momentum,
/// <variable>.m and .v for Adam), why it differs: the checkpoint was saved
/// under another optimizer.
template <typename Names>
static std::string optimizerHint(const std::string &name, const Names &names) {
  for (const char *suffix : {".momentum", ".m", ".v"}) {
    std::string tail = suffix;
    if (name.size() <= tail.size() ||
        name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    if (!names.count(name.substr(0, name.size() - tail.size())))
      continue;
    return "; it is an optimizer state of '" +
           name.substr(0, name.size() - tail.size()) +
           "', so the checkpoint was saved under another optimizer (sgd "
           "keeps none, sgd with momentum '.momentum', adam and adamw '.m' "
           "and '.v'): resume with the optimizer and momentum it was "
           "trained with";
  }
  return "";
}

absl::Status CheckpointReader::checkAgainst(
    const std::map<std::string, TensorDesc> &variables, bool partial) const {
  for (const auto &[name, entry] : entries) {
    auto it = variables.find(name);
    if (it == variables.end())
      return absl::InvalidArgumentError(
          "checkpoint '" + dir + "' has tensor '" + name +
          "', which is no variable of the program" +
          optimizerHint(name, variables));
    if (it->second != entry.desc)
      return absl::InvalidArgumentError(
          "checkpoint '" + dir + "': tensor '" + name + "' is " +
          entry.desc.str() + " but the program's variable is " +
          it->second.str());
  }
  if (partial)
    return absl::OkStatus();
  for (const auto &[name, desc] : variables)
    if (!entries.count(name)) {
      std::string hint = optimizerHint(name, entries);
      return absl::InvalidArgumentError(
          "checkpoint '" + dir + "' has no tensor '" + name +
          "' (a variable of the program)" +
          (hint.empty() ? "; --resume-partial starts such variables from "
                          "their initializers"
                        : hint + ", or --resume-partial to start the state "
                                 "from zeros"));
    }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CheckpointReader::verify(const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = verified.find(name); it != verified.end())
    return it->second;
  auto entryIt = entries.find(name);
  if (entryIt == entries.end())
    return absl::NotFoundError("checkpoint '" + dir + "' has no tensor '" +
                               name + "'");
  const CheckpointEntry &entry = entryIt->second;
  std::string path = (fs::path(dir) / entry.file).string();
  auto bad = [&](const std::string &why) {
    return absl::DataLossError("checkpoint tensor '" + name + "' in '" + path +
                               "': " + why);
  };
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return bad(std::string("cannot open: ") + std::strerror(errno));
  absl::StatusOr<NpyHeader> header = readNpyHeader(in, path);
  if (!header.ok())
    return absl::DataLossError("checkpoint tensor '" + name + "': " +
                               std::string(header.status().message()));
  if (header->desc != entry.desc)
    return bad("the file holds " + header->desc.str() +
               " but the manifest says " + entry.desc.str());
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  int64_t expected = header->dataOffset + entry.desc.bytes();
  if (size != expected)
    return bad("the file has " + std::to_string(size) + " bytes, not the " +
               std::to_string(expected) + " of its header and data" +
               (size < expected ? " (truncated)" : ""));
  in.seekg(0);
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), chunk.size());
    crc = crc32_z(crc, reinterpret_cast<const Bytef *>(chunk.data()),
                  in.gcount());
  }
  if (static_cast<uint32_t>(crc) != entry.crc32)
    return bad("CRC-32 " + std::to_string(static_cast<uint32_t>(crc)) +
               " differs from the manifest's " + std::to_string(entry.crc32) +
               " (the file is corrupt)");
  verified[name] = header->dataOffset;
  return header->dataOffset;
}

absl::StatusOr<TensorData>
CheckpointReader::readBox(const std::string &name,
                          const std::vector<int64_t> &begin,
                          const std::vector<int64_t> &shape) {
  absl::StatusOr<int64_t> offset = verify(name);
  if (!offset.ok())
    return offset.status();
  const CheckpointEntry &entry = entries.at(name);
  const std::vector<int64_t> &logical = entry.desc.shape;
  size_t rank = logical.size();
  std::string path = (fs::path(dir) / entry.file).string();
  if (begin.size() != rank || shape.size() != rank)
    return absl::InvalidArgumentError("checkpoint tensor '" + name +
                                      "': a box of the wrong rank");
  for (size_t d = 0; d < rank; ++d)
    if (begin[d] < 0 || shape[d] < 0 || begin[d] + shape[d] > logical[d])
      return absl::InvalidArgumentError("checkpoint tensor '" + name +
                                        "': a box outside its shape");
  TensorData box;
  box.desc = {entry.desc.dtype, shape};
  box.bytes.resize(box.desc.bytes());
  if (box.bytes.empty())
    return box;
  // Runs: the innermost axes the box covers whole, plus the next one.
  size_t inner = rank;
  int64_t run = 1;
  while (inner > 0) {
    --inner;
    run *= shape[inner];
    if (shape[inner] != logical[inner])
      break;
  }
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;)
    strides[d - 1] = strides[d] * logical[d];
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::DataLossError("checkpoint tensor '" + name + "' in '" + path +
                               "': cannot open: " + std::strerror(errno));
  size_t element = dtypeSize(entry.desc.dtype);
  size_t runBytes = run * element;
  std::vector<int64_t> index(inner, 0); // Over the axes before `inner`.
  for (size_t out = 0; out < box.bytes.size(); out += runBytes) {
    int64_t start = 0;
    for (size_t d = 0; d < rank; ++d)
      start += (begin[d] + (d < inner ? index[d] : 0)) * strides[d];
    size_t done = 0;
    while (done < runBytes) {
      ssize_t n = ::pread(fd, box.bytes.data() + out + done, runBytes - done,
                          *offset + start * element + done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        ::close(fd);
        return absl::DataLossError("checkpoint tensor '" + name + "' in '" +
                                   path + "' could not be read");
      }
      done += n;
    }
    for (size_t d = inner; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  ::close(fd);
  return box;
}

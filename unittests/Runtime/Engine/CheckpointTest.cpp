//===- CheckpointTest.cpp - Checkpoint writer and reader ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Checkpoint.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

using namespace ofrt;
namespace fs = std::filesystem;

namespace {

/// A fresh directory for one test.
std::string freshDir(const std::string &name) {
  std::string dir = ::testing::TempDir() + "/ckpt_" + name + "_" +
                    std::to_string(::getpid());
  fs::remove_all(dir);
  return dir;
}

/// A tensor whose element i is `base` + i.
TensorData iota(DType dtype, std::vector<int64_t> shape, double base = 0) {
  TensorData t;
  t.desc = {dtype, std::move(shape)};
  t.bytes.resize(t.desc.bytes());
  for (int64_t i = 0; i < t.desc.numel(); ++i) {
    double v = base + i;
    switch (dtype) {
    case DType::F32: reinterpret_cast<float *>(t.bytes.data())[i] = v; break;
    case DType::F64: reinterpret_cast<double *>(t.bytes.data())[i] = v; break;
    case DType::I32: reinterpret_cast<int32_t *>(t.bytes.data())[i] = v; break;
    case DType::I64: reinterpret_cast<int64_t *>(t.bytes.data())[i] = v; break;
    default: break;
    }
  }
  return t;
}

std::map<std::string, TensorData> sampleTensors() {
  return {{"fc1.weight", iota(DType::F32, {10, 7})},
          {"fc1.weight.m", iota(DType::F64, {10, 7}, 0.5)},
          {"count", iota(DType::I64, {}, 42)},
          {"ids", iota(DType::I32, {5})}};
}

/// The logical tensor's elements in the box, in row-major order.
std::vector<float> boxOf(const TensorData &t, std::vector<int64_t> begin,
                         std::vector<int64_t> shape) {
  std::vector<float> out;
  const float *data = reinterpret_cast<const float *>(t.bytes.data());
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      out.push_back(data[(begin[0] + i) * t.desc.shape[1] + begin[1] + j]);
  return out;
}

std::vector<float> floats(const TensorData &t) {
  const float *data = reinterpret_cast<const float *>(t.bytes.data());
  return std::vector<float>(data, data + t.desc.numel());
}

std::string message(const absl::Status &status) {
  return std::string(status.message());
}

TEST(Checkpoint, FileNames) {
  EXPECT_EQ(checkpointFileName("h0.attn/qkv weight"), "h0.attn_qkv_weight.npy");
  EXPECT_EQ(checkpointFileName("fc1.weight"), "fc1.weight.npy");
}

TEST(Checkpoint, RoundTrip) {
  std::string root = freshDir("roundtrip");
  auto tensors = sampleTensors();
  absl::StatusOr<std::string> dir = saveCheckpoint(root, 7, tensors);
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(*dir, root + "/step-7");
  // The root opens through `latest`, the step directory directly.
  for (const std::string &path : {root, *dir}) {
    auto reader = CheckpointReader::open(path);
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_EQ((*reader)->step(), 7);
    EXPECT_EQ((*reader)->directory(), *dir);
    ASSERT_EQ((*reader)->tensors().size(), tensors.size());
    for (const auto &[name, value] : tensors) {
      EXPECT_EQ((*reader)->tensors().at(name).desc, value.desc) << name;
      std::vector<int64_t> zeros(value.desc.rank(), 0);
      auto back = (*reader)->readBox(name, zeros, value.desc.shape);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->desc, value.desc);
      EXPECT_EQ(back->bytes, value.bytes) << name;
    }
  }
  EXPECT_FALSE(fs::exists(root + "/.tmp-step-7"));
}

TEST(Checkpoint, UnevenBoxesReadTheirPieces) {
  std::string root = freshDir("uneven");
  TensorData w = iota(DType::F32, {10, 7});
  ASSERT_TRUE(saveCheckpoint(root, 1, {{"w", w}}).ok());
  auto reader = CheckpointReader::open(root);
  ASSERT_TRUE(reader.ok()) << reader.status();
  // Balanced splits of 10 rows over 4 and 7 columns over 2.
  std::vector<int64_t> rows = {3, 3, 2, 2}, cols = {4, 3};
  int64_t row = 0;
  for (int64_t r : rows) {
    int64_t col = 0;
    for (int64_t c : cols) {
      auto box = (*reader)->readBox("w", {row, col}, {r, c});
      ASSERT_TRUE(box.ok()) << box.status();
      EXPECT_EQ(floats(*box), boxOf(w, {row, col}, {r, c}));
      col += c;
    }
    row += r;
  }
  // Whole rows are one contiguous run; a box outside is an error.
  auto tail = (*reader)->readBox("w", {8, 0}, {2, 7});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(floats(*tail), boxOf(w, {8, 0}, {2, 7}));
  EXPECT_FALSE((*reader)->readBox("w", {8, 0}, {3, 7}).ok());
}

/// A rank program with one variable piece.
RankProgram variableProgram(int64_t rank, std::vector<int64_t> local,
                            std::vector<int64_t> logical,
                            std::vector<int64_t> begin, bool zero = false) {
  RankProgram program;
  program.rank = rank;
  ActorSpec actor;
  actor.id = 1;
  actor.op.type = "oneflow.variable";
  actor.op.role = ofrt::OpRole::Variable;
  actor.op.name = "variable_1";
  actor.op.attrs["name"] = std::string("w");
  actor.op.layout = PieceLayout{logical, begin, zero};
  actor.op.outputs = {{DType::F32, local}};
  actor.outputs = {10};
  program.actors.push_back(actor);
  return program;
}

TEST(Checkpoint, PlanVariablesPickOnePrimaryPerBox) {
  // Rows split 3, 3, 2, 2 ... over a [S(0), B] 2x2 mesh: 5 and 5 rows, each
  // held twice; one rank of a P axis holds zeros.
  std::vector<RankProgram> ranks = {
      variableProgram(0, {5, 7}, {10, 7}, {0, 0}),
      variableProgram(1, {5, 7}, {10, 7}, {0, 0}),
      variableProgram(2, {5, 7}, {10, 7}, {5, 0}, /*zero=*/true),
      variableProgram(3, {5, 7}, {10, 7}, {5, 0})};
  auto variables = planVariables(ranks);
  ASSERT_TRUE(variables.ok()) << variables.status();
  std::vector<bool> primary;
  for (const auto &rank : *variables)
    primary.push_back(rank.at(0).primary);
  EXPECT_EQ(primary, (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(logicalVariables(*variables).at("w"),
            (TensorDesc{DType::F32, {10, 7}}));

  TensorData w = iota(DType::F32, {10, 7});
  std::vector<std::vector<TensorData>> values(4);
  values[0] = {TensorData{{DType::F32, {5, 7}},
                          std::vector<uint8_t>(w.bytes.begin(),
                                               w.bytes.begin() + 140)}};
  values[1] = {TensorData{}};
  values[2] = {TensorData{}};
  values[3] = {TensorData{{DType::F32, {5, 7}},
                          std::vector<uint8_t>(w.bytes.begin() + 140,
                                               w.bytes.end())}};
  auto assembled = assembleVariables(*variables, values);
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_EQ(assembled->at("w").bytes, w.bytes);

  // Rows 5..9 only on a zero rank: not covered.
  ranks[3] = variableProgram(3, {5, 7}, {10, 7}, {5, 0}, /*zero=*/true);
  auto uncovered = planVariables(ranks);
  ASSERT_FALSE(uncovered.ok());
  EXPECT_NE(message(uncovered.status()).find("hold 35 of its 70"),
            std::string::npos)
      << uncovered.status();
}

TEST(Checkpoint, LatestAndKeep) {
  std::string root = freshDir("keep");
  auto tensors = sampleTensors();
  for (int64_t step : {1, 2, 3})
    ASSERT_TRUE(saveCheckpoint(root, step, tensors, {/*keep=*/2}).ok());
  EXPECT_FALSE(fs::exists(root + "/step-1"));
  EXPECT_TRUE(fs::exists(root + "/step-2"));
  EXPECT_TRUE(fs::exists(root + "/step-3"));
  auto reader = CheckpointReader::open(root);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->step(), 3);
  // Saving a step again replaces its directory.
  tensors["ids"] = iota(DType::I32, {5}, 100);
  ASSERT_TRUE(saveCheckpoint(root, 3, tensors, {/*keep=*/2}).ok());
  reader = CheckpointReader::open(root);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->readBox("ids", {0}, {5})->bytes, tensors["ids"].bytes);
}

TEST(Checkpoint, CheckAgainstProgram) {
  std::string root = freshDir("against");
  ASSERT_TRUE(saveCheckpoint(root, 1, sampleTensors()).ok());
  auto reader = CheckpointReader::open(root);
  ASSERT_TRUE(reader.ok());
  std::map<std::string, TensorDesc> program;
  for (const auto &[name, value] : sampleTensors())
    program[name] = value.desc;
  EXPECT_TRUE((*reader)->checkAgainst(program, false).ok());

  auto missing = program;
  missing["fc2.weight"] = {DType::F32, {3}};
  absl::Status status = (*reader)->checkAgainst(missing, false);
  EXPECT_NE(message(status).find("has no tensor 'fc2.weight'"),
            std::string::npos)
      << status;
  EXPECT_TRUE((*reader)->checkAgainst(missing, /*partial=*/true).ok());

  auto fewer = program;
  fewer.erase("count");
  status = (*reader)->checkAgainst(fewer, true);
  EXPECT_NE(message(status).find("tensor 'count', which is no variable"),
            std::string::npos)
      << status;

  auto shape = program;
  shape["fc1.weight"] = {DType::F32, {7, 10}};
  status = (*reader)->checkAgainst(shape, false);
  EXPECT_NE(message(status).find("'fc1.weight' is 10x7xf32 but the "
                                 "program's variable is 7x10xf32"),
            std::string::npos)
      << status;
  auto dtype = program;
  dtype["ids"] = {DType::I64, {5}};
  status = (*reader)->checkAgainst(dtype, false);
  EXPECT_NE(message(status).find("'ids' is 5xi32"), std::string::npos)
      << status;
}

/// Saves the sample checkpoint, lets `corrupt` change its directory, then
/// returns what opening it and reading every tensor says.
absl::Status afterCorruption(const std::string &name,
                             const std::function<void(const std::string &)>
                                 &corrupt) {
  std::string root = freshDir(name);
  absl::StatusOr<std::string> dir = saveCheckpoint(root, 1, sampleTensors());
  if (!dir.ok())
    return dir.status();
  corrupt(*dir);
  auto reader = CheckpointReader::open(*dir);
  if (!reader.ok())
    return reader.status();
  for (const auto &[tensor, entry] : (*reader)->tensors()) {
    auto box = (*reader)->readBox(tensor, std::vector<int64_t>(entry.desc.rank()),
                                  entry.desc.shape);
    if (!box.ok())
      return box.status();
  }
  return absl::OkStatus();
}

void replaceInFile(const std::string &path, const std::string &from,
                   const std::string &to) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << s;
}

TEST(Checkpoint, CorruptInputsAreErrorsNamingTheFile) {
  absl::Status status = afterCorruption("truncated", [](const std::string &d) {
    fs::resize_file(d + "/fc1.weight.npy", 200);
  });
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_NE(message(status).find("fc1.weight.npy"), std::string::npos);
  EXPECT_NE(message(status).find("(truncated)"), std::string::npos) << status;

  status = afterCorruption("flipped", [](const std::string &d) {
    std::fstream f(d + "/ids.npy", std::ios::in | std::ios::out |
                                       std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  });
  EXPECT_NE(message(status).find("tensor 'ids'"), std::string::npos) << status;
  EXPECT_NE(message(status).find("CRC-32"), std::string::npos) << status;

  status = afterCorruption("json", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "\"tensors\"", "\"tensors\" ,,");
  });
  EXPECT_NE(message(status).find("manifest.json': invalid JSON"),
            std::string::npos)
      << status;

  status = afterCorruption("version", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "\"version\": 1", "\"version\": 2");
  });
  EXPECT_NE(message(status).find("format version 2 is not one this runtime "
                                 "reads"),
            std::string::npos)
      << status;

  status = afterCorruption("format", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "oneflow-checkpoint", "other");
  });
  EXPECT_NE(message(status).find("\"format\" is not"), std::string::npos)
      << status;

  status = afterCorruption("dtype", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "\"i32\"", "\"f16\"");
  });
  EXPECT_NE(message(status).find("tensor 'ids' dtype 'f16'"), std::string::npos)
      << status;

  status = afterCorruption("header", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "\"dtype\": \"i32\"",
                  "\"dtype\": \"f32\"");
  });
  EXPECT_NE(message(status).find("the file holds 5xi32 but the manifest says "
                                 "5xf32"),
            std::string::npos)
      << status;

  status = afterCorruption("nofile", [](const std::string &d) {
    fs::remove(d + "/count.npy");
  });
  EXPECT_NE(message(status).find("count.npy': cannot open"), std::string::npos)
      << status;

  status = afterCorruption("escape", [](const std::string &d) {
    replaceInFile(d + "/manifest.json", "\"ids.npy\"", "\"../ids.npy\"");
  });
  EXPECT_NE(message(status).find("needs \"file\""), std::string::npos)
      << status;
}

// Shapes whose sizes or bytes do not fit 64 bits (once wrapped to negative
// sizes, or to a byte count a short file could match), found reading the
// manifest fuzzer's door, and numbers that overflow, which it found.
TEST(Checkpoint, ManifestShapesThatOverflowAreErrors) {
  auto manifest = [](const std::string &shape) {
    return "{\"format\": \"oneflow-checkpoint\", \"version\": 1, "
           "\"step\": 3, \"tensors\": {\"w\": {\"file\": \"w.npy\", "
           "\"dtype\": \"f32\", \"shape\": " +
           shape + ", \"crc32\": 0}}}";
  };
  absl::StatusOr<std::unique_ptr<CheckpointReader>> good =
      CheckpointReader::fromManifest(manifest("[2, 3]"), "dir");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ((*good)->step(), 3);
  EXPECT_EQ((*good)->tensors().at("w").desc.shape,
            (std::vector<int64_t>{2, 3}));
  // A number no double holds threw past the reader (its first crash).
  absl::StatusOr<std::unique_ptr<CheckpointReader>> huge =
      CheckpointReader::fromManifest("{\"step\": 673e673}", "dir");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(message(huge.status()).find("dir/manifest.json': invalid JSON"),
            std::string::npos)
      << huge.status();
  for (const char *shape : {"[18446744073709551615]", "[9223372036854775807]",
                            "[4294967296, 4294967296]", "[-1]"}) {
    absl::StatusOr<std::unique_ptr<CheckpointReader>> bad =
        CheckpointReader::fromManifest(manifest(shape), "dir");
    ASSERT_FALSE(bad.ok()) << shape;
    EXPECT_NE(message(bad.status()).find("dir/manifest.json"),
              std::string::npos)
        << bad.status();
    EXPECT_NE(message(bad.status()).find("tensor 'w' has a \"shape\""),
              std::string::npos)
        << bad.status();
  }
}

TEST(Checkpoint, MissingAndUnwritableDirectories) {
  std::string root = freshDir("missing");
  auto reader = CheckpointReader::open(root);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(message(reader.status()).find("has neither manifest.json nor latest"),
            std::string::npos);

  // A root below a regular file cannot be created.
  fs::create_directories(root);
  std::ofstream(root + "/file") << "x";
  auto saved = saveCheckpoint(root + "/file/sub", 1, sampleTensors());
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(message(saved.status()).find("file/sub"), std::string::npos)
      << saved.status();
}

} // namespace

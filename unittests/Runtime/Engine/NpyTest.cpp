//===- NpyTest.cpp - .npy files -------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace ofrt;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/npy_" + name;
}

TEST(Npy, HalfValues) {
  // 1, -2, 65504 (the largest half), 2^-24 (the smallest subnormal), inf.
  const uint16_t bits[] = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00};
  const double want[] = {1, -2, 65504, std::ldexp(1.0, -24), INFINITY};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(loadElement(DType::F16, bits, i), want[i]) << i;
  // bf16 is the upper half of an f32: 0x3fc0 is 1.5.
  const uint16_t brain = 0x3fc0;
  EXPECT_EQ(loadElement(DType::BF16, &brain, 0), 1.5);
}

TEST(Npy, EdgeIntegerValues) {
  // The edge-only integer types read as their own signedness.
  const uint16_t word = 0xfffe;
  EXPECT_EQ(loadElement(DType::U16, &word, 0), 65534);
  EXPECT_EQ(loadElement(DType::I16, &word, 0), -2);
  const uint32_t dword = 0xfffffffe;
  EXPECT_EQ(loadElement(DType::U32, &dword, 0), 4294967294.0);
  const uint64_t qword = uint64_t(1) << 63;
  EXPECT_EQ(loadElement(DType::U64, &qword, 0), std::ldexp(1.0, 63));
}

TEST(Npy, WriteThenReadEveryElementType) {
  for (DType dtype :
       {DType::F32, DType::F64, DType::F16, DType::I32, DType::I64, DType::I8,
        DType::Bool, DType::U8, DType::I16, DType::U16, DType::U32, DType::U64})
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 4}}) {
      TensorData t;
      t.desc = {dtype, shape};
      t.bytes.resize(t.desc.bytes());
      for (size_t i = 0; i < t.bytes.size(); ++i)
        t.bytes[i] = dtype == DType::Bool ? i % 2 : static_cast<uint8_t>(i);
      std::string path = tempPath("roundtrip.npy");
      ASSERT_TRUE(writeNpy(path, t).ok());
      absl::StatusOr<TensorData> back = readNpy(path);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->desc, t.desc) << t.desc.str();
      EXPECT_EQ(back->bytes, t.bytes);
      // Data starts on a 64-byte boundary, as numpy writes it.
      std::ifstream in(path, std::ios::binary);
      absl::StatusOr<NpyHeader> header = readNpyHeader(in, path);
      ASSERT_TRUE(header.ok());
      EXPECT_EQ(header->dataOffset % 64, 0);
    }
}

TEST(Npy, HeaderVersionsAndErrors) {
  auto parse = [](const std::string &bytes) {
    std::istringstream in(bytes);
    return readNpyHeader(in, "x.npy");
  };
  auto file = [](char major, const std::string &dict) {
    std::string s = std::string("\x93NUMPY", 6) + major + '\0';
    uint32_t n = dict.size();
    s.append(reinterpret_cast<const char *>(&n), major == 1 ? 2 : 4);
    return s + dict;
  };
  std::string dict =
      "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }\n";
  for (char major : {1, 2, 3}) {
    absl::StatusOr<NpyHeader> h = parse(file(major, dict));
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_EQ(h->desc, (TensorDesc{DType::I64, {3, 4}}));
  }
  auto expectError = [&](const std::string &bytes, const std::string &what) {
    absl::StatusOr<NpyHeader> h = parse(bytes);
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.status().message().find("'x.npy' is not a .npy file we read: " +
                                        what),
              std::string::npos)
        << h.status();
  };
  expectError(file(4, dict), "format version 4");
  expectError("\x93NUMPY", "it does not start with the .npy magic string");
  expectError(file(1, "{'fortran_order': False, 'shape': (3,)}"),
              "no 'descr' in the header");
  expectError(file(1, "{'descr': '>f4', 'fortran_order': False, 'shape': ()}"),
              "element type '>f4'");
  expectError(file(1, "{'descr': '<f4', 'shape': (2,)}"),
              "it is not in C order");
  expectError(file(1, "{'descr': '<f4', 'fortran_order': False}"),
              "no 'shape' in the header");
  expectError(file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,"),
              "the shape is not closed");
  expectError(
      file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}"),
      "shape '(2, x)' is malformed");
  expectError(file(1, "{'descr': '<f4'").substr(0, 12),
              "the header is cut off");
  expectError(std::string("\x93NUMPY\x01\0", 8) + "\x05",
              "the header length is cut off");
}

TEST(Npy, ReadErrors) {
  EXPECT_EQ(readNpy(tempPath("missing.npy")).status().code(),
            absl::StatusCode::kNotFound);
  TensorData t;
  t.desc = {DType::F32, {4}};
  t.bytes.resize(16);
  std::string path = tempPath("short.npy");
  ASSERT_TRUE(writeNpy(path, t).ok());
  std::ifstream in(path, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << all.substr(0, all.size() - 4);
  absl::StatusOr<TensorData> back = readNpy(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("holds fewer than the 16 data bytes"),
            std::string::npos);
  // numpy has no bf16 (f16 is '<f2').
  TensorData brain;
  brain.desc = {DType::BF16, {2}};
  brain.bytes.resize(4);
  EXPECT_NE(
      writeNpy(path, brain).message().find(".npy files here hold no bf16"),
      std::string::npos);
  EXPECT_NE(writeNpy(::testing::TempDir(), t).message().find("cannot write"),
            std::string::npos);
}

} // namespace

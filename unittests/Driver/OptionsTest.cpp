//===- OptionsTest.cpp - The driver options' text syntax -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Options.h"

#include "gtest/gtest.h"

namespace {

TEST(DriverOptions, ParsesInputSources) {
  auto fill = ofdriver::parseInputSource("fill:2.5");
  ASSERT_TRUE(fill.ok());
  EXPECT_EQ(fill->kind, ofrt::InputSource::Kind::Fill);
  EXPECT_EQ(fill->value, 2.5);
  auto random = ofdriver::parseInputSource("random:-1:1");
  ASSERT_TRUE(random.ok());
  EXPECT_EQ(random->low, -1);
  EXPECT_EQ(random->high, 1);
  auto file = ofdriver::parseInputSource("@data.bin");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->path, "data.bin");
  auto bad = ofdriver::parseInputSource("fill:x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "'x' in input source 'fill:x' is not a number");
  auto partial = ofdriver::parseInputSource("random:3");
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.status().message(),
            "input source 'random:3' needs random:LOW:HIGH");
}

TEST(DriverOptions, ParsesMeshes) {
  auto mesh = ofdriver::parseMesh("2x2", 4);
  ASSERT_TRUE(mesh.ok());
  EXPECT_EQ(mesh->sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_FALSE(mesh->oldSpelling);
  EXPECT_EQ(ofdriver::meshNote("2x2", *mesh), "");
  auto one = ofdriver::parseMesh("8", 8);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->sizes, (std::vector<int64_t>{8}));
  // The old spelling is read, with a note that names the new one.
  ofdriver::setProgramName("of-check");
  auto old = ofdriver::parseMesh("2,4", 8);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->sizes, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(ofdriver::meshNote("2,4", *old),
            "of-check: note: --mesh 2,4 is the old spelling; write 2x4\n");
  ofdriver::setProgramName("of-run");
  EXPECT_EQ(ofdriver::parseMesh("2by2", 4).status().message(),
            "--mesh '2by2' is not sizes joined by x, as 2x2");
  EXPECT_EQ(ofdriver::parseMesh("2x", 4).status().message(),
            "--mesh '2x' is not sizes joined by x, as 2x2");
  EXPECT_EQ(ofdriver::parseMesh("0x4", 4).status().message(),
            "--mesh '0x4' is not sizes joined by x, as 2x2");
  // At most 4096 a size and 5 axes: no product overflows.
  EXPECT_FALSE(ofdriver::parseMesh("4097", 4097).ok());
  EXPECT_FALSE(ofdriver::parseMesh("2x2x2x2x2x2", 64).ok());
  EXPECT_EQ(ofdriver::parseMesh("4096x4096x4096x4096x4096", 4).status().message(),
            "--mesh 4096x4096x4096x4096x4096 has 1152921504606846976 devices "
            "but --devices gives 4");
  EXPECT_EQ(ofdriver::parseMesh("2x3", 4, "--mesh", "--ranks").status().message(),
            "--mesh 2x3 has 6 devices but --ranks gives 4");
}

} // namespace

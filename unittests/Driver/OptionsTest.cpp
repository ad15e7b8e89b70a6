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

} // namespace

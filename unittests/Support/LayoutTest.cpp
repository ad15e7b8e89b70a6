//===- LayoutTest.cpp - Balanced splits and per-rank slices ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofsupport/Layout.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace ofsupport;

namespace {

std::vector<int64_t> sizesOf(const std::vector<Range> &ranges) {
  std::vector<int64_t> sizes;
  for (const Range &r : ranges)
    sizes.push_back(r.size);
  return sizes;
}

TEST(BalancedSplit, TenOverFourIsThreeThreeTwoTwo) {
  std::vector<Range> parts = balancedSplit(10, 4);
  EXPECT_EQ(sizesOf(parts), (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(parts[0].begin, 0);
  EXPECT_EQ(parts[1].begin, 3);
  EXPECT_EQ(parts[2].begin, 6);
  EXPECT_EQ(parts[3].begin, 8);
}

TEST(BalancedSplit, EvenAndDegenerateLengths) {
  EXPECT_EQ(sizesOf(balancedSplit(8, 4)), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(sizesOf(balancedSplit(2, 4)), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(sizesOf(balancedSplit(0, 3)), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(sizesOf(balancedSplit(7, 1)), (std::vector<int64_t>{7}));
}

TEST(BalancedSplit, PartsAreConsecutiveAndCoverTheLength) {
  for (int64_t length = 0; length < 50; ++length) {
    for (int64_t parts = 1; parts < 9; ++parts) {
      std::vector<Range> ranges = balancedSplit(length, parts);
      int64_t next = 0, smallest = length, largest = 0;
      for (const Range &r : ranges) {
        EXPECT_EQ(r.begin, next);
        next += r.size;
        smallest = std::min(smallest, r.size);
        largest = std::max(largest, r.size);
      }
      EXPECT_EQ(next, length);
      EXPECT_LE(largest - smallest, 1) << length << " over " << parts;
    }
  }
}

TEST(MeshCoordinate, IsRowMajor) {
  EXPECT_EQ(meshCoordinate({2, 2}, 0), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(meshCoordinate({2, 2}, 1), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(meshCoordinate({2, 2}, 2), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(meshCoordinate({2, 3}, 5), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(meshCoordinate({4}, 3), (std::vector<int64_t>{3}));
}

TEST(LocalSlice, NestedSplitOfSixOnTwoByTwoIsTwoOneTwoOne) {
  TensorLayout layout{{2, 2}, {Sbp::split(0), Sbp::split(0)}};
  std::vector<int64_t> sizes, begins;
  for (int64_t id = 0; id < 4; ++id) {
    std::vector<Range> slice = localSlice({6}, layout, id);
    sizes.push_back(slice[0].size);
    begins.push_back(slice[0].begin);
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 1, 2, 1}));
  EXPECT_EQ(begins, (std::vector<int64_t>{0, 2, 3, 5}));
  // The same length over a flat mesh of 4 is 2, 2, 1, 1.
  TensorLayout flat{{4}, {Sbp::split(0)}};
  EXPECT_EQ(localShape({6}, flat, 2), (std::vector<int64_t>{1}));
  EXPECT_EQ(localShape({6}, flat, 1), (std::vector<int64_t>{2}));
}

TEST(LocalSlice, TwoDimensionalMeshSplitsTwoAxes) {
  // 10x7 on a 2x2 mesh as (S(0), S(1)): rows 5/5, columns 4/3.
  TensorLayout layout{{2, 2}, {Sbp::split(0), Sbp::split(1)}};
  EXPECT_EQ(localShape({10, 7}, layout, 0), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(localShape({10, 7}, layout, 1), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(localShape({10, 7}, layout, 3), (std::vector<int64_t>{5, 3}));
  std::vector<Range> last = localSlice({10, 7}, layout, 3);
  EXPECT_EQ(last[0], (Range{5, 5}));
  EXPECT_EQ(last[1], (Range{4, 3}));
}

TEST(LocalSlice, BroadcastAndPartialKeepTheWholeTensor) {
  TensorLayout layout{{2, 2}, {Sbp::broadcast(), Sbp::partial()}};
  for (int64_t id = 0; id < 4; ++id)
    EXPECT_EQ(localShape({3, 5}, layout, id), (std::vector<int64_t>{3, 5}));
  TensorLayout mixed{{3, 2}, {Sbp::split(1), Sbp::broadcast()}};
  EXPECT_EQ(localShape({4, 5}, mixed, 0), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(localShape({4, 5}, mixed, 1), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(localShape({4, 5}, mixed, 5), (std::vector<int64_t>{4, 1}));
}

TEST(ValidateLayout, NamesTheProblem) {
  EXPECT_FALSE(
      validateLayout({4, 4}, {{2, 2}, {Sbp::split(1), Sbp::broadcast()}}));
  std::optional<std::string> error =
      validateLayout({4, 4}, {{4}, {Sbp::split(2)}});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "split axis 2 is out of range for a rank-2 tensor");
  error = validateLayout({4}, {{2, 2}, {Sbp::split(0)}});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "nd-SBP has 1 entries but the mesh has 2 axes");
  error = validateLayout({4}, {{0}, {Sbp::split(0)}});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "mesh axis of size 0 is not positive");
  EXPECT_TRUE(validateLayout({4}, {{}, {}}));
}

TEST(Sbp, PrintsOneFlowNotation) {
  EXPECT_EQ(Sbp::split(3).str(), "S(3)");
  EXPECT_EQ(Sbp::broadcast().str(), "B");
  EXPECT_EQ(Sbp::partial().str(), "P");
  EXPECT_NE(Sbp::split(0), Sbp::split(1));
}

// Random layouts of split and broadcast axes: every element of the logical
// tensor is held by exactly (product of the non-split mesh axes) devices.
TEST(LocalSlice, RandomLayoutsTileTheTensor) {
  std::mt19937 rng(42);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int64_t> shape(pick(1, 3));
    for (int64_t &d : shape)
      d = pick(0, 7);
    TensorLayout layout;
    layout.mesh.resize(pick(1, 3));
    int64_t devices = 1, copies = 1;
    for (int64_t &m : layout.mesh) {
      m = pick(1, 3);
      devices *= m;
      if (pick(0, 2) == 0) {
        layout.ndSbp.push_back(Sbp::broadcast());
        copies *= m;
      } else {
        layout.ndSbp.push_back(Sbp::split(pick(0, shape.size() - 1)));
      }
    }
    ASSERT_FALSE(validateLayout(shape, layout));
    std::map<std::vector<int64_t>, int64_t> held;
    for (int64_t id = 0; id < devices; ++id) {
      std::vector<Range> slice = localSlice(shape, layout, id);
      // Enumerate the slice's elements.
      std::vector<int64_t> index(shape.size());
      bool empty = false;
      for (size_t a = 0; a < shape.size(); ++a) {
        ASSERT_GE(slice[a].begin, 0);
        ASSERT_LE(slice[a].begin + slice[a].size, shape[a]);
        index[a] = slice[a].begin;
        empty |= slice[a].size == 0;
      }
      while (!empty) {
        ++held[index];
        size_t a = shape.size();
        while (a-- > 0) {
          if (++index[a] < slice[a].begin + slice[a].size)
            break;
          index[a] = slice[a].begin;
        }
        if (a == static_cast<size_t>(-1))
          break;
      }
    }
    int64_t total = 1;
    for (int64_t d : shape)
      total *= d;
    EXPECT_EQ(static_cast<int64_t>(held.size()), total);
    for (const auto &[element, count] : held)
      EXPECT_EQ(count, copies);
  }
}

} // namespace

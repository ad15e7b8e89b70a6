//===- AttrsTest.cpp - C++ API of the SBP and placement attributes --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The attributes' C++ API: the checks that only C++ callers can trip (the
// parser never builds such attributes), and the bridge to the MLIR-free
// layout description the runtime shares.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

class AttrsTest : public ::testing::Test {
protected:
  AttrsTest() { context.loadDialect<OneFlowDialect>(); }

  /// Runs `build` and returns the message of the error it reports.
  template <typename Fn> std::string errorOf(Fn build) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    auto emit = [&]() { return emitError(UnknownLoc::get(&context)); };
    build(llvm::function_ref<InFlightDiagnostic()>(emit));
    return message;
  }

  MLIRContext context;
};

TEST_F(AttrsTest, OnlySplitHasAnAxis) {
  std::string message = errorOf([&](auto emit) {
    EXPECT_FALSE(
        SbpAttr::getChecked(emit, &context, SbpKind::broadcast, int64_t(1)));
  });
  EXPECT_EQ(message, "only a split SBP has an axis");
  EXPECT_TRUE(SbpAttr::getSplit(&context, 1).isSplit());
  EXPECT_EQ(SbpAttr::getPartial(&context), SbpAttr::getPartial(&context));
}

TEST_F(AttrsTest, GlobalNeedsPlacementAndNdSbp) {
  std::string message = errorOf([&](auto emit) {
    EXPECT_FALSE(
        GlobalAttr::getChecked(emit, &context, PlacementAttr(), NdSbpAttr()));
  });
  EXPECT_EQ(message, "global encoding needs a placement and an nd-SBP");
}

TEST_F(AttrsTest, ParallelIdIsThePositionInTheRankList) {
  auto placement =
      PlacementAttr::get(&context, DeviceKind::cpu, {4, 2, 7}, {3});
  EXPECT_EQ(placement.getParallelId(4), 0);
  EXPECT_EQ(placement.getParallelId(7), 2);
  EXPECT_EQ(placement.getParallelId(0), -1);
}

TEST_F(AttrsTest, ConvertsToTheSharedLayout) {
  auto placement =
      PlacementAttr::get(&context, DeviceKind::cpu, {0, 1, 2, 3}, {2, 2});
  auto ndSbp = NdSbpAttr::get(&context, {SbpAttr::getSplit(&context, 0),
                                         SbpAttr::getPartial(&context)});
  auto global = GlobalAttr::get(&context, placement, ndSbp);
  ofsupport::TensorLayout layout = toSupportLayout(global);
  EXPECT_EQ(layout.mesh, (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(layout.ndSbp.size(), 2u);
  EXPECT_EQ(layout.ndSbp[0], ofsupport::Sbp::split(0));
  EXPECT_EQ(layout.ndSbp[1], ofsupport::Sbp::partial());
  auto type = RankedTensorType::get({6, 4}, Float32Type::get(&context), global);
  EXPECT_EQ(getGlobalEncoding(type), global);
  EXPECT_FALSE(getGlobalEncoding(Float32Type::get(&context)));
}

} // namespace

//===- CostModelTest.cpp - Alpha-beta prices of boxing and compute --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The prices of boxing steps and compute against the formulas of
// include/OneFlowDialect/Analysis/CostModel.h (the cluster description's
// reader: ClusterDescTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

//===----------------------------------------------------------------------===//
// Prices
//===----------------------------------------------------------------------===//

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    DialectRegistry registry;
    registerOneFlowExternalModels(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<OneFlowDialect, func::FuncDialect>();
    cluster = ClusterDesc::getDefault();
    cluster.intraNode = {1e-5, 1e9};
    cluster.interNode = {1e-4, 1e8};
    cluster.memoryBandwidth = 1e10;
    cluster.flops = 1e11;
  }

  PlacementAttr placement(ArrayRef<int64_t> ranks, ArrayRef<int64_t> mesh) {
    return PlacementAttr::get(&context, DeviceKind::cpu, ranks, mesh);
  }
  SbpAttr s(int64_t axis) { return SbpAttr::getSplit(&context, axis); }
  SbpAttr b() { return SbpAttr::getBroadcast(&context); }
  SbpAttr p() { return SbpAttr::getPartial(&context); }
  GlobalAttr global(PlacementAttr on, ArrayRef<SbpAttr> sbps) {
    return GlobalAttr::get(&context, on, NdSbpAttr::get(&context, sbps));
  }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&context));
  }

  /// Parses `source` into `module` and returns its ops with a cost rule, in
  /// order.
  SmallVector<Operation *> costedOps(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    SmallVector<Operation *> ops;
    if (module)
      module->walk([&](Operation *op) {
        if (isa<CostInterface>(op))
          ops.push_back(op);
      });
    return ops;
  }

  MLIRContext context;
  ClusterDesc cluster;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CostModelTest, AllReduceFollowsTheRingFormula) {
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  BoxingStep step{BoxingKind::allReduce, 0, global(p4, {p()}),
                  global(p4, {b()})};
  StepCost cost = priceBoxingStep(f32({1024}), step, cluster);
  double n = 4096;
  // And the copies into and out of oneflow-fuse-all-reduce's bucket (a
  // whole tensor on every rank), at the memory bandwidth.
  EXPECT_DOUBLE_EQ(cost.seconds, 6 * 1e-5 + 2 * 0.75 * n / 1e9 + 2 * n / 1e10);
  EXPECT_EQ(cost.bytesPerRank, 6144);
}

TEST_F(CostModelTest, MeasuredCollectivesReplaceTheIntraNodeLink) {
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  cluster.allReduce = LinkDesc{2e-6, 4e9};
  BoxingStep reduce{BoxingKind::allReduce, 0, global(p4, {p()}),
                    global(p4, {b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), reduce, cluster).seconds,
                   6 * 2e-6 + 2 * 0.75 * 4096 / 4e9 + 2 * 4096 / 1e10);
  // Collectives without a measured figure keep the link's.
  BoxingStep gather{BoxingKind::allGather, 0, global(p4, {s(0)}),
                    global(p4, {b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), gather, cluster).seconds,
                   3 * 1e-5 + 0.75 * 4096 / 1e9);
  // Groups across nodes pay the inter-node link whatever was measured.
  cluster.ranksPerNode = 2;
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), reduce, cluster).seconds,
                   6 * 1e-4 + 2 * 0.75 * 4096 / 1e8 + 2 * 4096 / 1e10);
}

TEST_F(CostModelTest, FiguresOfAMeshAxisPriceItsCollectives) {
  PlacementAttr p22 = placement({0, 1, 2, 3}, {2, 2});
  cluster.allGather = LinkDesc{2e-6, 4e9};
  ClusterDesc::MeshAxisFigures axis0;
  axis0.mesh = {2, 2};
  axis0.axis = 0;
  axis0.allGather = LinkDesc{1e-6, 2e9};
  cluster.meshAxes.push_back(axis0);
  // All-gather of axis 0 (2 ranks, each group holds the 4096 bytes): the
  // axis's own figures.
  BoxingStep gather0{BoxingKind::allGather, 0, global(p22, {s(0), b()}),
                     global(p22, {b(), b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), gather0, cluster).seconds,
                   1 * 1e-6 + 0.5 * 4096 / 2e9);
  // Axis 1 was not measured: the collective's figures for the node.
  BoxingStep gather1{BoxingKind::allGather, 1, global(p22, {b(), s(0)}),
                     global(p22, {b(), b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), gather1, cluster).seconds,
                   1 * 2e-6 + 0.5 * 4096 / 4e9);
  // Nor for another mesh, or the same mesh over other ranks.
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  BoxingStep flat{BoxingKind::allGather, 0, global(p4, {s(0)}),
                  global(p4, {b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), flat, cluster).seconds,
                   3 * 2e-6 + 0.75 * 4096 / 4e9);
  PlacementAttr shifted = placement({4, 5, 6, 7}, {2, 2});
  BoxingStep elsewhere{BoxingKind::allGather, 0, global(shifted, {s(0), b()}),
                       global(shifted, {b(), b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), elsewhere, cluster).seconds,
                   1 * 2e-6 + 0.5 * 4096 / 4e9);
  // Another collective on axis 0 that was not measured there: the node's.
  BoxingStep reduce0{BoxingKind::allReduce, 0, global(p22, {p(), b()}),
                     global(p22, {b(), b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), reduce0, cluster).seconds,
                   2 * 1e-5 + 2 * 0.5 * 4096 / 1e9 + 2 * 4096 / 1e10);
}

TEST_F(CostModelTest, GroupTensorIsCutByTheOtherAxes) {
  // All-gather on mesh axis 1 of a 2x2 mesh: each group holds half of the
  // tensor (axis 0 splits rows), 2048 of 4096 bytes.
  PlacementAttr p22 = placement({0, 1, 2, 3}, {2, 2});
  BoxingStep step{BoxingKind::allGather, 1, global(p22, {s(0), s(1)}),
                  global(p22, {s(0), b()})};
  StepCost cost = priceBoxingStep(f32({32, 32}), step, cluster);
  EXPECT_DOUBLE_EQ(cost.seconds, 1e-5 + 0.5 * 2048 / 1e9);
  EXPECT_EQ(cost.bytesPerRank, 1024);
}

TEST_F(CostModelTest, GroupsAcrossNodesPayTheInterNodeLink) {
  cluster.ranksPerNode = 2;
  PlacementAttr p22 = placement({0, 1, 2, 3}, {2, 2});
  // Mesh axis 0 groups {0, 2} and {1, 3} span both nodes; axis 1 groups
  // {0, 1} and {2, 3} stay on one.
  BoxingStep across{BoxingKind::allReduce, 0, global(p22, {p(), b()}),
                    global(p22, {b(), b()})};
  BoxingStep within{BoxingKind::allReduce, 1, global(p22, {b(), p()}),
                    global(p22, {b(), b()})};
  double n = 4096;
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), across, cluster).seconds,
                   2 * 1e-4 + n / 1e8 + 2 * n / 1e10);
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), within, cluster).seconds,
                   2 * 1e-5 + n / 1e9 + 2 * n / 1e10);
}

// Each collective is an actor firing (the cluster's op overhead); an
// all-reduce oneflow-fuse-all-reduce buckets (every rank holds the whole
// tensor, at most its default 4 MiB) has a reshape, a slice and a reshape
// around it instead, and its copies into and out of the bucket.
TEST_F(CostModelTest, CollectivesPayTheirFiringsAndBuckets) {
  cluster.opOverhead = 1e-6;
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  PlacementAttr p22 = placement({0, 1, 2, 3}, {2, 2});
  double n = 4096;
  BoxingStep whole{BoxingKind::allReduce, 0, global(p4, {p()}),
                   global(p4, {b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), whole, cluster).seconds,
                   6 * 1e-5 + 2 * 0.75 * n / 1e9 + 3 * 1e-6 + 2 * n / 1e10);
  // Its copies at the memory's bandwidth, whatever an add of that size runs
  // at in cache.
  cluster.bandwidthBySize = {{1, 1e12}};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), whole, cluster).seconds,
                   6 * 1e-5 + 2 * 0.75 * n / 1e9 + 3 * 1e-6 + 2 * n / 1e10);
  cluster.bandwidthBySize.clear();
  // Split by the other axis: not bucketed, one firing.
  BoxingStep piece{BoxingKind::allReduce, 1, global(p22, {s(0), p()}),
                   global(p22, {s(0), b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({32, 32}), piece, cluster).seconds,
                   2 * 1e-5 + 2 * 0.5 * 2048 / 1e9 + 1e-6);
  // Over 4 MiB: not bucketed either.
  EXPECT_DOUBLE_EQ(
      priceBoxingStep(f32({2 << 20}), whole, cluster).seconds,
      6 * 1e-5 + 2 * 0.75 * 8.0 * (1 << 20) / 1e9 + 1e-6);
  BoxingStep gather{BoxingKind::allGather, 0, global(p4, {s(0)}),
                    global(p4, {b()})};
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), gather, cluster).seconds,
                   3 * 1e-5 + 0.75 * n / 1e9 + 1e-6);
}

TEST_F(CostModelTest, LocalStepsAreMemoryCopies) {
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  BoxingStep slice{BoxingKind::localSlice, 0, global(p4, {b()}),
                   global(p4, {s(0)})};
  BoxingStep partial{BoxingKind::toPartial, 0, global(p4, {b()}),
                     global(p4, {p()})};
  StepCost sliceCost = priceBoxingStep(f32({1024}), slice, cluster);
  EXPECT_DOUBLE_EQ(sliceCost.seconds, 1024.0 / 1e10);
  EXPECT_EQ(sliceCost.bytesPerRank, 0);
  EXPECT_DOUBLE_EQ(priceBoxingStep(f32({1024}), partial, cluster).seconds,
                   4096.0 / 1e10);
}

TEST_F(CostModelTest, TransferCostsTheBusiestReceiver) {
  // [S(0)] on ranks 0, 1 -> [B] on ranks 2, 3: each receiver gets both
  // halves (64 bytes each) in two messages.
  PlacementAttr from = placement({0, 1}, {2}), to = placement({2, 3}, {2});
  BoxingStep step{BoxingKind::transfer, -1, global(from, {s(0)}),
                  global(to, {b()})};
  StepCost cost = priceBoxingStep(f32({8, 4}), step, cluster);
  EXPECT_DOUBLE_EQ(cost.seconds, 2 * 1e-5 + 128 / 1e9);
  EXPECT_EQ(cost.bytesPerRank, 128);

  // [B] on ranks 0, 1 -> [S(0)] on ranks 1, 2: rank 1 holds its half
  // already; rank 2 receives its 64 bytes from one replica.
  PlacementAttr shifted = placement({1, 2}, {2});
  BoxingStep overlap{BoxingKind::transfer, -1, global(from, {b()}),
                     global(shifted, {s(0)})};
  StepCost overlapCost = priceBoxingStep(f32({8, 4}), overlap, cluster);
  EXPECT_DOUBLE_EQ(overlapCost.seconds, 1e-5 + 64 / 1e9);
  EXPECT_EQ(overlapCost.bytesPerRank, 64);
}

TEST_F(CostModelTest, BoxingCostSumsTheRoute) {
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  GlobalAttr partial = global(p4, {p()}), broadcast = global(p4, {b()});
  EXPECT_EQ(boxingCost(f32({1024}), partial, partial, cluster), 0);

  std::string why;
  FailureOr<SmallVector<PricedStep>> route =
      priceBoxing(f32({1024}), partial, broadcast, cluster, why);
  ASSERT_TRUE(succeeded(route)) << why;
  double sum = 0;
  for (const PricedStep &step : *route)
    sum += step.cost.seconds;
  EXPECT_GT(sum, 0);
  EXPECT_DOUBLE_EQ(boxingCost(f32({1024}), partial, broadcast, cluster), sum);
}

TEST_F(CostModelTest, ImpossibleBoxingCostsInfinity) {
  // A dynamic shape has no route.
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  double cost = boxingCost(f32({ShapedType::kDynamic}), global(p4, {p()}),
                           global(p4, {b()}), cluster);
  EXPECT_TRUE(std::isinf(cost));
}

TEST_F(CostModelTest, ComputeCostFromTheCostInterface) {
  SmallVector<Operation *> ops = costedOps(
      R"mlir(
      func.func @f(%x: tensor<8x4xf32>, %w: tensor<4x6xf32>,
                   %img: tensor<2x3x8x8xf32>, %k: tensor<5x3x3x3xf32>) {
        %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
        %r = oneflow.relu %y : (tensor<8x6xf32>) -> tensor<8x6xf32>
        %c = oneflow.conv2d %img, %k : (tensor<2x3x8x8xf32>, tensor<5x3x3x3xf32>) -> tensor<2x5x6x6xf32>
        return
      })mlir");
  ASSERT_EQ(ops.size(), 3u);
  auto matmul = cast<CostInterface>(ops[0]);
  auto relu = cast<CostInterface>(ops[1]);
  auto conv = cast<CostInterface>(ops[2]);
  EXPECT_DOUBLE_EQ(matmul.getComputeFlops(), 2 * 8 * 6 * 4);
  EXPECT_DOUBLE_EQ(matmul.getMemoryBytes(), (32 + 24 + 48) * 4);
  EXPECT_DOUBLE_EQ(relu.getComputeFlops(), 48);
  EXPECT_DOUBLE_EQ(relu.getMemoryBytes(), 2 * 48 * 4);
  EXPECT_DOUBLE_EQ(conv.getComputeFlops(), 2.0 * (2 * 5 * 6 * 6) * 27);

  // Roofline, divided over the devices that share the work.
  double matmulSeconds = std::max(2 * 8 * 6 * 4 / 1e11, 104 * 4 / 1e10);
  EXPECT_DOUBLE_EQ(computeCost(ops[0], 1, cluster), matmulSeconds);
  EXPECT_DOUBLE_EQ(computeCost(ops[0], 4, cluster), matmulSeconds / 4);

  // An op with a measured rate of its own is priced by its bytes at that
  // rate (of a piece's bytes), the others as before.
  cluster.opRates["oneflow.relu"] = {{1, 1e8}};
  EXPECT_DOUBLE_EQ(computeCost(ops[1], 1, cluster), 2 * 48 * 4 / 1e8);
  EXPECT_DOUBLE_EQ(computeCost(ops[1], 4, cluster), 2 * 48 * 4 / 4 / 1e8);
  EXPECT_DOUBLE_EQ(computeCost(ops[0], 1, cluster), matmulSeconds);
}

// The optimizer's non-finite checks become one check per layout
// (oneflow-fuse-nonfinite-checks): each check pays its bytes and no firing,
// the maximum that combined two checks nothing; a maximum of other values
// stays an op.
TEST_F(CostModelTest, NonfiniteChecksArePricedFused) {
  SmallVector<Operation *> ops = costedOps(
      R"mlir(
      func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<f32>) {
        %ca = oneflow.find_nonfinite %a like %a {codes = array<i64: 3>, labels = ["a"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
        %cb = oneflow.find_nonfinite %b like %b {codes = array<i64: 2>, labels = ["b"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
        %m = oneflow.maximum %ca, %cb : (tensor<f32>, tensor<f32>) -> tensor<f32>
        %o = oneflow.maximum %m, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
        return
      })mlir");
  ASSERT_EQ(ops.size(), 4u);
  cluster.opOverhead = 1e-6;
  double checkBytes = cast<CostInterface>(ops[0]).getMemoryBytes();
  EXPECT_DOUBLE_EQ(computeCost(ops[0], 1, cluster), checkBytes / 1e10);
  EXPECT_DOUBLE_EQ(computeCost(ops[2], 1, cluster), 0);
  EXPECT_GE(computeCost(ops[3], 1, cluster), 1e-6);
}

// The workspace each op states is what its CPU kernel keeps besides operands
// and results: a convolution's blocked copies, the broadcast copy of a
// binary op's left operand where swapping cannot help, the transposed copy
// of a reduction over leading axes, the cross-entropy's probabilities;
// nothing for element-wise ops, a right-broadcast, a commutative op whose
// right operand has the result's shape, or a reduction over trailing axes.
TEST_F(CostModelTest, WorkspaceFromTheCostInterface) {
  SmallVector<Operation *> ops = costedOps(
      R"mlir(
      func.func @f(%x: tensor<8x4xf32>, %row: tensor<4xf32>,
                   %img: tensor<2x3x8x8xf32>, %k: tensor<5x3x3x3xf32>,
                   %labels: tensor<8xi64>) {
        %r = oneflow.relu %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
        %c = oneflow.conv2d %img, %k : (tensor<2x3x8x8xf32>, tensor<5x3x3x3xf32>) -> tensor<2x5x6x6xf32>
        %a = oneflow.sub %x, %row : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
        %b = oneflow.sub %row, %x : (tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
        %m = oneflow.add %row, %x : (tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
        %t = oneflow.reduce_sum %x {axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
        %l = oneflow.reduce_sum %x {axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<4xf32>
        %p, %ce = oneflow.sparse_softmax_cross_entropy %x, %labels : (tensor<8x4xf32>, tensor<8xi64>) -> (tensor<8x4xf32>, tensor<8xf32>)
        return
      })mlir");
  ASSERT_EQ(ops.size(), 8u);
  auto workspace = [&](unsigned i) {
    return cast<CostInterface>(ops[i]).getWorkspaceBytes();
  };
  EXPECT_DOUBLE_EQ(workspace(0), 0);
  EXPECT_DOUBLE_EQ(workspace(1), (2 * 3 * 64 + 5 * 27 + 2 * 5 * 36) * 4);
  EXPECT_DOUBLE_EQ(workspace(2), 0);
  EXPECT_DOUBLE_EQ(workspace(3), 32 * 4);
  EXPECT_DOUBLE_EQ(workspace(4), 0);
  EXPECT_DOUBLE_EQ(workspace(5), 0);
  EXPECT_DOUBLE_EQ(workspace(6), 32 * 4);
  EXPECT_DOUBLE_EQ(workspace(7), 32 * 4);
}

// A cross-entropy over split classes pays the all-reduce max and sum of one
// value per sample (oneflow-expand-split-softmax); split samples pay
// nothing hidden, and neither do other ops.
TEST_F(CostModelTest, SplitSoftmaxPaysItsAllReduces) {
  SmallVector<Operation *> ops = costedOps(
      R"mlir(
      func.func @f(%x: tensor<8x100xf32>, %l: tensor<8xi64>) {
        %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l : (tensor<8x100xf32>, tensor<8xi64>) -> (tensor<8x100xf32>, tensor<8xf32>)
        %r = oneflow.relu %x : (tensor<8x100xf32>) -> tensor<8x100xf32>
        return
      })mlir");
  ASSERT_EQ(ops.size(), 2u);
  PlacementAttr p4 = placement({0, 1, 2, 3}, {4});
  auto nd = [&](SbpAttr sbp) { return NdSbpAttr::get(&context, {sbp}); };
  double classes =
      hiddenCommunicationCost(ops[0], {nd(s(1)), nd(p())}, p4, cluster);
  GlobalAttr sum = global(p4, {p()});
  GlobalAttr max =
      global(p4, {SbpAttr::getPartial(&context, PartialReduction::max)});
  double allReduce = boxingCost(f32({8, 1}), sum, global(p4, {b()}), cluster);
  EXPECT_GT(allReduce, 0);
  EXPECT_DOUBLE_EQ(boxingCost(f32({8, 1}), max, global(p4, {b()}), cluster),
                   allReduce);
  EXPECT_DOUBLE_EQ(classes, 2 * allReduce);
  EXPECT_EQ(hiddenCommunicationCost(ops[0], {nd(s(0)), nd(s(0))}, p4, cluster),
            0);
  EXPECT_EQ(hiddenCommunicationCost(ops[1], {nd(s(1))}, p4, cluster), 0);
}

} // namespace

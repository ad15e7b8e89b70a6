//===- BoxingRouteTests.cpp - planBoxing, checked by simulation -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// For every pair of layouts on 1-D meshes of 2, 3 and 4 ranks, on a 2x2 and
// a 2x2x2 mesh, and across placements, plans the route, runs it through
// the reference semantics of BoxingSimulator on known values (partial
// layouts start from a random split into summands) and checks that the
// ranks end up with the destination layout's pieces. A pair may be refused
// only when one of its layouts leaves some rank an empty piece.
//
//===----------------------------------------------------------------------===//

#include "BoxingSimulator.h"

#include "OneFlowDialect/Analysis/BoxingRoute.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// How many pairs a test planned, and how many planBoxing refused.
struct Tally {
  int64_t pairs = 0;
  int64_t refused = 0;
  int64_t steps = 0;
};

class BoxingRouteTests : public ::testing::Test {
protected:
  BoxingRouteTests() {
    DialectRegistry registry;
    registerOneFlowExternalModels(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<OneFlowDialect>();
  }

  PlacementAttr placement(ArrayRef<int64_t> ranks, ArrayRef<int64_t> mesh) {
    return PlacementAttr::get(&context, DeviceKind::cpu, ranks, mesh);
  }

  /// Every nd-SBP over {S(0), S(1), B, P} (and P(max), P(min) with
  /// `reductions`, one reduction per layout) for `meshRank` axes.
  std::vector<SmallVector<SbpAttr>> allNdSbps(size_t meshRank,
                                              bool reductions) {
    SmallVector<SbpAttr> one = {
        SbpAttr::getSplit(&context, 0), SbpAttr::getSplit(&context, 1),
        SbpAttr::getBroadcast(&context), SbpAttr::getPartial(&context)};
    if (reductions) {
      one.push_back(SbpAttr::getPartial(&context, PartialReduction::max));
      one.push_back(SbpAttr::getPartial(&context, PartialReduction::min));
    }
    std::vector<SmallVector<SbpAttr>> all = {{}};
    for (size_t axis = 0; axis < meshRank; ++axis) {
      std::vector<SmallVector<SbpAttr>> longer;
      for (const SmallVector<SbpAttr> &prefix : all)
        for (SbpAttr sbp : one) {
          longer.push_back(prefix);
          longer.back().push_back(sbp);
        }
      all = std::move(longer);
    }
    llvm::erase_if(all, [](const SmallVector<SbpAttr> &sbps) {
      return mixesPartialReductions(sbps);
    });
    return all;
  }

  std::vector<GlobalAttr> allLayouts(PlacementAttr place,
                                     bool reductions = false) {
    std::vector<GlobalAttr> layouts;
    for (const SmallVector<SbpAttr> &sbps :
         allNdSbps(place.getMeshRank(), reductions))
      layouts.push_back(
          GlobalAttr::get(&context, place, NdSbpAttr::get(&context, sbps)));
    return layouts;
  }

  GlobalAttr layout(PlacementAttr place, ArrayRef<SbpAttr> sbps) {
    return GlobalAttr::get(&context, place, NdSbpAttr::get(&context, sbps));
  }
  SbpAttr s(int64_t axis) { return SbpAttr::getSplit(&context, axis); }
  SbpAttr b() { return SbpAttr::getBroadcast(&context); }
  SbpAttr p() { return SbpAttr::getPartial(&context); }
  SbpAttr pmax() {
    return SbpAttr::getPartial(&context, PartialReduction::max);
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&context));
  }

  /// Plans `from` -> `to` for `shape`, simulates the route and checks the
  /// result; returns the route (empty when refused).
  SmallVector<BoxingStep> plan(ArrayRef<int64_t> shapeRef, GlobalAttr from,
                               GlobalAttr to, Tally &tally) {
    std::vector<int64_t> shape(shapeRef.begin(), shapeRef.end());
    std::string label;
    llvm::raw_string_ostream(label)
        << tensor(shapeRef) << ": " << from << " -> " << to;
    ++tally.pairs;
    std::string why;
    FailureOr<SmallVector<BoxingStep>> steps =
        planBoxing(tensor(shapeRef), from, to, why);
    bool impossible = hasEmptyPiece(shape, from) || hasEmptyPiece(shape, to);
    if (failed(steps)) {
      ++tally.refused;
      EXPECT_TRUE(impossible) << label << " refused: " << why;
      std::string fromText, toText;
      llvm::raw_string_ostream(fromText) << from;
      llvm::raw_string_ostream(toText) << to;
      EXPECT_NE(why.find(fromText), std::string::npos) << why;
      EXPECT_NE(why.find(toText), std::string::npos) << why;
      return {};
    }
    EXPECT_FALSE(impossible) << label << " should have been refused";
    tally.steps += steps->size();
    std::vector<int64_t> logical = boxingsim::iota(shape);
    boxingsim::Pieces pieces =
        boxingsim::distribute(shape, logical, toSupportLayout(from), rng);
    GlobalAttr current = from;
    for (const BoxingStep &step : *steps) {
      EXPECT_EQ(step.from, current) << label;
      std::string error = boxingsim::apply(shape, step, pieces);
      EXPECT_EQ(error, "") << label << " at " << stringifyBoxingKind(step.kind).str()
                           << " on mesh axis " << step.meshAxis;
      if (!error.empty())
        return *steps;
      current = step.to;
    }
    EXPECT_EQ(current, to) << label;
    EXPECT_EQ(boxingsim::check(shape, logical, toSupportLayout(to), pieces), "")
        << label;
    return *steps;
  }

  /// Whether some rank of `layout` holds an empty piece of `shape`.
  static bool hasEmptyPiece(const std::vector<int64_t> &shape,
                            GlobalAttr layout) {
    ofsupport::TensorLayout support = toSupportLayout(layout);
    for (int64_t id = 0; id < layout.getPlacement().getNumRanks(); ++id)
      for (int64_t dim : ofsupport::localShape(shape, support, id))
        if (dim == 0)
          return true;
    return false;
  }

  /// Plans and checks every pair of `froms` x `tos` for each shape.
  Tally planAll(const std::vector<GlobalAttr> &froms,
                const std::vector<GlobalAttr> &tos,
                ArrayRef<SmallVector<int64_t>> shapes) {
    Tally tally;
    for (const SmallVector<int64_t> &shape : shapes)
      for (GlobalAttr from : froms)
        for (GlobalAttr to : tos)
          plan(shape, from, to, tally);
    return tally;
  }

  static void report(StringRef name, const Tally &tally) {
    std::cout << name.str() << ": " << tally.pairs << " pairs, "
              << tally.refused << " refused, " << tally.steps << " steps\n";
  }

  MLIRContext context;
  std::mt19937 rng{12345};
};

/// The step a 1-D boxing takes per the contract's table.
static BoxingKind expectedKind(SbpAttr from, SbpAttr to) {
  if (from.isPartial())
    return to.isBroadcast() ? BoxingKind::allReduce
                            : BoxingKind::reduceScatter;
  if (to.isPartial())
    return BoxingKind::toPartial;
  if (from.isBroadcast())
    return BoxingKind::localSlice;
  return to.isBroadcast() ? BoxingKind::allGather : BoxingKind::allToAll;
}

TEST_F(BoxingRouteTests, EveryPairOnOneAxisMeshesIsOneStep) {
  // 12x8 splits evenly over 2 and 4; 7x5 never does; 3x5 cannot be split
  // along axis 0 over 4 ranks.
  SmallVector<SmallVector<int64_t>> shapes = {{12, 8}, {7, 5}, {3, 5}};
  for (int64_t p : {2, 3, 4}) {
    SmallVector<int64_t> ranks;
    for (int64_t r = 0; r < p; ++r)
      ranks.push_back(r);
    std::vector<GlobalAttr> layouts = allLayouts(placement(ranks, {p}));
    Tally tally;
    for (const SmallVector<int64_t> &shape : shapes) {
      for (GlobalAttr from : layouts) {
        for (GlobalAttr to : layouts) {
          int64_t refused = tally.refused;
          SmallVector<BoxingStep> steps = plan(shape, from, to, tally);
          if (tally.refused != refused)
            continue;
          if (from == to) {
            EXPECT_TRUE(steps.empty());
            continue;
          }
          ASSERT_EQ(steps.size(), 1u);
          EXPECT_EQ(steps[0].meshAxis, 0);
          EXPECT_EQ(steps[0].kind,
                    expectedKind(from.getNdSbp()[0], to.getNdSbp()[0]));
        }
      }
    }
    report("mesh [" + std::to_string(p) + "]", tally);
    EXPECT_EQ(tally.pairs, 3 * 16);
    // Only 3x5 on 4 ranks is refused: the 7 pairs from or to S(0).
    EXPECT_EQ(tally.refused, p == 4 ? 7 : 0);
  }
}

TEST_F(BoxingRouteTests, EveryPairOnATwoByTwoMesh) {
  std::vector<GlobalAttr> layouts =
      allLayouts(placement({0, 1, 2, 3}, {2, 2}));
  // Even, uneven (7 = 4 + 3, then 2 + 2 and 2 + 1), one where nested and
  // flat splits differ (6: 2, 1, 2, 1), and one too small for (S(0), S(0)).
  Tally tally =
      planAll(layouts, layouts, {{8, 12}, {7, 5}, {6, 6}, {3, 2}});
  report("mesh [2, 2]", tally);
  EXPECT_EQ(tally.pairs, 4 * 256);
  // 3x2: (S(0), S(0)) and (S(1), S(1)) leave empty pieces: 256 - 14 * 14
  // pairs involve one of them.
  EXPECT_EQ(tally.refused, 60);
}

TEST_F(BoxingRouteTests, EveryPairOnATwoByTwoByTwoMesh) {
  std::vector<GlobalAttr> layouts =
      allLayouts(placement({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}));
  Tally tally = planAll(layouts, layouts, {{8, 6}});
  report("mesh [2, 2, 2]", tally);
  EXPECT_EQ(tally.pairs, 64 * 64);
  // (S(1), S(1), S(1)) cannot split 6 into 8: 64 * 64 - 63 * 63 pairs.
  EXPECT_EQ(tally.refused, 127);
}

TEST_F(BoxingRouteTests, RoutesOnTwoByTwo) {
  PlacementAttr mesh = placement({0, 1, 2, 3}, {2, 2});
  Tally tally;
  // Reduce first: all-reduce half the data, then gather.
  SmallVector<BoxingStep> steps =
      plan({8, 8}, layout(mesh, {p(), s(0)}), layout(mesh, {b(), b()}), tally);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, BoxingKind::allReduce);
  EXPECT_EQ(steps[0].meshAxis, 0);
  EXPECT_EQ(steps[1].kind, BoxingKind::allGather);
  // One axis differs: one reduce-scatter inside each row.
  steps = plan({8, 8}, layout(mesh, {s(0), p()}), layout(mesh, {s(0), s(0)}),
               tally);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, BoxingKind::reduceScatter);
  EXPECT_EQ(steps[0].meshAxis, 1);
  // Cyclic: no order of two direct steps works, so three steps.
  steps = plan({8, 8}, layout(mesh, {s(0), s(1)}), layout(mesh, {s(1), s(0)}),
               tally);
  EXPECT_EQ(steps.size(), 3u);
  steps = plan({8, 8}, layout(mesh, {s(0), s(0)}), layout(mesh, {b(), s(0)}),
               tally);
  EXPECT_EQ(steps.size(), 3u);
  EXPECT_EQ(tally.refused, 0);
}

TEST_F(BoxingRouteTests, EveryPairAcrossPlacements) {
  PlacementAttr two = placement({0, 1}, {2});
  PlacementAttr three = placement({0, 1, 2}, {3});
  PlacementAttr stage = placement({2, 3}, {2});
  PlacementAttr square = placement({0, 1, 2, 3}, {2, 2});
  Tally tally;
  for (auto [from, to] : {std::make_pair(two, three),
                          std::make_pair(three, two),
                          std::make_pair(two, stage),
                          std::make_pair(square, stage),
                          std::make_pair(stage, square)}) {
    Tally pairs = planAll(allLayouts(from), allLayouts(to), {{6, 4}, {5, 3}});
    tally.pairs += pairs.pairs;
    tally.refused += pairs.refused;
    tally.steps += pairs.steps;
  }
  report("across placements", tally);
  EXPECT_EQ(tally.pairs, 2 * (16 + 16 + 16 + 64 + 64));
  // 5x3 under (S(1), S(1)) on the 2x2 mesh: 3 into 4 parts, 4 pairs each way.
  EXPECT_EQ(tally.refused, 8);
  // A partial destination: transfer without P, then to_partial.
  SmallVector<BoxingStep> steps = plan(
      {6, 4}, layout(two, {p()}), layout(square, {s(1), p()}), tally);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, BoxingKind::transfer);
  EXPECT_EQ(steps[0].meshAxis, -1);
  EXPECT_EQ(steps[0].to, layout(square, {s(1), b()}));
  EXPECT_EQ(steps[1].kind, BoxingKind::toPartial);
  EXPECT_EQ(steps[1].meshAxis, 1);
}

/// Layouts with P(max) and P(min) start from parts where one rank holds
/// each value and the others hold random values below (above) it.
TEST_F(BoxingRouteTests, EveryPairWithMaxOrMinOnOneAxisMeshes) {
  SmallVector<SmallVector<int64_t>> shapes = {{12, 8}, {7, 5}};
  for (int64_t p : {2, 3, 4}) {
    SmallVector<int64_t> ranks;
    for (int64_t r = 0; r < p; ++r)
      ranks.push_back(r);
    std::vector<GlobalAttr> layouts =
        allLayouts(placement(ranks, {p}), /*reductions=*/true);
    Tally tally;
    for (const SmallVector<int64_t> &shape : shapes) {
      for (GlobalAttr from : layouts) {
        for (GlobalAttr to : layouts) {
          SmallVector<BoxingStep> steps = plan(shape, from, to, tally);
          SbpAttr x = from.getNdSbp()[0], y = to.getNdSbp()[0];
          // Between two reductions, and from a split to a max or min: B
          // in the middle.
          bool viaB = x != y && y.isPartial() && !y.isPartialSum() &&
                      (x.isPartial() || x.isSplit());
          viaB |= x.isPartial() && y.isPartial() && x != y;
          EXPECT_EQ(steps.size(), from == to ? 0u
                                  : viaB     ? 2u
                                             : 1u)
              << stringifySbp(x) << " -> " << stringifySbp(y);
          if (viaB && steps.size() == 2)
            EXPECT_TRUE(steps[0].to.getNdSbp()[0].isBroadcast());
        }
      }
    }
    report("mesh [" + std::to_string(p) + "] with P(max), P(min)", tally);
    EXPECT_EQ(tally.pairs, 2 * 36);
    EXPECT_EQ(tally.refused, 0);
  }
}

TEST_F(BoxingRouteTests, EveryPairWithMaxOrMinOnATwoByTwoMesh) {
  std::vector<GlobalAttr> layouts =
      allLayouts(placement({0, 1, 2, 3}, {2, 2}), /*reductions=*/true);
  // 36 nd-SBPs less the 6 that mix two reductions.
  ASSERT_EQ(layouts.size(), 30u);
  Tally tally = planAll(layouts, layouts, {{8, 12}, {7, 5}});
  report("mesh [2, 2] with P(max), P(min)", tally);
  EXPECT_EQ(tally.pairs, 2 * 900);
  EXPECT_EQ(tally.refused, 0);
}

TEST_F(BoxingRouteTests, MaxAndMinAcrossPlacements) {
  PlacementAttr two = placement({0, 1}, {2});
  PlacementAttr stage = placement({2, 3}, {2});
  PlacementAttr square = placement({0, 1, 2, 3}, {2, 2});
  Tally tally;
  for (auto [from, to] :
       {std::make_pair(two, stage), std::make_pair(square, stage),
        std::make_pair(stage, square)})
    tally.pairs +=
        planAll(allLayouts(from, true), allLayouts(to, true), {{6, 4}}).pairs;
  EXPECT_EQ(tally.pairs, 6 * 6 + 30 * 6 + 6 * 30);
  // A P(max) source is all-reduced on its placement before the transfer
  // (which sums partial sources).
  SmallVector<BoxingStep> steps = plan({6, 4}, layout(square, {s(0), pmax()}),
                                       layout(stage, {pmax()}), tally);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].kind, BoxingKind::allReduce);
  EXPECT_EQ(steps[0].to, layout(square, {s(0), b()}));
  EXPECT_EQ(steps[1].kind, BoxingKind::transfer);
  EXPECT_EQ(steps[2].kind, BoxingKind::toPartial);
  EXPECT_EQ(steps[2].to, layout(stage, {pmax()}));
}

/// The ops that lower-boxing would build from every route pass their
/// verifiers: the planner and the ops' rules agree.
TEST_F(BoxingRouteTests, EveryStepIsAValidOp) {
  std::vector<std::pair<PlacementAttr, PlacementAttr>> placements = {
      {placement({0, 1, 2}, {3}), placement({0, 1, 2}, {3})},
      {placement({0, 1, 2, 3}, {2, 2}), placement({0, 1, 2, 3}, {2, 2})},
      {placement({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}),
       placement({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2})},
      {placement({0, 1, 2, 3}, {2, 2}), placement({4, 5}, {2})}};
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  Location loc = UnknownLoc::get(&context);
  int64_t ops = 0;
  for (auto [source, dest] : placements) {
    // With P(max) and P(min) but on the 2x2x2 mesh (138 layouts there).
    bool reductions = source.getMeshRank() < 3;
    for (GlobalAttr from : allLayouts(source, reductions)) {
      for (GlobalAttr to : allLayouts(dest, reductions)) {
        std::string why;
        auto steps = planBoxing(tensor({8, 8}), from, to, why);
        ASSERT_TRUE(succeeded(steps)) << why;
        for (const BoxingStep &step : *steps) {
          Block block;
          Value input = block.addArgument(
              RankedTensorType::get({8, 8}, Float32Type::get(&context),
                                    step.from),
              loc);
          OperationState state(
              loc, ("oneflow." + stringifyBoxingKind(step.kind)).str());
          state.addOperands(input);
          state.addTypes(RankedTensorType::get(
              {8, 8}, Float32Type::get(&context), step.to));
          if (step.kind != BoxingKind::transfer)
            state.addAttribute(
                "mesh_axis",
                IntegerAttr::get(IntegerType::get(&context, 64),
                                 step.meshAxis));
          Operation *op = Operation::create(state);
          EXPECT_TRUE(op->isRegistered());
          EXPECT_TRUE(succeeded(verify(op))) << message;
          op->destroy();
          ++ops;
        }
      }
    }
  }
  std::cout << "verified " << ops << " step ops\n";
}

TEST_F(BoxingRouteTests, RoutesAreDeterministic) {
  PlacementAttr mesh = placement({0, 1, 2, 3}, {2, 2});
  for (GlobalAttr from : allLayouts(mesh)) {
    for (GlobalAttr to : allLayouts(mesh)) {
      std::string why;
      auto first = planBoxing(tensor({8, 6}), from, to, why);
      auto second = planBoxing(tensor({8, 6}), from, to, why);
      ASSERT_TRUE(succeeded(first) && succeeded(second));
      ASSERT_EQ(first->size(), second->size());
      for (auto [x, y] : llvm::zip(*first, *second)) {
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.meshAxis, y.meshAxis);
        EXPECT_EQ(x.to, y.to);
      }
    }
  }
}

TEST_F(BoxingRouteTests, RefusalsSayWhy) {
  PlacementAttr four = placement({0, 1, 2, 3}, {4});
  std::string why;
  auto dynamic = RankedTensorType::get({ShapedType::kDynamic, 4},
                                       Float32Type::get(&context));
  EXPECT_TRUE(failed(
      planBoxing(dynamic, layout(four, {b()}), layout(four, {s(0)}), why)));
  EXPECT_NE(why.find("the shape is not static"), std::string::npos) << why;
  EXPECT_TRUE(failed(planBoxing(tensor({3, 4}), layout(four, {b()}),
                                layout(four, {s(0)}), why)));
  EXPECT_NE(why.find("the destination layout leaves a rank an empty piece: "
                     "tensor axis 0 of size 3 cannot be split into 4 "
                     "non-empty parts"),
            std::string::npos)
      << why;
  EXPECT_EQ(stringifyBoxingKind(BoxingKind::reduceScatter), "reduce_scatter");
}

} // namespace

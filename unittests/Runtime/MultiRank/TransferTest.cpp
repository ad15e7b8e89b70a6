//===- TransferTest.cpp - oneflow.transfer between placements -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Transfers whose records are computed here from the two layouts (the
// intersection of every source piece with every destination piece, tags in
// one global order), run on in-process ranks: 2 -> 3 ranks with self copies,
// [0, 1] -> [2, 3] where half the ranks have no input and half no output,
// and a reducing transfer from a partial source.
//
//===----------------------------------------------------------------------===//

#include "RankThreads.h"

#include "ofrt/CollectiveKernels.h"

#include <algorithm>

using namespace ofrt;
using namespace oftest;

namespace {

constexpr int64_t kBroadcast = -1, kPartial = -2;

/// Ranks and the SBP of a 1-D placement: a split axis, B or P.
struct Placement {
  std::vector<int64_t> ranks;
  int64_t sbp;
};

struct Box {
  Shape begin, size;
};

Box pieceBox(const Placement &p, size_t index, const Shape &logical) {
  Box box{Shape(logical.size(), 0), logical};
  if (p.sbp >= 0) {
    auto [b, s] = part(logical[p.sbp], p.ranks.size(), index);
    box.begin[p.sbp] = b;
    box.size[p.sbp] = s;
  }
  return box;
}

struct Plan {
  std::vector<int64_t> group;
  std::map<int64_t, std::vector<PointToPoint>> sends, recvs;
};

Plan planTransfer(const Placement &from, const Placement &to,
                  const Shape &logical) {
  Plan plan;
  for (const Placement *p : {&from, &to})
    for (int64_t r : p->ranks)
      if (std::find(plan.group.begin(), plan.group.end(), r) ==
          plan.group.end())
        plan.group.push_back(r);
  std::sort(plan.group.begin(), plan.group.end());
  auto position = [&](int64_t r) {
    return std::find(plan.group.begin(), plan.group.end(), r) -
           plan.group.begin();
  };
  int64_t tag = 0;
  for (size_t j = 0; j < to.ranks.size(); ++j)
    for (size_t i = 0; i < from.ranks.size(); ++i) {
      Box src = pieceBox(from, i, logical), dst = pieceBox(to, j, logical);
      Box cut{Shape(logical.size()), Shape(logical.size())};
      bool empty = false;
      for (size_t d = 0; d < logical.size(); ++d) {
        cut.begin[d] = std::max(src.begin[d], dst.begin[d]);
        int64_t end = std::min(src.begin[d] + src.size[d],
                               dst.begin[d] + dst.size[d]);
        cut.size[d] = end - cut.begin[d];
        empty |= cut.size[d] <= 0;
      }
      if (empty)
        continue;
      auto record = [&](std::vector<PointToPoint> &out, int64_t peer,
                        const Box &mine) {
        PointToPoint p2p;
        p2p.peer = position(peer);
        p2p.tag = tag;
        for (size_t d = 0; d < logical.size(); ++d)
          p2p.begin.push_back(cut.begin[d] - mine.begin[d]);
        p2p.size = cut.size;
        out.push_back(p2p);
      };
      record(plan.sends[from.ranks[i]], to.ranks[j], src);
      record(plan.recvs[to.ranks[j]], from.ranks[i], dst);
      ++tag;
    }
  return plan;
}

/// Runs the transfer on `world` ranks and checks every destination piece.
void checkTransfer(int world, const Placement &from, const Placement &to,
                   const Shape &logical) {
  Plan plan = planTransfer(from, to, logical);
  TensorData full = iota(logical, 1, 1);
  bool reduce = from.sbp == kPartial;
  expectAllOk(onRanks(world, [&](int r, CommunicatorPool &pool) {
    auto src = std::find(from.ranks.begin(), from.ranks.end(), r);
    auto dst = std::find(to.ranks.begin(), to.ranks.end(), r);
    if (src == from.ranks.end() && dst == to.ranks.end())
      return absl::OkStatus();
    TransferLayout layout{plan.group, plan.sends[r], plan.recvs[r], reduce};
    std::vector<TensorDesc> inputs, outputs;
    TensorData in, out;
    if (src != from.ranks.end()) {
      size_t i = src - from.ranks.begin();
      Box box = pieceBox(from, i, logical);
      // A partial source: rank i holds (i + 1) * full.
      in = reduce ? iota(logical, i + 1, i + 1)
                  : oftest::box(full, box.begin, box.size);
      inputs.push_back(in.desc);
    }
    Box mine;
    if (dst != to.ranks.end()) {
      mine = pieceBox(to, dst - to.ranks.begin(), logical);
      out = TensorData{{DType::F32, mine.size}, {}};
      out.bytes.assign(out.desc.bytes(), 0xFF);
      outputs.push_back(out.desc);
    }
    OpDesc op = makeOp("oneflow.transfer", {}, inputs, outputs, layout);
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        createCollectiveKernel(op, pool);
    if (!kernel.ok())
      return kernel.status();
    std::vector<TensorView> inViews, outViews;
    if (!inputs.empty())
      inViews.push_back(in.view());
    if (!outputs.empty())
      outViews.push_back(out.view());
    // Twice: the second step reuses the same tags.
    for (int step = 0; step < 2; ++step)
      if (absl::Status s = (*kernel)->compute({step}, inViews, outViews);
          !s.ok())
        return s;
    if (!outputs.empty()) {
      float factor = 1;
      if (reduce)
        factor = from.ranks.size() * (from.ranks.size() + 1) / 2.0f;
      EXPECT_EQ(values(out), values(oftest::box(iota(logical, factor, factor),
                                                mine.begin, mine.size)))
          << "rank " << r;
    }
    return absl::OkStatus();
  }));
}

TEST(Transfer, TwoToThreeRanksWithSelfCopies) {
  checkTransfer(3, {{0, 1}, 0}, {{0, 1, 2}, 0}, {7, 3});
  checkTransfer(3, {{0, 1}, 1}, {{0, 1, 2}, 0}, {5, 4});
}

TEST(Transfer, BetweenDisjointPlacementsRanksWithoutInputOrOutput) {
  checkTransfer(4, {{0, 1}, 0}, {{2, 3}, 1}, {5, 3});
  checkTransfer(4, {{0, 1}, 1}, {{2, 3}, kBroadcast}, {4, 5});
}

TEST(Transfer, ReducingTransferSumsAPartialSource) {
  checkTransfer(4, {{0, 1}, kPartial}, {{2, 3}, 0}, {5, 2});
  checkTransfer(3, {{0, 1, 2}, kPartial}, {{1, 2}, 1}, {2, 7});
}

TEST(Transfer, BadRecordsAreErrorsNamingTheActor) {
  std::unique_ptr<CommunicatorPool> owned =
      makePool(0, 2, createInProcessStore(), 200ms);
  CommunicatorPool &pool = *owned;
  TensorDesc t{DType::F32, {4}};
  std::vector<int64_t> group{0, 1};
  struct Case {
    OpDesc op;
    std::string message;
  };
  auto send = [](int64_t peer, uint32_t tag, int64_t begin, int64_t size) {
    return PointToPoint{peer, tag, {begin}, {size}};
  };
  auto transfer = [&](std::vector<PointToPoint> sends,
                      std::vector<PointToPoint> recvs) {
    return TransferLayout{group, std::move(sends), std::move(recvs), false};
  };
  std::vector<Case> cases = {
      {makeOp("oneflow.transfer", {}, {t}, {},
              transfer({PointToPoint{1, 0, {0, 0}, {4, 4}}}, {})),
       "oneflow.transfer 'transfer': sends record 0 has a box of 2 and 2 "
       "axes, not the 1 of its input 4xf32"},
      {makeOp("oneflow.transfer", {}, {t}, {}, transfer({send(2, 0, 0, 4)}, {})),
       "oneflow.transfer 'transfer': sends record 0 has peer 2, outside its "
       "group of 2"},
      {makeOp("oneflow.transfer", {}, {}, {t}, transfer({}, {send(1, 0, 2, 4)})),
       "oneflow.transfer 'transfer': recvs record 0 is outside its output "
       "4xf32"},
      {makeOp("oneflow.transfer", {}, {t}, {}, transfer({}, {send(1, 0, 0, 4)})),
       "oneflow.transfer 'transfer': has recvs but no output on this rank"},
      {makeOp("oneflow.transfer", {}, {t}, {t},
              transfer({send(0, 3, 0, 4)}, {send(0, 3, 0, 2)})),
       "oneflow.transfer 'transfer': has a local send with tag 3 and no "
       "local recv of the same size and tag"},
      {makeOp("oneflow.transfer", {}, {t}, {},
              transfer({send(1, 3, 0, 2), send(1, 3, 2, 2)}, {})),
       "oneflow.transfer 'transfer': has two sends with tag 3"},
      {makeOp("oneflow.transfer", {}, {t}, {},
              transfer({send(1, 4294901760u, 0, 4)}, {})),
       "oneflow.transfer 'transfer': sends record 0 has tag 4294901760, "
       "outside [0, 4294901760)"},
      {makeOp("oneflow.transfer", {}, {t}, {}),
       "oneflow.transfer 'transfer': needs a transfer layout (its group, "
       "sends and recvs)"},
  };
  for (const Case &c : cases) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        createCollectiveKernel(c.op, pool);
    ASSERT_FALSE(kernel.ok()) << c.message;
    EXPECT_EQ(kernel.status().message(), c.message);
  }
}

} // namespace

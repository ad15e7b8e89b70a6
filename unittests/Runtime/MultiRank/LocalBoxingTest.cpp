//===- LocalBoxingTest.cpp - local_slice and to_partial -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RankThreads.h"

using namespace ofrt;
using namespace oftest;

namespace {

/// Creates `op`'s CPU kernel and runs it once on `input`.
absl::StatusOr<TensorData> runOnce(const OpDesc &op, TensorData input) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!kernel.ok())
    return kernel.status();
  TensorData output{op.outputs[0], {}};
  output.bytes.assign(output.desc.bytes(), 0xFF);
  absl::Status status =
      (*kernel)->compute({}, {input.view()}, {output.view()});
  if (!status.ok())
    return status;
  return output;
}

TEST(LocalBoxing, LocalSliceKeepsThisRanksPiece) {
  TensorData full = iota({4, 7});
  for (int64_t axis : {0, 1})
    for (int rank = 0; rank < 3; ++rank) {
      TensorData expected = splitPiece(full, axis, 3, rank);
      Shape begin{0, 0};
      begin[axis] = part(full.desc.shape[axis], 3, rank).first;
      OpDesc op = makeOp("oneflow.local_slice", {}, {full.desc},
                         {expected.desc}, LocalBoxingLayout{begin, true});
      absl::StatusOr<TensorData> out = runOnce(op, full);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(values(*out), values(expected)) << axis << " " << rank;
    }
}

TEST(LocalBoxing, ToPartialPutsThePieceInZeros) {
  TensorData piece = iota({2, 2}, 1, 1);
  OpDesc keep = makeOp("oneflow.to_partial", {}, {piece.desc},
                       {{DType::F32, {3, 2}}}, LocalBoxingLayout{{1, 0}, true});
  absl::StatusOr<TensorData> out = runOnce(keep, piece);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(values(*out), (std::vector<float>{0, 0, 1, 2, 3, 4}));
  OpDesc drop = makeOp("oneflow.to_partial", {}, {piece.desc}, {piece.desc},
                       LocalBoxingLayout{{0, 0}, false});
  out = runOnce(drop, piece);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(values(*out), (std::vector<float>{0, 0, 0, 0}));
}

TEST(LocalBoxing, PiecesOutsideTheTensorAreErrorsNamingTheActor) {
  TensorDesc full{DType::F32, {4, 2}}, piece{DType::F32, {2, 2}};
  OpDesc slice = makeOp("oneflow.local_slice", {}, {full}, {piece},
                        LocalBoxingLayout{{3, 0}, true});
  EXPECT_EQ(runOnce(slice, iota({4, 2})).status().message(),
            "oneflow.local_slice 'local_slice': the 2x2xf32 piece at begin "
            "[3, 0] is outside the 4x2xf32 tensor");
  OpDesc partial = makeOp("oneflow.to_partial", {}, {piece}, {full},
                          LocalBoxingLayout{{0}, true});
  EXPECT_EQ(runOnce(partial, iota({2, 2})).status().message(),
            "oneflow.to_partial 'to_partial': the box begin [0] needs one "
            "entry per axis of 2x2xf32");
  OpDesc missing = makeOp("oneflow.local_slice", {}, {full}, {piece});
  EXPECT_EQ(runOnce(missing, iota({4, 2})).status().message(),
            "oneflow.local_slice 'local_slice': needs a local boxing layout "
            "(the box this rank keeps)");
}

} // namespace

//===- CollectiveKernels.h - Kernels that talk to other ranks ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The boxing ops of docs/multi-rank-plans.md that move data between ranks:
// oneflow.all_reduce, reduce_scatter, all_gather, all_to_all (in the axis
// group named by `group`) and oneflow.transfer (send/recv records between
// placements). A session creates them with its rank's CommunicatorPool; the
// kernel joins its group when it is created, so kernels must be created in
// plan order on every rank (CommunicatorPool.h). The local boxing ops
// (local_slice, to_partial) are ordinary CPU kernels.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_COLLECTIVEKERNELS_H
#define OFRT_COLLECTIVEKERNELS_H

#include "ofrt/CommunicatorPool.h"
#include "ofrt/Kernel.h"
#include "ofrt/Program.h"

namespace ofrt {

/// Creates the kernel of a collective or transfer op. Bad attributes or
/// shapes that disagree with them are errors naming the op; so is a group
/// that cannot be joined within the pool's timeout.
absl::StatusOr<std::unique_ptr<Kernel>>
createCollectiveKernel(const OpDesc &op, CommunicatorPool &pool);

/// Creates a transfer kernel (oneflow.transfer); createCollectiveKernel
/// dispatches here.
absl::StatusOr<std::unique_ptr<Kernel>>
createTransferKernel(const OpDesc &op, CommunicatorPool &pool);

} // namespace ofrt

#endif // OFRT_COLLECTIVEKERNELS_H

//===- DataKernels.h - Sources and sinks of a session -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The kernels behind oneflow.input (a data source), oneflow.output (a sink
// that notes the last step and shows every step to an observer) and
// variables (the backend's kernel, restored from a checkpoint and shown to
// an observer). Private to the session.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_SESSION_DATAKERNELS_H
#define OFRT_LIB_RUNTIME_SESSION_DATAKERNELS_H

#include "ofrt/Session.h"

namespace ofrt::session {

/// `oneflow.input` reading `source` (which must already carry its seed).
/// `ownMemory`: nothing but this kernel writes its regst's buffers, so a
/// batch that never changes is written once per buffer.
absl::StatusOr<std::unique_ptr<Kernel>>
createInputKernel(const OpDesc &op, const InputSource &source, bool ownMemory);

/// `oneflow.output`: writes the step it read to `*lastStep`.
std::unique_ptr<Kernel> createOutputKernel(int64_t *lastStep,
                                           OutputObserver observer,
                                           int64_t rank, std::string name,
                                           bool whole);

/// The variable's kernel of `kind`, with its piece of `restore`'s value
/// when the checkpoint holds it, shown to `observer` when there is one.
absl::StatusOr<std::unique_ptr<Kernel>>
createVariableKernel(const OpDesc &op, DeviceKind kind,
                     CheckpointReader *restore, VariableObserver observer,
                     int64_t rank);

/// `kernel` (which reads and writes host memory) made to run on `device`:
/// itself where the host can touch the device's memory, else staged
/// through host copies.
std::unique_ptr<Kernel> onHost(std::unique_ptr<Kernel> kernel,
                               const Device &device);

} // namespace ofrt::session

#endif // OFRT_LIB_RUNTIME_SESSION_DATAKERNELS_H

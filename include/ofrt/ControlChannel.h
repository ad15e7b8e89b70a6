//===- ControlChannel.h - Reports between ranks, apart from data -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What ranks tell rank 0 (their output pieces, timing and variables at the
// end of a run) travels on a channel of its own, never on the data
// collectives, so that it cannot be confused with a collective or held up
// behind one. Over the job's store by default; under mpirun over a
// communicator of its own (the collective library provides it).
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_CONTROLCHANNEL_H
#define OFRT_CONTROLCHANNEL_H

#include "ofrt/Store.h"

#include "absl/status/statusor.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ofrt {

class ControlChannel {
public:
  virtual ~ControlChannel();
  /// On a rank other than 0: sends `report` (bytes) to rank 0 under `topic`
  /// (each rank sends a topic once).
  virtual absl::Status send(const std::string &topic,
                            const std::string &report) = 0;
  /// On rank 0: the report of every other rank under `topic`, indexed by
  /// rank (element 0 is empty). A rank that sends nothing within the
  /// timeout is an error naming it.
  virtual absl::StatusOr<std::vector<std::string>>
  gather(const std::string &topic) = 0;
};

/// A channel through `store`: rank r's report is the key
/// "control/<topic>/<r>".
std::unique_ptr<ControlChannel>
createStoreControlChannel(std::shared_ptr<Store> store, int rank,
                          int worldSize, std::chrono::milliseconds timeout);

} // namespace ofrt

#endif // OFRT_CONTROLCHANNEL_H

//===- GlooInternal.h - Gloo types behind the opaque handles ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What a Rendezvous and a Transport hold (GlooCommunicator.h keeps Gloo out
// of the public headers). Private to lib/Runtime/Collective.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_COLLECTIVE_GLOOINTERNAL_H
#define ONEFLOW_LIB_RUNTIME_COLLECTIVE_GLOOINTERNAL_H

#include "OneFlowDialect/Runtime/GlooCommunicator.h"

#include <gloo/rendezvous/store.h>
#include <gloo/transport/device.h>

namespace ofrt {
namespace gloo_internal {

class TcpTransport : public Transport {
public:
  explicit TcpTransport(std::shared_ptr<gloo::transport::Device> device)
      : device(std::move(device)) {}
  std::shared_ptr<gloo::transport::Device> device;
};

class GlooRendezvous : public Rendezvous {
public:
  explicit GlooRendezvous(std::shared_ptr<gloo::rendezvous::Store> store,
                          std::shared_ptr<Rendezvous> parent = nullptr)
      : store(std::move(store)), parent(std::move(parent)) {}
  std::shared_ptr<gloo::rendezvous::Store> store;
  /// What `store` refers to (a PrefixStore keeps a reference only).
  std::shared_ptr<Rendezvous> parent;
};

} // namespace gloo_internal
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_COLLECTIVE_GLOOINTERNAL_H

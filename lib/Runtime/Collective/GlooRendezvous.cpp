//===- GlooRendezvous.cpp - Where Gloo ranks meet, how they connect -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Stores (in-process hash, shared directory, Redis, and prefixes of these)
// and TCP transports for the Gloo communicators.
//
//===----------------------------------------------------------------------===//

#include "GlooInternal.h"

#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/redis_store.h>
#include <gloo/transport/tcp/device.h>

#include <netdb.h>

using namespace ofrt;
using namespace ofrt::gloo_internal;

Rendezvous::~Rendezvous() = default;
Transport::~Transport() = default;

std::shared_ptr<Rendezvous> ofrt::createInProcessRendezvous() {
  return std::make_shared<GlooRendezvous>(
      std::make_shared<gloo::rendezvous::HashStore>());
}

std::shared_ptr<Rendezvous>
ofrt::createFileRendezvous(const std::string &directory) {
  return std::make_shared<GlooRendezvous>(
      std::make_shared<gloo::rendezvous::FileStore>(directory));
}

absl::StatusOr<std::shared_ptr<Rendezvous>>
ofrt::createRedisRendezvous(const std::string &host, int port) {
  try {
    return std::shared_ptr<Rendezvous>(std::make_shared<GlooRendezvous>(
        std::make_shared<gloo::rendezvous::RedisStore>(host, port)));
  } catch (const std::exception &error) {
    return absl::UnavailableError("cannot reach the Redis server at " + host +
                                  ":" + std::to_string(port) +
                                  " (gloo: " + error.what() + ")");
  }
}

std::shared_ptr<Rendezvous>
ofrt::createPrefixRendezvous(std::shared_ptr<Rendezvous> parent,
                             const std::string &prefix) {
  auto *meeting = dynamic_cast<GlooRendezvous *>(parent.get());
  if (!meeting)
    return nullptr;
  return std::make_shared<GlooRendezvous>(
      std::make_shared<gloo::rendezvous::PrefixStore>(prefix, *meeting->store),
      std::move(parent));
}

absl::StatusOr<std::shared_ptr<Transport>>
ofrt::createTcpTransport(const std::string &hostname) {
  // This Gloo dereferences a null address for a name that does not
  // resolve, so resolve it first.
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int error = getaddrinfo(hostname.c_str(), nullptr, &hints, &found)) {
    return absl::InvalidArgumentError("cannot listen on '" + hostname +
                                      "': " + gai_strerror(error));
  }
  freeaddrinfo(found);
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = hostname;
    return std::shared_ptr<Transport>(std::make_shared<TcpTransport>(
        gloo::transport::tcp::CreateDevice(attr)));
  } catch (const std::exception &error) {
    return absl::UnavailableError("cannot listen on '" + hostname +
                                  "' (gloo: " + error.what() + ")");
  }
}

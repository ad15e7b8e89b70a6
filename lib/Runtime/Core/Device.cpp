//===- Device.cpp - Devices, their memory, streams and events -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Device.h"

#include <sched.h>

#include <thread>

using namespace ofrt;

CompletionSink::~CompletionSink() = default;
Event::~Event() = default;
Stream::~Stream() = default;
Device::~Device() = default;
ThreadBinding::~ThreadBinding() = default;

std::string Device::name() const {
  return std::string(deviceKindName(kind())) + ":" + std::to_string(ordinal());
}

const char *ofrt::deviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Cpu:
    return "cpu";
  case DeviceKind::Cuda:
    return "cuda";
  }
  return "unknown";
}

std::vector<int> ofrt::allowedCores() {
  std::vector<int> cores;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int core = 0; core < CPU_SETSIZE; ++core)
      if (CPU_ISSET(core, &set))
        cores.push_back(core);
  if (cores.empty())
    for (unsigned core = 0; core < std::thread::hardware_concurrency(); ++core)
      cores.push_back(core);
  return cores;
}

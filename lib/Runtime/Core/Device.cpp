//===- Device.cpp - Devices, their memory, streams and events -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Device.h"

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

//===- StepGate.cpp - Where sources stop early ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Engine.h"

#include <algorithm>

using namespace ofrt;

StepGate::Verdict StepGate::admit(int64_t step) {
  std::lock_guard<std::mutex> lock(mutex);
  if (step >= limit)
    return Verdict::End;
  if (held && step >= begun)
    return Verdict::Wait;
  begun = std::max(begun, step + 1);
  return Verdict::Go;
}

int64_t StepGate::hold() {
  std::lock_guard<std::mutex> lock(mutex);
  held = true;
  return begun;
}

void StepGate::release(int64_t newLimit) {
  // Wakers run under the lock, so that no engine unsubscribes (and goes)
  // while its waker runs; they only push messages.
  std::lock_guard<std::mutex> lock(mutex);
  held = false;
  limit = std::min(limit, newLimit);
  for (const auto &[id, waker] : wakers)
    waker();
}

bool StepGate::holding() const {
  std::lock_guard<std::mutex> lock(mutex);
  return held;
}

int64_t StepGate::frontier() const {
  std::lock_guard<std::mutex> lock(mutex);
  return begun;
}

int64_t StepGate::subscribe(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mutex);
  wakers[nextId] = std::move(wake);
  return nextId++;
}

void StepGate::unsubscribe(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  wakers.erase(id);
}

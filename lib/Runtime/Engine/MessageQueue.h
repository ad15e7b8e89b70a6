//===- MessageQueue.h - In-process queue of actor messages ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_ENGINE_MESSAGEQUEUE_H
#define ONEFLOW_LIB_RUNTIME_ENGINE_MESSAGEQUEUE_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace ofrt::engine {

/// What actors tell each other (OneFlow's regst and EORD messages).
struct Message {
  enum class Kind {
    Ready,         ///< The producer wrote `step` of an input regst.
    Returned,      ///< A consumer is done reading `step` of an output regst.
    Eord,          ///< The producer of an input regst will write no more.
    ConsumerEnded, ///< A consumer of an output regst will read no more.
    Completed,     ///< The work of the actor's firing `step` has finished.
    Stop,          ///< Another actor failed: stop now.
    Wake,          ///< Look at the sources again (a step gate opened).
  };
  Kind kind = Kind::Stop;
  int64_t actor = 0; ///< Index of the receiving actor.
  int64_t slot = 0;  ///< Its input slot (Ready, Eord) or output consumer slot.
  int64_t step = 0;
};

/// A blocking multi-producer queue, one per stream thread.
class MessageQueue {
public:
  void push(const Message &message) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(message);
    }
    ready.notify_one();
  }

  /// Waits for a message.
  Message pop() {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return !messages.empty(); });
    Message message = messages.front();
    messages.pop_front();
    return message;
  }

  /// Whether no message is queued (the engine's stall check).
  bool empty() {
    std::lock_guard<std::mutex> lock(mutex);
    return messages.empty();
  }

  /// Takes a message if one is queued.
  bool tryPop(Message &message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (messages.empty())
      return false;
    message = messages.front();
    messages.pop_front();
    return true;
  }

private:
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Message> messages;
};

} // namespace ofrt::engine

#endif // ONEFLOW_LIB_RUNTIME_ENGINE_MESSAGEQUEUE_H

//===- Kernel.h - Kernels and their registry --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A kernel computes one op of the plan on one device. It is created once
// per actor, for the static shapes the plan gives, so that library
// primitives (oneDNN, cuBLAS, cuDNN) are set up before the first step; it
// then runs each time its actor fires, on the stream its context names: a
// CPU kernel does its work before compute() returns, a GPU kernel enqueues
// it on the stream (Device.h). Each backend registers its kernels.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_KERNEL_H
#define OFRT_KERNEL_H

#include "ofrt/ActorLayout.h"
#include "ofrt/Device.h"
#include "ofrt/Tensor.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ofrt {

/// An op attribute, with the names and meanings of the `oneflow` dialect's
/// attributes (unit attributes are bools). Tensors carry constant values.
using AttrValue = std::variant<int64_t, double, bool, std::string,
                               std::vector<int64_t>, std::vector<double>,
                               TensorData, std::vector<std::string>>;

/// What the runtime makes of an op (the plan's `role`): a kernel of the
/// registry, found by the op's name (the open set: plugins register kernels
/// by name), or one of the runtime's own actors, never found by name.
enum class OpRole {
  Kernel,
  Input,    ///< Reads a fed or generated input (a piece layout).
  Output,   ///< Hands a result to the caller (a sink layout).
  Variable, ///< Trained state: initialized, restored, checkpointed.
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  Transfer,  ///< Sends and receives boxes between ranks.
  Optimizer, ///< A kernel updating variables with a learning rate.
};

/// Whether `role` talks to other ranks (a collective or a transfer): its
/// kernel needs a communicator, and ranks must issue it in one order.
bool isCollective(OpRole role);

/// Whether `role` is a source or sink of the step's data (input, output,
/// variable): found by name (feeds, fetches, checkpoints), no computation.
bool isDataEndpoint(OpRole role);

/// The role an actor of op `type` has (what the compiler's plan export
/// gives it, lib/Target/PlanExport.cpp): the runtime's own actors by their
/// ops' names, the optimizer updates, and Kernel for every other op
/// (plugins' ops too). Plans are checked against it when they load.
OpRole roleOfOp(const std::string &type);

/// What a kernel is created for: the op's name in the dialect (for example
/// "oneflow.matmul"), its role, its attributes, its place among the ranks,
/// and the static descriptions of its operands and results.
struct OpDesc {
  std::string type;
  OpRole role = OpRole::Kernel;
  std::map<std::string, AttrValue> attrs;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  /// Where the actor sits in a multi-rank program (ActorLayout.h).
  ActorLayout layout;
  /// For messages: the actor's name and the op's source location.
  std::string name;
  std::string location;

  bool has(const std::string &attr) const { return attrs.count(attr) != 0; }
  /// The layout as T, or null when it is another (or none).
  template <typename T> const T *layoutAs() const {
    return std::get_if<T>(&layout);
  }
  /// The attribute `attr` as T, or `fallback` if absent. A present
  /// attribute of another type is a programming error in the plan producer
  /// and returns `fallback` as well; kernels validate what they read.
  template <typename T> T get(const std::string &attr, T fallback) const {
    auto it = attrs.find(attr);
    if (it == attrs.end())
      return fallback;
    if (const T *value = std::get_if<T>(&it->second))
      return *value;
    return fallback;
  }
  /// "oneflow.matmul 'fc1' at model.mlir:3:8", for error messages.
  std::string where() const;
};

/// What a kernel sees each time it runs.
struct KernelContext {
  /// The step (iteration) being computed, from 0; random ops draw from it.
  int64_t step = 0;
  /// The stream the kernel's work goes on, and its device (null in tests
  /// that call CPU kernels directly).
  Stream *stream = nullptr;
  Device *device = nullptr;
  /// With micro-batches: which micro-batch of the step this firing
  /// computes, and how many the step has.
  int64_t micro = 0;
  int64_t microBatches = 1;
};

class Kernel {
public:
  virtual ~Kernel();
  /// Computes the outputs from the inputs. The views have exactly the
  /// descriptions the kernel was created with. Returns an error (naming
  /// the op) instead of crashing on bad data, such as an out-of-range
  /// index.
  virtual absl::Status compute(const KernelContext &context,
                               const std::vector<TensorView> &inputs,
                               const std::vector<TensorView> &outputs) = 0;
  /// Whether compute() itself reads and writes the buffers on the host,
  /// instead of enqueueing that work on its stream (what every kernel of
  /// an asynchronous device does, the staged ones through stream-ordered
  /// copies). On an asynchronous device the engine then waits on the host
  /// for its producers' work to finish before it fires, and for its
  /// consumers' before it fires again. Irrelevant on the CPU.
  virtual bool runsOnHost() const { return false; }
};

using KernelFactory =
    std::function<absl::StatusOr<std::unique_ptr<Kernel>>(const OpDesc &)>;

/// Kernels by device kind and op type.
class KernelRegistry {
public:
  /// The registry with every kernel built into this runtime.
  static const KernelRegistry &global();

  void add(DeviceKind device, const std::string &opType,
           KernelFactory factory);
  /// Creates the kernel for `op` on `device`; an op without a kernel is an
  /// error that names the op.
  absl::StatusOr<std::unique_ptr<Kernel>> create(DeviceKind device,
                                                 const OpDesc &op) const;
  bool contains(DeviceKind device, const std::string &opType) const;
  std::vector<std::string> opTypes(DeviceKind device) const;

private:
  std::map<std::pair<DeviceKind, std::string>, KernelFactory> factories;
};

/// Runs `inner`, a kernel that reads and writes host memory, on a device
/// whose memory the host cannot touch: before each firing the operands, and
/// with `readsResults` the results too (a kernel may read its result, as
/// accumulate does), are copied to host buffers on the actor's stream;
/// after it the results are copied back. The stream is synchronized around
/// the host work. A kernel that writes its operands in place (the
/// optimizer updates) must not be staged: its operands are not copied back.
std::unique_ptr<Kernel> stageOnHost(std::unique_ptr<Kernel> inner,
                                    bool readsResults = true);

/// Whether `kernel` came from stageOnHost (its op runs on host copies).
bool isStaged(const Kernel &kernel);

} // namespace ofrt

#endif // OFRT_KERNEL_H

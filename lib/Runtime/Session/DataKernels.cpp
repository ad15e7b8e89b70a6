//===- DataKernels.cpp - Sources and sinks of a session -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The kernels a session puts behind oneflow.input, oneflow.output and
// observed variables. They produce and read host data; on a device whose
// memory the host cannot touch they go through pinned staging memory and
// the device's copies, on the actor's stream.
//
//===----------------------------------------------------------------------===//

#include "DataKernels.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Checkpoint.h"
#include "ofrt/Npy.h"
#include "ofrt/Pieces.h"
#include "ofrt/Random.h"
#include "ofrt/Status.h"

#include "absl/strings/match.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

using namespace ofrt;

/// Stores `value` as element `index` of a tensor of `dtype` (integer types
/// truncate; half types are not data-source types).
static void storeElement(DType dtype, void *data, int64_t index, double value) {
  switch (dtype) {
  case DType::F32:
    static_cast<float *>(data)[index] = static_cast<float>(value);
    return;
  case DType::F64:
    static_cast<double *>(data)[index] = value;
    return;
  case DType::I8:
    static_cast<int8_t *>(data)[index] = static_cast<int8_t>(value);
    return;
  case DType::U8:
    static_cast<uint8_t *>(data)[index] = static_cast<uint8_t>(value);
    return;
  case DType::I32:
    static_cast<int32_t *>(data)[index] = static_cast<int32_t>(value);
    return;
  case DType::I64:
    static_cast<int64_t *>(data)[index] = static_cast<int64_t>(value);
    return;
  case DType::Bool:
    static_cast<uint8_t *>(data)[index] = value != 0;
    return;
  case DType::I16:
    static_cast<int16_t *>(data)[index] = static_cast<int16_t>(value);
    return;
  case DType::U16:
    static_cast<uint16_t *>(data)[index] = static_cast<uint16_t>(value);
    return;
  case DType::U32:
    static_cast<uint32_t *>(data)[index] = static_cast<uint32_t>(value);
    return;
  case DType::U64:
    static_cast<uint64_t *>(data)[index] = static_cast<uint64_t>(value);
    return;
  case DType::F16:
  case DType::BF16:
    return;
  }
}

namespace {

/// `value` (in device memory) as host memory: itself, or a copy in `copy`.
absl::StatusOr<TensorView> hostView(const KernelContext &context,
                                    const TensorView &value,
                                    std::vector<uint8_t> &copy) {
  if (!context.device || context.device->hostAccessible())
    return value;
  copy.resize(value.desc.bytes());
  OFRT_RETURN_IF_ERROR(context.device->copyToHost(*context.stream, copy.data(),
                                                  value.data, copy.size()));
  OFRT_RETURN_IF_ERROR(context.stream->synchronize());
  return TensorView{copy.data(), value.desc};
}

using namespace ofrt::session;

/// `oneflow.input`: one batch per step from its source; on several ranks,
/// this rank's piece of the logical batch.
class InputKernel : public Kernel {
public:
  /// `ownMemory`: nothing but this kernel writes the buffers of its regst
  /// (no other regst shares their memory; no op writes its operands), so a
  /// buffer that holds the same batch every step is written once.
  InputKernel(InputSource source, TensorDesc desc, PieceLayout layout,
              std::string name, bool ownMemory)
      : source(std::move(source)), desc(std::move(desc)),
        layout(std::move(layout)), name(std::move(name)),
        logical{this->desc.dtype, this->layout.logicalShape},
        ownMemory(ownMemory) {}

  absl::Status open() {
    if (source.kind == InputSource::Kind::Fill || layout.zero) {
      // The same batch every step: build it once.
      filled.resize(desc.bytes());
      for (int64_t i = 0; !layout.zero && i < desc.numel(); ++i)
        storeElement(desc.dtype, filled.data(), i, source.value);
    }
    if (source.kind == InputSource::Kind::Array) {
      if (!source.array)
        return absl::InvalidArgumentError("input '" + name +
                                          "' is fed an array that is null");
      OFRT_RETURN_IF_ERROR(countBatches(source.array->desc, sourceName(),
                                        source.array->bytes.size()));
      if (!layout.whole(desc.shape))
        batch.resize(logical.bytes());
      return absl::OkStatus();
    }
    if (source.kind != InputSource::Kind::File)
      return absl::OkStatus();
    file.open(source.path, std::ios::binary);
    if (!file)
      return absl::NotFoundError("cannot open data file '" + source.path +
                                 "' for input '" + name +
                                 "': " + std::strerror(errno));
    file.seekg(0, std::ios::end);
    int64_t size = file.tellg();
    file.seekg(0);
    if (absl::EndsWith(source.path, ".npy")) {
      // Batches are runs of rows of the array; rows left over after the
      // last whole batch are not used. A scalar input reads a 0-d array,
      // one batch.
      absl::StatusOr<NpyHeader> header = readNpyHeader(file, source.path);
      if (!header.ok())
        return header.status();
      dataOffset = header->dataOffset;
      OFRT_RETURN_IF_ERROR(
          countBatches(header->desc, sourceName(), size - dataOffset));
    } else {
      if (size == 0 || size % logical.bytes() != 0)
        return absl::InvalidArgumentError(
            "data file '" + source.path + "' for input '" + name + "' holds " +
            std::to_string(size) + " bytes, not a whole number of " +
            logical.str() + " batches (" + std::to_string(logical.bytes()) +
            " bytes each)");
      batches = size / logical.bytes();
    }
    if (!layout.whole(desc.shape))
      batch.resize(logical.bytes());
    return absl::OkStatus();
  }

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &,
                       const std::vector<TensorView> &outputs) override {
    const TensorView &out = outputs[0];
    if (source.kind == InputSource::Kind::File ||
        source.kind == InputSource::Kind::Array) {
      // Every rank reads each logical batch, so all end together.
      char *target = batch.empty() ? static_cast<char *>(out.data)
                                   : reinterpret_cast<char *>(batch.data());
      // Batch number = step, so that a resumed run reads on where the
      // checkpointed one stopped; with `loop`, epoch after epoch. Later
      // micro-batches of a step take their piece of the batch read first.
      int64_t batchIndex = context.step;
      if (context.micro > 0 && !batch.empty() && !layout.zero) {
        copyBox({batch.data(), logical}, layout.beginAt(context.micro), out,
                std::vector<int64_t>(desc.shape.size(), 0), desc.shape);
        return absl::OkStatus();
      }
      if (batchIndex >= batches) {
        if (!source.loop)
          return absl::OutOfRangeError("end of data");
        batchIndex %= batches;
      }
      OFRT_RETURN_IF_ERROR(readBatch(target, batchIndex));
      if (source.refuseNonfinite)
        OFRT_RETURN_IF_ERROR(checkFinite(target, context.step, batchIndex));
      if (layout.zero)
        std::memset(out.data, 0, desc.bytes());
      else if (!batch.empty())
        copyBox({batch.data(), logical}, layout.beginAt(context.micro), out,
                std::vector<int64_t>(desc.shape.size(), 0), desc.shape);
      return absl::OkStatus();
    }
    if (!filled.empty() || desc.numel() == 0) {
      // The same batch every step: each buffer of the regst is written at
      // its first use only, unless other regsts share its memory.
      if (ownMemory &&
          std::find(written.begin(), written.end(), out.data) != written.end())
        return absl::OkStatus();
      std::memcpy(out.data, filled.data(), filled.size());
      if (ownMemory)
        written.push_back(out.data);
      return absl::OkStatus();
    }
    forEachLogicalIndex(
        desc.shape, layout.beginAt(context.micro), layout.logicalShape,
        [&](int64_t local, int64_t index) {
          double u = randomUniform(source.seed, context.step, index);
          double v = source.low + u * (source.high - source.low);
          storeElement(desc.dtype, out.data, local,
                       isFloat(desc.dtype) ? v : std::floor(v));
        });
    return absl::OkStatus();
  }

private:
  /// Checks that `array` (named `what`, `bytes` long) holds whole batches
  /// of the logical input, rows after rows (a scalar input: a 0-d array,
  /// one batch), and counts them.
  absl::Status countBatches(const TensorDesc &array, const std::string &what,
                            int64_t bytes) {
    std::vector<int64_t> rowShape(logical.shape.begin() +
                                      std::min<size_t>(1, logical.rank()),
                                  logical.shape.end());
    bool scalar = logical.rank() == 0;
    if (array.dtype != logical.dtype || array.rank() != logical.rank() ||
        (!scalar &&
         (std::vector<int64_t>(array.shape.begin() + 1, array.shape.end()) !=
              rowShape ||
          array.shape[0] < logical.shape[0])) ||
        bytes < static_cast<int64_t>(array.bytes()))
      return absl::InvalidArgumentError(
          what + " for input '" + name + "' holds " + array.str() +
          ", which has no whole " + logical.str() + " batch (or is cut short)");
    // A scalar or empty batch is the whole (0-d or empty) array.
    batches =
        scalar || logical.shape[0] == 0 ? 1 : array.shape[0] / logical.shape[0];
    return absl::OkStatus();
  }

  /// "data file 'PATH'", or the array's name (`path`, "the array" when
  /// empty), for messages.
  std::string sourceName() const {
    if (source.kind != InputSource::Kind::Array)
      return "data file '" + source.path + "'";
    return source.path.empty() ? "the array" : source.path;
  }

  /// Batch `index` of the file or array into `target` (the logical batch).
  absl::Status readBatch(char *target, int64_t index) {
    if (source.kind == InputSource::Kind::Array) {
      std::memcpy(target, source.array->bytes.data() + index * logical.bytes(),
                  logical.bytes());
      return absl::OkStatus();
    }
    file.seekg(dataOffset + index * logical.bytes());
    if (!file.read(target, logical.bytes()))
      return absl::DataLossError("data file '" + source.path +
                                 "' for input '" + name +
                                 "' could not be read");
    return absl::OkStatus();
  }

  /// Refuses a batch of floats (at `data`, the logical batch) that holds
  /// a NaN or an infinity.
  absl::Status checkFinite(const void *data, int64_t step,
                           int64_t batchIndex) const {
    if (!isFloat(logical.dtype))
      return absl::OkStatus();
    int64_t n = logical.numel();
    // Every step reads a batch: f32 (the usual input) is scanned with an
    // integer test of the exponent bits, which vectorizes; the element is
    // looked for only in a batch that has one.
    if (logical.dtype == DType::F32) {
      const uint32_t *bits = static_cast<const uint32_t *>(data);
      uint32_t found = 0;
      for (int64_t i = 0; i < n; ++i)
        found |= (bits[i] & 0x7f800000u) == 0x7f800000u;
      if (!found)
        return absl::OkStatus();
    }
    for (int64_t i = 0; i < n; ++i) {
      double v = loadElement(logical.dtype, data, i);
      if (std::isfinite(v))
        continue;
      // Rows of the file: the batch's leading axis.
      int64_t rows = logical.shape.empty() ? 1 : logical.shape[0];
      int64_t row = batchIndex * rows + i / (n / rows);
      return absl::DataLossError(
          "input '" + name + "' at step " + std::to_string(step) + " holds " +
          (std::isnan(v) ? "a NaN" : "an infinity") + " (batch " +
          std::to_string(batchIndex) + " of " + sourceName() + ", row " +
          std::to_string(row) + ", element " +
          std::to_string(i) + " of the batch); --on-nonfinite skip or warn "
          "trains on");
    }
    return absl::OkStatus();
  }

  InputSource source;
  TensorDesc desc;
  PieceLayout layout;
  std::string name;
  TensorDesc logical;
  std::ifstream file;
  int64_t dataOffset = 0, batches = 0;
  std::vector<uint8_t> filled;
  std::vector<uint8_t> batch; ///< One logical batch, when this is a piece.
  bool ownMemory;
  std::vector<void *> written; ///< Buffers that hold the filled batch.
};

/// `oneflow.output`: notes the last step it read; the session copies that
/// step's value out of the regst after the run (regsts read by outputs keep
/// their own memory), so outputs cost nothing per step unless observed.
class OutputKernel : public Kernel {
public:
  OutputKernel(int64_t *lastStep, OutputObserver observer, int64_t rank,
               std::string name, bool whole)
      : lastStep(lastStep), observer(std::move(observer)), rank(rank),
        name(std::move(name)), whole(whole) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &) override {
    *lastStep = context.step;
    if (!observer)
      return absl::OkStatus();
    absl::StatusOr<TensorView> value = hostView(context, inputs[0], copy);
    if (!value.ok())
      return value.status();
    observer(rank, name, context.step, *value, whole);
    return absl::OkStatus();
  }

private:
  int64_t *lastStep; ///< Written by the output's stream thread only.
  OutputObserver observer;
  int64_t rank;
  std::string name;
  bool whole; ///< The value is the logical tensor, not a piece of it.
  std::vector<uint8_t> copy;
};

/// A variable's kernel, showing its value to an observer each time it
/// fires after the first step of the run: every consumer has returned the
/// previous step (its regst has one buffer), so the value is the one after
/// that many steps, and no op has read it for this step yet.
class ObservedVariableKernel : public Kernel {
public:
  ObservedVariableKernel(std::unique_ptr<Kernel> inner,
                         VariableObserver observer, int64_t rank,
                         std::string name)
      : inner(std::move(inner)), observer(std::move(observer)), rank(rank),
        name(std::move(name)) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    OFRT_RETURN_IF_ERROR(inner->compute(context, inputs, outputs));
    if (!first) {
      absl::StatusOr<TensorView> value = hostView(context, outputs[0], copy);
      if (!value.ok())
        return value.status();
      observer(rank, name, context.step, *value);
    }
    first = false;
    return absl::OkStatus();
  }

private:
  std::unique_ptr<Kernel> inner;
  VariableObserver observer;
  int64_t rank;
  std::string name;
  bool first = true;
  std::vector<uint8_t> copy;
};

} // namespace

std::unique_ptr<Kernel> session::onHost(std::unique_ptr<Kernel> kernel,
                                        const Device &device) {
  if (device.hostAccessible())
    return kernel;
  // Data kernels write their results whole, without reading them.
  return stageOnHost(std::move(kernel), /*readsResults=*/false);
}

absl::StatusOr<std::unique_ptr<Kernel>>
session::createInputKernel(const OpDesc &op, const InputSource &source,
                           bool ownMemory) {
  std::string name = ofrt::userName(op);
  absl::StatusOr<PieceLayout> layout = readPieceLayout(op, op.outputs[0].shape);
  if (!layout.ok())
    return layout.status();
  auto kernel = std::make_unique<InputKernel>(source, op.outputs[0],
                                              std::move(*layout), name,
                                              ownMemory);
  OFRT_RETURN_IF_ERROR(kernel->open());
  return std::unique_ptr<Kernel>(std::move(kernel));
}

std::unique_ptr<Kernel> session::createOutputKernel(int64_t *lastStep,
                                                    OutputObserver observer,
                                                    int64_t rank,
                                                    std::string name,
                                                    bool whole) {
  return std::make_unique<OutputKernel>(lastStep, std::move(observer), rank,
                                        std::move(name), whole);
}

absl::StatusOr<std::unique_ptr<Kernel>>
session::createVariableKernel(const OpDesc &op, DeviceKind kind,
                              CheckpointReader *restore,
                              VariableObserver observer, int64_t rank) {
  std::string name = ofrt::userName(op);
  auto observed = [&](absl::StatusOr<std::unique_ptr<Kernel>> kernel)
      -> absl::StatusOr<std::unique_ptr<Kernel>> {
    if (!kernel.ok() || !observer)
      return kernel;
    return std::unique_ptr<Kernel>(std::make_unique<ObservedVariableKernel>(
        std::move(*kernel), observer, rank, name));
  };
  const KernelRegistry &registry = KernelRegistry::global();
  if (!restore || !restore->tensors().count(name) || op.outputs.size() != 1)
    return observed(registry.create(kind, op));
  absl::StatusOr<PieceLayout> layout = readPieceLayout(op, op.outputs[0].shape);
  if (!layout.ok())
    return layout.status();
  if (layout->zero) // This rank holds zeros, whatever the value.
    return observed(registry.create(kind, op));
  absl::StatusOr<TensorData> piece =
      restore->readBox(name, layout->begin, op.outputs[0].shape);
  if (!piece.ok())
    return piece.status();
  OpDesc loaded = op;
  loaded.attrs.erase("init");
  loaded.attrs.erase("init_args");
  loaded.attrs["value"] = std::move(*piece);
  return observed(registry.create(kind, loaded));
}

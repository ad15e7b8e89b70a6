//===- Sources.cpp - constant, fill, variable -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each computes its value once, when it is created, and copies it to the
// result every step; a variable only into each of its regst's buffers the
// first time it sees it (its buffers are its own, and will hold its state as
// training updates it). A variable's generated value is a function of the
// logical element index only (Random.h), so every layout of it agrees: on
// several ranks a variable with a piece layout holds its piece of the
// logical value (a `value` of the logical type is sliced), and one whose
// piece is `zero` holds zeros (a partial axis).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Pieces.h"
#include "ofrt/Random.h"

#include <algorithm>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

class ValueKernel : public CpuKernel {
public:
  ValueKernel(const OpDesc &op, std::vector<uint8_t> bytes,
              bool writeOnce = false)
      : CpuKernel(op), bytes(std::move(bytes)), writeOnce(writeOnce) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &out) override {
    if (writeOnce) {
      if (std::find(written.begin(), written.end(), out[0].data) !=
          written.end())
        return absl::OkStatus();
      written.push_back(out[0].data);
    }
    if (!bytes.empty())
      std::memcpy(out[0].data, bytes.data(), bytes.size());
    return absl::OkStatus();
  }

private:
  std::vector<uint8_t> bytes;
  bool writeOnce;
  std::vector<void *> written; ///< Buffers already holding the value.
};

/// The bytes of `value` as the op's result: the same type and shape, or a
/// single element repeated (a splat).
absl::StatusOr<std::vector<uint8_t>> valueBytes(const OpDesc &op,
                                                const TensorData &value) {
  const TensorDesc &result = op.outputs[0];
  if (value.bytes.size() != value.desc.bytes())
    return opError(op, "value of type " + value.desc.str() + " has " +
                           std::to_string(value.bytes.size()) +
                           " bytes instead of " +
                           std::to_string(value.desc.bytes()));
  if (value.desc.dtype != result.dtype ||
      (value.desc.shape != result.shape && value.desc.numel() != 1))
    return opError(op, "value of type " + value.desc.str() +
                           " does not match the result " + result.str());
  if (value.desc.shape == result.shape)
    return value.bytes;
  std::vector<uint8_t> bytes(result.bytes());
  size_t size = dtypeSize(result.dtype);
  for (size_t i = 0; i < bytes.size(); i += size)
    std::memcpy(bytes.data() + i, value.bytes.data(), size);
  return bytes;
}

KernelOr createConstant(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 0, 1));
  TensorData value;
  OFRT_RETURN_IF_ERROR(readAttr(op, "value", value));
  absl::StatusOr<std::vector<uint8_t>> bytes = valueBytes(op, value);
  if (!bytes.ok())
    return bytes.status();
  return std::make_unique<ValueKernel>(op, std::move(*bytes));
}

KernelOr createFill(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 0, 1));
  OFRT_READ_PARAMS(declared, params::FillOp, op);
  double value = declared.value;
  const TensorDesc &result = op.outputs[0];
  std::vector<uint8_t> bytes(result.bytes());
  absl::Status status = storeValues(std::vector<double>(result.numel(), value),
                                    result.dtype, bytes.data());
  if (!status.ok())
    return opError(op, std::string(status.message()));
  return std::make_unique<ValueKernel>(op, std::move(bytes));
}

KernelOr createVariable(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 0, 1));
  const TensorDesc &result = op.outputs[0];
  OFRT_READ_PARAMS(declared, params::VariableOp, op);
  // Its value (a tensor) or initializer are not fields: read from the
  // OpDesc.
  if (op.has("value") == op.has("init"))
    return opError(op, "needs exactly one of 'init' and 'value'");
  absl::StatusOr<PieceLayout> layout = readPieceLayout(op, result.shape);
  if (!layout.ok())
    return layout.status();
  TensorDesc logical{result.dtype, layout->logicalShape};
  std::vector<uint8_t> bytes(result.bytes());
  if (layout->zero)
    return std::make_unique<ValueKernel>(op, std::move(bytes),
                                         /*writeOnce=*/true);
  if (op.has("value")) {
    TensorData value;
    OFRT_RETURN_IF_ERROR(readAttr(op, "value", value));
    if (layout->whole(result.shape) || value.desc != logical) {
      absl::StatusOr<std::vector<uint8_t>> whole = valueBytes(op, value);
      if (!whole.ok())
        return whole.status();
      bytes = std::move(*whole);
    } else {
      copyBox(value.view(), layout->begin, {bytes.data(), result},
              std::vector<int64_t>(result.rank(), 0), result.shape);
    }
    return std::make_unique<ValueKernel>(op, std::move(bytes),
                                         /*writeOnce=*/true);
  }
  Initializer init;
  int64_t seed = declared.seed;
  OFRT_RETURN_IF_ERROR(readAttr(op, "init", init.kind));
  OFRT_RETURN_IF_ERROR(
      readAttr(op, "init_args", init.args, {std::vector<double>()}));
  absl::Status status =
      checkInitializer(init, logical.shape, isFloat(result.dtype));
  if (!status.ok())
    return opError(op, std::string(status.message()));
  std::vector<double> values(result.numel());
  forEachLogicalIndex(result.shape, layout->begin, logical.shape,
                      [&](int64_t local, int64_t index) {
                        values[local] = initialValue(
                            init, logical.shape, static_cast<uint64_t>(seed),
                            static_cast<uint64_t>(index));
                      });
  status = storeValues(values, result.dtype, bytes.data());
  if (!status.ok())
    return opError(op, std::string(status.message()));
  return std::make_unique<ValueKernel>(op, std::move(bytes),
                                       /*writeOnce=*/true);
}

} // namespace

void cpu::registerSourceKernels(KernelRegistry &registry) {
  addKernel(registry, params::ConstantOp::kOpName, createConstant);
  addKernel(registry, params::FillOp::kOpName, createFill);
  addKernel(registry, params::VariableOp::kOpName, createVariable);
}

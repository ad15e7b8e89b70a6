//===- KernelChecks.cpp - What kernels check when they are created --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelChecks.h"

using namespace ofrt;

std::string ofrt::shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

absl::Status ofrt::opError(const std::string &where,
                          const std::string &message) {
  return absl::InvalidArgumentError(where + ": " + message);
}

absl::Status ofrt::opError(const OpDesc &op, const std::string &message) {
  return opError(op.where(), message);
}

absl::Status ofrt::checkArity(const OpDesc &op, size_t minInputs,
                             size_t maxInputs, size_t outputs) {
  size_t n = op.inputs.size();
  if (n < minInputs || n > maxInputs) {
    std::string want =
        minInputs == maxInputs
            ? std::to_string(minInputs)
            : std::to_string(minInputs) + " to " + std::to_string(maxInputs);
    return opError(op, "needs " + want + " operands, got " + std::to_string(n));
  }
  if (op.outputs.size() != outputs)
    return opError(op, "needs " + std::to_string(outputs) + " results, got " +
                           std::to_string(op.outputs.size()));
  for (const auto *list : {&op.inputs, &op.outputs})
    for (const TensorDesc &desc : *list)
      for (int64_t d : desc.shape)
        if (d < 0)
          return opError(op, "has a tensor of negative size " + desc.str());
  return absl::OkStatus();
}

absl::Status ofrt::checkArity(const OpDesc &op, size_t inputs, size_t outputs) {
  return checkArity(op, inputs, inputs, outputs);
}

absl::Status ofrt::checkResult(const OpDesc &op, size_t index,
                              const TensorDesc &expected) {
  const TensorDesc &have = op.outputs[index];
  if (have != expected)
    return opError(op, "result " + std::to_string(index) + " is " + have.str() +
                           " but the op gives " + expected.str());
  return absl::OkStatus();
}

const char *ofrt::attrTypeName(const AttrValue &value) {
  switch (value.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a float";
  case 2:
    return "a unit (bool)";
  case 3:
    return "a string";
  case 4:
    return "an integer array";
  case 5:
    return "a float array";
  case 6:
    return "a tensor";
  default:
    return "a string array";
  }
}


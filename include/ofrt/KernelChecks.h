//===- KernelChecks.h - What kernels check when they are created -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Shared by the kernels of every backend: errors that name the op, operand
// and result counts, and attribute readers that apply the dialect's defaults
// and reject mistyped values.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_KERNELCHECKS_H
#define OFRT_KERNELCHECKS_H

#include "ofrt/Kernel.h"

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ofrt {

/// "[7, 13]".
std::string shapeStr(const std::vector<int64_t> &shape);

/// InvalidArgument "<op.where()>: <message>".
absl::Status opError(const OpDesc &op, const std::string &message);
/// The same for a kernel that kept only op.where().
absl::Status opError(const std::string &where, const std::string &message);

/// Checks the operand and result counts (inputs in [minInputs, maxInputs])
/// and that no tensor has a negative size.
absl::Status checkArity(const OpDesc &op, size_t minInputs, size_t maxInputs,
                        size_t outputs);
absl::Status checkArity(const OpDesc &op, size_t inputs, size_t outputs);

/// Checks that result `index` is exactly `expected`.
absl::Status checkResult(const OpDesc &op, size_t index,
                         const TensorDesc &expected);

/// "an integer", "a float", ... for messages.
const char *attrTypeName(const AttrValue &value);

template <typename T> const char *wantedTypeName() {
  if constexpr (std::is_same_v<T, int64_t>)
    return "an integer";
  else if constexpr (std::is_same_v<T, double>)
    return "a float";
  else if constexpr (std::is_same_v<T, bool>)
    return "a unit (bool)";
  else if constexpr (std::is_same_v<T, std::string>)
    return "a string";
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
    return "an integer array";
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return "a float array";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return "a string array";
  else
    return "a tensor";
}

/// Reads attribute `name` as T into `out`. Absent: `fallback` if given (the
/// dialect's default), otherwise an error. Present with another type: an
/// error (an integer is accepted where a double is expected).
template <typename T>
absl::Status readAttr(const OpDesc &op, const std::string &name, T &out,
                      std::optional<T> fallback = std::nullopt) {
  auto it = op.attrs.find(name);
  if (it == op.attrs.end()) {
    if (!fallback)
      return opError(op, "needs attribute '" + name + "'");
    out = *fallback;
    return absl::OkStatus();
  }
  if (const T *value = std::get_if<T>(&it->second)) {
    out = *value;
    return absl::OkStatus();
  }
  if constexpr (std::is_same_v<T, double>) {
    if (const int64_t *value = std::get_if<int64_t>(&it->second)) {
      out = static_cast<double>(*value);
      return absl::OkStatus();
    }
  }
  return opError(op, "attribute '" + name + "' must be " + wantedTypeName<T>() +
                         ", got " + attrTypeName(it->second));
}

} // namespace ofrt

#endif // OFRT_KERNELCHECKS_H

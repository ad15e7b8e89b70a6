//===- OnnxExport.h - Trained weights back into an ONNX model ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// of-run --export-onnx OUT.onnx: the ONNX model of-run imported, unchanged but for
// its initializers, which take the logical values of the variables of the
// same name (the importer names one variable per initializer). The ONNX
// checker must accept the result; it is written to a temporary file and
// renamed into place, so a failure never leaves half a model at OUT.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_ONNXEXPORT_H
#define OFDRIVER_ONNXEXPORT_H

#include "ofrt/Tensor.h"

#include "absl/status/status.h"

#include <map>
#include <string>

namespace ofdriver {

/// Checks `path` before a run spends time training: `source` must be an
/// ONNX model and `path` a new file name ending in .onnx in a directory
/// that exists.
absl::Status checkOnnxExport(const std::string &source,
                             const std::string &path);

/// Writes the model read from `source` to `path` with each float
/// initializer that names a variable in `values` replaced by its value.
/// A value whose type differs from the initializer's is an error naming
/// both; `values` must cover at least one initializer.
absl::Status exportOnnx(const std::string &source, const std::string &path,
                        const std::map<std::string, ofrt::TensorData> &values);

} // namespace ofdriver

#endif // OFDRIVER_ONNXEXPORT_H

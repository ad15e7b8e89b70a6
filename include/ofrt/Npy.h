//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The data format of file inputs: NumPy's .npy (format versions 1 to 3), C
// order, little-endian f32, f64, i32, i64, i8 or bool. What `numpy.save`
// writes reads back here, and what writeNpy writes `numpy.load` reads.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_NPY_H
#define OFRT_NPY_H

#include "ofrt/Tensor.h"

#include "absl/status/statusor.h"

#include <istream>
#include <string>

namespace ofrt {

/// An array's element type and shape, and where its data starts.
struct NpyHeader {
  TensorDesc desc;
  int64_t dataOffset = 0;
};

/// Reads the header at the start of `in`; `path` names the file in errors
/// (not .npy, a version, byte order or element type we do not read,
/// Fortran order, a malformed header).
absl::StatusOr<NpyHeader> readNpyHeader(std::istream &in,
                                        const std::string &path);

/// Reads a whole .npy file.
absl::StatusOr<TensorData> readNpy(const std::string &path);

/// The bytes of a version 1 .npy file before the data of an array of
/// `desc` (magic string, version, header length and the padded header).
absl::StatusOr<std::string> encodeNpyHeader(const TensorDesc &desc);

/// Writes `tensor` as a version 1 .npy file.
absl::Status writeNpy(const std::string &path, const TensorData &tensor);

} // namespace ofrt

#endif // OFRT_NPY_H

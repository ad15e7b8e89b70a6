//===- OnnxExport.cpp - Trained weights back into an ONNX model -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/OnnxExport.h"

#include "onnx/checker.h"
#include "onnx/onnx_pb.h"

#include "llvm/ADT/APFloat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ofdriver;

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// `value` (f32) as the little-endian bits of ONNX's FLOAT16 or BFLOAT16
/// (`dtype`), each element rounded to nearest even.
std::string halfBytes(const ofrt::TensorData &value, int32_t dtype) {
  const llvm::fltSemantics &semantics = dtype == onnx::TensorProto::FLOAT16
                                            ? llvm::APFloat::IEEEhalf()
                                            : llvm::APFloat::BFloat();
  std::string bytes;
  const float *in = reinterpret_cast<const float *>(value.bytes.data());
  for (int64_t i = 0, n = value.desc.numel(); i < n; ++i) {
    llvm::APFloat f(in[i]);
    bool lost;
    f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = f.bitcastToAPInt().getZExtValue();
    bytes.push_back(static_cast<char>(bits & 0xff));
    bytes.push_back(static_cast<char>(bits >> 8));
  }
  return bytes;
}

absl::Status writeError(const std::string &what, const std::string &path) {
  return absl::PermissionDeniedError("--export-onnx: " + what + " '" + path +
                                     "': " + std::strerror(errno));
}

/// Writes `bytes` to `path` through a temporary file that is fsynced and
/// renamed into place.
absl::Status writeAtomically(const std::string &path, const std::string &bytes) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return writeError("cannot create", tmp);
  const char *data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      absl::Status status = writeError("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return status;
    }
    data += n;
    left -= n;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    absl::Status status = writeError("cannot write", tmp);
    ::unlink(tmp.c_str());
    return status;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status status = writeError("cannot rename into", path);
    ::unlink(tmp.c_str());
    return status;
  }
  return absl::OkStatus();
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

} // namespace

absl::Status ofdriver::checkOnnxExport(const std::string &source,
                                    const std::string &path) {
  if (!endsWith(source, ".onnx"))
    return absl::InvalidArgumentError(
        "--export-onnx writes an ONNX model back with its trained "
        "initializers; it needs an .onnx model, not '" +
        source + "'");
  if (!endsWith(path, ".onnx"))
    return absl::InvalidArgumentError("--export-onnx '" + path +
                                      "' must name an .onnx file");
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty() && !std::filesystem::is_directory(parent, error))
    return absl::NotFoundError("--export-onnx '" + path + "': directory '" +
                               parent.string() + "' does not exist");
  if (std::filesystem::absolute(path, error) ==
      std::filesystem::absolute(source, error))
    return absl::InvalidArgumentError(
        "--export-onnx '" + path + "' would overwrite the model it trains");
  return absl::OkStatus();
}

absl::Status
ofdriver::exportOnnx(const std::string &source, const std::string &path,
                  const std::map<std::string, ofrt::TensorData> &values) {
  onnx::ModelProto model;
  {
    std::ifstream in(source, std::ios::binary);
    if (!in || !model.ParseFromIstream(&in))
      return absl::NotFoundError("--export-onnx: cannot read the model '" +
                                 source + "' again");
  }
  size_t replaced = 0;
  for (onnx::TensorProto &init : *model.mutable_graph()->mutable_initializer()) {
    auto it = values.find(init.name());
    // Half initializers were trained in f32 and go back in their own type.
    bool half = init.data_type() == onnx::TensorProto::FLOAT16 ||
                init.data_type() == onnx::TensorProto::BFLOAT16;
    if (it == values.end() ||
        (init.data_type() != onnx::TensorProto::FLOAT && !half))
      continue;
    const ofrt::TensorData &value = it->second;
    std::vector<int64_t> dims(init.dims().begin(), init.dims().end());
    if (value.desc.dtype != ofrt::DType::F32 || value.desc.shape != dims)
      return absl::InvalidArgumentError(
          "--export-onnx: variable '" + init.name() + "' is " +
          value.desc.str() + " but initializer '" + init.name() + "' of '" +
          source + "' is " + shapeString(dims) + " " +
          onnx::TensorProto::DataType_Name(
              static_cast<onnx::TensorProto::DataType>(init.data_type())));
    init.clear_float_data();
    init.clear_int32_data(); // Where half types keep their bits.
    init.clear_external_data();
    init.set_data_location(onnx::TensorProto::DEFAULT);
    init.set_raw_data(
        half ? halfBytes(value, init.data_type())
             : std::string(value.bytes.begin(), value.bytes.end()));
    ++replaced;
  }
  if (replaced == 0)
    return absl::InvalidArgumentError(
        "--export-onnx: no variable of the run names a float (or half) "
        "initializer of '" +
        source + "'; nothing to export");
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return absl::InternalError(
        std::string("--export-onnx: the ONNX checker rejects the result: ") +
        e.what());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return absl::InternalError("--export-onnx: cannot serialize the model");
  return writeAtomically(path, bytes);
}

//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The header is a Python dict literal with exactly the keys 'descr',
// 'fortran_order' and 'shape' (numpy/lib/format.py); only that literal form
// is read.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Npy.h"

#include <cstring>
#include <fstream>

using namespace ofrt;

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct DescrName {
  const char *descr;
  DType dtype;
};

constexpr DescrName kDescrs[] = {
    {"<f4", DType::F32},  {"<f8", DType::F64}, {"<f2", DType::F16},
    {"<i4", DType::I32},  {"<i8", DType::I64}, {"|i1", DType::I8},
    {"|b1", DType::Bool}, {"|u1", DType::U8},  {"<i2", DType::I16},
    {"<u2", DType::U16},  {"<u4", DType::U32}, {"<u8", DType::U64},
};

absl::Status headerError(const std::string &path, const std::string &why) {
  return absl::InvalidArgumentError("'" + path + "' is not a .npy file we read: " +
                                    why);
}

/// The text after `'key':` in `header`, with leading spaces skipped, or
/// npos.
size_t valueOf(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return at;
  at = header.find(':', at);
  if (at == std::string::npos)
    return at;
  return header.find_first_not_of(' ', at + 1);
}

} // namespace

absl::StatusOr<NpyHeader> ofrt::readNpyHeader(std::istream &in,
                                              const std::string &path) {
  char prefix[8];
  if (!in.read(prefix, 8) || std::memcmp(prefix, kMagic, 6) != 0)
    return headerError(path, "it does not start with the .npy magic string");
  int major = static_cast<unsigned char>(prefix[6]);
  uint32_t length = 0;
  int64_t lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return headerError(path, "format version " + std::to_string(major));
  unsigned char raw[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char *>(raw), lengthBytes))
    return headerError(path, "the header length is cut off");
  for (int64_t i = lengthBytes - 1; i >= 0; --i)
    length = (length << 8) | raw[i];
  std::string header(length, '\0');
  if (!in.read(header.data(), length))
    return headerError(path, "the header is cut off");

  NpyHeader result;
  result.dataOffset = 8 + lengthBytes + length;
  size_t descr = valueOf(header, "descr");
  if (descr == std::string::npos || header[descr] != '\'')
    return headerError(path, "no 'descr' in the header");
  size_t descrEnd = header.find('\'', descr + 1);
  std::string name = header.substr(descr + 1, descrEnd - descr - 1);
  bool known = false;
  for (const DescrName &entry : kDescrs)
    if (name == entry.descr) {
      result.desc.dtype = entry.dtype;
      known = true;
    }
  if (!known) {
    std::string list;
    for (const DescrName &entry : kDescrs)
      list += (list.empty() ? "" : ", ") + std::string(entry.descr);
    return headerError(path,
                       "element type '" + name + "' (read: " + list + ")");
  }
  size_t order = valueOf(header, "fortran_order");
  if (order == std::string::npos || header.compare(order, 5, "False") != 0)
    return headerError(path, "it is not in C order");
  size_t shape = valueOf(header, "shape");
  if (shape == std::string::npos || header[shape] != '(')
    return headerError(path, "no 'shape' in the header");
  size_t close = header.find(')', shape);
  if (close == std::string::npos)
    return headerError(path, "the shape is not closed");
  std::string dims = header.substr(shape + 1, close - shape - 1);
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t next = dims.find(',', pos);
    std::string item = dims.substr(pos, next == std::string::npos
                                            ? std::string::npos
                                            : next - pos);
    size_t first = item.find_first_not_of(' ');
    if (first != std::string::npos) {
      char *end = nullptr;
      long long dim = std::strtoll(item.c_str() + first, &end, 10);
      if (end == item.c_str() + first || dim < 0 ||
          item.find_first_not_of(' ', end - item.c_str()) != std::string::npos)
        return headerError(path, "shape '(" + dims + ")' is malformed");
      result.desc.shape.push_back(dim);
    }
    if (next == std::string::npos)
      break;
    pos = next + 1;
  }
  return result;
}

absl::StatusOr<TensorData> ofrt::readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError("cannot open '" + path + "': " +
                               std::strerror(errno));
  absl::StatusOr<NpyHeader> header = readNpyHeader(in, path);
  if (!header.ok())
    return header.status();
  TensorData tensor;
  tensor.desc = header->desc;
  tensor.bytes.resize(tensor.desc.bytes());
  if (!in.read(reinterpret_cast<char *>(tensor.bytes.data()),
               tensor.bytes.size()))
    return absl::InvalidArgumentError("'" + path + "' holds fewer than the " +
                                      std::to_string(tensor.bytes.size()) +
                                      " data bytes its header announces");
  return tensor;
}

absl::StatusOr<std::string> ofrt::encodeNpyHeader(const TensorDesc &desc) {
  const char *descr = nullptr;
  for (const DescrName &entry : kDescrs)
    if (entry.dtype == desc.dtype)
      descr = entry.descr;
  if (!descr)
    return absl::InvalidArgumentError(
        std::string(".npy files here hold no ") + dtypeName(desc.dtype));
  std::string shape;
  for (size_t i = 0; i < desc.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(desc.shape[i]);
  if (desc.shape.size() == 1)
    shape += ","; // "(5,)"
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + shape +
                       "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  uint16_t length = header.size();
  std::string prefix(kMagic, 6);
  prefix.push_back(1);
  prefix.push_back(0);
  prefix.push_back(static_cast<char>(length & 0xff));
  prefix.push_back(static_cast<char>(length >> 8));
  return prefix + header;
}

absl::Status ofrt::writeNpy(const std::string &path, const TensorData &tensor) {
  absl::StatusOr<std::string> header = encodeNpyHeader(tensor.desc);
  if (!header.ok())
    return header.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *header;
  out.write(reinterpret_cast<const char *>(tensor.bytes.data()),
            tensor.bytes.size());
  if (!out)
    return absl::NotFoundError("cannot write '" + path + "'");
  return absl::OkStatus();
}

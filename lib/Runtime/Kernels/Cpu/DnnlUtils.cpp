//===- DnnlUtils.cpp - oneDNN engine, stream and descriptors --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "DnnlUtils.h"

using namespace ofrt;
using namespace ofrt::cpu;

const dnnl::engine &cpu::cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream &cpu::cpuStream() {
  thread_local dnnl::stream stream(cpuEngine());
  return stream;
}

std::optional<dt> cpu::dnnlType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return dt::f32;
  case DType::BF16:
    return dt::bf16;
  case DType::F16:
    return dt::f16;
  case DType::I8:
    return dt::s8;
  case DType::I32:
    return dt::s32;
  case DType::Bool:
    return dt::u8;
  default:
    return std::nullopt;
  }
}

Dims cpu::dnnlDims(const Shape &shape) {
  if (shape.empty())
    return {1};
  return Dims(shape.begin(), shape.end());
}

MemDesc cpu::plainDesc(const Shape &shape, dt type) {
  Dims dims = dnnlDims(shape);
  return MemDesc(dims, type, rowMajorStrides(dims));
}

MemDesc cpu::stridedDesc(const Shape &dims, const Shape &strides, dt type) {
  if (dims.empty())
    return MemDesc({1}, type, Dims{1});
  return MemDesc(dims, type, strides);
}

CopyType cpu::copyType(DType dtype) {
  size_t size = dtypeSize(dtype);
  if (size % 4 == 0)
    return {dt::s32, static_cast<int64_t>(size / 4)};
  return {dt::u8, static_cast<int64_t>(size)};
}

absl::Status cpu::checkDnnlRank(const OpDesc &op, int64_t rank, int64_t extra) {
  if (rank + extra > DNNL_MAX_NDIMS)
    return opError(op, "rank " + std::to_string(rank) +
                           " is above what oneDNN supports (" +
                           std::to_string(DNNL_MAX_NDIMS - extra) + ")");
  return absl::OkStatus();
}

absl::Status cpu::execute(const std::string &where, const dnnl::primitive &prim,
                          const std::unordered_map<int, dnnl::memory> &args) {
  try {
    prim.execute(cpuStream(), args);
    cpuStream().wait();
  } catch (const dnnl::error &e) {
    return absl::InternalError(where + ": oneDNN failed: " + e.what());
  }
  return absl::OkStatus();
}

bool cpu::anyEmpty(std::initializer_list<const Shape *> shapes) {
  for (const Shape *shape : shapes)
    for (int64_t d : *shape)
      if (d == 0)
        return true;
  return false;
}

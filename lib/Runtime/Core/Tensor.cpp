//===- Tensor.cpp - Element types and tensor descriptions -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Tensor.h"

#include <cmath>
#include <cstring>

using namespace ofrt;

size_t ofrt::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I8:
  case DType::Bool:
  case DType::U8:
    return 1;
  }
  return 0;
}

const char *ofrt::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I8:
    return "i8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "i1";
  case DType::U8:
    return "ui8";
  case DType::I16:
    return "i16";
  case DType::U16:
    return "ui16";
  case DType::U32:
    return "ui32";
  case DType::U64:
    return "ui64";
  }
  return "?";
}

bool ofrt::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

int64_t TensorDesc::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorDesc::checkedBytes() const {
  int64_t total = static_cast<int64_t>(dtypeSize(dtype));
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(total, dim, &total) ||
        total > kMaxTensorBytes)
      return -1;
  return total;
}

std::string TensorDesc::str() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype);
}

/// IEEE binary16 bits as a double (for printing and comparing).
static double halfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  double mantissa = bits & 0x3ff;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                     : exponent == 31
                         ? (mantissa ? std::nan("") : INFINITY)
                         : std::ldexp(1024 + mantissa, exponent - 25);
  return bits & 0x8000 ? -magnitude : magnitude;
}

double ofrt::loadElement(DType dtype, const void *data, int64_t index) {
  switch (dtype) {
  case DType::F16:
    return halfToDouble(static_cast<const uint16_t *>(data)[index]);
  case DType::BF16: {
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(data)[index]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  case DType::F32:
    return static_cast<const float *>(data)[index];
  case DType::F64:
    return static_cast<const double *>(data)[index];
  case DType::I8:
    return static_cast<const int8_t *>(data)[index];
  case DType::I32:
    return static_cast<const int32_t *>(data)[index];
  case DType::I64:
    return static_cast<const int64_t *>(data)[index];
  case DType::Bool:
  case DType::U8:
    return static_cast<const uint8_t *>(data)[index];
  case DType::I16:
    return static_cast<const int16_t *>(data)[index];
  case DType::U16:
    return static_cast<const uint16_t *>(data)[index];
  case DType::U32:
    return static_cast<const uint32_t *>(data)[index];
  case DType::U64:
    return static_cast<const uint64_t *>(data)[index];
  default:
    return std::nan("");
  }
}

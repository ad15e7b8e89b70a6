//===- Constants.cpp - ONNX tensors known at import time ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Element types and TensorProto contents: ConstTensor for what folds, and
// elements attributes for initializers (read straight from raw_data).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/ConstantFolding.h"

#include "llvm/Support/Endian.h"

using namespace mlir;
using namespace mlir::oneflow::onnx_import;

Type mlir::oneflow::onnx_import::elementType(int32_t onnxType,
                                             MLIRContext *context) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return b.getI32Type(); // Computed in i32.
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return b.getI64Type(); // Computed in i64 (UINT64 in its bits).
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return b.getF32Type(); // Computed in f32.
  default:
    return {};
  }
}

Type mlir::oneflow::onnx_import::storageType(int32_t onnxType,
                                             MLIRContext *context) {
  if (onnxType == onnx::TensorProto::FLOAT16)
    return Float16Type::get(context);
  if (onnxType == onnx::TensorProto::BFLOAT16)
    return BFloat16Type::get(context);
  if (onnxType == onnx::TensorProto::UINT8)
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  if (onnxType == onnx::TensorProto::INT16)
    return IntegerType::get(context, 16);
  if (onnxType == onnx::TensorProto::UINT16)
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  if (onnxType == onnx::TensorProto::UINT32)
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  if (onnxType == onnx::TensorProto::UINT64)
    return IntegerType::get(context, 64, IntegerType::Unsigned);
  return elementType(onnxType, context);
}

/// The float semantics of the half types, or null.
static const llvm::fltSemantics *halfSemantics(int32_t onnxType) {
  if (onnxType == onnx::TensorProto::FLOAT16)
    return &APFloat::IEEEhalf();
  if (onnxType == onnx::TensorProto::BFLOAT16)
    return &APFloat::BFloat();
  return nullptr;
}

/// The value of the 16 bits of a half type.
static double halfValue(int32_t onnxType, uint16_t bits) {
  return APFloat(*halfSemantics(onnxType), APInt(16, bits)).convertToDouble();
}

std::string mlir::oneflow::onnx_import::elementTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "data type " + std::to_string(onnxType);
}

bool ConstTensor::isFloat() const {
  return dtype == onnx::TensorProto::FLOAT ||
         dtype == onnx::TensorProto::DOUBLE || halfSemantics(dtype);
}

int64_t
mlir::oneflow::onnx_import::elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > kMaxElements / d))
      return kMaxElements;
    n *= d;
  }
  return n;
}

int64_t ConstTensor::numElements() const { return elementCount(shape); }

ConstTensor ConstTensor::zeros(int32_t dtype, llvm::ArrayRef<int64_t> shape) {
  ConstTensor t;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  if (t.isFloat())
    t.floats.assign(t.numElements(), 0.0);
  else
    t.ints.assign(t.numElements(), 0);
  return t;
}

void ConstTensor::append(const ConstTensor &from, int64_t i) {
  if (isFloat())
    floats.push_back(from.getDouble(i));
  else if (dtype == onnx::TensorProto::BOOL)
    ints.push_back(from.getDouble(i) != 0.0);
  else
    ints.push_back(from.getInt(i));
}

/// Element `i` of a little-endian raw buffer of `dtype`.
static void readRaw(ConstTensor &t, llvm::StringRef raw, int64_t i) {
  using namespace llvm::support;
  const char *p = raw.data();
  switch (t.dtype) {
  case onnx::TensorProto::FLOAT:
    t.floats.push_back(llvm::bit_cast<float>(endian::read32le(p + 4 * i)));
    return;
  case onnx::TensorProto::DOUBLE:
    t.floats.push_back(llvm::bit_cast<double>(endian::read64le(p + 8 * i)));
    return;
  case onnx::TensorProto::INT64:
    t.ints.push_back(static_cast<int64_t>(endian::read64le(p + 8 * i)));
    return;
  case onnx::TensorProto::INT32:
    t.ints.push_back(static_cast<int32_t>(endian::read32le(p + 4 * i)));
    return;
  case onnx::TensorProto::BOOL:
    t.ints.push_back(p[i] != 0);
    return;
  case onnx::TensorProto::INT8:
    t.ints.push_back(static_cast<int8_t>(p[i]));
    return;
  case onnx::TensorProto::UINT8:
    t.ints.push_back(static_cast<uint8_t>(p[i]));
    return;
  case onnx::TensorProto::INT16:
    t.ints.push_back(static_cast<int16_t>(endian::read16le(p + 2 * i)));
    return;
  case onnx::TensorProto::UINT16:
    t.ints.push_back(endian::read16le(p + 2 * i));
    return;
  case onnx::TensorProto::UINT32:
    t.ints.push_back(endian::read32le(p + 4 * i));
    return;
  case onnx::TensorProto::UINT64: // Its bits, as computed in i64.
    t.ints.push_back(static_cast<int64_t>(endian::read64le(p + 8 * i)));
    return;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    t.floats.push_back(halfValue(t.dtype, endian::read16le(p + 2 * i)));
    return;
  }
}

static int64_t elementBytes(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return 1;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  default:
    return 4;
  }
}

/// The shape of `proto` after checking its dims; sets `why` on failure.
static FailureOr<llvm::SmallVector<int64_t>>
protoShape(const onnx::TensorProto &proto, std::string &why) {
  llvm::SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d)) {
      why = "its shape is negative or too large";
      return failure();
    }
    count *= d;
    shape.push_back(d);
  }
  return shape;
}

FailureOr<ConstTensor> ConstTensor::fromProto(const onnx::TensorProto &proto,
                                              std::string &why) {
  ConstTensor t;
  t.dtype = proto.data_type();
  switch (t.dtype) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    break;
  default:
    why = "its element type " + elementTypeName(t.dtype) + " is not supported";
    return failure();
  }
  FailureOr<llvm::SmallVector<int64_t>> shape = protoShape(proto, why);
  if (failed(shape))
    return failure();
  t.shape = *shape;
  int64_t n = t.numElements();
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (static_cast<int64_t>(raw.size()) != n * elementBytes(t.dtype)) {
      why = "its raw data holds " + std::to_string(raw.size()) +
            " bytes, not the " + std::to_string(n * elementBytes(t.dtype)) +
            " of its shape";
      return failure();
    }
    for (int64_t i = 0; i < n; ++i)
      readRaw(t, raw, i);
    return t;
  }
  int64_t have = 0;
  switch (t.dtype) {
  case onnx::TensorProto::FLOAT:
    have = proto.float_data_size();
    t.floats.assign(proto.float_data().begin(), proto.float_data().end());
    break;
  case onnx::TensorProto::DOUBLE:
    have = proto.double_data_size();
    t.floats.assign(proto.double_data().begin(), proto.double_data().end());
    break;
  case onnx::TensorProto::INT64:
    have = proto.int64_data_size();
    t.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64: // Their values live in uint64_data.
    have = proto.uint64_data_size();
    for (uint64_t v : proto.uint64_data())
      t.ints.push_back(static_cast<int64_t>(v));
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: // Their bits live in int32_data.
    have = proto.int32_data_size();
    for (int32_t bits : proto.int32_data())
      t.floats.push_back(halfValue(t.dtype, static_cast<uint16_t>(bits)));
    break;
  default: // INT32, INT16, UINT16, INT8, UINT8 and BOOL: int32_data.
    have = proto.int32_data_size();
    t.ints.assign(proto.int32_data().begin(), proto.int32_data().end());
    if (t.dtype == onnx::TensorProto::BOOL)
      for (int64_t &v : t.ints)
        v = v != 0;
    break;
  }
  if (have != n) {
    why = "it holds " + std::to_string(have) + " elements, not the " +
          std::to_string(n) + " of its shape";
    return failure();
  }
  return t;
}

RankedTensorType ConstTensor::getType(MLIRContext *context) const {
  return RankedTensorType::get(shape, elementType(dtype, context));
}

DenseElementsAttr ConstTensor::toAttr(MLIRContext *context) const {
  RankedTensorType type = getType(context);
  if (isa<FloatType>(type.getElementType()))
    return mlir::oneflow::denseOfDoubles(type, floats);
  return mlir::oneflow::denseOfInts(type, ints);
}

ConstTensor ConstTensor::fromAttr(DenseElementsAttr attr, int32_t dtype) {
  ConstTensor t;
  t.dtype = dtype;
  llvm::append_range(t.shape, attr.getType().getShape());
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &v : attr.getValues<APFloat>())
      t.floats.push_back(v.convertToDouble());
  } else {
    bool unsignedValues = attr.getElementType().isInteger(1) ||
                          attr.getElementType().isUnsignedInteger();
    for (const APInt &v : attr.getValues<APInt>())
      t.ints.push_back(unsignedValues ? v.getZExtValue() : v.getSExtValue());
  }
  return t;
}

FailureOr<DenseElementsAttr> mlir::oneflow::onnx_import::initializerAttr(
    const onnx::TensorProto &proto, MLIRContext *context, std::string &why) {
  int32_t dtype = proto.data_type();
  Type element = elementType(dtype, context);
  if (!element) {
    why = "its element type " + elementTypeName(dtype) + " is not supported";
    return failure();
  }
  // Raw little-endian floats and integers are the attribute's own storage
  // (on this little-endian host); booleans, half types (held as f32) and
  // typed fields go through ConstTensor.
  if (proto.has_raw_data() && dtype != onnx::TensorProto::BOOL &&
      !halfSemantics(dtype)) {
    FailureOr<llvm::SmallVector<int64_t>> shape = protoShape(proto, why);
    if (failed(shape))
      return failure();
    RankedTensorType type = RankedTensorType::get(*shape, element);
    int64_t bytes = type.getNumElements() * elementBytes(dtype);
    if (static_cast<int64_t>(proto.raw_data().size()) != bytes) {
      why = "its raw data holds " + std::to_string(proto.raw_data().size()) +
            " bytes, not the " + std::to_string(bytes) + " of its shape";
      return failure();
    }
    llvm::ArrayRef<char> raw(proto.raw_data().data(), proto.raw_data().size());
    return DenseElementsAttr::getFromRawBuffer(type, raw);
  }
  FailureOr<ConstTensor> tensor = ConstTensor::fromProto(proto, why);
  if (failed(tensor))
    return failure();
  return tensor->toAttr(context);
}

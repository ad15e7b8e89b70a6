//===- ConvUtils.cpp - What conv2d and conv2d_bn share --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ConvUtils.h"

#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cpu;
using tag = dnnl::memory::format_tag;

/// The window of a convolution op `Params` (all declare the same).
template <typename Params>
static absl::Status readWindow(const OpDesc &op, ConvGeometry &g) {
  OFRT_READ_PARAMS(declared, Params, op);
  g.strides = declared.strides;
  g.pads = declared.pads;
  g.dilations = declared.dilations;
  g.groups = declared.groups;
  OFRT_RETURN_IF_ERROR(checkList(op, "strides", g.strides, 2, 1));
  OFRT_RETURN_IF_ERROR(checkList(op, "pads", g.pads, 4, 0));
  return checkList(op, "dilations", g.dilations, 2, 1);
}

absl::Status cpu::readConvGeometry(const OpDesc &op, const TensorDesc &x,
                                   const TensorDesc &w, ConvGeometry &g) {
  if (op.type == params::Conv2DOp::kOpName)
    OFRT_RETURN_IF_ERROR(readWindow<params::Conv2DOp>(op, g));
  else if (op.type == params::Conv2DBackwardDataOp::kOpName)
    OFRT_RETURN_IF_ERROR(readWindow<params::Conv2DBackwardDataOp>(op, g));
  else if (op.type == params::Conv2DBackwardFilterOp::kOpName)
    OFRT_RETURN_IF_ERROR(readWindow<params::Conv2DBackwardFilterOp>(op, g));
  else if (op.type == params::Conv2DBnOp::kOpName)
    OFRT_RETURN_IF_ERROR(readWindow<params::Conv2DBnOp>(op, g));
  else
    return opError(op, "is not a convolution");
  if (x.rank() != 4 || w.rank() != 4)
    return opError(op, "needs NCHW input and FCHW weight (rank 4), got " +
                           x.str() + " and " + w.str());
  if (x.dtype != DType::F32 || w.dtype != DType::F32)
    return opError(op, "has a CPU kernel for f32 only, got " + x.str() +
                           " and " + w.str());
  int64_t channels = x.shape[1], filters = w.shape[0];
  if (g.groups < 1 || channels % g.groups != 0 || filters % g.groups != 0)
    return opError(op, "groups " + std::to_string(g.groups) +
                           " must divide the input channels (" +
                           std::to_string(channels) + ") and filters (" +
                           std::to_string(filters) + ")");
  if (w.shape[1] * g.groups != channels)
    return opError(op, "weight " + w.str() + " has " +
                           std::to_string(w.shape[1]) +
                           " channels per group, the input " +
                           std::to_string(channels / g.groups));
  g.x = x.shape;
  g.w = w.shape;
  g.y = {x.shape[0], filters, 0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t padded = x.shape[2 + i] + g.pads[i] + g.pads[i + 2];
    int64_t span = g.dilations[i] * (w.shape[2 + i] - 1) + 1;
    if (padded < span)
      return opError(op, "window of " + std::to_string(span) +
                             " does not fit the padded input of " +
                             std::to_string(padded) + " on spatial axis " +
                             std::to_string(i));
    g.y[2 + i] = (padded - span) / g.strides[i] + 1;
  }
  return absl::OkStatus();
}

MemDesc cpu::plainWeightsDesc(const ConvGeometry &g) {
  if (g.groups == 1)
    return plainDesc(g.w, dt::f32);
  return plainDesc({g.groups, g.filters() / g.groups, g.w[1], g.w[2], g.w[3]},
                   dt::f32);
}

bool cpu::computesBlocked(const ConvGeometry &g) {
  return g.groups == 1 && g.channels() > 0 && g.channels() % 16 == 0 &&
         g.filters() > 0 && g.filters() % 16 == 0;
}

int64_t cpu::blockedChannels() {
  // A vector register's floats: oneDNN's JIT convolutions compute on
  // nChw16c with AVX-512 and on nChw8c with AVX2 and below (on an AVX2
  // machine nChw16c finds only the reference kernel, ~1000x slower). Asked
  // of the machine that runs the plan: the plan only says "blocked".
  return dnnlHasAvx512() ? 16 : 8;
}

MemDesc cpu::blockedDesc(const Shape &shape) {
  return MemDesc(dnnlDims(shape), dt::f32,
                 blockedChannels() == 16 ? tag::nChw16c : tag::nChw8c);
}

dnnl::convolution_forward::desc
cpu::convDesc(const ConvGeometry &g, bool hasBias, dnnl::prop_kind prop) {
  auto any = [](const MemDesc &d) {
    return MemDesc(d.dims(), dt::f32, tag::any);
  };
  // Activations: with channels in multiples of 16, oneDNN 2.6's direct
  // avx512 convolution on nChw16c and its reorders from and to NCHW beat
  // the NHWC kernel that `any` picks (measured on a ResNet basic block:
  // reorders 0.19 ms against 0.37 ms each way); on AVX2 the same holds for
  // nChw8c (blockedDesc picks the machine's). Otherwise let it choose.
  bool blocked = computesBlocked(g);
  auto activation = [&](const Shape &shape) {
    return blocked ? blockedDesc(shape) : any(plainDesc(shape, dt::f32));
  };
  MemDesc src = activation(g.x), dst = activation(g.y);
  MemDesc weights = any(plainWeightsDesc(g));
  Dims strides = {g.strides[0], g.strides[1]};
  // oneDNN counts dilation from 0 (the dialect's dilation - 1).
  Dims dilations = {g.dilations[0] - 1, g.dilations[1] - 1};
  Dims padL = {g.pads[0], g.pads[1]}, padR = {g.pads[2], g.pads[3]};
  auto algo = dnnl::algorithm::convolution_direct;
  if (hasBias)
    return dnnl::convolution_forward::desc(
        prop, algo, src, weights, plainDesc({g.filters()}, dt::f32), dst,
        strides, dilations, padL, padR);
  return dnnl::convolution_forward::desc(prop, algo, src, weights, dst,
                                         strides, dilations, padL, padR);
}

Staged::Staged(const MemDesc &user, const MemDesc &inner, bool toInner,
               bool ownBuffer)
    : user(user), inner(inner) {
  if (user == inner)
    return;
  reorder = toInner ? dnnl::reorder(dnnl::reorder::primitive_desc(
                          cpuEngine(), user, cpuEngine(), inner, scratchpadAttr()))
                    : dnnl::reorder(dnnl::reorder::primitive_desc(
                          cpuEngine(), inner, cpuEngine(), user, scratchpadAttr()));
  if (ownBuffer)
    buffer.resize(inner.get_size());
}

absl::Status Staged::run(const std::string &where, void *userData,
                         void *innerData, bool toInner) const {
  dnnl::memory u = wrap(user, userData), i = wrap(inner, innerData);
  return execute(
      where, reorder,
      {{DNNL_ARG_FROM, toInner ? u : i}, {DNNL_ARG_TO, toInner ? i : u}});
}

bool InputCache::unchanged(const std::vector<TensorView> &tensors) {
  bool same = bytes.size() == tensors.size();
  for (size_t i = 0; same && i < tensors.size(); ++i)
    same = bytes[i].size() == tensors[i].desc.bytes() &&
           std::memcmp(bytes[i].data(), tensors[i].data, bytes[i].size()) == 0;
  if (same)
    return true;
  bytes.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto *data = static_cast<const uint8_t *>(tensors[i].data);
    bytes[i].assign(data, data + tensors[i].desc.bytes());
  }
  return false;
}

//===- ConvUtils.h - What conv2d and conv2d_bn share ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The checked geometry of a convolution, the oneDNN descriptor for it (the
// primitive picks its own layouts), and the reorders between the plan's
// plain NCHW / OIHW tensors and those layouts.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CONVUTILS_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CONVUTILS_H

#include "DnnlUtils.h"

#include <cstring>
#include <vector>

namespace ofrt {
namespace cpu {

/// A convolution's shapes and spatial attributes, as the op gives them.
struct ConvGeometry {
  Shape x, w, y;
  std::vector<int64_t> strides, pads, dilations;
  int64_t groups = 1;

  int64_t batch() const { return x[0]; }
  int64_t channels() const { return x[1]; }
  int64_t filters() const { return w[0]; }
  /// Whether the convolution reads nothing (no channels or an empty
  /// window): its output is the bias, or zero.
  bool readsNothing() const { return x[1] == 0 || w[2] == 0 || w[3] == 0; }
};

/// Reads the spatial attributes of `op` and checks input `x` (NCHW, f32)
/// against weight `w` (F, C / groups, KH, KW, f32); fills the output shape.
absl::Status readConvGeometry(const OpDesc &op, const TensorDesc &x,
                              const TensorDesc &w, ConvGeometry &geometry);

/// The descriptor of a forward convolution (inference unless `prop` says
/// otherwise) with the given geometry; the weights and activations in the
/// layouts oneDNN prefers.
dnnl::convolution_forward::desc
convDesc(const ConvGeometry &geometry, bool hasBias,
         dnnl::prop_kind prop = dnnl::prop_kind::forward_inference);
/// Whether convDesc puts the activations in the blocked layout (rather than
/// letting oneDNN choose): one group, channels and filters in multiples of
/// 16 (so that every block width fits without padding).
bool computesBlocked(const ConvGeometry &geometry);
/// The channels of a block on this machine: 16 (nChw16c) where oneDNN uses
/// AVX-512, 8 (nChw8c) below. Buffers hold the same bytes either way.
int64_t blockedChannels();
/// The blocked descriptor (nChw16c or nChw8c) of an NCHW shape.
MemDesc blockedDesc(const Shape &shape);

/// The plain (row-major) descriptor of the weights; GOIHW with groups.
MemDesc plainWeightsDesc(const ConvGeometry &geometry);

/// A tensor as the plan holds it, and the layout a primitive wants it in;
/// the reorder and a buffer in that layout when they differ.
struct Staged {
  MemDesc user, inner;
  dnnl::reorder reorder;
  std::vector<uint8_t> buffer;

  Staged() = default;
  /// Without `ownBuffer`, the reorder writes into memory of the caller's.
  Staged(const MemDesc &user, const MemDesc &inner, bool toInner,
         bool ownBuffer = true);
  bool needed() const { return user != inner; }
  /// The buffer the primitive reads or writes: ours, or the user's.
  void *innerData(void *user) { return needed() ? buffer.data() : user; }
  /// Reorders between the user's memory and `inner` (`toInner`: from the
  /// user's), on this thread's stream.
  absl::Status run(const std::string &where, void *user, void *inner,
                   bool toInner) const;
};

/// Remembers the bytes of some tensors, to tell whether they changed since
/// the last step (weights are variables: usually they did not).
class InputCache {
public:
  /// Whether the bytes of `tensors` equal those remembered; if not,
  /// remembers them.
  bool unchanged(const std::vector<TensorView> &tensors);

private:
  std::vector<std::vector<uint8_t>> bytes;
};

} // namespace cpu
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CONVUTILS_H

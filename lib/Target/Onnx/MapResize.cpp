//===- MapResize.cpp - ONNX Resize as per-axis gathers and products -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Resize samples each axis independently, so each resized axis becomes one
// op with a pattern computed at import time from the node's attributes:
//
// | mode            | oneflow, per resized axis of size n -> m            |
// |-----------------|-----------------------------------------------------|
// | nearest         | gather of the m source indices                      |
// | linear, cubic   | the axis moved last, matmul by the n x m weights,   |
// |                 | moved back (2 or 4 taps per output; their gradient  |
// |                 | is the transposed product)                          |
//
// The weights follow the ONNX reference: the output coordinate maps to the
// input by coordinate_transformation_mode (half_pixel, pytorch_half_pixel,
// align_corners, asymmetric, tf_half_pixel_for_nn), neighbours beyond the
// edge repeat it, or with exclude_outside drop out and the rest are
// renormalized. tf_crop_and_resize (a region of interest) is not mapped.
//
// Resizing the spatial axes of an f32 N, C, spatial tensor by factors that
// are the ratios of the lengths is one `resample` instead (oneDNN's
// resampling primitive, forward and backward) when oneDNN samples the same
// points: linear at half-pixel centres (half_pixel, or pytorch_half_pixel
// to lengths above 1; PyTorch's bilinear with align_corners=False), or
// nearest where every output index takes the input index oneDNN's
// rounding takes (PyTorch's nearest by integer factors).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {
/// How one output coordinate is sampled.
struct ResizeRule {
  std::string mode, coordinates, nearest;
  double cubicA = -0.75;
  bool excludeOutside = false;
};
} // namespace

/// The input coordinate of output index `i` (ONNX's reference formulas,
/// where the output's length is in x scale, unrounded).
static double sourceCoordinate(const ResizeRule &rule, int64_t i, double scale,
                               int64_t in) {
  const std::string &mode = rule.coordinates;
  double out = in * scale;
  if (mode == "half_pixel")
    return (i + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return out == 1 ? 0.0 : i * double(in - 1) / (out - 1);
  if (mode == "tf_half_pixel_for_nn")
    return (i + 0.5) / scale;
  return i / scale; // asymmetric
}

/// The nearest input index of coordinate `x` by nearest_mode, clamped.
static int64_t nearestIndex(const ResizeRule &rule, double x, int64_t in) {
  double r;
  if (rule.nearest == "round_prefer_ceil")
    r = std::floor(x + 0.5);
  else if (rule.nearest == "floor")
    r = std::floor(x);
  else if (rule.nearest == "ceil")
    r = std::ceil(x);
  else // round_prefer_floor
    r = x == std::floor(x) + 0.5 ? std::floor(x) : std::round(x);
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
}

/// Adds the taps of output index `i` to row `i` of `weights` (m x n).
static void addTaps(const ResizeRule &rule, double x, int64_t in,
                    std::vector<double> &row) {
  double base = std::floor(x);
  // An integral coordinate takes ratio 1 against the index below it (the
  // reference's convention; the weights come out the same).
  double ratio = x == base ? 1.0 : x - base;
  int64_t first = static_cast<int64_t>(base) - (x == base ? 1 : 0);
  llvm::SmallVector<double, 4> coeffs;
  if (rule.mode == "linear") {
    coeffs = {1 - ratio, ratio};
  } else {
    double a = rule.cubicA, r = ratio, s = 1 - ratio;
    coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
              ((a + 2) * r - (a + 3)) * r * r + 1,
              ((a + 2) * s - (a + 3)) * s * s + 1,
              ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    first -= 1;
  }
  double kept = 0;
  for (auto [k, c] : llvm::enumerate(coeffs)) {
    int64_t j = first + static_cast<int64_t>(k);
    if (rule.excludeOutside && (j < 0 || j >= in))
      continue;
    kept += c;
  }
  for (auto [k, c] : llvm::enumerate(coeffs)) {
    int64_t j = first + static_cast<int64_t>(k);
    if (j < 0 || j >= in) {
      if (rule.excludeOutside)
        continue;
      j = std::clamp<int64_t>(j, 0, in - 1);
    }
    row[j] += rule.excludeOutside ? c / kept : c;
  }
}

/// Resizes axis `axis` of `x` from n to m.
static FailureOr<Value> resizeAxis(NodeContext &node, const ResizeRule &rule,
                                   Value x, int64_t axis, int64_t m,
                                   double scale) {
  RankedTensorType type = stripEncoding(NodeContext::typeOf(x));
  int64_t n = type.getDimSize(axis), rank = type.getRank();
  OpBuilder &b = node.b;
  if (rule.mode == "nearest") {
    ConstTensor sources;
    sources.dtype = onnx::TensorProto::INT64;
    sources.shape = {m};
    for (int64_t i = 0; i < m; ++i)
      sources.ints.push_back(
          nearestIndex(rule, sourceCoordinate(rule, i, scale, n), n));
    return valueOf(
        node.create<GatherOp>({x, node.constant(sources)},
                              {node.named("axis", b.getI64IntegerAttr(axis))}));
  }
  // weights[j][i]: input j's share of output i.
  ConstTensor weights;
  weights.dtype = onnx::TensorProto::FLOAT;
  weights.shape = {n, m};
  weights.floats.assign(n * m, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    std::vector<double> row(n, 0.0);
    addTaps(rule, sourceCoordinate(rule, i, scale, n), n, row);
    for (int64_t j = 0; j < n; ++j)
      weights.floats[j * m + i] = row[j];
  }
  Value w = node.cast(node.constant(weights), type.getElementType());
  // The axis moved last, the rest flattened: [rest, n] x [n, m].
  llvm::SmallVector<int64_t> perm, inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  Value moved = x;
  llvm::SmallVector<int64_t> movedShape;
  for (int64_t d : perm)
    movedShape.push_back(type.getDimSize(d));
  if (axis != rank - 1) {
    FailureOr<Value> t = valueOf(node.create<TransposeOp>(
        x, {node.named("perm", b.getDenseI64ArrayAttr(perm))}));
    if (failed(t))
      return failure();
    moved = *t;
  }
  int64_t rest = type.getNumElements() / std::max<int64_t>(n, 1);
  FailureOr<Value> product =
      valueOf(node.create<MatmulOp>({node.reshape(moved, {rest, n}), w}));
  if (failed(product))
    return failure();
  movedShape.back() = m;
  Value back = node.reshape(*product, movedShape);
  if (axis == rank - 1)
    return back;
  return valueOf(node.create<TransposeOp>(
      back, {node.named("perm", b.getDenseI64ArrayAttr(inverse))}));
}

/// oneDNN's nearest source index of output `i` of an axis resized from `n`
/// to `m` (its float arithmetic: (i + 0.5) n / m - 0.5, rounded with halves
/// away from zero, clamped).
static int64_t dnnlNearest(int64_t i, int64_t n, int64_t m) {
  float x = (static_cast<float>(i) + 0.5f) * static_cast<float>(n) /
                static_cast<float>(m) -
            0.5f;
  return std::clamp<int64_t>(static_cast<int64_t>(std::roundf(x)), 0, n - 1);
}

/// Whether the resize is oneDNN's resampling (`resample`): f32, N and C
/// kept, 1 to 3 spatial axes, factors equal to the ratios of the lengths;
/// linear at half-pixel centres, or nearest picking on every axis the
/// indices oneDNN picks (PyTorch's nearest by integer factors, asymmetric
/// and floor, does).
static bool isResample(const ResizeRule &rule, RankedTensorType type,
                       ArrayRef<int64_t> sizes, ArrayRef<double> scales) {
  int64_t rank = type.getRank();
  if (rule.mode == "cubic" || rank < 3 || rank > 5 ||
      !type.getElementType().isF32() || !type.hasStaticShape() ||
      sizes[0] != type.getDimSize(0) || sizes[1] != type.getDimSize(1))
    return false;
  for (int64_t d = 2; d < rank; ++d)
    if (scales[d] != double(sizes[d]) / double(type.getDimSize(d)))
      return false;
  if (rule.mode == "nearest") {
    for (int64_t d = 2; d < rank; ++d) {
      int64_t n = type.getDimSize(d);
      for (int64_t i = 0; i < sizes[d]; ++i)
        if (nearestIndex(rule, sourceCoordinate(rule, i, scales[d], n), n) !=
            dnnlNearest(i, n, sizes[d]))
          return false;
    }
    return true;
  }
  if (rule.excludeOutside)
    return false;
  return rule.coordinates == "half_pixel" ||
         (rule.coordinates == "pytorch_half_pixel" &&
          llvm::all_of(sizes, [](int64_t m) { return m > 1; }));
}

static LogicalResult mapResize(NodeContext &node) {
  if (failed(node.checkArity(1, 4, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*x));
  int64_t rank = type.getRank();
  ResizeRule rule;
  rule.mode = node.getString("mode", "nearest");
  rule.coordinates =
      node.getString("coordinate_transformation_mode", "half_pixel");
  rule.nearest = node.getString("nearest_mode", "round_prefer_floor");
  rule.cubicA = node.getFloat("cubic_coeff_a", -0.75);
  rule.excludeOutside = node.getInt("exclude_outside", 0) != 0;
  (void)node.getFloat("extrapolation_value", 0.0); // tf_crop_and_resize's.
  if (rule.mode != "nearest" && rule.mode != "linear" && rule.mode != "cubic")
    return node.error() << "unsupported mode '" << rule.mode << "'";
  if (!llvm::is_contained({"half_pixel", "pytorch_half_pixel", "align_corners",
                           "asymmetric", "tf_half_pixel_for_nn"},
                          rule.coordinates))
    return node.error() << "unsupported coordinate_transformation_mode '"
                        << rule.coordinates << "'";
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          rule.nearest))
    return node.error() << "unsupported nearest_mode '" << rule.nearest << "'";
  if (!isa<FloatType>(type.getElementType()) && rule.mode != "nearest")
    return node.error() << rule.mode << " resizing needs a float input, not "
                        << type.getElementType();
  // The output sizes and scales: `sizes` (input 3) or `scales` (input 2).
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<double> scales;
  const ConstTensor *given = node.constInput(3, /*readParameters=*/true);
  const ConstTensor *factors = node.constInput(2, /*readParameters=*/true);
  if (node.hasInput(3) && !given)
    return node.error() << "sizes (input 3) must be known at import time";
  if (given && given->numElements() > 0) {
    for (int64_t d = 0; d < given->numElements(); ++d) {
      sizes.push_back(given->getInt(d));
      scales.push_back(double(sizes.back()) / type.getDimSize(d));
    }
  } else {
    if (!factors || factors->numElements() == 0)
      return node.error() << "needs scales (input 2) or sizes (input 3) "
                             "known at import time";
    for (int64_t d = 0; d < factors->numElements(); ++d) {
      scales.push_back(factors->getDouble(d));
      sizes.push_back(
          static_cast<int64_t>(std::floor(type.getDimSize(d) * scales.back())));
    }
  }
  if (static_cast<int64_t>(sizes.size()) != rank)
    return node.error() << "has " << sizes.size() << " sizes or scales for "
                        << "an input of rank " << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] <= 0 || !(scales[d] > 0))
      return node.error() << "axis " << d << " resizes to " << sizes[d]
                          << " (scale " << scales[d] << ")";
  if (isResample(rule, type, sizes, scales)) {
    OpBuilder &b = node.b;
    FailureOr<Value> resampled = valueOf(node.create<ResampleOp>(
        {*x}, {node.named("sizes", b.getDenseI64ArrayAttr(
                                       ArrayRef(sizes).drop_front(2))),
               node.named("mode", b.getStringAttr(rule.mode))}));
    if (failed(resampled))
      return failure();
    node.setOutput(0, *resampled);
    return success();
  }
  Value v = *x;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == type.getDimSize(d) && scales[d] == 1.0)
      continue;
    FailureOr<Value> resized =
        resizeAxis(node, rule, v, d, sizes[d], scales[d]);
    if (failed(resized))
      return failure();
    v = *resized;
  }
  node.setOutput(0, v);
  return success();
}

void mlir::oneflow::onnx_import::addResizeLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Resize"] = mapResize;
}

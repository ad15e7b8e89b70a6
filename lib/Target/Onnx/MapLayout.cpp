//===- MapLayout.cpp - ONNX ops that rearrange elements -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// ONNX ops that only move elements, imported as slices, reshapes,
// transposes and broadcasts (so they differentiate and lay out like those):
//
// | ONNX          | oneflow                                                |
// |---------------|--------------------------------------------------------|
// | Split         | one slice per output                                   |
// | Tile          | reshape to [1, d0, 1, d1, ...], broadcast to           |
// |               | [r0, d0, r1, d1, ...], reshape to [r0 d0, r1 d1, ...]  |
// | DepthToSpace  | reshape, transpose, reshape (DCR and CRD modes)        |
// | SpaceToDepth  | reshape, transpose, reshape                            |
// | CastLike      | cast to the element type of the second input           |
// | GatherElements| gather_elements                                        |
// | ScatterElements| gather_elements_grad (a scatter-add) of the updates:  |
// |               | added to the data (reduction add), or where a count    |
// |               | of the indices is positive, over the data (none)       |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// Input 0 and its type.
static FailureOr<std::pair<Value, RankedTensorType>> data(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  return std::make_pair(*x, stripEncoding(NodeContext::typeOf(*x)));
}

static FailureOr<Value> transpose(NodeContext &node, Value x,
                                  llvm::ArrayRef<int64_t> perm) {
  FailureOr<TransposeOp> op = node.create<TransposeOp>(
      x, {node.named("perm", node.b.getDenseI64ArrayAttr(perm))});
  if (failed(op))
    return failure();
  return op->getResult();
}

static LogicalResult mapSplit(NodeContext &node) {
  if (failed(node.checkArity(1, 2, node.numOutputs())))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  RankedTensorType type = x->second;
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t size = type.getDimSize(*axis), parts = node.numOutputs();
  llvm::SmallVector<int64_t> sizes;
  if (node.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> given = node.constInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (FailureOr<llvm::SmallVector<int64_t>> attr = node.getInts("split");
             succeeded(attr)) {
    sizes = *attr; // Split-11 and before, as the converter leaves it.
  } else {
    if (size % parts != 0)
      return node.error() << "axis " << *axis << " of size " << size
                          << " does not split into " << parts << " equal parts";
    sizes.assign(parts, size / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    return node.error() << "split has " << sizes.size() << " sizes for "
                        << parts << " outputs";
  int64_t start = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return node.error() << "split has a negative size " << s;
    start += s;
  }
  if (start != size)
    return node.error() << "split sizes add up to " << start
                        << ", not the size " << size << " of axis " << *axis;
  start = 0;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    FailureOr<Value> part = node.sliceAlong(x->first, *axis, start, start + s);
    if (failed(part))
      return failure();
    node.setOutput(i, *part);
    start += s;
  }
  return success();
}

static LogicalResult mapTile(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  FailureOr<llvm::SmallVector<int64_t>> repeats = node.constInts(1, "repeats");
  if (failed(x) || failed(repeats))
    return failure();
  llvm::ArrayRef<int64_t> shape = x->second.getShape();
  if (repeats->size() != shape.size())
    return node.error() << "repeats has " << repeats->size()
                        << " values for an input of rank " << shape.size();
  llvm::SmallVector<int64_t> interleaved, broadcast, result;
  for (auto [d, r] : llvm::zip(shape, *repeats)) {
    if (r < 0)
      return node.error() << "repeats has a negative value " << r;
    interleaved.append({1, d});
    broadcast.append({r, d});
    result.push_back(r * d);
  }
  FailureOr<Value> wide =
      node.broadcastTo(node.reshape(x->first, interleaved), broadcast);
  if (failed(wide))
    return failure();
  node.setOutput(0, node.reshape(*wide, result));
  return success();
}

/// DepthToSpace (`toSpace`) and SpaceToDepth on NCHW with `blocksize` b.
static LogicalResult mapDepthSpace(NodeContext &node, bool toSpace) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  if (x->second.getRank() != 4)
    return node.error() << "needs an NCHW input, not rank "
                        << x->second.getRank();
  int64_t b = node.getInt("blocksize", 0);
  if (b <= 0)
    return node.error() << "blocksize must be positive, not " << b;
  int64_t n = x->second.getDimSize(0), c = x->second.getDimSize(1),
          h = x->second.getDimSize(2), w = x->second.getDimSize(3);
  FailureOr<Value> moved;
  llvm::SmallVector<int64_t> result;
  if (toSpace) {
    if (c % (b * b) != 0)
      return node.error() << "channels " << c
                          << " are not a multiple of blocksize^2 " << b * b;
    int64_t depth = c / (b * b);
    std::string mode = node.getString("mode", "DCR");
    if (mode == "DCR")
      moved = transpose(node, node.reshape(x->first, {n, b, b, depth, h, w}),
                        {0, 3, 4, 1, 5, 2});
    else if (mode == "CRD")
      moved = transpose(node, node.reshape(x->first, {n, depth, b, b, h, w}),
                        {0, 1, 4, 2, 5, 3});
    else
      return node.error() << "unsupported mode '" << mode << "'";
    result = {n, depth, h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return node.error() << "height " << h << " and width " << w
                          << " are not multiples of blocksize " << b;
    moved = transpose(node, node.reshape(x->first, {n, c, h / b, b, w / b, b}),
                      {0, 3, 5, 1, 2, 4});
    result = {n, c * b * b, h / b, w / b};
  }
  if (failed(moved))
    return failure();
  node.setOutput(0, node.reshape(*moved, result));
  return success();
}

static LogicalResult mapCastLike(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  FailureOr<Value> like = node.input(1);
  if (failed(x) || failed(like))
    return failure();
  node.setOutput(
      0, node.cast(x->first, NodeContext::typeOf(*like).getElementType()));
  return success();
}

static LogicalResult mapGatherElements(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  FailureOr<Value> indices = node.input(1);
  if (failed(x) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), x->second.getRank(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<GatherElementsOp> op = node.create<GatherElementsOp>(
      {x->first, *indices},
      {node.named("axis", node.b.getI64IntegerAttr(*axis))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

FailureOr<Value> mlir::oneflow::onnx_import::scatterResult(
    NodeContext &node, llvm::StringRef reduction, Value data, Value scattered,
    llvm::function_ref<FailureOr<Value>()> scatterOnes) {
  if (reduction == "add")
    return valueOf(node.create<AddOp>({data, scattered}));
  FailureOr<Value> count = scatterOnes();
  if (failed(count))
    return failure();
  Type element = NodeContext::typeOf(data).getElementType();
  FailureOr<Value> hit = valueOf(node.create<GreaterOp>(
      {*count, node.fill(RankedTensorType::get({}, element), 0)}));
  if (failed(hit))
    return failure();
  return valueOf(node.create<WhereOp>({*hit, scattered, data}));
}

static LogicalResult mapScatterElements(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  auto x = data(node);
  FailureOr<Value> indices = node.input(1), updates = node.input(2);
  if (failed(x) || failed(indices) || failed(updates))
    return failure();
  RankedTensorType type = x->second;
  if (!isa<FloatType>(type.getElementType()))
    return node.error() << "scatters floats only, not "
                        << type.getElementType();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  std::string reduction = node.getString("reduction", "none");
  if (reduction != "none" && reduction != "add")
    return node.error() << "unsupported reduction '" << reduction << "'";
  OpBuilder &b = node.b;
  auto scatter = [&](Value v) {
    return valueOf(node.create<GatherElementsGradOp>(
        {v, *indices},
        {node.named("axis", b.getI64IntegerAttr(*axis)),
         node.named("shape", b.getDenseI64ArrayAttr(type.getShape()))}));
  };
  FailureOr<Value> scattered = scatter(*updates);
  if (failed(scattered))
    return failure();
  RankedTensorType updatesType = stripEncoding(NodeContext::typeOf(*updates));
  FailureOr<Value> y =
      scatterResult(node, reduction, x->first, *scattered,
                    [&] { return scatter(node.fill(updatesType, 1)); });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

void mlir::oneflow::onnx_import::addLayoutLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Split"] = mapSplit;
  table["Tile"] = mapTile;
  table["DepthToSpace"] = [](NodeContext &n) { return mapDepthSpace(n, true); };
  table["SpaceToDepth"] = [](NodeContext &n) {
    return mapDepthSpace(n, false);
  };
  table["CastLike"] = mapCastLike;
  table["GatherElements"] = mapGatherElements;
  table["ScatterElements"] = mapScatterElements;
}

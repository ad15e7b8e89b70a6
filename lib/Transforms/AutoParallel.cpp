//===- AutoParallel.cpp - Search the layouts of a training step -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneflow-auto-parallel: builds the search problem (Analysis/AutoParallel.h)
// for each candidate mesh, seeds it with the hand strategies of
// oneflow-apply-strategy, searches, and writes the winner as result layouts
// and `oneflow.operand_layouts` for propagation and boxing to realize.
//
//===----------------------------------------------------------------------===//

#include "PropagatedSeed.h"
#include "Strategy.h"

#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

#define DEBUG_TYPE "oneflow-auto-parallel"

namespace mlir::oneflow {
#define GEN_PASS_DEF_AUTOPARALLELPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

static std::string formatMesh(ArrayRef<int64_t> mesh) {
  return "[" +
         llvm::join(
             llvm::map_range(mesh, [](int64_t d) { return std::to_string(d); }),
             ", ") +
         "]";
}

/// Ranks 0 to `devices` - 1.
static SmallVector<int64_t> allRanks(int64_t devices) {
  SmallVector<int64_t> ranks;
  for (int64_t r = 0; r < devices; ++r)
    ranks.push_back(r);
  return ranks;
}

/// Every mesh of one or two axes with `devices` ranks.
static SmallVector<SmallVector<int64_t>> candidateMeshes(int64_t devices) {
  SmallVector<SmallVector<int64_t>> meshes{{devices}};
  for (int64_t a = 2; a <= devices / 2; ++a)
    if (devices % a == 0)
      meshes.push_back({a, devices / a});
  return meshes;
}

namespace {
/// What one mesh axis of a seed does.
struct AxisRole {
  bool data;
  /// Data axes: shard variables on dimension 0 (ZeRO).
  bool shard = false;
};
} // namespace

/// The sources' layouts of the hand strategy with `roles` on `mesh`.
static Seed makeSeed(func::FuncOp func, StringRef name, ArrayRef<int64_t> mesh,
                     ArrayRef<AxisRole> roles) {
  MLIRContext *context = func.getContext();
  SbpAttr broadcast = SbpAttr::getBroadcast(context);
  SmallVector<DenseMap<Operation *, SbpAttr>> tensorAxes(mesh.size());
  for (auto [axis, role] : llvm::enumerate(roles))
    if (!role.data)
      tensorAxes[axis] = deriveTensorParallel(func, mesh[axis]);

  Seed seed;
  seed.name = (name + " " + formatMesh(mesh)).str();
  // Splits that do not fit fall back to B axis by axis.
  auto fitted = [&](RankedTensorType type, SmallVector<SbpAttr> sbps) {
    for (size_t axis = 0; axis < sbps.size(); ++axis) {
      SmallVector<SbpAttr> prefix(sbps.begin(), sbps.begin() + axis + 1);
      if (!fitsShape(type, NdSbpAttr::get(context, prefix),
                     mesh.take_front(axis + 1)))
        sbps[axis] = broadcast;
    }
    return NdSbpAttr::get(context, sbps);
  };
  DenseSet<Operation *> states;
  func.walk([&](Operation *op) {
    if (!isa<SgdUpdateOp, AdamUpdateOp>(op))
      return;
    for (unsigned i : getInPlaceOperands(op))
      if (i != 0)
        if (Operation *state = op->getOperand(i).getDefiningOp())
          states.insert(state);
  });
  func.walk([&](Operation *op) {
    auto type = op->getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                    : nullptr;
    if (!type || states.contains(op))
      return;
    SmallVector<SbpAttr> sbps;
    if (isa<InputOp>(op)) {
      for (const AxisRole &role : roles)
        sbps.push_back(role.data && type.getRank() > 0
                           ? SbpAttr::getSplit(context, 0)
                           : broadcast);
    } else if (isa<VariableOp>(op)) {
      for (auto [axis, role] : llvm::enumerate(roles)) {
        if (role.data)
          sbps.push_back(role.shard && type.getRank() > 0 &&
                                 !ShapedType::isDynamic(type.getDimSize(0)) &&
                                 type.getDimSize(0) % mesh[axis] == 0
                             ? SbpAttr::getSplit(context, 0)
                             : broadcast);
        else
          sbps.push_back(tensorAxes[axis].lookup(op)
                             ? tensorAxes[axis].lookup(op)
                             : broadcast);
      }
    } else {
      return;
    }
    seed.sources[op] = fitted(type, sbps);
  });
  // Optimizer states follow their parameter. (The layout is copied before
  // the state's entry is made: inserting may move the map's entries, and
  // reading through a reference into it once made the seed depend on what
  // the freed memory held.)
  func.walk([&](Operation *op) {
    if (!isa<SgdUpdateOp, AdamUpdateOp>(op))
      return;
    NdSbpAttr layout = seed.sources.lookup(op->getOperand(0).getDefiningOp());
    for (unsigned i : getInPlaceOperands(op))
      if (Operation *state = op->getOperand(i).getDefiningOp();
          i != 0 && state && layout)
        seed.sources[state] = layout;
  });
  return seed;
}

/// The hand strategies on `mesh`, as seeds.
static SmallVector<Seed> makeSeeds(func::FuncOp func, ArrayRef<int64_t> mesh) {
  AxisRole data{true}, zero{true, true}, tensor{false};
  SmallVector<Seed> seeds;
  if (mesh.size() == 1) {
    seeds = {makeSeed(func, "dp", mesh, {data}),
             makeSeed(func, "tp", mesh, {tensor}),
             makeSeed(func, "zero", mesh, {zero})};
  } else {
    seeds = {makeSeed(func, "hybrid", mesh, {data, tensor}),
             makeSeed(func, "dp", mesh, {data, data}),
             makeSeed(func, "tp", mesh, {tensor, tensor}),
             makeSeed(func, "zero", mesh, {zero, zero}),
             makeSeed(func, "tp-dp", mesh, {tensor, data})};
  }
  // Every device computing everything: no communication at all.
  Seed replicated;
  replicated.name = "replicated " + formatMesh(mesh);
  replicated.replicated = true;
  seeds.push_back(std::move(replicated));
  return seeds;
}

/// The strategy `assignment` found on `flat`, the 1-D mesh of all the
/// devices, laid on the 2-D `mesh` as a seed: every op's signature with
/// each layout on both axes. A split of dimension d over all devices is the
/// split of d on both axes (axis 0 cuts d into blocks, axis 1 each block
/// again: device (i, j) holds block i * mesh[1] + j, as rank i * mesh[1] +
/// j does on the 1-D mesh); B and P stay what they are. Strategies that
/// split one tensor over every device (tensor parallelism across both
/// axes) are far from the 2-D hand strategies, which give each axis its
/// own role.
static Seed flattenedSeed(const ParallelProblem &flat,
                          ArrayRef<unsigned> assignment,
                          ArrayRef<int64_t> mesh) {
  Seed seed;
  seed.name = "flat " + formatMesh(flat.getPlacement().getMesh());
  MLIRContext *context = flat.getPlacement().getContext();
  auto onBothAxes = [&](NdSbpAttr layout) {
    return NdSbpAttr::get(context,
                          SmallVector<SbpAttr>(mesh.size(), layout[0]));
  };
  for (auto [n, node] : llvm::enumerate(flat.getNodes())) {
    if (node.isLayoutChange)
      continue;
    const NdSbpSignature &chosen = node.choices[assignment[n]];
    NdSbpSignature mapped;
    for (NdSbpAttr layout : chosen.operands)
      mapped.operands.push_back(onBothAxes(layout));
    for (NdSbpAttr layout : chosen.results)
      mapped.results.push_back(onBothAxes(layout));
    if (isa<InputOp, VariableOp>(node.op) &&
        fitsShape(cast<RankedTensorType>(node.op->getResult(0).getType()),
                  mapped.results[0], mesh))
      seed.sources[node.op] = mapped.results[0];
    seed.signatures[node.op] = std::move(mapped);
  }
  return seed;
}

/// Writes `result` on `func`: every op's result layouts and
/// `oneflow.operand_layouts` (stale ones go), the function's type, and the
/// step time predicted, for the tools to set next to the measured one.
static void writeStrategy(func::FuncOp func, ParallelProblem &problem,
                          const SearchResult &result) {
  MLIRContext *context = func.getContext();
  func.walk([&](Operation *op) { op->removeAttr(kOperandLayoutsAttrName); });
  for (auto [n, node] : llvm::enumerate(problem.getNodes())) {
    unsigned choice = result.assignment[n];
    for (OpResult value : node.op->getResults()) {
      auto type = cast<RankedTensorType>(value.getType());
      value.setType(RankedTensorType::get(
          type.getShape(), type.getElementType(),
          problem.resultLayout(n, value.getResultNumber(), choice)));
    }
    if (node.op->getNumOperands() == 0)
      continue;
    SmallVector<Attribute> layouts;
    for (unsigned i = 0, e = node.op->getNumOperands(); i < e; ++i)
      layouts.push_back(problem.operandLayout(n, i, choice));
    operandLayoutsAttr(context).setAttr(node.op,
                                        ArrayAttr::get(context, layouts));
  }
  SmallVector<Type> results(
      func.getBody().back().getTerminator()->getOperandTypes());
  func.setFunctionType(
      FunctionType::get(context, func.getBody().getArgumentTypes(), results));
  func->setAttr(
      kPredictedStepAttrName,
      FloatAttr::get(Float64Type::get(context), result.cost.seconds()));
}

namespace {

/// One mesh's problem and what the search found on it.
struct MeshOutcome {
  SmallVector<int64_t> mesh;
  std::unique_ptr<ParallelProblem> problem;
  SearchResult result;
  /// The hand strategies under the same model (greedily completed).
  SmallVector<std::pair<std::string, StrategyCost>> hand;
  /// Not searched: no strategy on it can fit the memory limit, or none
  /// can beat the 1-D mesh's (its lower bound).
  bool overMemory = false;
  std::optional<double> prunedBound;
  /// Why it has no strategy; `fatal` when the problem could not be built
  /// (an op the search cannot lay out), which ends the pass.
  std::string error;
  bool fatal = false;

  bool found() const { return !result.assignment.empty(); }
};

/// What the search of every mesh shares.
struct MeshSearch {
  func::FuncOp func;
  DeviceKind kind;
  SmallVector<int64_t> ranks;
  const ClusterDesc &cluster;
  const SearchOptions &options;
  bool exact;
  /// The hand strategies as propagation lays them out, each on its mesh.
  SmallVector<PropagatedSeed> propagated;

  /// Searches `shape`: builds its problem, seeds it (also with `flat`, the
  /// 1-D mesh's strategy, laid on a 2-D mesh) and searches, unless the
  /// problem's lower bound is at least `beat`.
  MeshOutcome run(ArrayRef<int64_t> shape, const MeshOutcome *flat,
                  double beat);
};

struct AutoParallelPass
    : public mlir::oneflow::impl::AutoParallelPassBase<AutoParallelPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The meshes to search, from the options or a layout the program
  /// states; fails (having reported it) when they disagree.
  FailureOr<SmallVector<SmallVector<int64_t>>> meshesToSearch(DeviceKind kind);
  void printExplanation(const MeshOutcome &best, ArrayRef<MeshOutcome> outcomes,
                        const SearchOptions &options, double seconds);
};

} // namespace

MeshOutcome MeshSearch::run(ArrayRef<int64_t> shape, const MeshOutcome *flat,
                            double beat) {
  MeshOutcome outcome;
  outcome.mesh.assign(shape.begin(), shape.end());
  auto placement =
      PlacementAttr::get(func.getContext(), kind, ranks, outcome.mesh);
  FailureOr<std::unique_ptr<ParallelProblem>> problem =
      ParallelProblem::build(func, placement, cluster, outcome.error);
  if (failed(problem)) {
    outcome.fatal = true;
    return outcome;
  }
  outcome.problem = std::move(*problem);
  ParallelProblem &built = *outcome.problem;
  if (options.memoryLimitBytes &&
      *options.memoryLimitBytes < built.minimumMemory()) {
    outcome.overMemory = true;
    return outcome;
  }
  if (double bound = built.localLowerBound(); bound >= beat) {
    outcome.prunedBound = bound;
    return outcome;
  }
  SmallVector<Seed> seeds = makeSeeds(func, shape);
  for (const PropagatedSeed &hand : propagated)
    if (ArrayRef<int64_t>(hand.mesh) == shape)
      seeds.push_back(hand.seed);
  if (!exact && flat && flat->found() && shape.size() == 2)
    seeds.push_back(
        flattenedSeed(*flat->problem, flat->result.assignment, shape));
  for (const Seed &seed : seeds) {
    FailureOr<SmallVector<unsigned>> completed = built.completeSeed(seed);
    if (succeeded(completed))
      outcome.hand.push_back({seed.name, built.evaluate(*completed)});
  }
  FailureOr<SearchResult> result =
      exact ? searchExact(built, options, outcome.error)
            : searchCoordinateDescent(built, seeds, options, outcome.error);
  if (succeeded(result))
    outcome.result = std::move(*result);
  return outcome;
}

FailureOr<SmallVector<SmallVector<int64_t>>>
AutoParallelPass::meshesToSearch(DeviceKind kind) {
  func::FuncOp func = getOperation();
  PlacementAttr stated;
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (GlobalAttr global = getGlobalEncoding(type); global && !stated)
        stated = global.getPlacement();
  });
  SmallVector<SmallVector<int64_t>> meshes;
  if (!mesh.empty()) {
    int64_t product = 1;
    for (int64_t size : mesh)
      product *= size;
    if (product != devices ||
        llvm::any_of(mesh, [](int64_t s) { return s < 1; })) {
      func.emitError() << "oneflow-auto-parallel: mesh " << formatMesh(mesh)
                       << " does not have " << static_cast<int64_t>(devices)
                       << " devices";
      return failure();
    }
    meshes.push_back(SmallVector<int64_t>(mesh.begin(), mesh.end()));
  } else if (stated) {
    meshes.push_back(SmallVector<int64_t>(stated.getMesh()));
  } else {
    meshes = candidateMeshes(devices);
  }
  for (ArrayRef<int64_t> shape : meshes)
    if (stated && stated != PlacementAttr::get(&getContext(), kind,
                                               allRanks(devices), shape)) {
      func.emitError() << "oneflow-auto-parallel: the program states layouts "
                          "on "
                       << stated << ", not on the "
                       << static_cast<int64_t>(devices)
                       << " devices of the search";
      return failure();
    }
  return meshes;
}

void AutoParallelPass::runOnOperation() {
  func::FuncOp func = getOperation();
  MLIRContext *context = &getContext();
  auto start = std::chrono::steady_clock::now();

  if (getMicroBatches(func) > 1 || getStages(func) > 1) {
    func.emitError() << "oneflow-auto-parallel searches programs without "
                        "micro-batches or pipeline stages";
    return signalPassFailure();
  }
  if (devices < 1) {
    func.emitError() << "oneflow-auto-parallel: devices must be at least 1";
    return signalPassFailure();
  }
  std::optional<DeviceKind> kind = symbolizeDeviceKind(device);
  if (!kind) {
    func.emitError() << "oneflow-auto-parallel: device '" << device
                     << "' is not cpu or cuda";
    return signalPassFailure();
  }
  if (search != "cd" && search != "exact") {
    func.emitError() << "oneflow-auto-parallel: search '" << search
                     << "' is not cd or exact";
    return signalPassFailure();
  }
  if (memoryLimitBytes < 0) {
    func.emitError() << "oneflow-auto-parallel: memory-limit-bytes must be at "
                        "least 0";
    return signalPassFailure();
  }
  // Without a file: the figures of the library a run on these devices
  // uses by default.
  std::string figures = cluster;
  if (figures.empty())
    figures = (ClusterDesc::kBuiltinPrefix +
               (*kind == DeviceKind::cuda ? "nccl" : "inproc"))
                  .str();
  std::string loadError;
  FailureOr<ClusterDesc> loaded = ClusterDesc::load(figures, loadError);
  if (failed(loaded)) {
    func.emitError() << loadError;
    return signalPassFailure();
  }
  FailureOr<SmallVector<SmallVector<int64_t>>> meshes = meshesToSearch(*kind);
  if (failed(meshes))
    return signalPassFailure();

  SearchOptions options;
  options.groupLayers = groupLayers;
  options.windowUnits = windowUnits;
  if (memoryLimitBytes > 0)
    options.memoryLimitBytes = static_cast<double>(memoryLimitBytes);
  bool exact = search == "exact";
  MeshSearch searcher{func, *kind, allRanks(devices), *loaded, options, exact,
                      {}};
  if (!exact)
    for (StringRef hand : {"dp", "tp", "zero", "hybrid"})
      if (std::optional<PropagatedSeed> seed = propagatedSeed(
              func, hand, devices, device, figures, *loaded))
        searcher.propagated.push_back(std::move(*seed));

  // The 1-D mesh first (searched for its strategy alone when not among the
  // meshes): the coordinate descent seeds each 2-D mesh with its strategy,
  // and a 2-D mesh whose lower bound cannot beat it is not searched. The
  // other meshes then search on threads where the context has them.
  std::vector<MeshOutcome> outcomes(meshes->size());
  std::optional<MeshOutcome> line;
  const MeshOutcome *flat = nullptr;
  size_t first = 0;
  if (meshes->front().size() == 1) {
    outcomes[0] = searcher.run(meshes->front(), nullptr, INFINITY);
    flat = &outcomes[0];
    first = 1;
  } else if (!searcher.exact && meshes->front().size() == 2) {
    line = searcher.run({devices}, nullptr, INFINITY);
    flat = &*line;
  }
  // Only a 1-D mesh among the candidates can make another not worth
  // searching: one searched for its seed alone is never the answer.
  double beat =
      first == 1 && flat->found() ? flat->result.cost.seconds() : INFINITY;
  parallelFor(context, first, meshes->size(), [&](size_t i) {
    outcomes[i] = searcher.run((*meshes)[i], flat, beat);
  });

  const MeshOutcome *best = nullptr;
  std::string lastError;
  double leastMemory = INFINITY;
  for (const MeshOutcome &outcome : outcomes) {
    if (outcome.fatal) {
      func.emitError() << "oneflow-auto-parallel: " << outcome.error;
      return signalPassFailure();
    }
    leastMemory = std::min(leastMemory, outcome.problem->minimumMemory());
    if (!outcome.error.empty())
      lastError = outcome.error;
    if (outcome.found() &&
        (!best || outcome.result.cost.seconds() < best->result.cost.seconds()))
      best = &outcome;
  }
  if (!best) {
    InFlightDiagnostic diag = func.emitError() << "oneflow-auto-parallel: ";
    if (options.memoryLimitBytes && *options.memoryLimitBytes < leastMemory)
      diag << "no strategy fits in " << static_cast<int64_t>(memoryLimitBytes)
           << " bytes per device: the smallest possible is "
           << static_cast<int64_t>(std::ceil(leastMemory))
           << " bytes per device (every tensor at its smallest piece)";
    else
      diag << lastError;
    return signalPassFailure();
  }

  writeStrategy(func, *best->problem, best->result);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (explain)
    printExplanation(*best, outcomes, options, seconds);
}

void AutoParallelPass::printExplanation(const MeshOutcome &best,
                                        ArrayRef<MeshOutcome> outcomes,
                                        const SearchOptions &options,
                                        double seconds) {
  llvm::raw_ostream &os = llvm::outs();
  const SearchResult &result = best.result;
  SmallVector<std::string> searched, pruned;
  const MeshOutcome *line = nullptr;
  for (const MeshOutcome &outcome : outcomes) {
    if (outcome.mesh.size() == 1 && outcome.found())
      line = &outcome;
    if (outcome.prunedBound)
      pruned.push_back(
          formatMesh(outcome.mesh) +
          llvm::formatv(" ({0:F2} us)", *outcome.prunedBound * 1e6).str());
    else if (!outcome.overMemory)
      searched.push_back(formatMesh(outcome.mesh));
  }
  os << "oneflow-auto-parallel: " << static_cast<int64_t>(devices)
     << " devices, meshes searched " << llvm::join(searched, " ");
  if (!pruned.empty() && line)
    os << "; skipped " << llvm::join(pruned, ", ")
       << llvm::formatv(", whose lower bound is not below {0:F2} us, the "
                        "best of {1}",
                        line->result.cost.seconds() * 1e6,
                        formatMesh(line->mesh));
  os << "; chose mesh " << formatMesh(best.mesh);
  if (result.origin == "exact")
    os << " by the integer program ("
       << (result.optimal ? "optimal" : "time limit, best found") << ")";
  else
    os << " by coordinate descent from " << result.origin << " ("
       << result.sweeps << " sweeps, " << result.moves << " moves)";
  os << " in " << llvm::format("%.2f", seconds) << " s\n";
  // An integer program stopped by its time limit: how far from the optimum
  // at most, by the LP relaxation.
  if (result.origin == "exact" && !result.optimal) {
    std::string error;
    FailureOr<double> bound = lowerBound(*best.problem, options, error);
    if (succeeded(bound))
      os << llvm::format("  LP relaxation: no strategy on this mesh is "
                         "faster than %.2f us\n",
                         *bound * 1e6);
  }

  printCostHeader(os);
  printCostRow(os, "auto", result.cost);
  for (const MeshOutcome &outcome : outcomes)
    for (const auto &[name, cost] : outcome.hand)
      printCostRow(os, name + " (seed)", cost);

  printOpCosts(*best.problem, result.assignment, os);
}

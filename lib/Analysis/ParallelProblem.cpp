//===- ParallelProblem.cpp - A training graph as an SBP search problem ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"

#include <limits>

using namespace mlir;
using namespace mlir::oneflow;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

static bool hasTensors(Operation *op) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// The nd-SBPs a source's result can have on `mesh`: per axis `B` or a
/// split of any dimension, those that fit; all-broadcast first.
static SmallVector<NdSbpAttr> sourceLayouts(RankedTensorType type,
                                            ArrayRef<int64_t> mesh) {
  MLIRContext *context = type.getContext();
  SmallVector<SbpAttr> perAxis{SbpAttr::getBroadcast(context)};
  for (int64_t d = 0; d < type.getRank(); ++d)
    perAxis.push_back(SbpAttr::getSplit(context, d));
  SmallVector<NdSbpAttr> layouts;
  SmallVector<size_t> digits(mesh.size(), 0);
  while (true) {
    SmallVector<SbpAttr> sbps;
    for (size_t digit : digits)
      sbps.push_back(perAxis[digit]);
    NdSbpAttr ndSbp = NdSbpAttr::get(context, sbps);
    if (fitsShape(type, ndSbp, mesh))
      layouts.push_back(ndSbp);
    int64_t axis = static_cast<int64_t>(mesh.size()) - 1;
    for (; axis >= 0; --axis) {
      if (++digits[axis] < perAxis.size())
        break;
      digits[axis] = 0;
    }
    if (axis < 0)
      return layouts;
  }
}

/// Bytes one device holds of `type` laid out as `layout` (the first
/// device's piece, the largest).
static double localBytes(RankedTensorType type, GlobalAttr layout) {
  std::vector<int64_t> shape;
  for (int64_t dim : type.getShape())
    shape.push_back(ShapedType::isDynamic(dim) ? 1 : dim);
  std::vector<int64_t> piece =
      ofsupport::localShape(shape, toSupportLayout(layout), 0);
  double elements = 1;
  for (int64_t dim : piece)
    elements *= dim;
  return elements * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// `ndSbp` with every partial axis summed (B).
static NdSbpAttr summedLayout(NdSbpAttr ndSbp) {
  MLIRContext *context = ndSbp.getContext();
  SmallVector<SbpAttr> summed;
  for (SbpAttr s : ndSbp)
    summed.push_back(s.isPartial() ? SbpAttr::getBroadcast(context) : s);
  return NdSbpAttr::get(context, summed);
}

/// Fails with `error` set to "LOC: 'OP' WHAT".
static LogicalResult failAt(Operation *op, const Twine &what,
                            std::string &error) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  error = (location + ": '" + op->getName().getStringRef() + "' " + what).str();
  return failure();
}

LogicalResult ParallelProblem::addLayoutChangeNode(Operation *op,
                                                   unsigned position,
                                                   std::string &error) {
  GlobalAttr from = getGlobalEncoding(op->getOperand(0).getType());
  GlobalAttr to = getGlobalEncoding(op->getResult(0).getType());
  if (!from || !to || from.getPlacement() != placement ||
      to.getPlacement() != placement)
    return failAt(op,
                  "changes layouts between placements or without stating "
                  "both; the search needs one placement",
                  error);
  ProblemNode node;
  node.op = op;
  node.position = position;
  node.isLayoutChange = true;
  node.choices.push_back({{from.getNdSbp()}, {to.getNdSbp()}});
  node.compute.push_back(cachedBoxing(
      cast<RankedTensorType>(op->getResult(0).getType()), from, to));
  node.workspace.push_back(0);
  nodes.push_back(std::move(node));
  return success();
}

LogicalResult ParallelProblem::addOpNode(Operation *op, unsigned position,
                                         std::string &error) {
  auto sbpOp = dyn_cast<SbpInterface>(op);
  if (!sbpOp) {
    if (isa<TransferOp>(op) || op->getNumResults() == 0)
      return failAt(op,
                    "changes layouts already; the search starts from a "
                    "program without layout changes",
                    error);
    return failAt(op, "has no SBP rule (SbpInterface)", error);
  }
  if (!isa<CostInterface>(op))
    return failAt(op, "has no cost rule (CostInterface)", error);
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (!isa<RankedTensorType>(type))
      return failAt(op, "has an unranked tensor", error);

  ArrayRef<int64_t> mesh = placement.getMesh();
  ProblemNode node;
  node.op = op;
  node.position = position;
  if (isa<InputOp, VariableOp>(op)) {
    for (NdSbpAttr layout : sourceLayouts(
             cast<RankedTensorType>(op->getResult(0).getType()), mesh)) {
      NdSbpSignature signature;
      signature.results.push_back(layout);
      node.choices.push_back(std::move(signature));
    }
  } else {
    // What propagation would allow (stated and pinned layouts, shapes);
    // in-place operands are edges that cannot box.
    std::string why;
    FailureOr<PlacementAttr> placed = getOpPlacement(op, placement, why);
    if (failed(placed))
      return failAt(op, why, error);
    if (*placed != placement)
      return failAt(op, "runs on another placement than the search's", error);
    FailureOr<SmallVector<NdSbpSignature>> legal =
        getLegalSignatures(sbpOp, placement, {}, why);
    if (failed(legal))
      return failAt(op, why, error);
    node.choices = std::move(*legal);
  }
  // A source's stated layout stays: only choices that give it.
  for (OpResult result : op->getResults()) {
    GlobalAttr stated = getGlobalEncoding(result.getType());
    if (!stated || op->getNumOperands() != 0)
      continue;
    if (stated.getPlacement() != placement)
      return failAt(op,
                    "states a layout on another placement than the search's",
                    error);
    llvm::erase_if(node.choices, [&](const NdSbpSignature &choice) {
      return choice.results[result.getResultNumber()] != stated.getNdSbp();
    });
  }
  if (node.choices.empty())
    return failAt(op,
                  "has no layout that fits its shape and the one it states "
                  "on this mesh",
                  error);
  // Sources compute nothing, but each fires once a step like any op.
  bool source = isa<InputOp, VariableOp>(op);
  double workspace = cast<CostInterface>(op).getWorkspaceBytes();
  for (const NdSbpSignature &choice : node.choices) {
    int64_t pieces = choice.countPieces(mesh);
    node.compute.push_back(
        source ? cluster.opOverhead
               : computeCost(op, pieces, cluster) +
                     hiddenCommunicationCost(op, choice.results, placement,
                                             cluster));
    node.workspace.push_back(workspace / std::max<int64_t>(1, pieces));
  }
  nodes.push_back(std::move(node));
  addOutputCosts(nodes.size() - 1);
  return success();
}

LogicalResult
ParallelProblem::connect(const DenseMap<Operation *, unsigned> &nodeOf,
                         const DenseMap<Operation *, unsigned> &positionOf,
                         std::string &error) {
  unsigned numNodes = nodes.size();
  inEdges.resize(numNodes);
  outEdges.resize(numNodes);
  lastUses.resize(numNodes);
  for (unsigned n = 0; n < numNodes; ++n) {
    Operation *op = nodes[n].op;
    lastUses[n].assign(op->getNumResults(), nodes[n].position);
    for (OpResult result : op->getResults())
      for (Operation *user : result.getUsers())
        lastUses[n][result.getResultNumber()] =
            std::max(lastUses[n][result.getResultNumber()],
                     positionOf.lookup(user));
    SmallVector<unsigned> inPlace = getInPlaceOperands(op);
    for (OpOperand &operand : op->getOpOperands()) {
      auto result = dyn_cast<OpResult>(operand.get());
      if (!result || !nodeOf.count(result.getOwner()))
        return failAt(op, "reads a value the search cannot lay out", error);
      ProblemEdge edge{nodeOf.lookup(result.getOwner()),
                       result.getResultNumber(), n, operand.getOperandNumber(),
                       llvm::is_contained(inPlace, operand.getOperandNumber())};
      inEdges[n].push_back(edges.size());
      outEdges[edge.producer].push_back(edges.size());
      edges.push_back(edge);
    }
  }
  return success();
}

FailureOr<std::unique_ptr<ParallelProblem>>
ParallelProblem::build(func::FuncOp func, PlacementAttr placement,
                       const ClusterDesc &cluster, std::string &error) {
  std::unique_ptr<ParallelProblem> problem(new ParallelProblem());
  problem->placement = placement;
  problem->cluster = cluster;
  for (BlockArgument arg : func.getArguments())
    if (isa<TensorType>(arg.getType())) {
      error = "function arguments cannot be laid out by the search; read "
              "data with oneflow.input";
      return failure();
    }

  DenseMap<Operation *, unsigned> nodeOf;
  DenseMap<Operation *, unsigned> positionOf;
  unsigned position = 0;
  for (Operation &op : func.getBody().front()) {
    positionOf[&op] = position++;
    if (isa<func::ReturnOp, OutputOp>(op) || !hasTensors(&op))
      continue;
    unsigned index = problem->nodes.size();
    if (failed(isa<BoxingOp>(op)
                   ? problem->addLayoutChangeNode(&op, positionOf[&op], error)
                   : problem->addOpNode(&op, positionOf[&op], error)))
      return failure();
    nodeOf[&op] = index;
  }
  problem->numPositions = position;
  if (failed(problem->connect(nodeOf, positionOf, error)))
    return failure();
  problem->indexLayouts();
  return problem;
}

void ParallelProblem::addOutputCosts(unsigned n) {
  ProblemNode &node = nodes[n];
  MLIRContext *context = placement.getContext();
  for (OpResult result : node.op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (type.getRank() != 0 ||
        llvm::none_of(result.getUsers(),
                      [](Operation *user) { return isa<OutputOp>(user); }))
      continue;
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      NdSbpAttr ndSbp = node.choices[c].results[result.getResultNumber()];
      if (llvm::none_of(ndSbp, [](SbpAttr s) { return s.isPartial(); }))
        continue;
      node.compute[c] += cachedBoxing(
          type, resultLayout(n, result.getResultNumber(), c),
          GlobalAttr::get(context, placement, summedLayout(ndSbp)));
    }
  }
}

GlobalAttr ParallelProblem::resultLayout(unsigned node, unsigned r,
                                         unsigned choice) const {
  return GlobalAttr::get(placement.getContext(), placement,
                         nodes[node].choices[choice].results[r]);
}

GlobalAttr ParallelProblem::operandLayout(unsigned node, unsigned i,
                                          unsigned choice) const {
  return GlobalAttr::get(placement.getContext(), placement,
                         nodes[node].choices[choice].operands[i]);
}

void ParallelProblem::indexLayouts() {
  DenseMap<Attribute, unsigned> layoutNumber;
  auto number = [&](NdSbpAttr layout) {
    auto [it, inserted] = layoutNumber.try_emplace(layout, layouts.size());
    if (inserted)
      layouts.push_back(layout);
    return it->second;
  };
  for (const ProblemNode &node : nodes) {
    SmallVector<unsigned> results, operands;
    for (const NdSbpSignature &choice : node.choices) {
      for (NdSbpAttr layout : choice.results)
        results.push_back(number(layout));
      for (NdSbpAttr layout : choice.operands)
        operands.push_back(number(layout));
    }
    resultIndex.push_back(std::move(results));
    operandIndex.push_back(std::move(operands));
  }
  DenseMap<Type, unsigned> typeNumber;
  for (const ProblemEdge &edge : edges) {
    auto type = cast<RankedTensorType>(
        nodes[edge.producer].op->getResult(edge.result).getType());
    auto logical =
        RankedTensorType::get(type.getShape(), type.getElementType());
    auto [it, inserted] = typeNumber.try_emplace(logical, edgeTypes.size());
    if (inserted)
      edgeTypes.push_back(logical);
    edgeKeys.push_back({edge.producer, edge.result,
                        nodes[edge.producer].op->getNumResults(), edge.consumer,
                        edge.operand, nodes[edge.consumer].op->getNumOperands(),
                        it->second, edge.inPlace});
  }
  size_t slots = layouts.size() * layouts.size();
  for (size_t t = 0, te = edgeTypes.size(); t < te; ++t) {
    typeCosts.emplace_back(new std::atomic<double>[slots]);
    for (size_t i = 0; i < slots; ++i)
      typeCosts.back()[i].store(std::numeric_limits<double>::quiet_NaN(),
                                std::memory_order_relaxed);
  }
}

double ParallelProblem::priceEdge(unsigned e, unsigned have, unsigned need) {
  MLIRContext *context = placement.getContext();
  return cachedBoxing(edgeTypes[edgeKeys[e].type],
                      GlobalAttr::get(context, placement, layouts[have]),
                      GlobalAttr::get(context, placement, layouts[need]));
}

double ParallelProblem::cachedBoxing(RankedTensorType type, GlobalAttr from,
                                     GlobalAttr to) {
  auto logical = RankedTensorType::get(type.getShape(), type.getElementType());
  auto key = std::make_tuple(Type(logical), Attribute(from), Attribute(to));
  {
    std::lock_guard<std::mutex> lock(boxingMutex);
    if (auto it = boxingCosts.find(key); it != boxingCosts.end())
      return it->second;
  }
  // Priced outside the lock: another thread may price the same pair, to
  // the same value.
  double seconds = boxingCost(logical, from, to, cluster);
  std::lock_guard<std::mutex> lock(boxingMutex);
  boxingCosts.try_emplace(key, seconds);
  return seconds;
}

double ParallelProblem::resultBytes(unsigned node, unsigned r,
                                    unsigned choice) const {
  auto type = cast<RankedTensorType>(nodes[node].op->getResult(r).getType());
  return localBytes(type, resultLayout(node, r, choice));
}

bool ParallelProblem::isPersistent(unsigned node) const {
  return isa<VariableOp>(nodes[node].op);
}

unsigned ParallelProblem::lastUse(unsigned node, unsigned r) const {
  return lastUses[node][r];
}

StrategyCost ParallelProblem::evaluate(ArrayRef<unsigned> assignment) {
  StrategyCost cost;
  // Memory: a difference array over positions for values that die.
  SmallVector<double> change(numPositions + 1, 0.0);
  for (auto [n, node] : llvm::enumerate(nodes)) {
    (node.isLayoutChange ? cost.commSeconds : cost.computeSeconds) +=
        node.compute[assignment[n]];
    cost.memoryBytes += node.workspace[assignment[n]];
    for (unsigned r = 0, e = node.op->getNumResults(); r < e; ++r) {
      double bytes = resultBytes(n, r, assignment[n]);
      if (isPersistent(n)) {
        cost.memoryBytes += bytes;
        continue;
      }
      change[node.position] += bytes;
      change[lastUse(n, r) + 1] -= bytes;
    }
  }
  // One boxing per result and layout its readers need: readers that need
  // the same layout share it (oneflow-insert-boxing boxes a value once per
  // layout; a gradient the optimizer and the non-finite check both read
  // whole is all-reduced once).
  DenseSet<std::tuple<unsigned, unsigned, unsigned>> boxed;
  for (auto [e, edge] : llvm::enumerate(edges)) {
    unsigned need = neededLayout(e, assignment[edge.consumer]);
    if (need != givenLayout(e, assignment[edge.producer]) &&
        !boxed.insert({edge.producer, edge.result, need}).second)
      continue;
    cost.commSeconds +=
        edgeCost(e, assignment[edge.producer], assignment[edge.consumer]);
  }
  double live = 0, peak = 0;
  for (double delta : change) {
    live += delta;
    peak = std::max(peak, live);
  }
  cost.memoryBytes += peak;
  return cost;
}

double ParallelProblem::localLowerBound() {
  double bound = 0;
  SmallVector<unsigned> given;
  for (auto [n, node] : llvm::enumerate(nodes)) {
    // Per operand edge: the layouts its producer can give it.
    SmallVector<SmallVector<unsigned>> sources;
    for (unsigned e : inEdges[n]) {
      SmallVector<unsigned> layouts;
      unsigned producer = edges[e].producer;
      for (unsigned c = 0, ce = nodes[producer].choices.size(); c < ce; ++c)
        layouts.push_back(givenLayout(e, c));
      llvm::sort(layouts);
      layouts.erase(std::unique(layouts.begin(), layouts.end()), layouts.end());
      sources.push_back(std::move(layouts));
    }
    double least = kInfinity;
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      double cost = node.compute[c];
      for (auto [i, e] : llvm::enumerate(inEdges[n])) {
        unsigned need = neededLayout(e, c);
        double cheapest = kInfinity;
        for (unsigned have : sources[i])
          cheapest = std::min(cheapest, layoutCost(e, have, need));
        cost += cheapest;
      }
      least = std::min(least, cost);
    }
    bound += least;
  }
  return bound;
}

double ParallelProblem::minimumMemory() const {
  SmallVector<double> change(numPositions + 1, 0.0);
  double persistent = 0;
  for (auto [n, node] : llvm::enumerate(nodes)) {
    persistent += *llvm::min_element(node.workspace);
    for (unsigned r = 0, e = node.op->getNumResults(); r < e; ++r) {
      double least = kInfinity;
      for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c)
        least = std::min(least, resultBytes(n, r, c));
      if (isPersistent(n)) {
        persistent += least;
        continue;
      }
      change[node.position] += least;
      change[lastUse(n, r) + 1] -= least;
    }
  }
  double live = 0, peak = 0;
  for (double delta : change) {
    live += delta;
    peak = std::max(peak, live);
  }
  return persistent + peak;
}

FailureOr<SmallVector<unsigned>>
ParallelProblem::completeSeed(const Seed &seed) {
  SmallVector<unsigned> assignment(nodes.size(), 0);
  MLIRContext *context = placement.getContext();
  auto isBroadcast = [](const NdSbpSignature &choice) {
    auto all = [](NdSbpAttr sbp) {
      return llvm::all_of(sbp, [](SbpAttr s) { return s.isBroadcast(); });
    };
    return llvm::all_of(choice.operands, all) &&
           llvm::all_of(choice.results, all);
  };
  for (auto [n, node] : llvm::enumerate(nodes)) {
    auto replicated = llvm::find_if(node.choices, isBroadcast);
    if (seed.replicated && replicated != node.choices.end()) {
      assignment[n] = replicated - node.choices.begin();
      continue;
    }
    if (auto it = seed.signatures.find(node.op); it != seed.signatures.end()) {
      auto same = llvm::find_if(node.choices, [&](const NdSbpSignature &c) {
        return c.operands == it->second.operands &&
               c.results == it->second.results;
      });
      if (same != node.choices.end()) {
        assignment[n] = same - node.choices.begin();
        continue;
      }
    }
    if (node.op->getNumOperands() == 0) {
      NdSbpAttr wanted = seed.sources.lookup(node.op);
      unsigned found = node.choices.size();
      for (auto [c, choice] : llvm::enumerate(node.choices))
        if (wanted ? choice.results[0] == wanted
                   : (isBroadcast(choice) && found == node.choices.size()))
          found = c;
      if (found == node.choices.size() && wanted)
        return failure();
      assignment[n] = found == node.choices.size() ? 0 : found;
      continue;
    }
    // The cheapest choice given the producers' choices; a partial result
    // is charged the all-reduce that will sum it (as propagation does).
    double best = kInfinity;
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      double cost = node.compute[c];
      for (unsigned e : inEdges[n])
        cost += edgeCost(e, assignment[edges[e].producer], c);
      for (auto [r, ndSbp] : llvm::enumerate(node.choices[c].results)) {
        if (llvm::none_of(ndSbp, [](SbpAttr s) { return s.isPartial(); }))
          continue;
        cost += cachedBoxing(
            cast<RankedTensorType>(node.op->getResult(r).getType()),
            resultLayout(n, r, c),
            GlobalAttr::get(context, placement, summedLayout(ndSbp)));
      }
      if (cost < best) {
        best = cost;
        assignment[n] = c;
      }
    }
  }
  return assignment;
}

//===- ClusterDesc.cpp - The machine the cost model prices for ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The cluster description of CostModel.h: its defaults, its JSON file (every
// malformed key reported with the file and the key) and the link a group of
// ranks uses.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/Support/JsonDepth.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::oneflow;

// Ranks as threads of one process (the CPU's default, the in-process
// collectives over shared memory): of-calibrate --ranks 4 --threads 1 on a
// 2-core AMD EPYC build machine (2026-11-28) measured all-reduce at 1.1 to
// 2.3 us and 3.7 to 5.1 GB/s, the other collectives at 1.7 to 5.4 us and
// 2.7 to 5.4 GB/s (alone and along either axis of a 2x2 mesh).
static constexpr double kSharedMemoryAlpha = 2e-6;
static constexpr double kSharedMemoryBeta = 4e9;
// Ranks as processes, Gloo over loopback TCP: bench-collective-alpha-beta
// (2 ranks) on the 2-core build machine, best of three runs while other
// builds shared the cores: an 8-byte all-reduce took 265 to 540 us (2
// alpha), a 64 MiB one 85 to 108 ms (2 alpha + n / beta); the fitted model
// then predicts a 64 MiB all-gather within 3 to 15%.
static constexpr double kLoopbackAlpha = 1.3e-4;
static constexpr double kLoopbackBeta = 8.0e8;
// CPU compute: memory bandwidth is a single-thread memcpy of 64 MiB (1.0e10
// to 1.7e10 B/s); flops are half the 370 GFLOP/s two-thread oneDNN matmul
// of bench/README.md (two ranks share the two cores).
static constexpr double kMemoryBandwidth = 1.7e10;
static constexpr double kFlops = 1.8e11;
// NCCL between the GPUs of one node (H100-class, NVLink): alpha and bus
// bandwidth of NCCL's all-reduce for mid-sized messages as nccl-tests
// report them on 8 H100 SXM (about 10 us, 200 GB/s of the 450 GB/s peak);
// f32 matmul at 50 TFLOP/s and 3 TB/s of HBM. Not measured here (no GPU):
// figures to rank layouts by until a calibration exists.
static constexpr double kNvlinkAlpha = 1e-5;
static constexpr double kNvlinkBeta = 2e11;
static constexpr double kGpuMemoryBandwidth = 3e12;
static constexpr double kGpuFlops = 5e13;

ClusterDesc ClusterDesc::getDefault() { return *getBuiltin("inproc"); }

std::optional<ClusterDesc> ClusterDesc::getBuiltin(StringRef library) {
  ClusterDesc desc;
  desc.ranksPerNode = std::numeric_limits<int32_t>::max();
  desc.memoryBandwidth = kMemoryBandwidth;
  desc.flops = kFlops;
  if (library == "inproc") {
    desc.intraNode = {kSharedMemoryAlpha, kSharedMemoryBeta};
  } else if (library == "gloo") {
    desc.intraNode = {kLoopbackAlpha, kLoopbackBeta};
  } else if (library == "nccl") {
    desc.intraNode = {kNvlinkAlpha, kNvlinkBeta};
    desc.memoryBandwidth = kGpuMemoryBandwidth;
    desc.flops = kGpuFlops;
  } else {
    return std::nullopt;
  }
  desc.interNode = desc.intraNode;
  return desc;
}

namespace {
/// Reads keys of one JSON object into fields, reporting the first problem
/// as "<source>: key '<path>' ...".
struct JsonReader {
  StringRef source;
  std::string &error;

  bool fail(const Twine &key, const Twine &what) {
    error = (source + ": key '" + key + "' " + what).str();
    return false;
  }

  bool positiveNumber(const llvm::json::Value &value, const Twine &key,
                      double &out, bool allowZero = false) {
    std::optional<double> number = value.getAsNumber();
    // 1e999 reads as infinity: a figure no machine has.
    if (!number || !std::isfinite(*number) || *number < 0 ||
        (!allowZero && *number == 0))
      return fail(key, allowZero ? "must be a finite number at least 0"
                                 : "must be a finite positive number");
    out = *number;
    return true;
  }

  bool link(const llvm::json::Value &value, StringRef key, LinkDesc &out) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(key, "must be an object with 'alpha' and 'beta'");
    // Half a link would price its other half with the built-in figure.
    for (const char *name : {"alpha", "beta"})
      if (!object->get(name))
        return fail(key, Twine("has no '") + name +
                             "' (a link needs both 'alpha' and 'beta')");
    for (const auto &[name, field] : *object) {
      if (name == "alpha") {
        if (!positiveNumber(field, key + ".alpha", out.alpha,
                            /*allowZero=*/true))
          return false;
      } else if (name == "beta") {
        if (!positiveNumber(field, key + ".beta", out.beta))
          return false;
      } else {
        return fail(key + "." + name.str(), "is unknown (expected 'alpha' or "
                                            "'beta')");
      }
    }
    return true;
  }

  /// {"all_reduce": link, ...} into the four slots.
  bool collectives(const llvm::json::Value &value, const Twine &key,
                   std::optional<LinkDesc> &allReduce,
                   std::optional<LinkDesc> &reduceScatter,
                   std::optional<LinkDesc> &allGather,
                   std::optional<LinkDesc> &allToAll) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(key, "must be an object of collectives");
    for (const auto &[name, link] : *object) {
      std::optional<LinkDesc> *slot = name == "all_reduce" ? &allReduce
                                      : name == "reduce_scatter"
                                          ? &reduceScatter
                                      : name == "all_gather" ? &allGather
                                      : name == "all_to_all" ? &allToAll
                                                             : nullptr;
      std::string path = (key + "." + name.str()).str();
      if (!slot)
        return fail(path, "is unknown (expected all_reduce, reduce_scatter, "
                          "all_gather, all_to_all)");
      LinkDesc parsed;
      if (!this->link(link, path, parsed))
        return false;
      *slot = parsed;
    }
    return true;
  }

  /// [{"<amount>": a, "rate": r}, ...] in increasing a.
  bool throughput(const llvm::json::Value &value, StringRef key,
                  StringRef amount, std::vector<ClusterDesc::Throughput> &out) {
    const llvm::json::Array *array = value.getAsArray();
    if (!array || array->empty())
      return fail(key, "must be a non-empty array of {\"" + amount +
                           "\", \"rate\"} objects");
    for (size_t i = 0; i < array->size(); ++i) {
      std::string path = (key + "[" + Twine(i) + "]").str();
      const llvm::json::Object *object = (*array)[i].getAsObject();
      if (!object || object->size() != 2 || !object->get(amount) ||
          !object->get("rate"))
        return fail(path, "must be {\"" + amount +
                              "\": the size of a call, \"rate\": per second}");
      ClusterDesc::Throughput entry;
      if (!positiveNumber(*object->get(amount), path + "." + amount,
                          entry.amount) ||
          !positiveNumber(*object->get("rate"), path + ".rate", entry.rate))
        return false;
      if (!out.empty() && entry.amount <= out.back().amount)
        return fail(path + "." + amount, "must be larger than the one before");
      out.push_back(entry);
    }
    return true;
  }

  /// {"dialect.op": [{"bytes": b, "rate": r}, ...], ...}.
  bool opRates(const llvm::json::Value &value, StringRef key,
               std::map<std::string, std::vector<ClusterDesc::Throughput>,
                        std::less<>> &out) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(key, "must be an object of op names (\"oneflow.gelu\") to "
                       "arrays of {\"bytes\", \"rate\"} objects");
    for (const auto &[name, rates] : *object) {
      std::string path = (key + "." + name.str()).str();
      if (!StringRef(name).contains('.'))
        return fail(path, "is not an op name (dialect.op)");
      if (!throughput(rates, path, "bytes", out[name.str()]))
        return false;
    }
    return true;
  }

  /// [{"mesh": [d, ...], "axis": k, "collectives": {...}}, ...].
  bool meshAxes(const llvm::json::Value &value, StringRef key,
                std::vector<ClusterDesc::MeshAxisFigures> &out) {
    const llvm::json::Array *array = value.getAsArray();
    if (!array)
      return fail(key, "must be an array of {\"mesh\", \"axis\", "
                       "\"collectives\"} objects");
    for (size_t i = 0; i < array->size(); ++i) {
      std::string path = (key + "[" + Twine(i) + "]").str();
      const llvm::json::Object *object = (*array)[i].getAsObject();
      const llvm::json::Array *mesh =
          object ? object->getArray("mesh") : nullptr;
      std::optional<int64_t> axis =
          object ? object->getInteger("axis") : std::nullopt;
      const llvm::json::Value *collectives =
          object ? object->get("collectives") : nullptr;
      if (!mesh || !axis || !collectives || object->size() != 3)
        return fail(path, "must be {\"mesh\": [sizes], \"axis\": a mesh "
                          "axis, \"collectives\": {...}}");
      ClusterDesc::MeshAxisFigures figures;
      for (const llvm::json::Value &size : *mesh) {
        std::optional<int64_t> d = size.getAsInteger();
        if (!d || *d < 1)
          return fail(path + ".mesh", "must list sizes of at least 1");
        figures.mesh.push_back(*d);
      }
      if (figures.mesh.empty() || *axis < 0 ||
          *axis >= static_cast<int64_t>(figures.mesh.size()))
        return fail(path + ".axis", "must be an axis of the mesh");
      figures.axis = *axis;
      if (!this->collectives(*collectives, path + ".collectives",
                             figures.allReduce, figures.reduceScatter,
                             figures.allGather, figures.allToAll))
        return false;
      out.push_back(std::move(figures));
    }
    return true;
  }
};
} // namespace

FailureOr<ClusterDesc> ClusterDesc::parse(StringRef json, StringRef source,
                                          std::string &error) {
  std::string deep = oneflow_support::jsonDepthError(json);
  if (!deep.empty()) {
    error = (source + ": invalid JSON: it " + deep).str();
    return failure();
  }
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value) {
    error =
        (source + ": invalid JSON: " + llvm::toString(value.takeError())).str();
    return failure();
  }
  const llvm::json::Object *object = value->getAsObject();
  if (!object) {
    error = (source + ": the cluster description must be a JSON object").str();
    return failure();
  }
  if (object->empty()) {
    error = (source + ": the cluster description is empty; give at least "
                      "one of ranks_per_node, intra_node, inter_node, "
                      "collectives, mesh_axes, memory_bandwidth, flops, "
                      "op_overhead (of-calibrate writes them)")
                .str();
    return failure();
  }
  ClusterDesc desc = getDefault();
  JsonReader reader{source, error};
  // Keys in sorted order, so that the first problem reported is stable.
  SmallVector<StringRef> keys;
  for (const auto &entry : *object)
    keys.push_back(entry.first);
  llvm::sort(keys);
  for (StringRef key : keys) {
    const llvm::json::Value &field = *object->get(key);
    bool ok = true;
    if (key == "ranks_per_node") {
      std::optional<int64_t> ranks = field.getAsInteger();
      ok = ranks && *ranks >= 1
               ? (desc.ranksPerNode = *ranks, true)
               : reader.fail(key, "must be an integer at least 1");
    } else if (key == "intra_node") {
      ok = reader.link(field, key, desc.intraNode);
    } else if (key == "inter_node") {
      ok = reader.link(field, key, desc.interNode);
    } else if (key == "collectives") {
      ok = reader.collectives(field, key, desc.allReduce, desc.reduceScatter,
                              desc.allGather, desc.allToAll);
    } else if (key == "mesh_axes") {
      ok = reader.meshAxes(field, key, desc.meshAxes);
    } else if (key == "memory_bandwidth") {
      ok = reader.positiveNumber(field, key, desc.memoryBandwidth);
    } else if (key == "op_overhead") {
      ok = reader.positiveNumber(field, key, desc.opOverhead,
                                 /*allowZero=*/true);
    } else if (key == "flops") {
      ok = reader.positiveNumber(field, key, desc.flops);
    } else if (key == "matmul_flops") {
      ok = reader.throughput(field, key, "flops", desc.flopsBySize);
    } else if (key == "elementwise_bandwidth") {
      ok = reader.throughput(field, key, "bytes", desc.bandwidthBySize);
    } else if (key == "op_rates") {
      ok = reader.opRates(field, key, desc.opRates);
    } else if (key == "format" || key == "identity") {
      // of-run's cache of measured figures: what they were measured for.
    } else {
      ok = reader.fail(key, "is unknown (expected ranks_per_node, "
                            "intra_node, inter_node, collectives, "
                            "mesh_axes, memory_bandwidth, flops, "
                            "matmul_flops, elementwise_bandwidth, "
                            "op_rates, op_overhead)");
    }
    if (!ok)
      return failure();
  }
  return desc;
}

FailureOr<ClusterDesc> ClusterDesc::load(StringRef path, std::string &error) {
  if (path.empty())
    return getDefault();
  if (path.consume_front(kBuiltinPrefix)) {
    if (std::optional<ClusterDesc> builtin = getBuiltin(path))
      return *builtin;
    error =
        ("cluster '" + kBuiltinPrefix + path +
         "': no such built-in figures (expected " + kBuiltinPrefix +
         "inproc, " + kBuiltinPrefix + "gloo or " + kBuiltinPrefix + "nccl)")
            .str();
    return failure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = (path + ": cannot read: " + buffer.getError().message()).str();
    return failure();
  }
  return parse((*buffer)->getBuffer(), path, error);
}

/// The rate of a call of `amount` in `table` (see flopsPerSecond).
static double interpolate(ArrayRef<ClusterDesc::Throughput> table,
                          double amount) {
  if (amount <= table.front().amount)
    return table.front().rate;
  if (amount >= table.back().amount)
    return table.back().rate;
  size_t i = 1;
  while (table[i].amount < amount)
    ++i;
  const ClusterDesc::Throughput &low = table[i - 1], &high = table[i];
  double t = std::log(amount / low.amount) / std::log(high.amount / low.amount);
  return low.rate + t * (high.rate - low.rate);
}

double ClusterDesc::flopsPerSecond(double callFlops) const {
  return flopsBySize.empty() ? flops : interpolate(flopsBySize, callFlops);
}

double ClusterDesc::bytesPerSecond(double bytes) const {
  return bandwidthBySize.empty() ? memoryBandwidth
                                 : interpolate(bandwidthBySize, bytes);
}

std::optional<double> ClusterDesc::bytesPerSecondOf(StringRef op,
                                                    double bytes) const {
  auto it = opRates.find(op);
  if (it == opRates.end())
    return std::nullopt;
  return interpolate(it->second, bytes);
}

const LinkDesc &ClusterDesc::linkFor(ArrayRef<int64_t> ranks) const {
  if (ranks.empty())
    return intraNode;
  int64_t node = ranks.front() / ranksPerNode;
  for (int64_t rank : ranks)
    if (rank / ranksPerNode != node)
      return interNode;
  return intraNode;
}

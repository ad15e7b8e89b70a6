//===- Strategy.cpp - Built-in strategies and strategy files --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Parses the `strategy` option of oneflow-apply-strategy: dp, tp, hybrid,
// zero, or a JSON file (format in docs/strategies.md), with errors that
// name the file and the key at fault.
//
//===----------------------------------------------------------------------===//

#include "Strategy.h"

#include "OneFlowDialect/Support/JsonDepth.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::oneflow;

static std::string formatMesh(ArrayRef<int64_t> mesh) {
  return "[" +
         llvm::join(llvm::map_range(mesh,
                                    [](int64_t n) { return std::to_string(n); }),
                    ", ") +
         "]";
}

/// Parses "B" or "S(<axis>)" at `key`; P is refused (sources are whole).
static std::optional<SbpAttr> parseSbp(MLIRContext *context,
                                       const llvm::json::Value &value,
                                       const std::string &key,
                                       std::string &error) {
  std::optional<llvm::StringRef> text = value.getAsString();
  if (!text) {
    error = "\"" + key + "\" must be a string: \"B\" or \"S(<axis>)\"";
    return std::nullopt;
  }
  if (*text == "B")
    return SbpAttr::getBroadcast(context);
  if (*text == "P") {
    error = "\"" + key +
            "\" is \"P\": inputs and variables are whole, never partial";
    return std::nullopt;
  }
  llvm::StringRef body = *text;
  unsigned axis = 0;
  if (body.consume_front("S(") && body.consume_back(")") &&
      !body.getAsInteger(10, axis))
    return SbpAttr::getSplit(context, axis);
  error = "\"" + key + "\" is \"" + text->str() +
          "\", not \"B\" or \"S(<axis>)\"";
  return std::nullopt;
}

/// Parses a list of one SBP per mesh axis at `key`.
static bool parseNdSbp(MLIRContext *context, const llvm::json::Value *value,
                       const std::string &key, size_t meshRank,
                       SmallVector<SbpAttr> &sbps, std::string &error) {
  const llvm::json::Array *list = value ? value->getAsArray() : nullptr;
  if (!list) {
    error = "\"" + key + "\" must be a list of one SBP per mesh axis";
    return false;
  }
  if (list->size() != meshRank) {
    error = "\"" + key + "\" has " + std::to_string(list->size()) +
            " entries but the mesh has " + std::to_string(meshRank) + " axes";
    return false;
  }
  for (auto [i, entry] : llvm::enumerate(*list)) {
    std::optional<SbpAttr> sbp = parseSbp(
        context, entry, key + "[" + std::to_string(i) + "]", error);
    if (!sbp)
      return false;
    sbps.push_back(*sbp);
  }
  return true;
}

/// Parses the rules at `key` ("inputs" or "variables").
static bool parseRules(MLIRContext *context, const llvm::json::Object &root,
                       llvm::StringRef key, size_t meshRank,
                       SmallVector<StrategyRule> &rules, std::string &error) {
  const llvm::json::Value *value = root.get(key);
  if (!value)
    return true;
  const llvm::json::Array *list = value->getAsArray();
  if (!list) {
    error = "\"" + key.str() + "\" must be a list of {\"match\", \"sbp\"}";
    return false;
  }
  for (auto [i, entry] : llvm::enumerate(*list)) {
    std::string at = key.str() + "[" + std::to_string(i) + "]";
    const llvm::json::Object *rule = entry.getAsObject();
    if (!rule) {
      error = "\"" + at + "\" must be an object {\"match\", \"sbp\"}";
      return false;
    }
    for (const auto &member : *rule)
      if (member.first != "match" && member.first != "sbp") {
        error = "\"" + at + "\" has unknown key \"" + member.first.str() +
                "\" (expected \"match\" and \"sbp\")";
        return false;
      }
    std::optional<llvm::StringRef> match = rule->getString("match");
    if (!match || match->empty()) {
      error = "\"" + at + ".match\" must be a non-empty name or glob";
      return false;
    }
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(*match);
    if (!glob) {
      error = "\"" + at + ".match\" is not a glob: " +
              llvm::toString(glob.takeError());
      return false;
    }
    StrategyRule parsed{match->str(), {}};
    if (!parseNdSbp(context, rule->get("sbp"), at + ".sbp", meshRank,
                    parsed.sbp, error))
      return false;
    rules.push_back(std::move(parsed));
  }
  return true;
}

/// The most ranks a strategy file's mesh may have (what
/// oneflow-apply-strategy lists at most: devices times micro-batches).
static constexpr int64_t kMaxStrategyRanks = int64_t(1) << 20;

/// Parses the strategy file's text.
static bool parseFile(MLIRContext *context, llvm::StringRef text,
                      Strategy &strategy, std::string &error) {
  std::string deep = oneflow_support::jsonDepthError(text);
  if (!deep.empty()) {
    error = "is not a strategy: it " + deep;
    return false;
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error = "is not valid JSON: " + llvm::toString(json.takeError());
    return false;
  }
  const llvm::json::Object *root = json->getAsObject();
  if (!root) {
    error = "must hold a JSON object";
    return false;
  }
  static const char *const known[] = {
      "mesh",   "inputs",   "variables", "default_input", "default_variable",
      "stages", "recompute"};
  for (const auto &member : *root)
    if (!llvm::is_contained(known, member.first)) {
      error = "has unknown key \"" + member.first.str() +
              "\" (expected mesh, inputs, variables, default_input, "
              "default_variable, stages, recompute)";
      return false;
    }
  const llvm::json::Array *mesh = root->getArray("mesh");
  if (!mesh || mesh->empty()) {
    error = "\"mesh\" must be a non-empty list of positive integers";
    return false;
  }
  int64_t ranks = 1;
  for (const llvm::json::Value &size : *mesh) {
    std::optional<int64_t> n = size.getAsInteger();
    if (!n || *n < 1) {
      error = "\"mesh\" must be a non-empty list of positive integers";
      return false;
    }
    // Bounded before the product can overflow: no run has more ranks.
    if (*n > kMaxStrategyRanks / ranks) {
      error = "\"mesh\" has more than " + std::to_string(kMaxStrategyRanks) +
              " ranks";
      return false;
    }
    ranks *= *n;
    strategy.mesh.push_back(*n);
  }
  size_t meshRank = strategy.mesh.size();
  if (!parseRules(context, *root, "inputs", meshRank, strategy.inputs,
                  error) ||
      !parseRules(context, *root, "variables", meshRank, strategy.variables,
                  error))
    return false;
  strategy.defaultInput.assign(meshRank, SbpAttr::getSplit(context, 0));
  strategy.defaultVariable.assign(meshRank, SbpAttr::getBroadcast(context));
  for (auto [key, sbps] :
       {std::pair{"default_input", &strategy.defaultInput},
        std::pair{"default_variable", &strategy.defaultVariable}}) {
    if (const llvm::json::Value *value = root->get(key)) {
      sbps->clear();
      if (!parseNdSbp(context, value, key, meshRank, *sbps, error))
        return false;
    }
  }
  return true;
}

/// Parses the rules under `key` of the file's JSON object: a list of
/// {"match": glob} objects, each with a "stage" number when `withStage`.
static bool parseMatchRules(const llvm::json::Object &root, llvm::StringRef key,
                            bool withStage, SmallVector<StageRule> &rules,
                            std::string &error) {
  const llvm::json::Value *value = root.get(key);
  if (!value)
    return true;
  std::string shape = withStage
                          ? "{\"match\": a name or glob, \"stage\": a stage "
                            "number from 0}"
                          : "{\"match\": a name or glob}";
  const llvm::json::Array *list = value->getAsArray();
  if (!list) {
    error = "\"" + key.str() + "\" must be a list of " + shape;
    return false;
  }
  for (auto [i, entry] : llvm::enumerate(*list)) {
    std::string at = key.str() + "[" + std::to_string(i) + "]";
    const llvm::json::Object *rule = entry.getAsObject();
    std::optional<llvm::StringRef> match =
        rule ? rule->getString("match") : std::nullopt;
    std::optional<int64_t> stage = rule && withStage
                                       ? rule->getInteger("stage")
                                       : std::optional<int64_t>(0);
    if (!rule || rule->size() != (withStage ? 2u : 1u) || !match ||
        match->empty() || !stage || *stage < 0) {
      error = "\"" + at + "\" must be " + shape;
      return false;
    }
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(*match);
    if (!glob) {
      error = "\"" + at +
              ".match\" is not a glob: " + llvm::toString(glob.takeError());
      return false;
    }
    rules.push_back({match->str(), *stage});
  }
  return true;
}

static bool parseStages(const llvm::json::Object &root,
                        SmallVector<StageRule> &rules, std::string &error) {
  return parseMatchRules(root, "stages", /*withStage=*/true, rules, error);
}

static bool parseRecompute(const llvm::json::Object &root,
                           SmallVector<StageRule> &rules, std::string &error) {
  return parseMatchRules(root, "recompute", /*withStage=*/false, rules, error);
}

using KeyParser = bool (*)(const llvm::json::Object &, SmallVector<StageRule> &,
                           std::string &);

/// Parses one key of the strategy file `path`, whose contents are `text`,
/// with `parse`.
static std::optional<SmallVector<StageRule>> parseKeyText(llvm::StringRef path,
                                                          llvm::StringRef text,
                                                          std::string &error,
                                                          KeyParser parse) {
  SmallVector<StageRule> rules;
  // A file that is not a JSON object (or nests too deeply to parse) is
  // reported by parseStrategy.
  if (!oneflow_support::jsonDepthError(text).empty())
    return rules;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  const llvm::json::Object *root = json ? json->getAsObject() : nullptr;
  if (!json)
    llvm::consumeError(json.takeError());
  if (root && !parse(*root, rules, error)) {
    error = "strategy file '" + path.str() + "' key " + error;
    return std::nullopt;
  }
  return rules;
}

/// Reads the strategy file `path` and parses one key of it with `parse`;
/// built-in strategy names and no path give no rules.
static std::optional<SmallVector<StageRule>>
parseFileKey(llvm::StringRef path, std::string &error, KeyParser parse) {
  if (path == "dp" || path == "zero" || path == "tp" || path == "hybrid" ||
      path.empty())
    return SmallVector<StageRule>();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = "cannot read strategy file '" + path.str() +
            "': " + file.getError().message();
    return std::nullopt;
  }
  return parseKeyText(path, (*file)->getBuffer(), error, parse);
}

/// The globs of `rules`.
static std::optional<SmallVector<std::string>>
matchesOf(std::optional<SmallVector<StageRule>> rules) {
  if (!rules)
    return std::nullopt;
  SmallVector<std::string> matches;
  for (const StageRule &rule : *rules)
    matches.push_back(rule.match);
  return matches;
}

std::optional<SmallVector<StageRule>>
mlir::oneflow::parseStageRules(llvm::StringRef path, std::string &error) {
  return parseFileKey(path, error, parseStages);
}

std::optional<SmallVector<std::string>>
mlir::oneflow::parseRecomputeRules(llvm::StringRef path, std::string &error) {
  return matchesOf(parseFileKey(path, error, parseRecompute));
}

std::optional<SmallVector<StageRule>>
mlir::oneflow::parseStageRulesText(llvm::StringRef path, llvm::StringRef text,
                                   std::string &error) {
  return parseKeyText(path, text, error, parseStages);
}

std::optional<SmallVector<std::string>> mlir::oneflow::parseRecomputeRulesText(
    llvm::StringRef path, llvm::StringRef text, std::string &error) {
  return matchesOf(parseKeyText(path, text, error, parseRecompute));
}

std::optional<Strategy> mlir::oneflow::parseStrategyText(MLIRContext *context,
                                                         llvm::StringRef path,
                                                         llvm::StringRef text,
                                                         int64_t devices,
                                                         std::string &error) {
  Strategy strategy;
  strategy.name = path.str();
  if (!parseFile(context, text, strategy, error)) {
    error = "strategy file '" + path.str() + "' " +
            (llvm::StringRef(error).starts_with("\"") ? "key " : "") + error;
    return std::nullopt;
  }
  int64_t ranks = 1;
  for (int64_t size : strategy.mesh)
    ranks *= size;
  if (ranks != devices) {
    error = "strategy file '" + path.str() +
            "' key \"mesh\": " + formatMesh(strategy.mesh) + " has " +
            std::to_string(ranks) + " ranks but devices is " +
            std::to_string(devices);
    return std::nullopt;
  }
  return strategy;
}

std::optional<Strategy> mlir::oneflow::parseStrategy(MLIRContext *context,
                                                     llvm::StringRef spec,
                                                     int64_t devices,
                                                     std::string &error) {
  if (devices < 1) {
    error = "devices is " + std::to_string(devices) + "; it must be at least 1";
    return std::nullopt;
  }
  Strategy strategy;
  strategy.name = spec.str();
  if (spec == "dp" || spec == "zero") {
    strategy.mesh = {devices};
    strategy.roles = {MeshAxisRole::data};
    strategy.shardVariables = spec == "zero";
  } else if (spec == "tp") {
    strategy.mesh = {devices};
    strategy.roles = {MeshAxisRole::tensor};
  } else if (spec == "hybrid") {
    if (devices % 2 != 0) {
      error = "strategy 'hybrid' lays " + std::to_string(devices) +
              " devices out as a mesh [2, devices / 2]; it needs an even "
              "number of devices";
      return std::nullopt;
    }
    strategy.mesh = {2, devices / 2};
    strategy.roles = {MeshAxisRole::data, MeshAxisRole::tensor};
  } else {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(spec, /*IsText=*/true);
    if (!file) {
      error = "unknown strategy '" + spec.str() +
              "': not dp, tp, hybrid or zero, and not a readable strategy "
              "file (" +
              file.getError().message() + ")";
      return std::nullopt;
    }
    return parseStrategyText(context, spec, (*file)->getBuffer(), devices,
                             error);
  }
  return strategy;
}

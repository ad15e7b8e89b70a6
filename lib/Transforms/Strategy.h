//===- Strategy.h - Parallel strategies for oneflow-apply-strategy -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What oneflow-apply-strategy reads: a built-in strategy name (dp, tp,
// hybrid, zero) or a JSON strategy file, and the Megatron-style heuristic
// that lays out variables along a tensor-parallel mesh axis.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_TRANSFORMS_STRATEGY_H
#define ONEFLOW_LIB_TRANSFORMS_STRATEGY_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/GlobPattern.h"

#include <optional>
#include <string>

namespace mlir::oneflow {

/// What a mesh axis of a built-in strategy does.
enum class MeshAxisRole {
  /// Inputs split on their batch axis, variables replicated.
  data,
  /// Variables laid out by the tensor-parallel heuristic, inputs replicated.
  tensor,
  /// Time: inputs split on their batch axis into micro-batches, variables
  /// replicated (never sharded).
  micro,
};

/// One rule of a strategy file: tensors whose name `match` (a glob, checked
/// when parsed) matches get `sbp`.
struct StrategyRule {
  std::string match;
  SmallVector<SbpAttr> sbp;

  bool matches(llvm::StringRef name) const {
    // A GlobPattern refers to its text, so it is built where it is used.
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(match);
    if (!glob) {
      llvm::consumeError(glob.takeError());
      return false;
    }
    return glob->match(name);
  }
};

/// A parsed strategy: either built-in roles per mesh axis or file rules.
struct Strategy {
  /// The strategy's name (dp, tp, hybrid, zero) or its file's path.
  std::string name;
  SmallVector<int64_t> mesh;
  /// Built-in strategies: one role per mesh axis; empty for files.
  SmallVector<MeshAxisRole> roles;
  /// `zero`: data-parallel variables are split on dimension 0 when it
  /// divides by the axis size.
  bool shardVariables = false;
  /// Strategy files: the rules, in file order, and the defaults.
  SmallVector<StrategyRule> inputs, variables;
  SmallVector<SbpAttr> defaultInput, defaultVariable;

  bool isBuiltin() const { return !roles.empty(); }
};

/// A strategy file's "stages" rule: variables whose name `match` (a glob)
/// matches go to pipeline stage `stage`, and with them the ops that read
/// them (oneflow-assign-stages).
struct StageRule {
  std::string match;
  int64_t stage = 0;

  bool matches(llvm::StringRef name) const {
    return StrategyRule{match, {}}.matches(name);
  }
};

/// The "stages" rules of the strategy file `path` (none for a built-in
/// strategy name or a file without the key). On failure returns nullopt
/// with `error` naming the file and key at fault.
std::optional<SmallVector<StageRule>> parseStageRules(llvm::StringRef path,
                                                      std::string &error);

/// The "recompute" rules of the strategy file `path`: globs of variable
/// names, one recomputed segment each (oneflow-activation-checkpointing);
/// none for a built-in strategy name or a file without the key. On failure
/// returns nullopt with `error` naming the file and key at fault.
std::optional<SmallVector<std::string>>
parseRecomputeRules(llvm::StringRef path, std::string &error);

/// Parses `spec` (a built-in name or a JSON file's path) for `devices`
/// ranks. On failure returns nullopt with `error` saying why, naming the
/// file and key at fault.
std::optional<Strategy> parseStrategy(MLIRContext *context,
                                      llvm::StringRef spec, int64_t devices,
                                      std::string &error);

/// The text halves of parseStrategy, parseStageRules and
/// parseRecomputeRules for a strategy file: `text` is the file's contents
/// and `path` names it in errors (the fuzz target
/// tools/json-readers-fuzzer/strategy-file-fuzzer reads them so).
std::optional<Strategy> parseStrategyText(MLIRContext *context,
                                          llvm::StringRef path,
                                          llvm::StringRef text, int64_t devices,
                                          std::string &error);
std::optional<SmallVector<StageRule>> parseStageRulesText(llvm::StringRef path,
                                                          llvm::StringRef text,
                                                          std::string &error);
std::optional<SmallVector<std::string>>
parseRecomputeRulesText(llvm::StringRef path, llvm::StringRef text,
                        std::string &error);

/// The layout Megatron-style tensor parallelism gives each variable of
/// `func` along one mesh axis of `size` ranks: `S(i)` for the variables it
/// splits (weights of matmuls alternately by output and input features,
/// their biases, embedding tables by rows); variables not in the map are
/// `B`. Splits that would leave a rank an empty piece are left out.
llvm::DenseMap<Operation *, SbpAttr> deriveTensorParallel(func::FuncOp func,
                                                          int64_t size);

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_TRANSFORMS_STRATEGY_H

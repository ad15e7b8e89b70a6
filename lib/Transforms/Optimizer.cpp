//===- Optimizer.cpp - Gradient outputs to in-place updates ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Replaces every `oneflow.output` with `grad_of` by an update op of the named
// variable (and its optimizer-state variables), after optional global-norm
// clipping and an optional check that every gradient is finite (whose flag
// may skip the step's updates). The update ops go last, so that on the compute stream they run
// after every reader of the variables in the same step.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "oneflow-optimizer"

namespace mlir::oneflow {
#define GEN_PASS_DEF_OPTIMIZERPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The attribute that marks a gradient output (see oneflow-autodiff).
static constexpr StringLiteral kGradOf = "grad_of";
/// The attribute of a variable that takes no gradient.
static constexpr StringLiteral kFrozen = "frozen";
/// What clipping adds to the norm before dividing, as PyTorch does.
static constexpr double kClipEpsilon = 1e-6;
/// The output that flags a step whose gradients are not all finite.
static constexpr StringLiteral kNonfiniteOutput = "nonfinite";
/// Its unit attribute when the flag also skips the updates.
static constexpr StringLiteral kSkipsUpdates = "skips_updates";

namespace {
/// A gradient to apply: the variable and the gradient's value.
struct Gradient {
  VariableOp variable;
  Value grad;
  Location loc;
};

struct OptimizerPass
    : public mlir::oneflow::impl::OptimizerPassBase<OptimizerPass> {
  using OptimizerPassBase::OptimizerPassBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions(func::FuncOp func) const;
  FailureOr<SmallVector<Gradient>> collectGradients(func::FuncOp func);
  Value buildClipScale(OpBuilder &builder, ArrayRef<Gradient> gradients) const;
  FailureOr<Value> buildNonfiniteFlag(OpBuilder &builder, func::FuncOp func,
                                      ArrayRef<Gradient> gradients) const;
  FailureOr<Operation *> buildUpdate(OpBuilder &builder, Gradient g,
                                     Value scale, Value skip,
                                     llvm::StringMap<VariableOp> &variables);
};
} // namespace

LogicalResult OptimizerPass::checkOptions(func::FuncOp func) const {
  if (kind != "sgd" && kind != "adam" && kind != "adamw")
    return func.emitError() << "unknown optimizer kind '" << kind
                            << "'; expected sgd, adam or adamw";
  if (!(clipNorm >= 0))
    return func.emitError()
           << "clip-norm " << formatDouble(clipNorm) << " is negative";
  if (kind != "sgd" && (momentum != 0 || nesterov))
    return func.emitError() << "momentum and nesterov are options of sgd, not "
                            << kind;
  if (nonfinite != "off" && nonfinite != "report" && nonfinite != "skip")
    return func.emitError() << "unknown nonfinite '" << nonfinite
                            << "'; expected off, report or skip";
  return success();
}

FailureOr<SmallVector<Gradient>>
OptimizerPass::collectGradients(func::FuncOp func) {
  llvm::StringMap<VariableOp> variables;
  func.walk([&](VariableOp op) { variables.try_emplace(op.getName(), op); });
  SmallVector<Gradient> gradients;
  llvm::StringMap<Location> seen;
  SmallVector<OutputOp> outputs;
  func.walk([&](OutputOp op) {
    if (op->hasAttr(kGradOf))
      outputs.push_back(op);
  });
  for (OutputOp output : outputs) {
    auto name = dyn_cast<StringAttr>(output->getAttr(kGradOf));
    if (!name)
      return output.emitOpError() << "has a grad_of that is not a string";
    VariableOp variable = variables.lookup(name.getValue());
    if (!variable)
      return output.emitOpError()
             << "is the gradient of '" << name.getValue()
             << "', which names no oneflow.variable in @" << func.getSymName();
    if (variable->hasAttr(kFrozen))
      return output.emitOpError() << "is the gradient of frozen variable '"
                                  << name.getValue() << "'";
    RankedTensorType type = stripEncoding(variable.getType());
    if (!isa<FloatType>(type.getElementType()))
      return output.emitOpError()
             << "is the gradient of variable '" << name.getValue()
             << "' of type " << type << ", which is not a float tensor";
    if (stripEncoding(output.getValue().getType()) != type)
      return output.emitOpError()
             << "gradient of type " << stripEncoding(output.getValue().getType())
             << " does not match variable '" << name.getValue() << "' of type "
             << type;
    auto [it, inserted] = seen.try_emplace(name.getValue(), output.getLoc());
    if (!inserted)
      return output.emitOpError()
             << "is a second gradient of variable '" << name.getValue() << "'";
    gradients.push_back({variable, output.getValue(), output.getLoc()});
  }
  for (OutputOp output : outputs)
    output.erase();
  return gradients;
}

/// min(1, clip / (sqrt(sum of every gradient's squares) + eps)), rank 0.
Value OptimizerPass::buildClipScale(OpBuilder &builder,
                                    ArrayRef<Gradient> gradients) const {
  Value total;
  for (const Gradient &g : gradients) {
    Location loc = g.loc;
    auto type = cast<RankedTensorType>(g.grad.getType());
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    Value sum = ReduceSumSquareOp::create(builder, loc, g.grad,
                                          builder.getDenseI64ArrayAttr(axes),
                                          /*keepdims=*/nullptr);
    total = total ? Value(AddOp::create(builder, loc, total, sum)) : sum;
  }
  Location loc = gradients.front().loc;
  auto f64 = [&](double value) { return builder.getF64FloatAttr(value); };
  Value norm = SqrtOp::create(builder, loc, total);
  Value shifted = ScalarAddOp::create(builder, loc, norm, f64(kClipEpsilon));
  Value inverse = ScalarPowOp::create(builder, loc, shifted, f64(-1.0));
  Value ratio = ScalarMulOp::create(builder, loc, inverse, f64(clipNorm));
  Value one = FillOp::create(builder, loc, stripEncoding(ratio.getType()),
                             f64(1.0));
  return MinimumOp::create(builder, loc, ratio, one);
}

/// The maximum of one oneflow.find_nonfinite per gradient (codes from N for
/// the first of N down to 1) and one per variable, as the step begins
/// (codes from 2N down to N + 1: a variable that is not finite is named
/// before the gradients it spoils), fetched as the output "nonfinite".
FailureOr<Value>
OptimizerPass::buildNonfiniteFlag(OpBuilder &builder, func::FuncOp func,
                                  ArrayRef<Gradient> gradients) const {
  WalkResult taken = func.walk([&](OutputOp output) {
    if (output.getName() != kNonfiniteOutput)
      return WalkResult::advance();
    output.emitOpError() << "takes the name '" << kNonfiniteOutput
                         << "' that oneflow-optimizer needs for its check of "
                            "the gradients (nonfinite="
                         << nonfinite << ")";
    return WalkResult::interrupt();
  });
  if (taken.wasInterrupted())
    return failure();
  auto flagType = RankedTensorType::get({}, builder.getF32Type());
  Value flag;
  auto check = [&](Location loc, Value x, Value like, int64_t code,
                   const Twine &label) {
    Value found = FindNonfiniteOp::create(
        builder, loc, flagType, ValueRange{x}, ValueRange{like},
        builder.getDenseI64ArrayAttr({code}),
        builder.getStrArrayAttr({label.str()}));
    flag = flag ? Value(MaximumOp::create(builder, loc, flag, found)) : found;
  };
  int64_t n = static_cast<int64_t>(gradients.size());
  for (auto [index, g] : llvm::enumerate(gradients)) {
    int64_t code = n - static_cast<int64_t>(index);
    VariableOp op = g.variable;
    Value variable = op.getResult();
    // Like its variable: the check reads the gradient in the layout the
    // update does, through the same boxing; the variable in its own.
    check(g.loc, g.grad, variable, code, "gradient of '" + op.getName() + "'");
    check(g.loc, variable, variable, n + code,
          "variable '" + op.getName() + "'");
  }
  auto output =
      OutputOp::create(builder, gradients.front().loc, kNonfiniteOutput, flag);
  // The runner says whether such a step changed the variables.
  if (nonfinite == "skip")
    output->setAttr(kSkipsUpdates, builder.getUnitAttr());
  return flag;
}

FailureOr<Operation *>
OptimizerPass::buildUpdate(OpBuilder &builder, Gradient g, Value scale,
                           Value skip,
                           llvm::StringMap<VariableOp> &variables) {
  MLIRContext *context = builder.getContext();
  StringRef name = g.variable.getName();
  SmallVector<Value> states;
  auto addState = [&](StringRef suffix) -> LogicalResult {
    std::string stateName = (name + "." + suffix).str();
    if (VariableOp taken = variables.lookup(stateName))
      return taken.emitOpError()
             << "takes the name '" << stateName
             << "' that the optimizer needs for a state of '" << name << "'";
    auto zeros = InitializerAttr::get(context, InitKind::zeros, {});
    auto state = VariableOp::create(builder, g.loc, g.variable.getType(),
                                    builder.getStringAttr(stateName), zeros,
                                    /*value=*/nullptr,
                                    builder.getI64IntegerAttr(0));
    variables[stateName] = state;
    states.push_back(state);
    return success();
  };

  // Attributes at their defaults are left out, so the IR shows the choices.
  auto f64 = [&](double value, double fallback) -> FloatAttr {
    return value == fallback ? FloatAttr() : builder.getF64FloatAttr(value);
  };
  auto i64 = [&](int64_t value) -> IntegerAttr {
    return value == 0 ? IntegerAttr() : builder.getI64IntegerAttr(value);
  };
  FloatAttr lrAttr = builder.getF64FloatAttr(lr);
  Operation *update;
  if (kind == "sgd") {
    if (momentum > 0 && failed(addState("momentum")))
      return failure();
    update = SgdUpdateOp::create(
        builder, g.loc, g.variable, g.grad, states, scale, skip, lrAttr,
        f64(weightDecay, 0), i64(warmupSteps), i64(totalSteps), f64(minLr, 0),
        f64(momentum, 0), nesterov ? builder.getUnitAttr() : UnitAttr());
  } else {
    if (failed(addState("m")) || failed(addState("v")))
      return failure();
    update = AdamUpdateOp::create(
        builder, g.loc, g.variable, g.grad, states, scale, skip, lrAttr,
        f64(weightDecay, 0), i64(warmupSteps), i64(totalSteps), f64(minLr, 0),
        builder.getF64FloatAttr(beta1), builder.getF64FloatAttr(beta2),
        builder.getF64FloatAttr(epsilon),
        kind == "adamw" ? builder.getUnitAttr() : UnitAttr());
  }
  // Bad hyper-parameters are reported by the op's verifier, at the op.
  if (failed(verify(update)))
    return failure();
  return update;
}

void OptimizerPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (failed(checkOptions(func)))
    return signalPassFailure();
  FailureOr<SmallVector<Gradient>> gradients = collectGradients(func);
  if (failed(gradients))
    return signalPassFailure();
  if (gradients->empty())
    return;

  Block &body = func.getBody().back();
  OpBuilder builder(func.getContext());
  builder.setInsertionPoint(body.getTerminator());
  Value scale = clipNorm > 0 ? buildClipScale(builder, *gradients) : Value();
  Value skip;
  if (nonfinite != "off") {
    FailureOr<Value> flag = buildNonfiniteFlag(builder, func, *gradients);
    if (failed(flag))
      return signalPassFailure();
    if (nonfinite == "skip")
      skip = *flag;
  }
  // A skip flag comes with a scale (the update op's rule): 1 of each
  // parameter type without clipping.
  DenseMap<Type, Value> ones;
  auto scaleFor = [&](const Gradient &g) -> Value {
    if (scale || !skip)
      return scale;
    Type element = stripEncoding(g.grad.getType()).getElementType();
    Value &one = ones[element];
    if (!one)
      one = FillOp::create(builder, g.loc, RankedTensorType::get({}, element),
                           builder.getF64FloatAttr(1.0));
    return one;
  };
  llvm::StringMap<VariableOp> variables;
  func.walk([&](VariableOp op) { variables.try_emplace(op.getName(), op); });
  for (Gradient &g : *gradients)
    if (failed(buildUpdate(builder, g, scaleFor(g), skip, variables)))
      return signalPassFailure();
}

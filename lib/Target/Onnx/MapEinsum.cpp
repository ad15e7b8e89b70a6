//===- MapEinsum.cpp - ONNX Einsum as reductions, transposes, matmuls -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Einsum with one or two operands (more are contracted left to right):
//
// 1. letters of one operand that neither the other operand nor the output
//    has are summed (reduce_sum);
// 2. the operands are transposed to [batch, free, contracted] and
//    [batch, contracted, free] and flattened to three axes, batch being
//    the letters of both operands and the output, contracted those of both
//    operands only;
// 3. one batch_matmul (matmul without batch letters; for f64 and integers,
//    which have no matmul kernel, a broadcast product summed), reshaped
//    back, and transposed to the output's order.
//
// The output is the letters after "->", or without it the letters that
// appear once, sorted. Ellipses and a letter repeated within one operand
// (a diagonal) are errors.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {
/// A value and the letter of each of its axes.
struct Labeled {
  Value value;
  std::string letters;
};
} // namespace

static llvm::ArrayRef<int64_t> shapeOf(Value v) {
  return NodeContext::typeOf(v).getShape();
}

/// `x` with its axes permuted to `to` (a permutation of its letters).
static FailureOr<Labeled> permute(NodeContext &node, Labeled x,
                                  llvm::StringRef to) {
  if (x.letters == to)
    return x;
  llvm::SmallVector<int64_t> perm;
  for (char c : to)
    perm.push_back(x.letters.find(c));
  FailureOr<Value> t = valueOf(node.create<TransposeOp>(
      x.value, {node.named("perm", node.b.getDenseI64ArrayAttr(perm))}));
  if (failed(t))
    return failure();
  return Labeled{*t, to.str()};
}

/// `x` summed over the letters that `keep` lacks.
static FailureOr<Labeled> sumOthers(NodeContext &node, Labeled x,
                                    llvm::StringRef keep) {
  llvm::SmallVector<int64_t> axes;
  std::string left;
  for (auto [i, c] : llvm::enumerate(x.letters)) {
    if (keep.contains(c))
      left.push_back(c);
    else
      axes.push_back(i);
  }
  if (axes.empty())
    return x;
  FailureOr<Value> s = valueOf(node.create<ReduceSumOp>(
      x.value, {node.named("axes", node.b.getDenseI64ArrayAttr(axes))}));
  if (failed(s))
    return failure();
  return Labeled{*s, left};
}

/// The product of the sizes of `letters` in `x`.
static int64_t sizeOf(const Labeled &x, llvm::StringRef letters) {
  int64_t n = 1;
  for (char c : letters)
    n *= shapeOf(x.value)[x.letters.find(c)];
  return n;
}

/// a * b contracted to `out` (letters of a or b).
static FailureOr<Labeled> contract(NodeContext &node, Labeled a, Labeled b,
                                   llvm::StringRef out) {
  std::string keepA = out.str() + b.letters, keepB = out.str() + a.letters;
  FailureOr<Labeled> ra = sumOthers(node, a, keepA),
                     rb = sumOthers(node, b, keepB);
  if (failed(ra) || failed(rb))
    return failure();
  std::string batch, shared, freeA, freeB;
  for (char c : ra->letters) {
    bool inB = rb->letters.find(c) != std::string::npos;
    bool inOut = out.contains(c);
    if (inB && inOut)
      batch.push_back(c);
    else if (inB)
      shared.push_back(c);
    else
      freeA.push_back(c);
  }
  for (char c : rb->letters)
    if (ra->letters.find(c) == std::string::npos)
      freeB.push_back(c);
  for (char c : batch + shared)
    if (shapeOf(ra->value)[ra->letters.find(c)] !=
        shapeOf(rb->value)[rb->letters.find(c)])
      return node.error() << "letter '" << c
                          << "' has different sizes in the operands";
  FailureOr<Labeled> pa = permute(node, *ra, batch + freeA + shared),
                     pb = permute(node, *rb, batch + shared + freeB);
  if (failed(pa) || failed(pb))
    return failure();
  int64_t nb = sizeOf(*pa, batch), na = sizeOf(*pa, freeA),
          nc = sizeOf(*pa, shared), nf = sizeOf(*pb, freeB);
  FailureOr<Value> product;
  Type element = NodeContext::typeOf(pa->value).getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16()) {
    // No matmul kernel for f64 and integers: a broadcast product summed.
    FailureOr<Value> terms =
        valueOf(node.create<MulOp>({node.reshape(pa->value, {nb, na, nc, 1}),
                                    node.reshape(pb->value, {nb, 1, nc, nf})}));
    product = succeeded(terms)
                  ? valueOf(node.create<ReduceSumOp>(
                        *terms,
                        {node.named("axes", node.b.getDenseI64ArrayAttr({2}))}))
                  : terms;
  } else if (batch.empty())
    product =
        valueOf(node.create<MatmulOp>({node.reshape(pa->value, {na, nc}),
                                       node.reshape(pb->value, {nc, nf})}));
  else
    product = valueOf(
        node.create<BatchMatmulOp>({node.reshape(pa->value, {nb, na, nc}),
                                    node.reshape(pb->value, {nb, nc, nf})}));
  if (failed(product))
    return failure();
  llvm::SmallVector<int64_t> shape;
  for (char c : batch + freeA)
    shape.push_back(shapeOf(pa->value)[pa->letters.find(c)]);
  for (char c : freeB)
    shape.push_back(shapeOf(pb->value)[pb->letters.find(c)]);
  return Labeled{node.reshape(*product, shape), batch + freeA + freeB};
}

static LogicalResult mapEinsum(NodeContext &node) {
  if (failed(node.checkArity(1, 2147483647u, 1)))
    return failure();
  std::string equation = node.getString("equation", "");
  equation.erase(llvm::remove_if(equation, ::isspace), equation.end());
  if (equation.find("...") != std::string::npos)
    return node.error() << "ellipses ('...') in the equation are not "
                           "supported";
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  llvm::SmallVector<llvm::StringRef> terms;
  llvm::StringRef(lhs).split(terms, ',');
  if (terms.size() != node.numInputs())
    return node.error() << "the equation '" << equation << "' has "
                        << terms.size() << " operands, the node "
                        << node.numInputs();
  std::string out;
  if (arrow != std::string::npos) {
    out = equation.substr(arrow + 2);
  } else {
    for (char c = 'A'; c <= 'z'; ++c)
      if (std::isalpha(c) && llvm::count(lhs, c) == 1)
        out.push_back(c);
  }
  llvm::SmallVector<Labeled> operands;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<Value> v = node.input(i);
    if (failed(v))
      return failure();
    if (static_cast<int64_t>(term.size()) != NodeContext::typeOf(*v).getRank())
      return node.error() << "operand " << i << " has rank "
                          << NodeContext::typeOf(*v).getRank() << " but '"
                          << term << "' names " << term.size() << " axes";
    for (char c : term)
      if (!std::isalpha(c) || llvm::count(term, c) != 1)
        return node.error() << "'" << term << "' repeats a letter (a "
                            << "diagonal) or has a character that is not one";
    operands.push_back({*v, term.str()});
  }
  for (char c : out)
    if (!llvm::StringRef(lhs).contains(c))
      return node.error() << "the output letter '" << c << "' is in no operand";
  // Contract left to right, keeping what later operands or the output use.
  Labeled acc = operands.front();
  for (size_t i = 1; i < operands.size(); ++i) {
    std::string keep = out;
    for (size_t j = i + 1; j < operands.size(); ++j)
      keep += operands[j].letters;
    FailureOr<Labeled> next = contract(node, acc, operands[i], keep);
    if (failed(next))
      return failure();
    acc = *next;
  }
  FailureOr<Labeled> reduced = sumOthers(node, acc, out);
  FailureOr<Labeled> result =
      succeeded(reduced) ? permute(node, *reduced, out) : reduced;
  if (failed(result))
    return failure();
  node.setOutput(0, result->value);
  return success();
}

void mlir::oneflow::onnx_import::addEinsumLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Einsum"] = mapEinsum;
}

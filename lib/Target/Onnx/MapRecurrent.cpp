//===- MapRecurrent.cpp - ONNX RNN, GRU and LSTM, unrolled ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A recurrent node whose cell oneDNN's RNN primitives compute (f32, the
// default activations or one of RNN's, no peepholes) becomes one
// `oneflow.rnn` (MapRecurrentLayer.cpp). Any other node becomes its
// equations unrolled over the (static) sequence, so they differentiate
// (backpropagation through time), lay out and run like any other ops:
//
// | ONNX | oneflow, per direction                                         |
// |------|----------------------------------------------------------------|
// | all  | X W^T + Wb for every step at once (one matmul), then per step  |
// |      | H R^T + Rb (matmul) and the gates as slices of the sum         |
// | RNN  | H = f(x + h)                                                   |
// | GRU  | z, r = f(.); h~ = g(x + (r * H) R^T + Rb), or with             |
// |      | linear_before_reset g(x + r * (H R^T + Rb)); H = (1 - z) h~ + zH|
// | LSTM | i, o, f = f(. + P * C); c~ = g(.); C = f C + i c~;             |
// |      | H = o h(C) (the gate order iofc, peepholes P)                  |
//
// Outputs Y (seq, directions, batch, hidden; batch first with layout 1),
// Y_h and LSTM's Y_c; forward, reverse and bidirectional. Activations are
// the defaults or any of Sigmoid, Tanh, Relu by name; clip, input_forget
// and sequence lengths shorter than the sequence are errors. The unrolled
// IR grows with the sequence length.
//
//===----------------------------------------------------------------------===//

#include "MapRecurrent.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {
using Cell = RecurrentCell;

/// A recurrent node's tensor inputs (those not given are null).
struct RecurrentInputs {
  Value w, r, bias, h0, c0, peep;
};

/// Builds one direction's steps.
struct Unroller {
  NodeContext &node;
  Cell cell;
  int64_t hidden, batch, seq, inputSize, gates, directions;
  bool linearBeforeReset;
  RecurrentInputs in;
  Value flatX; // X as [seq batch, input]

  FailureOr<Value> activate(llvm::StringRef name, Value v) {
    if (name == "Sigmoid")
      return valueOf(node.create<SigmoidOp>(v));
    if (name == "Tanh")
      return valueOf(node.create<TanhOp>(v));
    return valueOf(node.create<ReluOp>(v));
  }
  FailureOr<Value> add(Value a, Value b) {
    return valueOf(node.create<AddOp>({a, b}));
  }
  FailureOr<Value> mul(Value a, Value b) {
    return valueOf(node.create<MulOp>({a, b}));
  }
  /// Gate `k` (columns [k H, (k + 1) H)) of a [batch, gates x H] tensor.
  FailureOr<Value> gate(Value v, int64_t k) {
    return node.sliceAlong(v, 1, k * hidden, (k + 1) * hidden);
  }
  /// a R^T (+ rb), R [gates x H, H].
  FailureOr<Value> recur(Value a, Value r, Value rb) {
    FailureOr<Value> p = valueOf(node.create<MatmulOp>(
        {a, r}, {node.named("transpose_b", node.b.getUnitAttr())}));
    if (failed(p) || !rb)
      return p;
    return add(*p, rb);
  }
  /// a + p * c, or a without a peephole p.
  FailureOr<Value> peephole(Value a, Value p, Value c) {
    if (!p)
      return a;
    FailureOr<Value> pc = mul(p, c);
    return succeeded(pc) ? add(a, *pc) : pc;
  }

  /// One RNN step: H = f(x + H R^T + Rb).
  FailureOr<Value> rnnStep(Value xt, Value h, Value rd, Value rb,
                           llvm::ArrayRef<std::string> act);
  /// One GRU step (gates z, r, h; R's rows in the same order).
  FailureOr<Value> gruStep(Value xt, Value h, Value rd, Value rb,
                           llvm::ArrayRef<std::string> act,
                           bool linearBeforeReset);
  /// One LSTM step (gates i, o, f, c; peepholes pi, po, pf or none): the
  /// new H, and C in `c`.
  FailureOr<Value> lstmStep(Value xt, Value h, Value &c, Value rd, Value rb,
                            llvm::ArrayRef<Value> peepholes,
                            llvm::ArrayRef<std::string> act);
  /// Direction `d`'s steps (`act` its activations): each step's H into
  /// `ys` (at step t, [t * directions + d]), the last H and C.
  LogicalResult unrollDirection(int64_t d, bool reverse,
                                llvm::ArrayRef<std::string> act,
                                llvm::MutableArrayRef<Value> ys, Value &lastH,
                                Value &lastC);
};
} // namespace

FailureOr<Value> Unroller::rnnStep(Value xt, Value h, Value rd, Value rb,
                                   llvm::ArrayRef<std::string> act) {
  FailureOr<Value> hr = recur(h, rd, rb);
  FailureOr<Value> sum = succeeded(hr) ? add(xt, *hr) : hr;
  return succeeded(sum) ? activate(act[0], *sum) : sum;
}

FailureOr<Value> Unroller::gruStep(Value xt, Value h, Value rd, Value rb,
                                   llvm::ArrayRef<std::string> act,
                                   bool linearBeforeReset) {
  FailureOr<Value> rzr = node.sliceAlong(rd, 0, 0, 2 * hidden),
                   rh = node.sliceAlong(rd, 0, 2 * hidden, 3 * hidden);
  Value rbzr, rbh;
  if (rb) {
    FailureOr<Value> a = node.sliceAlong(rb, 0, 0, 2 * hidden),
                     b = node.sliceAlong(rb, 0, 2 * hidden, 3 * hidden);
    if (failed(a) || failed(b))
      return failure();
    rbzr = *a, rbh = *b;
  }
  if (failed(rzr) || failed(rh))
    return failure();
  FailureOr<Value> hzr = recur(h, *rzr, rbzr);
  FailureOr<Value> xzr = node.sliceAlong(xt, 1, 0, 2 * hidden),
                   xh = node.sliceAlong(xt, 1, 2 * hidden, 3 * hidden);
  if (failed(hzr) || failed(xzr) || failed(xh))
    return failure();
  FailureOr<Value> zr = add(*xzr, *hzr);
  FailureOr<Value> zrAct = succeeded(zr) ? activate(act[0], *zr) : zr;
  FailureOr<Value> z = succeeded(zrAct) ? gate(*zrAct, 0) : zrAct,
                   rg = succeeded(zrAct) ? gate(*zrAct, 1) : zrAct;
  if (failed(z) || failed(rg))
    return failure();
  FailureOr<Value> inner;
  if (linearBeforeReset) {
    FailureOr<Value> hr = recur(h, *rh, rbh);
    inner = succeeded(hr) ? mul(*rg, *hr) : hr;
  } else {
    FailureOr<Value> rh0 = mul(*rg, h);
    inner = succeeded(rh0) ? recur(*rh0, *rh, rbh) : rh0;
  }
  FailureOr<Value> cand = succeeded(inner) ? add(*xh, *inner) : inner;
  cand = succeeded(cand) ? activate(act[1], *cand) : cand;
  // H = h~ + z (H - h~).
  FailureOr<Value> diff =
      succeeded(cand) ? valueOf(node.create<SubOp>({h, *cand})) : cand;
  FailureOr<Value> kept = succeeded(diff) ? mul(*z, *diff) : diff;
  return succeeded(kept) ? add(*cand, *kept) : kept;
}

FailureOr<Value> Unroller::lstmStep(Value xt, Value h, Value &c, Value rd,
                                    Value rb, llvm::ArrayRef<Value> peepholes,
                                    llvm::ArrayRef<std::string> act) {
  FailureOr<Value> hr = recur(h, rd, rb);
  FailureOr<Value> sum = succeeded(hr) ? add(xt, *hr) : hr;
  if (failed(sum))
    return failure();
  FailureOr<Value> gi = gate(*sum, 0), go = gate(*sum, 1), gf = gate(*sum, 2),
                   gc = gate(*sum, 3);
  if (failed(gi) || failed(go) || failed(gf) || failed(gc))
    return failure();
  Value pi = peepholes.empty() ? Value() : peepholes[0],
        po = peepholes.empty() ? Value() : peepholes[1],
        pf = peepholes.empty() ? Value() : peepholes[2];
  gi = peephole(*gi, pi, c);
  gf = peephole(*gf, pf, c);
  if (failed(gi) || failed(gf))
    return failure();
  FailureOr<Value> i = activate(act[0], *gi), f = activate(act[0], *gf),
                   cc = activate(act[1], *gc);
  if (failed(i) || failed(f) || failed(cc))
    return failure();
  FailureOr<Value> fc = mul(*f, c), ic = mul(*i, *cc);
  if (failed(fc) || failed(ic))
    return failure();
  FailureOr<Value> cn = add(*fc, *ic);
  if (failed(cn))
    return failure();
  c = *cn;
  go = peephole(*go, po, c);
  FailureOr<Value> o = succeeded(go) ? activate(act[0], *go) : go;
  FailureOr<Value> hc = activate(act[2], c);
  if (failed(o) || failed(hc))
    return failure();
  return mul(*o, *hc);
}

LogicalResult Unroller::unrollDirection(int64_t d, bool reverse,
                                        llvm::ArrayRef<std::string> act,
                                        llvm::MutableArrayRef<Value> ys,
                                        Value &lastH, Value &lastC) {
  auto stateType = RankedTensorType::get(
      {batch, hidden}, NodeContext::typeOf(flatX).getElementType());
  // Per-direction weights: W [G H, I], R [G H, H], biases [G H].
  auto pick = [&](Value v,
                  llvm::ArrayRef<int64_t> shape) -> FailureOr<Value> {
    FailureOr<Value> s = node.sliceAlong(v, 0, d, d + 1);
    if (failed(s))
      return failure();
    return node.reshape(*s, shape);
  };
  FailureOr<Value> wd = pick(in.w, {gates * hidden, inputSize}),
                   rd = pick(in.r, {gates * hidden, hidden});
  if (failed(wd) || failed(rd))
    return failure();
  Value wb, rb;
  if (in.bias) {
    FailureOr<Value> bd = pick(in.bias, {2 * gates * hidden});
    FailureOr<Value> wbs = succeeded(bd)
                               ? node.sliceAlong(*bd, 0, 0, gates * hidden)
                               : FailureOr<Value>(failure());
    FailureOr<Value> rbs =
        succeeded(bd)
            ? node.sliceAlong(*bd, 0, gates * hidden, 2 * gates * hidden)
            : FailureOr<Value>(failure());
    if (failed(wbs) || failed(rbs))
      return failure();
    wb = *wbs;
    rb = *rbs;
  }
  // Every step's input part at once: [seq batch, G H].
  FailureOr<Value> xw = valueOf(node.create<MatmulOp>(
      {flatX, *wd}, {node.named("transpose_b", node.b.getUnitAttr())}));
  if (succeeded(xw) && wb)
    xw = add(*xw, wb);
  if (failed(xw))
    return failure();
  Value h = node.fill(stateType, 0), c = node.fill(stateType, 0);
  if (in.h0) {
    FailureOr<Value> v = pick(in.h0, {batch, hidden});
    if (failed(v))
      return failure();
    h = *v;
  }
  if (cell == Cell::lstm && in.c0) {
    FailureOr<Value> v = pick(in.c0, {batch, hidden});
    if (failed(v))
      return failure();
    c = *v;
  }
  llvm::SmallVector<Value> peepholes; // pi, po, pf
  if (cell == Cell::lstm && in.peep) {
    FailureOr<Value> pd = pick(in.peep, {3 * hidden});
    if (failed(pd))
      return failure();
    FailureOr<Value> a = node.sliceAlong(*pd, 0, 0, hidden),
                     b = node.sliceAlong(*pd, 0, hidden, 2 * hidden),
                     e = node.sliceAlong(*pd, 0, 2 * hidden, 3 * hidden);
    if (failed(a) || failed(b) || failed(e))
      return failure();
    peepholes = {*a, *b, *e};
  }
  for (int64_t s = 0; s < seq; ++s) {
    int64_t t = reverse ? seq - 1 - s : s;
    FailureOr<Value> xt = node.sliceAlong(*xw, 0, t * batch, (t + 1) * batch);
    if (failed(xt))
      return failure();
    FailureOr<Value> next =
        cell == Cell::rnn   ? rnnStep(*xt, h, *rd, rb, act)
        : cell == Cell::gru ? gruStep(*xt, h, *rd, rb, act, linearBeforeReset)
                            : lstmStep(*xt, h, c, *rd, rb, peepholes, act);
    if (failed(next))
      return failure();
    h = *next;
    ys[t * directions + d] = node.reshape(h, {1, 1, batch, hidden});
  }
  lastH = node.reshape(h, {1, batch, hidden});
  lastC = node.reshape(c, {1, batch, hidden});
  return success();
}

/// Reads the gate activations: `count` names, defaults `defaults`.
static FailureOr<llvm::SmallVector<std::string>>
readActivations(NodeContext &node, int64_t directions,
                llvm::ArrayRef<llvm::StringRef> defaults) {
  llvm::SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = node.attr("activations")) {
    if (a->strings_size() != static_cast<int>(defaults.size() * directions))
      return node.error() << "activations has " << a->strings_size()
                          << " names, expected "
                          << defaults.size() * directions;
    for (const std::string &s : a->strings()) {
      if (s != "Sigmoid" && s != "Tanh" && s != "Relu")
        return node.error() << "unsupported activation '" << s << "'";
      names.push_back(s);
    }
  } else {
    for (int64_t d = 0; d < directions; ++d)
      for (llvm::StringRef s : defaults)
        names.push_back(s.str());
  }
  if (node.attr("activation_alpha") || node.attr("activation_beta"))
    return node.error() << "activation_alpha and activation_beta are not "
                           "supported";
  return names;
}

/// Checks that the inputs have X's element type and the shapes the sizes
/// imply (W [D, G H, I], R [D, G H, H], B [D, 2 G H], initial_h and
/// initial_c [D, batch, H] ([batch, D, H] with layout 1), P [D, 3 H]),
/// before they are sliced and reshaped, whose errors would not name the
/// node.
static LogicalResult checkInputs(NodeContext &node, Type element,
                                 int64_t dirs, int64_t gates, int64_t batch,
                                 int64_t inputSize, int64_t hidden,
                                 bool batchFirst, const RecurrentInputs &in) {
  llvm::SmallVector<int64_t> state = {dirs, batch, hidden};
  if (batchFirst)
    std::swap(state[0], state[1]);
  struct Expected {
    const char *name;
    Value value;
    llvm::SmallVector<int64_t> shape;
  } expected[] = {{"W", in.w, {dirs, gates * hidden, inputSize}},
                  {"R", in.r, {dirs, gates * hidden, hidden}},
                  {"B", in.bias, {dirs, 2 * gates * hidden}},
                  {"initial_h", in.h0, state},
                  {"initial_c", in.c0, state},
                  {"P", in.peep, {dirs, 3 * hidden}}};
  for (const Expected &e : expected) {
    if (!e.value)
      continue;
    RankedTensorType type = NodeContext::typeOf(e.value);
    if (type.getElementType() == element &&
        succeeded(verifyCompatibleShape(type.getShape(), e.shape)))
      continue;
    InFlightDiagnostic diag = node.error()
                              << e.name << " has type " << type
                              << " but needs shape [";
    llvm::interleaveComma(e.shape, diag);
    return diag << "] of " << element << " (X's element type; "
                << dirs << (dirs == 1 ? " direction, " : " directions, ")
                << "hidden size " << hidden << ")";
  }
  return success();
}

namespace {
/// A recurrent node's attributes.
struct CellOptions {
  int64_t gates = 1;
  std::string direction;
  int64_t directions = 1;
  bool batchFirst = false, linearBeforeReset = false;
  /// The cell's activations by default, and per direction as given.
  llvm::SmallVector<llvm::StringRef> defaults;
  llvm::SmallVector<std::string> activations;
};

/// A recurrent node's inputs, time-major, and their sizes.
struct CellInputs {
  Value x; ///< [seq, batch, input]
  RecurrentInputs weights;
  int64_t seq = 0, batch = 0, inputSize = 0, hidden = 0;
  Type element;
};
} // namespace

/// Reads and checks the attributes of a `cell` node.
static FailureOr<CellOptions> readCellOptions(NodeContext &node, Cell cell) {
  CellOptions options;
  options.gates = cell == Cell::lstm ? 4 : cell == Cell::gru ? 3 : 1;
  options.direction = node.getString("direction", "forward");
  if (options.direction != "forward" && options.direction != "reverse" &&
      options.direction != "bidirectional")
    return node.error() << "unsupported direction '" << options.direction
                        << "'";
  options.directions = options.direction == "bidirectional" ? 2 : 1;
  if (node.attr("clip"))
    return node.error() << "clip is not supported";
  if (node.getInt("input_forget", 0) != 0)
    return node.error() << "input_forget is not supported";
  options.batchFirst = node.getInt("layout", 0) != 0;
  options.linearBeforeReset = node.getInt("linear_before_reset", 0) != 0;
  options.defaults =
      cell == Cell::lstm
          ? llvm::SmallVector<llvm::StringRef>{"Sigmoid", "Tanh", "Tanh"}
      : cell == Cell::gru
          ? llvm::SmallVector<llvm::StringRef>{"Sigmoid", "Tanh"}
          : llvm::SmallVector<llvm::StringRef>{"Tanh"};
  FailureOr<llvm::SmallVector<std::string>> activations =
      readActivations(node, options.directions, options.defaults);
  if (failed(activations))
    return failure();
  options.activations = std::move(*activations);
  return options;
}

/// Reads and checks the inputs of a `cell` node: X time-major, the states
/// as [dirs, batch, H].
static FailureOr<CellInputs> readCellInputs(NodeContext &node, Cell cell,
                                            const CellOptions &options) {
  FailureOr<Value> x = node.input(0), w = node.input(1), r = node.input(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  if (options.batchFirst) // [batch, seq, input] -> [seq, batch, input]
    x = valueOf(node.create<TransposeOp>(
        *x, {node.named("perm", node.b.getDenseI64ArrayAttr({1, 0, 2}))}));
  if (failed(x))
    return failure();
  CellInputs in;
  in.x = *x;
  RankedTensorType xType = NodeContext::typeOf(*x);
  if (xType.getRank() != 3)
    return node.error() << "X must have rank 3";
  in.seq = xType.getDimSize(0);
  in.batch = xType.getDimSize(1);
  in.inputSize = xType.getDimSize(2);
  if (NodeContext::typeOf(*r).getRank() != 3)
    return node.error() << "R must have rank 3";
  in.hidden = NodeContext::typeOf(*r).getDimSize(2);
  if (node.getInt("hidden_size", in.hidden) != in.hidden)
    return node.error() << "hidden_size does not match R";
  in.element = xType.getElementType();
  if (node.hasInput(4)) {
    const ConstTensor *lens = node.constInput(4);
    if (!lens)
      return node.error() << "sequence_lens must be known at import time";
    for (int64_t i = 0; i < lens->numElements(); ++i)
      if (lens->getInt(i) != in.seq)
        return node.error()
               << "sequence_lens shorter than the sequence (" << lens->getInt(i)
               << " of " << in.seq << ") are not supported";
  }
  // Optional inputs: B 3, initial_h 5, initial_c 6, P 7.
  auto optional = [&](unsigned i) -> FailureOr<Value> {
    if (!node.hasInput(i))
      return Value();
    return node.input(i);
  };
  FailureOr<Value> bias = optional(3), h0 = optional(5),
                   c0 = cell == Cell::lstm ? optional(6)
                                           : FailureOr<Value>(Value()),
                   peep = cell == Cell::lstm ? optional(7)
                                             : FailureOr<Value>(Value());
  if (failed(bias) || failed(h0) || failed(c0) || failed(peep) ||
      failed(checkInputs(node, in.element, options.directions, options.gates,
                         in.batch, in.inputSize, in.hidden, options.batchFirst,
                         {*w, *r, *bias, *h0, *c0, *peep})))
    return failure();
  // The states as [dirs, batch, H] ([batch, dirs, H] with layout 1).
  if (options.batchFirst) {
    if (*h0)
      h0 = transposedValue(node, *h0, {1, 0, 2});
    if (succeeded(h0) && *c0)
      c0 = transposedValue(node, *c0, {1, 0, 2});
    if (failed(h0) || failed(c0))
      return failure();
  }
  in.weights = {*w, *r, *bias, *h0, *c0, *peep};
  return in;
}

/// Unrolls the cell step by step and direction by direction, and sets the
/// node's outputs: Y [seq, dirs, batch, H] (steps in order, directions side
/// by side), Y_h and Y_c [dirs, batch, H] (batch first with layout 1).
static LogicalResult unrollCell(NodeContext &node, Cell cell,
                                const CellOptions &options,
                                const CellInputs &in) {
  int64_t seq = in.seq, directions = options.directions;
  Unroller u{node,
             cell,
             in.hidden,
             in.batch,
             seq,
             in.inputSize,
             options.gates,
             directions,
             options.linearBeforeReset,
             in.weights,
             node.reshape(in.x, {seq * in.batch, in.inputSize})};
  llvm::SmallVector<Value> ys(seq * directions), lastH(directions),
      lastC(directions);
  size_t perDirection = options.defaults.size();
  for (int64_t d = 0; d < directions; ++d) {
    llvm::ArrayRef<std::string> act(options.activations);
    if (failed(u.unrollDirection(
            d, options.direction == "reverse" || d == 1,
            act.slice(d * perDirection, perDirection), ys, lastH[d], lastC[d])))
      return failure();
  }
  auto join = [&](llvm::ArrayRef<Value> parts,
                  int64_t axis) -> FailureOr<Value> {
    if (parts.size() == 1)
      return parts.front();
    return valueOf(node.create<ConcatOp>(
        parts, {node.named("axis", node.b.getI64IntegerAttr(axis))}));
  };
  llvm::SmallVector<Value> steps;
  for (int64_t t = 0; t < seq; ++t) {
    FailureOr<Value> step =
        join(llvm::ArrayRef<Value>(ys).slice(t * directions, directions), 1);
    if (failed(step))
      return failure();
    steps.push_back(*step);
  }
  FailureOr<Value> y = join(steps, 0), yh = join(lastH, 0),
                   yc = join(lastC, 0);
  if (succeeded(y) && options.batchFirst)
    y = transposedValue(node, *y, {2, 0, 1, 3});
  if (succeeded(yh) && options.batchFirst)
    yh = transposedValue(node, *yh, {1, 0, 2});
  if (succeeded(yc) && options.batchFirst)
    yc = transposedValue(node, *yc, {1, 0, 2});
  if (failed(y) || failed(yh) || failed(yc))
    return failure();
  if (node.hasOutput(0))
    node.setOutput(0, *y);
  if (node.hasOutput(1))
    node.setOutput(1, *yh);
  if (cell == Cell::lstm && node.hasOutput(2))
    node.setOutput(2, *yc);
  return success();
}

static LogicalResult mapRecurrent(NodeContext &node, Cell cell) {
  unsigned maxInputs = cell == Cell::lstm ? 8 : 6;
  if (failed(node.checkArity(3, maxInputs, cell == Cell::lstm ? 3 : 2)))
    return failure();
  FailureOr<CellOptions> options = readCellOptions(node, cell);
  if (failed(options))
    return failure();
  FailureOr<CellInputs> in = readCellInputs(node, cell, *options);
  if (failed(in))
    return failure();
  // One oneflow.rnn where the layer fits it, else the cell unrolled.
  std::string activation;
  const RecurrentInputs &weights = in->weights;
  if (fitsRecurrentPrimitive(cell, in->element,
                             static_cast<bool>(weights.peep),
                             options->activations, options->defaults,
                             activation))
    return mapRecurrentLayer(
        node, {cell, options->direction, activation, options->directions,
               in->seq, in->batch, in->hidden, options->batchFirst,
               options->linearBeforeReset, in->x, weights.w, weights.r,
               weights.bias, weights.h0, weights.c0});
  return unrollCell(node, cell, *options, *in);
}

void mlir::oneflow::onnx_import::addRecurrentLowerings(
    llvm::StringMap<Lowering> &table) {
  table["RNN"] = [](NodeContext &n) { return mapRecurrent(n, Cell::rnn); };
  table["GRU"] = [](NodeContext &n) { return mapRecurrent(n, Cell::gru); };
  table["LSTM"] = [](NodeContext &n) { return mapRecurrent(n, Cell::lstm); };
}

//===- Recurrent.cpp - Recurrent layers on oneDNN's RNN primitives --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// rnn runs oneDNN's vanilla RNN, LSTM, GRU or linear-before-reset GRU
// forward primitive over the whole sequence; rnn_grad runs the forward
// pass in training mode again (for the primitive's workspace, what the
// backward pass reads), then the backward primitive. The dialect's
// layouts are oneDNN's plain ones: x and y are tnc, the states ldnc, the
// weights ldgoi and the bias ldgo (one layer); the primitives pick their
// own weight layouts and reorders copy to and from them. The backward
// primitive adds to its weight gradients, which start at zero.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;
using tag = dnnl::memory::format_tag;

namespace {

/// The layer's sizes and kind, read from the op.
struct Layer {
  std::string cell, direction;
  int64_t steps = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1,
          biasGates = 1;
  bool lstm = false;

  dnnl::rnn_direction rnnDirection() const {
    if (direction == "reverse")
      return dnnl::rnn_direction::unidirectional_right2left;
    if (direction == "bidirectional")
      return dnnl::rnn_direction::bidirectional_concat;
    return dnnl::rnn_direction::unidirectional_left2right;
  }
  algorithm activation() const {
    if (cell == "rnn_relu")
      return algorithm::eltwise_relu;
    if (cell == "rnn_sigmoid")
      return algorithm::eltwise_logistic;
    return algorithm::eltwise_tanh;
  }
};

/// The user's descriptors (the dialect's layouts) of one layer.
struct UserDescs {
  MemDesc x, h, w, r, b, y;
  explicit UserDescs(const Layer &l)
      : x({l.steps, l.batch, l.input}, dt::f32, tag::tnc),
        h({1, l.dirs, l.batch, l.hidden}, dt::f32, tag::ldnc),
        w({1, l.dirs, l.input, l.gates, l.hidden}, dt::f32, tag::ldgoi),
        r({1, l.dirs, l.hidden, l.gates, l.hidden}, dt::f32, tag::ldgoi),
        b({1, l.dirs, l.biasGates, l.hidden}, dt::f32, tag::ldgo),
        y({l.steps, l.batch, l.dirs * l.hidden}, dt::f32, tag::tnc) {}
};

/// A weight in the layout a primitive chose: a reorder from (or, for
/// gradients, to) the user's layout and a buffer, or nothing when the
/// layouts agree.
class Relayout {
public:
  Relayout() = default;
  Relayout(const MemDesc &user, const MemDesc &chosen, bool toUser)
      : user(user), chosen(chosen) {
    if (user == chosen)
      return;
    buffer.resize(chosen.get_size());
    auto pd =
        toUser ? dnnl::reorder::primitive_desc(cpuEngine(), chosen, cpuEngine(),
                                               user, scratchpadAttr())
               : dnnl::reorder::primitive_desc(cpuEngine(), user, cpuEngine(),
                                               chosen, scratchpadAttr());
    reorder = dnnl::reorder(pd);
  }

  /// The memory the primitive reads or writes, in the chosen layout:
  /// `data` itself when the layouts agree.
  dnnl::memory memory(const void *data) {
    return wrap(chosen, buffer.empty() ? data : buffer.data());
  }
  /// Copies the user's `data` into the chosen layout.
  absl::Status in(const std::string &where, const void *data) {
    if (buffer.empty())
      return absl::OkStatus();
    return execute(where, reorder,
                   {{DNNL_ARG_FROM, wrap(user, data)},
                    {DNNL_ARG_TO, wrap(chosen, buffer.data())}});
  }
  /// Copies the chosen layout back into the user's `data`.
  absl::Status out(const std::string &where, void *data) {
    if (buffer.empty())
      return absl::OkStatus();
    return execute(where, reorder,
                   {{DNNL_ARG_FROM, wrap(chosen, buffer.data())},
                    {DNNL_ARG_TO, wrap(user, data)}});
  }
  /// Zeroes what the primitive accumulates into (`data` when no copy).
  void zero(void *data) {
    if (buffer.empty())
      std::memset(data, 0, user.get_size());
    else
      std::memset(buffer.data(), 0, buffer.size());
  }

private:
  MemDesc user, chosen;
  std::vector<uint8_t> buffer;
  dnnl::reorder reorder;
};

MemDesc anyLike(const MemDesc &desc) {
  return MemDesc(desc.dims(), dt::f32, tag::any);
}

/// The forward primitive descriptor of `l` with `prop`.
dnnl::primitive_desc forwardPd(const Layer &l, const UserDescs &u,
                               dnnl::prop_kind prop) {
  MemDesc w = anyLike(u.w), r = anyLike(u.r);
  dnnl::rnn_direction dir = l.rnnDirection();
  if (l.lstm)
    return dnnl::lstm_forward::primitive_desc(
        dnnl::lstm_forward::desc(prop, dir, u.x, u.h, u.h, w, r, u.b, u.y, u.h,
                                 u.h),
        scratchpadAttr(), cpuEngine());
  if (l.cell == "gru")
    return dnnl::gru_forward::primitive_desc(
        dnnl::gru_forward::desc(prop, dir, u.x, u.h, w, r, u.b, u.y, u.h),
        scratchpadAttr(), cpuEngine());
  if (l.cell == "lbr_gru")
    return dnnl::lbr_gru_forward::primitive_desc(
        dnnl::lbr_gru_forward::desc(prop, dir, u.x, u.h, w, r, u.b, u.y, u.h),
        scratchpadAttr(), cpuEngine());
  return dnnl::vanilla_rnn_forward::primitive_desc(
      dnnl::vanilla_rnn_forward::desc(prop, l.activation(), dir, u.x, u.h, w, r,
                                      u.b, u.y, u.h),
      scratchpadAttr(), cpuEngine());
}

/// The backward primitive descriptor of `l`, hinted by `forward`.
dnnl::primitive_desc backwardPd(const Layer &l, const UserDescs &u,
                                const dnnl::primitive_desc &forward) {
  MemDesc w = anyLike(u.w), r = anyLike(u.r), dw = anyLike(u.w),
          dr = anyLike(u.r);
  auto back = dnnl::prop_kind::backward;
  dnnl::rnn_direction dir = l.rnnDirection();
  if (l.lstm)
    return dnnl::lstm_backward::primitive_desc(
        dnnl::lstm_backward::desc(back, dir, u.x, u.h, u.h, w, r, u.b, u.y, u.h,
                                  u.h, u.x, u.h, u.h, dw, dr, u.b, u.y, u.h,
                                  u.h),
        scratchpadAttr(), cpuEngine(),
        dnnl::lstm_forward::primitive_desc(forward.get()));
  if (l.cell == "gru")
    return dnnl::gru_backward::primitive_desc(
        dnnl::gru_backward::desc(back, dir, u.x, u.h, w, r, u.b, u.y, u.h, u.x,
                                 u.h, dw, dr, u.b, u.y, u.h),
        scratchpadAttr(), cpuEngine(),
        dnnl::gru_forward::primitive_desc(forward.get()));
  if (l.cell == "lbr_gru")
    return dnnl::lbr_gru_backward::primitive_desc(
        dnnl::lbr_gru_backward::desc(back, dir, u.x, u.h, w, r, u.b, u.y, u.h,
                                     u.x, u.h, dw, dr, u.b, u.y, u.h),
        scratchpadAttr(), cpuEngine(),
        dnnl::lbr_gru_forward::primitive_desc(forward.get()));
  return dnnl::vanilla_rnn_backward::primitive_desc(
      dnnl::vanilla_rnn_backward::desc(back, l.activation(), dir, u.x, u.h, w,
                                       r, u.b, u.y, u.h, u.x, u.h, dw, dr, u.b,
                                       u.y, u.h),
      scratchpadAttr(), cpuEngine(),
      dnnl::vanilla_rnn_forward::primitive_desc(forward.get()));
}

/// rnn: (x, w, r, b, h0[, c0]) -> (y, hn[, cn]).
class RnnKernel : public CpuKernel {
public:
  RnnKernel(const OpDesc &op, const Layer &l)
      : CpuKernel(op), lstm(l.lstm), user(l) {
    dnnl::primitive_desc pd =
        forwardPd(l, user, dnnl::prop_kind::forward_inference);
    w = Relayout(user.w, pd.weights_desc(0), false);
    r = Relayout(user.r, pd.weights_desc(1), false);
    prim = dnnl::primitive(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    OFRT_RETURN_IF_ERROR(w.in(where, in[1].data));
    OFRT_RETURN_IF_ERROR(r.in(where, in[2].data));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC_LAYER, wrap(user.x, in[0].data)},
        {DNNL_ARG_WEIGHTS_LAYER, w.memory(in[1].data)},
        {DNNL_ARG_WEIGHTS_ITER, r.memory(in[2].data)},
        {DNNL_ARG_BIAS, wrap(user.b, in[3].data)},
        {DNNL_ARG_SRC_ITER, wrap(user.h, in[4].data)},
        {DNNL_ARG_DST_LAYER, wrap(user.y, out[0].data)},
        {DNNL_ARG_DST_ITER, wrap(user.h, out[1].data)}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = wrap(user.h, in[5].data);
      args[DNNL_ARG_DST_ITER_C] = wrap(user.h, out[2].data);
    }
    return execute(where, prim, args);
  }

private:
  bool lstm;
  UserDescs user;
  Relayout w, r;
  dnnl::primitive prim;
};

/// rnn_grad: (x, w, r, b, h0[, c0], dy, dhn[, dcn]) -> (dx, dw, dr, db,
/// dh0[, dc0]).
class RnnGradKernel : public CpuKernel {
public:
  RnnGradKernel(const OpDesc &op, const Layer &l)
      : CpuKernel(op), lstm(l.lstm), user(l) {
    dnnl::primitive_desc fwd =
        forwardPd(l, user, dnnl::prop_kind::forward_training);
    dnnl::primitive_desc bwd = backwardPd(l, user, fwd);
    fw = Relayout(user.w, fwd.weights_desc(0), false);
    fr = Relayout(user.r, fwd.weights_desc(1), false);
    bw = Relayout(user.w, bwd.weights_desc(0), false);
    br = Relayout(user.r, bwd.weights_desc(1), false);
    dw = Relayout(user.w, bwd.diff_weights_desc(0), true);
    dr = Relayout(user.r, bwd.diff_weights_desc(1), true);
    workspaceDesc = fwd.workspace_desc();
    workspace.resize(workspaceDesc.get_size());
    y.resize(user.y.get_size());
    hn.resize(user.h.get_size());
    cn.resize(lstm ? user.h.get_size() : 0);
    forward = dnnl::primitive(fwd);
    backward = dnnl::primitive(bwd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    size_t grads = lstm ? 6 : 5; // dy, dhn[, dcn] start here
    dnnl::memory ws = wrap(workspaceDesc, workspace.data());
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC_LAYER, wrap(user.x, in[0].data)},
        {DNNL_ARG_BIAS, wrap(user.b, in[3].data)},
        {DNNL_ARG_SRC_ITER, wrap(user.h, in[4].data)},
        {DNNL_ARG_DST_LAYER, wrap(user.y, y.data())},
        {DNNL_ARG_DST_ITER, wrap(user.h, hn.data())},
        {DNNL_ARG_WORKSPACE, ws}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = wrap(user.h, in[5].data);
      args[DNNL_ARG_DST_ITER_C] = wrap(user.h, cn.data());
    }
    OFRT_RETURN_IF_ERROR(fw.in(where, in[1].data));
    OFRT_RETURN_IF_ERROR(fr.in(where, in[2].data));
    args[DNNL_ARG_WEIGHTS_LAYER] = fw.memory(in[1].data);
    args[DNNL_ARG_WEIGHTS_ITER] = fr.memory(in[2].data);
    OFRT_RETURN_IF_ERROR(execute(where, forward, args));

    OFRT_RETURN_IF_ERROR(bw.in(where, in[1].data));
    OFRT_RETURN_IF_ERROR(br.in(where, in[2].data));
    args[DNNL_ARG_WEIGHTS_LAYER] = bw.memory(in[1].data);
    args[DNNL_ARG_WEIGHTS_ITER] = br.memory(in[2].data);
    dw.zero(out[1].data);
    dr.zero(out[2].data);
    std::memset(out[3].data, 0, out[3].desc.bytes());
    args[DNNL_ARG_DIFF_DST_LAYER] = wrap(user.y, in[grads].data);
    args[DNNL_ARG_DIFF_DST_ITER] = wrap(user.h, in[grads + 1].data);
    args[DNNL_ARG_DIFF_SRC_LAYER] = wrap(user.x, out[0].data);
    args[DNNL_ARG_DIFF_WEIGHTS_LAYER] = dw.memory(out[1].data);
    args[DNNL_ARG_DIFF_WEIGHTS_ITER] = dr.memory(out[2].data);
    args[DNNL_ARG_DIFF_BIAS] = wrap(user.b, out[3].data);
    args[DNNL_ARG_DIFF_SRC_ITER] = wrap(user.h, out[4].data);
    if (lstm) {
      args[DNNL_ARG_DIFF_DST_ITER_C] = wrap(user.h, in[grads + 2].data);
      args[DNNL_ARG_DIFF_SRC_ITER_C] = wrap(user.h, out[5].data);
    }
    OFRT_RETURN_IF_ERROR(execute(where, backward, args));
    OFRT_RETURN_IF_ERROR(dw.out(where, out[1].data));
    return dr.out(where, out[2].data);
  }

private:
  bool lstm;
  UserDescs user;
  Relayout fw, fr, bw, br, dw, dr;
  MemDesc workspaceDesc;
  std::vector<uint8_t> workspace, y, hn, cn;
  dnnl::primitive forward, backward;
};

/// Reads and checks the layer: the operands (and, for the gradient, the
/// result gradients) against the cell and direction, and the results.
absl::Status readLayer(const OpDesc &op, bool grad, Layer &l) {
  if (grad) {
    OFRT_READ_PARAMS(declared, params::RnnGradOp, op);
    l.cell = declared.cell;
    l.direction = declared.direction;
  } else {
    OFRT_READ_PARAMS(declared, params::RnnOp, op);
    l.cell = declared.cell;
    l.direction = declared.direction;
  }
  if (l.cell == "lstm")
    l.lstm = true, l.gates = l.biasGates = 4;
  else if (l.cell == "gru")
    l.gates = l.biasGates = 3;
  else if (l.cell == "lbr_gru")
    l.gates = 3, l.biasGates = 4;
  else if (l.cell != "rnn_tanh" && l.cell != "rnn_relu" &&
           l.cell != "rnn_sigmoid")
    return opError(op, "unknown cell '" + l.cell + "'");
  if (l.direction != "forward" && l.direction != "reverse" &&
      l.direction != "bidirectional")
    return opError(op, "unknown direction '" + l.direction + "'");
  l.dirs = l.direction == "bidirectional" ? 2 : 1;
  size_t states = l.lstm ? 2 : 1;
  OFRT_RETURN_IF_ERROR(checkArity(op, grad ? 4 + 2 * states + 1 : 4 + states,
                                  grad ? 4 + states : 1 + states));
  const TensorDesc &x = op.inputs[0];
  if (x.rank() != 3 || op.inputs[2].rank() != 4)
    return opError(op, "needs x [steps, batch, input] and r [directions, "
                       "gates, hidden, hidden], got " +
                           x.str() + " and " + op.inputs[2].str());
  l.steps = x.shape[0], l.batch = x.shape[1], l.input = x.shape[2];
  l.hidden = op.inputs[2].shape[2];
  Shape state = {l.dirs, l.batch, l.hidden};
  std::vector<Shape> shapes = {x.shape,
                               {l.dirs, l.gates, l.hidden, l.input},
                               {l.dirs, l.gates, l.hidden, l.hidden},
                               {l.dirs, l.biasGates, l.hidden},
                               state};
  if (l.lstm)
    shapes.push_back(state);
  Shape y = {l.steps, l.batch, l.dirs * l.hidden};
  std::vector<Shape> results = {y, state};
  if (l.lstm)
    results.push_back(state);
  if (grad) {
    std::vector<Shape> operands = shapes;
    shapes.insert(shapes.end(), results.begin(), results.end());
    results = operands;
  }
  static const char *const kOperands[] = {"x",  "w",  "r",   "b",  "h0",
                                          "c0", "dy", "dhn", "dcn"};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const TensorDesc &t = op.inputs[i];
    size_t name = grad && !l.lstm && i >= 5 ? i + 1 : i;
    if (t.dtype != DType::F32 || t.shape != shapes[i])
      return opError(op, std::string(kOperands[name]) + " " + t.str() +
                             " does not fit the layer (f32 " +
                             shapeStr(shapes[i]) + ")");
  }
  for (size_t i = 0; i < results.size(); ++i)
    OFRT_RETURN_IF_ERROR(checkResult(op, i, {DType::F32, results[i]}));
  if (l.steps == 0)
    return opError(op, "needs at least one step");
  return absl::OkStatus();
}

KernelOr createRnn(const OpDesc &op, bool grad) {
  Layer l;
  OFRT_RETURN_IF_ERROR(readLayer(op, grad, l));
  if (l.batch == 0 || l.hidden == 0 || l.input == 0)
    return opError(op, "needs a batch, an input and a hidden state of at "
                       "least one element");
  if (grad)
    return std::make_unique<RnnGradKernel>(op, l);
  return std::make_unique<RnnKernel>(op, l);
}

} // namespace

void cpu::registerRecurrentKernels(KernelRegistry &registry) {
  addKernel(registry, params::RnnOp::kOpName,
            [](const OpDesc &op) { return createRnn(op, false); });
  addKernel(registry, params::RnnGradOp::kOpName,
            [](const OpDesc &op) { return createRnn(op, true); });
}

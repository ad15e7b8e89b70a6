//===- OptimizerTest.cpp - sgd_update, adam_update, moving averages -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Five steps of each optimizer, in place, against torch.optim: the table
// below is printed by scripts/optimizer_reference.py (PyTorch in float64,
// same parameter, gradients and options). The moving average of batch
// norm's running statistics is checked against its formula; a set skip
// flag changes nothing; find_nonfinite finds NaN and infinities in every
// float type.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Ints = std::vector<int64_t>;

const Values kParam = {0.5, -1.0, 2.0, 0.1};
constexpr int64_t kSteps = 5;

/// The gradient of element i at step (the script's grad()).
double gradient(int64_t step, int64_t i) {
  return 0.1 * double(i + 1) - 0.05 * double(step) * (i % 2 == 0 ? 1 : -1);
}

/// PyTorch's parameter after each step, per case.
const std::map<std::string, std::vector<Values>> &torchValues() {
  static const std::map<std::string, std::vector<Values>> table = {
    {"sgd", {{0.48999999999999999, -1.02, 1.97, 0.059999999999999998},
      {0.48499999999999999, -1.0449999999999999, 1.9450000000000001, 0.014999999999999994},
      {0.48499999999999999, -1.075, 1.925, -0.03500000000000001},
      {0.48999999999999999, -1.1099999999999999, 1.9100000000000001, -0.090000000000000024},
      {0.5, -1.1499999999999999, 1.9000000000000001, -0.15000000000000005}}},
    {"sgd_momentum_wd", {{0.48949999999999999, -1.0189999999999999, 1.968, 0.059900000000000002},
      {0.4745605, -1.0600809999999998, 1.9122319999999999, -0.021249900000000009},
      {0.46064038949999997, -1.1259938189999998, 1.8401285679999999, -0.14426356010000002},
      {0.45265164966049998, -1.2191893622809999, 1.7583953506319998, -0.30983159062990007},
      {0.45500913215528949, -1.3418461618716189, 1.6730770596501678, -0.51853298651618018}}},
    {"sgd_nesterov", {{0.48004999999999998, -1.0361, 1.9392, 0.023809999999999998},
      {0.46113290499999998, -1.09702141, 1.86209552, -0.094216239000000035},
      {0.44816341198049997, -1.185198828321, 1.7754087865120001, -0.25473941424590008},
      {0.44555437739468701, -1.3027939463050902, 1.6851933356464273, -0.45831106169524294},
      {0.45726304002118789, -1.4517209229382806, 1.5968954304375442, -0.70538401885525182}}},
    {"sgd_scaled", {{0.495, -1.01, 1.9850000000000001, 0.080000000000000002},
      {0.49249999999999999, -1.0225, 1.9725000000000001, 0.057500000000000002},
      {0.49249999999999999, -1.0374999999999999, 1.9625000000000001, 0.032500000000000001},
      {0.495, -1.0549999999999999, 1.9550000000000001, 0.0049999999999999975},
      {0.5, -1.075, 1.9500000000000002, -0.025000000000000008}}},
    {"adam", {{0.49000000099999991, -1.0099999995, 1.9900000003333334, 0.090000000250000003},
      {0.48067820579118709, -1.0199964094181642, 1.9800882719464279, 0.079986644063547219},
      {0.4734724312824633, -1.0300027726965248, 1.9703561206611169, 0.069950699770667327},
      {0.47046065695675476, -1.0400340824877841, 1.9609318477190949, 0.059883297196148669},
      {0.47194355848552921, -1.0501043871695759, 1.9519940836159706, 0.049776156774591816}}},
    {"adam_wd", {{0.4900000666662222, -1.009999900001, 1.9900000199999599, 0.090000024390184424},
      {0.48041699735893034, -1.0200166495244212, 1.9800714020784782, 0.079956190959555376},
      {0.47187373057914123, -1.0301223334043541, 1.9702736097843239, 0.069844254594251531},
      {0.4654378380071299, -1.040365986938854, 1.9606769804910567, 0.059643693270941746},
      {0.46242281055037837, -1.050779100527528, 1.9513646274264511, 0.049337529169892612}}},
    {"adamw", {{0.48950000099999991, -1.0089999995000001, 1.9880000003333334, 0.089900000250000001},
      {0.47968870579018708, -1.0179874094186643, 1.9761002719460945, 0.079796744063297231},
      {0.47200324257567317, -1.0269757852876062, 1.9643920203888374, 0.069681003026354035},
      {0.46851946500738895, -1.0359801192935778, 1.9530033554264266, 0.059543919448809018},
      {0.46953384707115603, -1.045014443856076, 1.9421125879678758, 0.049377235107803355}}},
    {"adamw_schedule", {{0.49475000049999995, -1.0044999997500001, 1.9940000001666667, 0.094950000125000003},
      {0.48493345529068715, -1.0134919096684143, 1.9820942717795946, 0.084841693938422225},
      {0.47724274732667271, -1.0224847810371065, 1.970380026222504, 0.07472090795160391},
      {0.47453875909507043, -1.0294666204200285, 1.9615491701721146, 0.066860762252689471},
      {0.47486647699521622, -1.0324048927899743, 1.9580068933582933, 0.063554211867951363}}},
  };
  return table;
}

/// One optimizer configuration: op, attributes, states, gradient scale.
struct Case {
  std::string name;
  std::string op;
  std::map<std::string, AttrValue> attrs;
  int states;
  double scale;
};

const std::vector<Case> &cases() {
  static const std::vector<Case> all = {
      {"sgd", "sgd_update", {{"lr", 0.1}}, 0, 1.0},
      {"sgd_momentum_wd",
       "sgd_update",
       {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}},
       1,
       1.0},
      {"sgd_nesterov",
       "sgd_update",
       {{"lr", 0.1},
        {"momentum", 0.9},
        {"nesterov", true},
        {"weight_decay", 0.01}},
       1,
       1.0},
      {"sgd_scaled", "sgd_update", {{"lr", 0.1}}, 0, 0.5},
      {"adam", "adam_update", {{"lr", 0.01}}, 2, 1.0},
      {"adam_wd",
       "adam_update",
       {{"lr", 0.01},
        {"beta1", 0.8},
        {"beta2", 0.99},
        {"epsilon", 1e-6},
        {"weight_decay", 0.1}},
       2,
       1.0},
      {"adamw",
       "adam_update",
       {{"lr", 0.01}, {"weight_decay", 0.1}, {"decoupled", true}},
       2,
       1.0},
      {"adamw_schedule",
       "adam_update",
       {{"lr", 0.01},
        {"weight_decay", 0.1},
        {"decoupled", true},
        {"warmup_steps", int64_t(2)},
        {"total_steps", int64_t(5)},
        {"min_lr", 0.001}},
       2,
       1.0},
  };
  return all;
}

/// Runs `c` for kSteps in `dtype` on one set of buffers, as the runtime
/// does, and returns the parameter after each step.
std::vector<Values> train(const Case &c, DType dtype) {
  Shape shape = {int64_t(kParam.size())};
  std::vector<TensorData> inputs = {tensor(dtype, shape, kParam),
                                    tensor(dtype, shape, Values(4, 0.0))};
  for (int s = 0; s < c.states; ++s)
    inputs.push_back(tensor(dtype, shape, Values(4, 0.0)));
  bool scaled = c.scale != 1.0;
  if (scaled)
    inputs.push_back(tensor(dtype, {}, {c.scale}));
  OpDesc desc = op(c.op, descs(inputs), {}, c.attrs);
  auto kernel = create(desc);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok())
    return {};
  std::vector<Values> params;
  for (int64_t step = 0; step < kSteps; ++step) {
    Values grad(kParam.size());
    for (size_t i = 0; i < grad.size(); ++i)
      grad[i] = gradient(step, int64_t(i));
    inputs[1] = tensor(dtype, shape, grad);
    std::vector<TensorView> views;
    for (TensorData &t : inputs)
      views.push_back(t.view());
    KernelContext context;
    context.step = step;
    absl::Status status = (*kernel)->compute(context, views, {});
    EXPECT_TRUE(status.ok()) << status;
    params.push_back(values(inputs[0]));
  }
  return params;
}

TEST(OptimizerKernels, MatchTorchEveryStep) {
  for (const Case &c : cases()) {
    const std::vector<Values> &expected = torchValues().at(c.name);
    for (DType dtype : {DType::F64, DType::F32}) {
      SCOPED_TRACE(c.name + " " + dtypeName(dtype));
      std::vector<Values> got = train(c, dtype);
      ASSERT_EQ(got.size(), expected.size());
      double tol = dtype == DType::F64 ? 1e-12 : 2e-6;
      for (int64_t s = 0; s < kSteps; ++s)
        EXPECT_TRUE(near(got[s], expected[s], tol, tol)) << "step " << s;
    }
  }
}

TEST(OptimizerKernels, OptionsChangeTheResult) {
  // Each option matters: no two cases give the same last parameter.
  std::map<std::string, Values> last;
  for (const Case &c : cases())
    last[c.name] = train(c, DType::F64).back();
  for (auto &[a, va] : last)
    for (auto &[b, vb] : last)
      if (a < b)
        EXPECT_FALSE(near(va, vb, 1e-9, 0)) << a << " equals " << b;
}

TEST(OptimizerKernels, Errors) {
  TensorDesc p{DType::F32, {4}}, s{DType::F32, {}};
  std::map<std::string, AttrValue> lr = {{"lr", 0.1}};
  expectCreateError(op("sgd_update", {p, p}, {}), "needs attribute 'lr'");
  expectCreateError(op("sgd_update", {p, p, p}, {}, lr), "scale of type");
  expectCreateError(
      op("sgd_update", {p, p}, {}, {{"lr", 0.1}, {"momentum", 0.9}}),
      "needs 3 to 5 operands, got 2");
  expectCreateError(op("sgd_update", {p, {DType::F32, {3}}}, {}, lr),
                    "operand #1 of type 3xf32 does not match");
  expectCreateError(op("sgd_update", {{DType::I32, {4}}, {DType::I32, {4}}},
                       {}, lr),
                    "updates f32 and f64 parameters, not i32");
  expectCreateError(
      op("sgd_update", {p, p}, {}, {{"lr", 0.1}, {"momentum", 1.5}}),
      "momentum 1.500000 is not in [0, 1)");
  expectCreateError(op("adam_update", {p, p, p, s}, {}, lr),
                    "operand #3 of type f32 does not match");
  expectCreateError(op("adam_update", {p, p}, {}, lr),
                    "needs 4 to 6 operands, got 2");
  expectCreateError(
      op("adam_update", {p, p, p, p}, {},
         {{"lr", 0.1}, {"warmup_steps", int64_t(5)}, {"total_steps", int64_t(5)}}),
      "bad schedule: warmup_steps 5, total_steps 5");
  expectCreateError(op("sgd_update", {p, p}, {}, {{"lr", std::string("x")}}),
                    "lr");
  expectCreateError(op("sgd_update", {p, p, s, {DType::F64, {}}}, {}, lr),
                    "skip flag of type f64 is not one f32 element");
}

/// One firing of `desc` on `inputs`, in place.
void fire(const OpDesc &desc, std::vector<TensorData> &inputs) {
  auto kernel = create(desc);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<TensorView> views;
  for (TensorData &t : inputs)
    views.push_back(t.view());
  KernelContext context;
  ASSERT_TRUE((*kernel)->compute(context, views, {}).ok());
}

TEST(OptimizerKernels, SkipFlagChangesNothing) {
  Shape shape = {int64_t(kParam.size())};
  struct Update {
    std::string op;
    int states;
    std::map<std::string, AttrValue> attrs;
  };
  for (const Update &u :
       {Update{"sgd_update", 1, {{"lr", 0.1}, {"momentum", 0.9}}},
        Update{"adam_update", 2, {{"lr", 0.1}, {"weight_decay", 0.1}}}})
    for (double skip : {0.0, 3.0}) {
      SCOPED_TRACE(u.op + " skip " + std::to_string(skip));
      std::vector<TensorData> inputs = {
          f32(shape, kParam), f32(shape, {0.1, 0.2, 0.3, 0.4})};
      for (int i = 0; i < u.states; ++i)
        inputs.push_back(f32(shape, {0.5, 0.5, 0.5, 0.5}));
      inputs.push_back(f32({}, {1.0}));
      inputs.push_back(f32({}, {skip}));
      std::vector<TensorData> before = inputs;
      fire(op(u.op, descs(inputs), {}, u.attrs), inputs);
      for (int i = 0; i < 2 + u.states; ++i) {
        bool same = values(inputs[i]) == values(before[i]);
        // The gradient is read only; the parameter and states change
        // unless the step is skipped.
        EXPECT_EQ(same, i == 1 || skip != 0) << "operand #" << i;
      }
    }
}

/// find_nonfinite's attributes: `codes` and a label per code.
std::map<std::string, AttrValue> checked(std::vector<int64_t> codes) {
  std::vector<std::string> labels(codes.size(), "t");
  return {{"codes", Ints(codes)}, {"labels", labels}};
}

TEST(OptimizerKernels, FindNonfinite) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // 37 elements: the vector loop and its tail.
  for (DType dtype : {DType::F32, DType::F64, DType::BF16})
    for (double bad : {nan, inf, -inf})
      for (int64_t at : {int64_t(-1), int64_t(0), int64_t(17), int64_t(36)}) {
        SCOPED_TRACE(std::string(dtypeName(dtype)) + " " +
                     std::to_string(bad) + " at " + std::to_string(at));
        Values x = randomValues(37, 7, -100, 100);
        if (at >= 0)
          x[at] = bad;
        std::vector<TensorData> found =
            runOk("find_nonfinite", {tensor(dtype, {37}, x)},
                  {{DType::F32, {}}}, checked({7}));
        EXPECT_EQ(values(found[0]), Values{at >= 0 ? 7.0 : 0.0});
      }
  // f16 by its bits: 1.0, 65504 (the largest), +infinity, NaN.
  for (uint16_t bad : {uint16_t(0), uint16_t(0x7c00), uint16_t(0x7e00)}) {
    std::vector<uint16_t> bits = {0x3c00, 0x7bff, 0x3c00};
    if (bad)
      bits[2] = bad;
    TensorData x{{DType::F16, {3}}, std::vector<uint8_t>(6)};
    std::memcpy(x.bytes.data(), bits.data(), 6);
    std::vector<TensorData> found = runOk(
        "find_nonfinite", {x}, {{DType::F32, {}}}, checked({5}));
    EXPECT_EQ(values(found[0]), Values{bad ? 5.0 : 0.0}) << "f16 " << bad;
  }
  // The largest finite values are finite.
  for (auto [dtype, big] : {std::pair<DType, double>{DType::F32, 3.0e38},
                            {DType::F64, 1.0e308}}) {
    std::vector<TensorData> found =
        runOk("find_nonfinite", {tensor(dtype, {2}, {big, -big})},
              {{DType::F32, {}}}, checked({1}));
    EXPECT_EQ(values(found[0]), Values{0.0}) << dtypeName(dtype);
  }
}

// Several tensors (a fused check): the largest code of those that are not
// finite, whatever their order; `like` operands are not read.
TEST(OptimizerKernels, FindNonfiniteOfSeveral) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> codes = {2, 5, 3};
  for (int bad = 0; bad < 8; ++bad) {
    std::vector<TensorData> in;
    double expected = 0;
    for (int i = 0; i < 3; ++i) {
      Values x = randomValues(9 + i, 40 + i, -1, 1);
      if (bad & (1 << i)) {
        x[i] = nan;
        expected = std::max(expected, double(codes[i]));
      }
      in.push_back(tensor(i == 1 ? DType::BF16 : DType::F32, {9 + i}, x));
    }
    std::vector<TensorData> withLike = in;
    for (int i = 0; i < 3; ++i)
      withLike.push_back(tensor(DType::F32, {9 + i}, Values(9 + i, nan)));
    for (const std::vector<TensorData> *operands : {&in, &withLike})
      EXPECT_EQ(values(runOk("find_nonfinite", *operands, {{DType::F32, {}}},
                             checked(codes))[0]),
                Values{expected})
          << "bad " << bad << ", " << operands->size() << " operands";
  }
}

TEST(OptimizerKernels, FindNonfiniteErrors) {
  TensorDesc x{DType::F32, {4}}, flag{DType::F32, {}};
  std::map<std::string, AttrValue> code = checked({2});
  expectCreateError(op("find_nonfinite", {x}, {flag}),
                    "needs attribute 'codes'");
  expectCreateError(op("find_nonfinite", {x}, {flag}, {{"codes", int64_t(2)}}),
                    "attribute 'codes' must be an integer array");
  expectCreateError(op("find_nonfinite", {{DType::I32, {4}}}, {flag}, code),
                    "checks float tensors, not i32 (operand #0)");
  expectCreateError(op("find_nonfinite", {x}, {{DType::F64, {}}}, code),
                    "result of type f64 is not one f32 element");
  expectCreateError(op("find_nonfinite", {x}, {flag}, checked({0})),
                    "code 0 is not in [1, 2^24]");
  expectCreateError(op("find_nonfinite", {x, x, x}, {flag}, code),
                    "has 1 codes for 3 operands");
  expectCreateError(op("find_nonfinite", {x}, {flag}, checked({})),
                    "has 0 codes for 1 operands");
}

TEST(OptimizerKernels, MovingAverageInPlace) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Shape shape = {3};
    TensorData moving = tensor(dtype, shape, {1.0, -2.0, 0.5});
    TensorData value = tensor(dtype, shape, {3.0, 2.0, 0.5});
    auto kernel = create(op("moving_average_update", descs({moving, value}), {},
                            {{"momentum", 0.9}}));
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    // Two firings: the average moves toward the value each time.
    Values expected = {1.0, -2.0, 0.5};
    for (int step = 0; step < 2; ++step) {
      std::vector<TensorView> views = {moving.view(), value.view()};
      KernelContext context;
      context.step = step;
      ASSERT_TRUE((*kernel)->compute(context, views, {}).ok());
      Values v = {3.0, 2.0, 0.5};
      for (size_t i = 0; i < expected.size(); ++i)
        expected[i] = 0.9 * expected[i] + 0.1 * v[i];
      EXPECT_TRUE(near(values(moving), expected, 1e-6, 1e-6)) << step;
    }
  }
}

TEST(OptimizerKernels, MovingAverageErrors) {
  TensorDesc m{DType::F32, {4}};
  std::map<std::string, AttrValue> momentum = {{"momentum", 0.9}};
  expectCreateError(op("moving_average_update", {m, m}, {}),
                    "needs attribute 'momentum'");
  expectCreateError(
      op("moving_average_update", {m, {DType::F32, {3}}}, {}, momentum),
      "value of type 3xf32 does not match the moving average's "
      "4xf32");
  expectCreateError(op("moving_average_update",
                       {{DType::I64, {4}}, {DType::I64, {4}}}, {}, momentum),
                    "updates f32 and f64 averages, not i64");
  expectCreateError(
      op("moving_average_update", {m, m}, {}, {{"momentum", 1.5}}),
      "momentum 1.500000 is not in [0, 1]");
  expectCreateError(op("moving_average_update", {m}, {}, momentum),
                    "needs 2 operands, got 1");
}

} // namespace

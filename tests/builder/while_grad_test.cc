// Gradients through while loops (AddSymbolicGradients over ops::WhileLoop):
// loop bodies that need their forward values (x * x, MatMul with a
// loop-invariant weight, an RNN cell) checked against finite differences
// and against TensorFlow's tf.gradients of the same tf.while_loop (v1
// control flow; tests/golden/gen_builder_grads.py, WHILE_CASES), an RNN
// trained with train::Minimize step for step like its unrolled twin, and
// the loops whose gradients are refused.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/control_flow.h"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "runtime/session.h"
#include "tests/builder/grad_test_util.h"
#include "tests/builder/npy.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::Ph;
using ::dfx::testing::Rand;
using ::dfx::testing::RequireGradient;
using ::dfx::testing::StatusIs;

// A loop body over the loop variables (the counter first), given the
// iteration's counter value and the other variables.
using StepFn = std::function<std::vector<Output>(
    const Scope&, const Output& i, const std::vector<Output>& vars)>;

// for (i = 0; i < n; ++i) vars = step(i, vars); returns the final vars
// (without the counter).
std::vector<Output> CountedLoop(const Scope& scope, int n,
                                const std::vector<Output>& vars,
                                const StepFn& step,
                                int parallel_iterations = 10) {
  std::vector<Output> inputs = {ops::Const(scope, 0)};
  inputs.insert(inputs.end(), vars.begin(), vars.end());
  ops::WhileOptions options;
  options.parallel_iterations = parallel_iterations;
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          scope, inputs,
          [n](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], ops::Const(c, n));
            return c.status();
          },
          [&step](const Scope& b, const std::vector<Output>& in,
                  std::vector<Output>* next) {
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            const std::vector<Output> vars(in.begin() + 1, in.end());
            for (const Output& v : step(b, in[0], vars)) next->push_back(v);
            return b.status();
          },
          &outs, options),
      IsOk());
  return std::vector<Output>(outs.begin() + 1, outs.end());
}

// The bodies, shared by the finite-difference and the TensorFlow tests.
// v = v * v * 0.5 + w
std::vector<Output> SquareStep(const Scope& b, const Output& w,
                               const std::vector<Output>& v) {
  const Output half = w.dtype() == DT_FLOAT ? ops::Const(b, 0.5f)
                                            : ops::Const(b, 0.5);
  return {ops::AddV2(b, ops::Mul(b, ops::Mul(b, v[0], v[0]), half), w)};
}
// h = tanh(h @ w)
std::vector<Output> MatMulTanhStep(const Scope& b, const Output& w,
                                   const std::vector<Output>& h) {
  return {ops::Tanh(b, ops::MatMul(b, h[0], w))};
}
// h = tanh(seq[i] @ wx + h @ wh + bias)
std::vector<Output> RnnStep(const Scope& b, const Output& i, const Output& seq,
                            const Output& wx, const Output& wh,
                            const Output& bias, const std::vector<Output>& h) {
  const Output x_t = ops::GatherV2(b, seq, i, ops::Const(b, 0));
  return {ops::Tanh(
      b, ops::AddV2(b,
                    ops::AddV2(b, ops::MatMul(b, x_t, wx),
                               ops::MatMul(b, h[0], wh)),
                    bias))};
}
// (a, c) = (a * c, sin(a) + c)
std::vector<Output> TwoVarStep(const Scope& b, const std::vector<Output>& v) {
  return {ops::Mul(b, v[0], v[1]), ops::AddV2(b, ops::Sin(b, v[0]), v[1])};
}

TEST_CASE("while loop gradients match finite differences") {
  Scope root = Scope::NewRootScope();
  SECTION("v * v + w, w loop-invariant") {
    for (int pi : {1, 10}) {
      INFO("parallel_iterations " << pi);
      Scope s = Scope::NewRootScope();
      Output v0 = Ph(s, "v0", DT_DOUBLE), w = Ph(s, "w", DT_DOUBLE);
      std::vector<Output> out = CountedLoop(
          s, 3, {v0},
          [&w](const Scope& b, const Output&, const std::vector<Output>& v) {
            return SquareStep(b, w, v);
          },
          pi);
      RequireGradient(s, {v0, w},
                      {Rand(DT_DOUBLE, TensorShape({3}), 1),
                       Rand(DT_DOUBLE, TensorShape({3}), 2)},
                      out);
    }
  }
  SECTION("tanh(h @ w), w loop-invariant") {
    Output h0 = Ph(root, "h0", DT_DOUBLE), w = Ph(root, "w", DT_DOUBLE);
    std::vector<Output> out = CountedLoop(
        root, 4, {h0},
        [&w](const Scope& b, const Output&, const std::vector<Output>& h) {
          return MatMulTanhStep(b, w, h);
        });
    RequireGradient(root, {h0, w},
                    {Rand(DT_DOUBLE, TensorShape({2, 3}), 3),
                     Rand(DT_DOUBLE, TensorShape({3, 3}), 4)},
                    out);
  }
  SECTION("an RNN cell reading its input sequence by the counter") {
    Output seq = Ph(root, "seq", DT_DOUBLE), wx = Ph(root, "wx", DT_DOUBLE),
           wh = Ph(root, "wh", DT_DOUBLE), bias = Ph(root, "bias", DT_DOUBLE),
           h0 = Ph(root, "h0", DT_DOUBLE);
    std::vector<Output> out = CountedLoop(
        root, 4, {h0},
        [&](const Scope& b, const Output& i, const std::vector<Output>& h) {
          return RnnStep(b, i, seq, wx, wh, bias, h);
        });
    RequireGradient(root, {seq, wx, wh, bias, h0},
                    {Rand(DT_DOUBLE, TensorShape({4, 2, 3}), 5),
                     Rand(DT_DOUBLE, TensorShape({3, 4}), 6),
                     Rand(DT_DOUBLE, TensorShape({4, 4}), 7),
                     Rand(DT_DOUBLE, TensorShape({4}), 8),
                     Rand(DT_DOUBLE, TensorShape({2, 4}), 9)},
                    out);
  }
  SECTION("two coupled loop variables, both outputs used") {
    Output a0 = Ph(root, "a0", DT_DOUBLE), c0 = Ph(root, "c0", DT_DOUBLE);
    std::vector<Output> out = CountedLoop(
        root, 3, {a0, c0},
        [](const Scope& b, const Output&, const std::vector<Output>& v) {
          return TwoVarStep(b, v);
        });
    RequireGradient(root, {a0, c0},
                    {Rand(DT_DOUBLE, TensorShape({3}), 10),
                     Rand(DT_DOUBLE, TensorShape({3}), 11)},
                    out);
    SECTION("only one output used: the other still carries its gradient") {
      RequireGradient(root, {a0, c0},
                      {Rand(DT_DOUBLE, TensorShape({3}), 12),
                       Rand(DT_DOUBLE, TensorShape({3}), 13)},
                      {out[0]});
    }
  }
  SECTION("a loop result used again after the loop, and float32") {
    Output v0 = Ph(root, "v0", DT_FLOAT), w = Ph(root, "w", DT_FLOAT);
    std::vector<Output> out = CountedLoop(
        root, 2, {v0},
        [&w](const Scope& b, const Output&, const std::vector<Output>& v) {
          return SquareStep(b, w, v);
        });
    Output y = ops::Mul(root, ops::Sin(root, out[0]), w);
    RequireGradient(root, {v0, w},
                    {Rand(DT_FLOAT, TensorShape({2}), 14),
                     Rand(DT_FLOAT, TensorShape({2}), 15)},
                    {y}, 2e-3);
  }
}

TEST_CASE("gradients through a loop that runs a fed number of iterations") {
  // y = x * w^n: dy/dx = w^n, dy/dw = n x w^(n-1); n = 0 too.
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, "x", DT_DOUBLE), w = Ph(root, "w", DT_DOUBLE);
  Output n = Ph(root, "n", DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), x},
          [&n](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [&w](const Scope& b, const std::vector<Output>& in,
               std::vector<Output>* next) {
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            next->push_back(ops::Mul(b, in[1], w));
            return b.status();
          },
          &outs),
      IsOk());
  std::vector<Output> grads;
  REQUIRE_THAT(AddSymbolicGradients(root, {outs[1]}, {x, w}, &grads), IsOk());
  for (int iterations : {0, 1, 5}) {
    INFO(iterations << " iterations");
    const double xv = 1.5, wv = 0.8;
    auto run = testing::RunScope(
        root,
        {{x, Tensor::Scalar<double>(xv)},
         {w, Tensor::Scalar<double>(wv)},
         {n, Tensor::Scalar<int32_t>(iterations)}},
        {outs[1], grads[0], grads[1]});
    REQUIRE_OK(run);
    CHECK((*run)[0].scalar<double>() == Approx(xv * std::pow(wv, iterations)));
    CHECK((*run)[1].scalar<double>() == Approx(std::pow(wv, iterations)));
    CHECK((*run)[2].scalar<double>() ==
          Approx(iterations * xv * std::pow(wv, iterations - 1)).margin(1e-12));
  }
}

TEST_CASE("a while loop's gradient pops its forward values from stacks") {
  Scope root = Scope::NewRootScope();
  Output v0 = Ph(root, "v0", DT_DOUBLE), w = Ph(root, "w", DT_DOUBLE);
  std::vector<Output> out = CountedLoop(
      root, 3, {v0},
      [&w](const Scope& b, const Output&, const std::vector<Output>& v) {
        return SquareStep(b, w, v);
      });
  std::vector<Output> grads;
  REQUIRE_THAT(AddSymbolicGradients(root, out, {v0, w}, &grads), IsOk());
  GraphDef def;
  REQUIRE_THAT(root.ToGraphDef(&def), IsOk());
  int stacks = 0, pushes = 0, pops = 0;
  for (const NodeDef& node : def.node()) {
    stacks += node.op() == "StackV2";
    pushes += node.op() == "StackPushV2";
    pops += node.op() == "StackPopV2";
  }
  // One stack per forward value the gradient reads: v (both inputs of
  // v * v), v * v (input of the Mul by 0.5) and v * v * 0.5 (its shape, for
  // AddV2's broadcast); the Const 0.5 is copied, w comes from outside.
  CHECK(stacks == 3);
  CHECK(pushes == 3);
  CHECK(pops == 3);
}

TEST_CASE("gradients through nested loops are refused, not wrong") {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, "x", DT_FLOAT);
  std::vector<Output> out = CountedLoop(
      root, 2, {x},
      [](const Scope& b, const Output&, const std::vector<Output>& v) {
        return CountedLoop(
            b, 2, v,
            [](const Scope& bb, const Output&, const std::vector<Output>& u) {
              return std::vector<Output>{ops::Mul(bb, u[0], u[0])};
            });
      });
  std::vector<Output> grads;
  CHECK_THAT(AddSymbolicGradients(root, out, {x}, &grads),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "gradients through nested loops are not built"));
}

TEST_CASE("gradients through a cond inside a loop are refused, not wrong") {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, "x", DT_FLOAT);
  std::vector<Output> out = CountedLoop(
      root, 2, {x},
      [](const Scope& b, const Output& i, const std::vector<Output>& v) {
        std::vector<Output> r;
        REQUIRE_THAT(
            ops::Cond(
                b, ops::Less(b, i, ops::Const(b, 1)), v,
                [](const Scope& t, const std::vector<Output>& in,
                   std::vector<Output>* o) {
                  o->push_back(ops::Mul(t, in[0], in[0]));
                  return t.status();
                },
                [](const Scope& e, const std::vector<Output>& in,
                   std::vector<Output>* o) {
                  o->push_back(ops::Sin(e, in[0]));
                  return e.status();
                },
                &r),
            IsOk());
        return r;
      });
  std::vector<Output> grads;
  CHECK_THAT(AddSymbolicGradients(root, out, {x}, &grads),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "gradients through a conditional inside a loop are not "
                      "built"));
}

TEST_CASE("gradients with respect to a value inside a loop are refused") {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, "x", DT_FLOAT);
  Output inner;
  std::vector<Output> out = CountedLoop(
      root, 2, {x},
      [&inner](const Scope& b, const Output&, const std::vector<Output>& v) {
        inner = ops::Mul(b, v[0], v[0]);
        return std::vector<Output>{inner};
      });
  std::vector<Output> grads;
  CHECK_THAT(AddSymbolicGradients(root, out, {inner}, &grads),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "is inside loop"));
}

// ---------------------------------------------------------------------------
// TensorFlow's tf.gradients of the same loops.

const std::string kWhileDataDir =
    DFX_TEST_DATA_DIR "/../builder/data/while_grads/";

Tensor LoadWhile(const std::string& name, const std::string& file) {
  absl::StatusOr<Tensor> t =
      testing::ReadNpy(kWhileDataDir + name + "/" + file + ".npy");
  REQUIRE_OK(t);
  return *t;
}

struct WhileCase {
  const char* name;
  int num_inputs;
  std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>
      fn;
};

// Keep in step with WHILE_CASES in tests/golden/gen_builder_grads.py.
std::vector<WhileCase> WhileCases() {
  return {
      {"while_square", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return CountedLoop(
             s, 3, {x[0]},
             [&x](const Scope& b, const Output&, const std::vector<Output>& v) {
               return SquareStep(b, x[1], v);
             });
       }},
      {"while_matmul_tanh", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return CountedLoop(
             s, 4, {x[0]},
             [&x](const Scope& b, const Output&, const std::vector<Output>& h) {
               return MatMulTanhStep(b, x[1], h);
             });
       }},
      {"while_rnn", 5,
       [](const Scope& s, const std::vector<Output>& x) {
         return CountedLoop(
             s, 4, {x[4]},
             [&x](const Scope& b, const Output& i,
                  const std::vector<Output>& h) {
               return RnnStep(b, i, x[0], x[1], x[2], x[3], h);
             });
       }},
      {"while_two_vars", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return CountedLoop(
             s, 3, {x[0], x[1]},
             [](const Scope& b, const Output&, const std::vector<Output>& v) {
               return TwoVarStep(b, v);
             });
       }},
  };
}

TEST_CASE("while loop gradients equal TensorFlow's tf.gradients") {
  for (const WhileCase& c : WhileCases()) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      std::vector<Output> xs;
      for (int i = 0; i < c.num_inputs; ++i) {
        const std::string x = "x" + std::to_string(i);
        xs.push_back(ops::Const(root.WithOpName(x), LoadWhile(c.name, x)));
      }
      const std::vector<Output> ys = c.fn(root, xs);
      std::vector<Output> dys;
      for (size_t j = 0; j < ys.size(); ++j) {
        const std::string dy = "dy" + std::to_string(j);
        dys.push_back(ops::Const(root.WithOpName(dy), LoadWhile(c.name, dy)));
      }
      std::vector<Output> grads;
      REQUIRE_OK(AddSymbolicGradients(root, ys, xs, dys, &grads));
      auto out = testing::RunScope(root, {}, grads);
      REQUIRE_OK(out);
      for (int i = 0; i < c.num_inputs; ++i) {
        const Tensor want = LoadWhile(c.name, "grad_x" + std::to_string(i));
        const Tensor& got = (*out)[i];
        INFO("gradient of x" << i << ": dfx shape "
                             << got.shape().DebugString()
                             << ", TensorFlow shape "
                             << want.shape().DebugString());
        REQUIRE(got.shape() == want.shape());
        for (int64_t e = 0; e < want.NumElements(); ++e) {
          const double g = testing::GetAsDouble(got, e);
          const double w = testing::GetAsDouble(want, e);
          INFO("element " << e << ": dfx " << g << ", TensorFlow " << w);
          CHECK(std::fabs(g - w) <= 1e-5 * (1 + std::fabs(w)));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Training through a loop.

constexpr int kSteps = 4, kBatch = 8, kIn = 3, kHidden = 5;

// An RNN over kSteps inputs regressing the sum of each sequence's first
// features; `unrolled` builds the same cell kSteps times without a loop.
struct Rnn {
  Scope scope = Scope::NewRootScope();
  std::vector<train::Variable> vars;
  Output loss;
};

Rnn BuildRnn(bool unrolled) {
  Rnn m;
  const Scope& s = m.scope;
  Output seq = ops::Placeholder(s.WithOpName("seq"), DT_FLOAT);
  Output target = ops::Placeholder(s.WithOpName("target"), DT_FLOAT);
  train::Variable wx = train::NewVariable(
      s.WithOpName("wx"), train::GlorotUniform(s, {kIn, kHidden}, 1), DT_FLOAT,
      {kIn, kHidden});
  train::Variable wh = train::NewVariable(
      s.WithOpName("wh"), train::GlorotUniform(s, {kHidden, kHidden}, 2),
      DT_FLOAT, {kHidden, kHidden});
  train::Variable b = train::NewVariable(
      s.WithOpName("b"), train::Zeros(s, {kHidden}), DT_FLOAT, {kHidden});
  train::Variable wo = train::NewVariable(
      s.WithOpName("wo"), train::GlorotUniform(s, {kHidden, 1}, 3), DT_FLOAT,
      {kHidden, 1});
  Output h0 = ops::Fill(s, ops::Const(s, {kBatch, kHidden}),
                        ops::Const(s, 0.0f));
  Output h;
  if (unrolled) {
    h = h0;
    for (int t = 0; t < kSteps; ++t) {
      h = RnnStep(s, ops::Const(s, t), seq, wx.value, wh.value, b.value,
                  {h})[0];
    }
  } else {
    h = CountedLoop(s, kSteps, {h0},
                    [&](const Scope& bs, const Output& i,
                        const std::vector<Output>& hv) {
                      return RnnStep(bs, i, seq, wx.value, wh.value, b.value,
                                     hv);
                    })[0];
  }
  Output pred = ops::MatMul(s, h, wo.value);
  m.loss = ops::Mean(s.WithOpName("loss"),
                     ops::SquaredDifference(s, pred, target),
                     ops::Const(s, {0, 1}));
  m.vars = {wx, wh, b, wo};
  return m;
}

// The loss before each of `steps` GradientDescent steps, then after.
std::vector<float> TrainRnn(bool unrolled, int steps) {
  Rnn m = BuildRnn(unrolled);
  train::GradientDescent sgd(0.1f);
  absl::StatusOr<Operation> step = sgd.Minimize(m.scope, m.loss, m.vars);
  REQUIRE_OK(step);
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), m.vars);
  REQUIRE(m.scope.ok());
  GraphDef def;
  REQUIRE_OK(m.scope.ToGraphDef(&def));
  auto session = Session::Create("local", {});
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(def));
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({}, {}, {init.node_name()}, &out));
  Tensor seq = Rand(DT_FLOAT, TensorShape({kSteps, kBatch, kIn}), 21);
  Tensor target(DT_FLOAT, TensorShape({kBatch, 1}));
  for (int r = 0; r < kBatch; ++r) {
    float sum = 0;
    for (int t = 0; t < kSteps; ++t) {
      sum += seq.data<float>()[(t * kBatch + r) * kIn];
    }
    target.data<float>()[r] = 0.5f * sum;
  }
  std::vector<float> losses;
  for (int i = 0; i <= steps; ++i) {
    std::vector<std::string> targets;
    if (i < steps) targets.push_back(step->node_name());
    REQUIRE_OK((*session)->Run({{"seq", seq}, {"target", target}}, {"loss"},
                               targets, &out));
    losses.push_back(out[0].scalar<float>());
  }
  return losses;
}

TEST_CASE("an RNN in a while loop trains like its unrolled twin") {
  const std::vector<float> looped = TrainRnn(false, 30);
  const std::vector<float> unrolled = TrainRnn(true, 30);
  INFO("loss " << looped.front() << " -> " << looped.back());
  CHECK(looped.back() < 0.5f * looped.front());
  REQUIRE(looped.size() == unrolled.size());
  for (size_t i = 0; i < looped.size(); ++i) {
    INFO("step " << i);
    CHECK(looped[i] == Approx(unrolled[i]).epsilon(1e-4));
  }
}

}  // namespace
}  // namespace dfx

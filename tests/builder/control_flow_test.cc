// ops::WhileLoop and ops::Cond (graph/builder/control_flow.h): loops and
// conditionals built from C++ run in a local session and give what the same
// computation gives as plain C++, including nested loops, outside values,
// a loop split over two devices, and the errors a builder user meets.
#include "graph/builder/control_flow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;

constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

struct RunResult {
  absl::Status status;
  std::vector<Tensor> outputs;
  RunMetadata metadata;
};

// Runs the scope's graph in a fresh local session with `cpus` CPU devices.
RunResult Run(const Scope& scope,
              const std::vector<std::pair<std::string, Tensor>>& feeds,
              const std::vector<Output>& fetches, int cpus = 1) {
  RunResult r;
  GraphDef def;
  r.status = scope.ToGraphDef(&def);
  if (!r.status.ok()) return r;
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = cpus;
  auto session = Session::Create("local", options);
  if (!session.ok()) {
    r.status = session.status();
    return r;
  }
  r.status = (*session)->Extend(def);
  std::vector<std::string> names;
  for (const Output& f : fetches) names.push_back(f.ToString());
  RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  run_options.set_timeout_in_ms(60000);  // a hang fails instead
  if (r.status.ok()) {
    r.status =
        (*session)->Run(run_options, feeds, names, {}, &r.outputs, &r.metadata);
  }
  (void)(*session)->Close();
  return r;
}

const NodeDef* FindNode(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

// i = 0; while (i < limit) i += step.
absl::Status CounterLoop(const Scope& s, const Output& limit, int32_t step,
                         Output* out, const ops::WhileOptions& options = {}) {
  std::vector<Output> outs;
  absl::Status status = ops::WhileLoop(
      s, {ops::Const(s, 0)},
      [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
        *pred = ops::Less(c, in[0], limit);
        return c.status();
      },
      [&](const Scope& b, const std::vector<Output>& in,
          std::vector<Output>* next) {
        next->push_back(ops::AddV2(b, in[0], ops::Const(b, step)));
        return b.status();
      },
      &outs, options);
  if (status.ok()) *out = outs[0];
  return status;
}

TEST_CASE("a counter loop built in C++ counts to its limit") {
  for (int parallel : {1, 10}) {
    for (int32_t limit : {0, 1, 7, 100}) {
      INFO("parallel_iterations " << parallel << ", limit " << limit);
      Scope root = Scope::NewRootScope();
      std::vector<Output> outs;
      // The limit is a Const built inside the condition: it needs the
      // frame's pivot to run in every iteration.
      REQUIRE_THAT(
          ops::WhileLoop(
              root, {ops::Const(root, 0)},
              [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
                *pred = ops::Less(c, in[0], ops::Const(c, limit));
                return c.status();
              },
              [](const Scope& b, const std::vector<Output>& in,
                 std::vector<Output>* next) {
                next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
                return b.status();
              },
              &outs, {.parallel_iterations = parallel}),
          IsOk());
      RunResult r = Run(root, {}, outs);
      REQUIRE_THAT(r.status, IsOk());
      int32_t expected = 0;
      while (expected < limit) expected += 1;
      CHECK(r.outputs[0].scalar<int32_t>() == expected);
    }
  }
}

TEST_CASE("a loop carries variables of different dtypes") {
  // i int32, acc float, p int64:
  // while (i < 12) { acc = acc * 1.5 + float(i); p = (p * 7) mod 1000003; i++ }
  Scope root = Scope::NewRootScope();
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root,
          {ops::Const(root, 0), ops::Const(root, 0.25f),
           ops::Const(root, int64_t{3})},
          [](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], ops::Const(c, 12));
            return c.status();
          },
          [](const Scope& b, const std::vector<Output>& in,
             std::vector<Output>* next) {
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            next->push_back(ops::AddV2(b,
                                       ops::Mul(b, in[1], ops::Const(b, 1.5f)),
                                       ops::Cast(b, in[0], DT_FLOAT)));
            next->push_back(
                ops::FloorMod(b, ops::Mul(b, in[2], ops::Const(b, int64_t{7})),
                              ops::Const(b, int64_t{1000003})));
            return b.status();
          },
          &outs),
      IsOk());
  REQUIRE(outs.size() == 3);
  CHECK(outs[0].dtype() == DT_INT32);
  CHECK(outs[1].dtype() == DT_FLOAT);
  CHECK(outs[2].dtype() == DT_INT64);
  RunResult r = Run(root, {}, outs);
  REQUIRE_THAT(r.status, IsOk());
  int32_t i = 0;
  float acc = 0.25f;
  int64_t p = 3;
  while (i < 12) {
    acc = acc * 1.5f + static_cast<float>(i);
    p = (p * 7) % 1000003;
    ++i;
  }
  CHECK(r.outputs[0].scalar<int32_t>() == i);
  CHECK(r.outputs[1].scalar<float>() == Approx(acc));
  CHECK(r.outputs[2].scalar<int64_t>() == p);
}

TEST_CASE("outside values used in a loop enter it as loop invariants") {
  // acc = 0; i = 0; while (i < n) { acc += x * float(i); i++ } with x (a
  // fed vector) and n (a fed scalar) used directly from outside.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::ZerosLike(root, x)},
          [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& in,
              std::vector<Output>* next) {
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            next->push_back(ops::AddV2(
                b, in[1], ops::Mul(b, x, ops::Cast(b, in[0], DT_FLOAT))));
            return b.status();
          },
          &outs),
      IsOk());

  // Each outside tensor enters through one constant Enter of the frame.
  GraphDef def;
  REQUIRE_THAT(root.ToGraphDef(&def), IsOk());
  int invariant_enters = 0;
  for (const NodeDef& node : def.node()) {
    if (node.op() == "Enter" && node.attr().at("is_constant").b()) {
      ++invariant_enters;
      CHECK(node.attr().at("frame_name").s() == "while");
      CHECK((node.input(0) == "x" || node.input(0) == "n"));
    }
    if (node.name().rfind("while/", 0) == 0 && node.op() != "Enter") {
      for (const std::string& in : node.input()) {
        CHECK(in != "x");
        CHECK(in != "n");
      }
    }
  }
  CHECK(invariant_enters == 2);

  Tensor xv(DT_FLOAT, TensorShape({3}));
  xv.data<float>()[0] = 1.0f;
  xv.data<float>()[1] = -2.0f;
  xv.data<float>()[2] = 0.5f;
  for (int32_t limit : {0, 5}) {
    INFO("n " << limit);
    RunResult r =
        Run(root, {{"x", xv}, {"n", Tensor::Scalar<int32_t>(limit)}}, outs);
    REQUIRE_THAT(r.status, IsOk());
    CHECK(r.outputs[0].scalar<int32_t>() == limit);
    for (int k = 0; k < 3; ++k) {
      float acc = 0;
      for (int32_t i = 0; i < limit; ++i) {
        acc += xv.data<float>()[k] * static_cast<float>(i);
      }
      CHECK(r.outputs[1].data<float>()[k] == Approx(acc));
    }
  }
}

TEST_CASE("a loop nested in a loop's body runs a fresh inner loop each time") {
  // total = 0; for (i = 0; i < n; i++) for (j = 0; j < i; j++)
  //   total += i * j * scale;   n and scale fed from outside.
  Scope root = Scope::NewRootScope();
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  Output scale = ops::Placeholder(root.WithOpName("scale"), DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, 0)},
          [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& outer,
              std::vector<Output>* next) {
            const Output i = outer[0];
            std::vector<Output> inner;
            DFX_RETURN_IF_ERROR(ops::WhileLoop(
                b, {ops::Const(b, 0), outer[1]},
                [&](const Scope& c, const std::vector<Output>& in,
                    Output* pred) {
                  *pred = ops::Less(c, in[0], i);  // the outer loop's i
                  return c.status();
                },
                [&](const Scope& ib, const std::vector<Output>& in,
                    std::vector<Output>* inext) {
                  inext->push_back(ops::AddV2(ib, in[0], ops::Const(ib, 1)));
                  inext->push_back(ops::AddV2(
                      ib, in[1], ops::Mul(ib, ops::Mul(ib, i, in[0]), scale)));
                  return ib.status();
                },
                &inner, {.parallel_iterations = 3}));
            next->push_back(ops::AddV2(b, i, ops::Const(b, 1)));
            next->push_back(inner[1]);
            return b.status();
          },
          &outs, {.parallel_iterations = 2}),
      IsOk());
  GraphDef def;
  REQUIRE_THAT(root.ToGraphDef(&def), IsOk());
  const NodeDef* inner_enter = FindNode(def, "while/body/while/Enter");
  REQUIRE(inner_enter != nullptr);
  CHECK(inner_enter->attr().at("frame_name").s() == "while/body/while");
  CHECK(inner_enter->attr().at("parallel_iterations").i() == 3);

  for (int32_t limit : {0, 1, 6}) {
    INFO("n " << limit);
    RunResult r = Run(root,
                      {{"n", Tensor::Scalar<int32_t>(limit)},
                       {"scale", Tensor::Scalar<int32_t>(3)}},
                      outs);
    REQUIRE_THAT(r.status, IsOk());
    int32_t total = 0;
    for (int32_t i = 0; i < limit; ++i) {
      for (int32_t j = 0; j < i; ++j) total += i * j * 3;
    }
    CHECK(r.outputs[0].scalar<int32_t>() == limit);
    CHECK(r.outputs[1].scalar<int32_t>() == total);
  }
}

// r = pred ? x + 1 : x * 3 (then and else built from the cond's inputs).
absl::Status AddMulCond(const Scope& s, const Output& pred, const Output& x,
                        std::vector<Output>* outs) {
  return ops::Cond(
      s, pred, {x},
      [](const Scope& t, const std::vector<Output>& in,
         std::vector<Output>* out) {
        out->push_back(ops::AddV2(t, in[0], ops::Const(t, 1.0f)));
        return t.status();
      },
      [](const Scope& e, const std::vector<Output>& in,
         std::vector<Output>* out) {
        out->push_back(ops::Mul(e, in[0], ops::Const(e, 3.0f)));
        return e.status();
      },
      outs);
}

TEST_CASE("a cond built in C++ takes the branch its predicate selects") {
  Scope root = Scope::NewRootScope();
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<Output> outs;
  REQUIRE_THAT(AddMulCond(root, pred, x, &outs), IsOk());
  REQUIRE(outs.size() == 1);
  CHECK(outs[0].node_name() == "cond/Merge");
  for (bool p : {true, false}) {
    INFO("pred " << p);
    RunResult r = Run(
        root,
        {{"pred", Tensor::Scalar<bool>(p)}, {"x", Tensor::Scalar<float>(5.0f)}},
        outs);
    REQUIRE_THAT(r.status, IsOk());
    CHECK(r.outputs[0].scalar<float>() == (p ? 5.0f + 1.0f : 5.0f * 3.0f));
  }
}

TEST_CASE("a cond's branches may use outside values and return several") {
  // (a, b) = pred ? (x - y, k) : (y, k * 2): x, y, k from outside; the else
  // branch returns the outside value y itself.
  Scope root = Scope::NewRootScope();
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  Output k = ops::Placeholder(root.WithOpName("k"), DT_INT64);
  std::vector<Output> outs;
  REQUIRE_THAT(ops::Cond(
                   root, pred, {},
                   [&](const Scope& t, const std::vector<Output>&,
                       std::vector<Output>* out) {
                     out->push_back(ops::Sub(t, x, y));
                     out->push_back(k);
                     return t.status();
                   },
                   [&](const Scope& e, const std::vector<Output>&,
                       std::vector<Output>* out) {
                     out->push_back(y);
                     out->push_back(ops::Mul(e, k, ops::Const(e, int64_t{2})));
                     return e.status();
                   },
                   &outs),
               IsOk());
  REQUIRE(outs.size() == 2);
  CHECK(outs[1].dtype() == DT_INT64);
  for (bool p : {true, false}) {
    INFO("pred " << p);
    RunResult r = Run(root,
                      {{"pred", Tensor::Scalar<bool>(p)},
                       {"x", Tensor::Scalar<float>(10.0f)},
                       {"y", Tensor::Scalar<float>(4.0f)},
                       {"k", Tensor::Scalar<int64_t>(21)}},
                      outs);
    REQUIRE_THAT(r.status, IsOk());
    CHECK(r.outputs[0].scalar<float>() == (p ? 10.0f - 4.0f : 4.0f));
    CHECK(r.outputs[1].scalar<int64_t>() == (p ? 21 : 42));
  }
}

TEST_CASE("a cond inside a loop picks a branch in every iteration") {
  // acc = 0; for (i = 0; i < n; i++) acc += (i % 2 == 0) ? i * x : -sqrt(x)
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, 0.0f)},
          [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& in,
              std::vector<Output>* next) {
            const Output even = ops::Equal(
                b, ops::FloorMod(b, in[0], ops::Const(b, 2)), ops::Const(b, 0));
            std::vector<Output> term;
            DFX_RETURN_IF_ERROR(ops::Cond(
                b, even, {in[0]},
                [&](const Scope& t, const std::vector<Output>& ci,
                    std::vector<Output>* out) {
                  out->push_back(ops::Mul(t, x, ops::Cast(t, ci[0], DT_FLOAT)));
                  return t.status();
                },
                [&](const Scope& e, const std::vector<Output>&,
                    std::vector<Output>* out) {
                  out->push_back(ops::Neg(e, ops::Sqrt(e, x)));
                  return e.status();
                },
                &term));
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            next->push_back(ops::AddV2(b, in[1], term[0]));
            return b.status();
          },
          &outs),
      IsOk());
  for (int32_t limit : {0, 1, 9}) {
    INFO("n " << limit);
    RunResult r = Run(root,
                      {{"x", Tensor::Scalar<float>(2.25f)},
                       {"n", Tensor::Scalar<int32_t>(limit)}},
                      outs);
    REQUIRE_THAT(r.status, IsOk());
    float acc = 0;
    for (int32_t i = 0; i < limit; ++i) {
      acc += (i % 2 == 0) ? 2.25f * static_cast<float>(i) : -1.5f;
    }
    CHECK(r.outputs[0].scalar<int32_t>() == limit);
    CHECK(r.outputs[1].scalar<float>() == Approx(acc));
  }
}

TEST_CASE("a loop in a cond's branch runs only when that branch is taken") {
  // r = pred ? (count to limit by 3) : -1, limit fed from outside.
  Scope root = Scope::NewRootScope();
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  Output limit = ops::Placeholder(root.WithOpName("limit"), DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(ops::Cond(
                   root, pred, {},
                   [&](const Scope& t, const std::vector<Output>&,
                       std::vector<Output>* out) {
                     Output counted;
                     DFX_RETURN_IF_ERROR(CounterLoop(t, limit, 3, &counted));
                     out->push_back(counted);
                     return t.status();
                   },
                   [](const Scope& e, const std::vector<Output>&,
                      std::vector<Output>* out) {
                     out->push_back(ops::Const(e, -1));
                     return e.status();
                   },
                   &outs),
               IsOk());
  for (bool p : {true, false}) {
    INFO("pred " << p);
    RunResult r = Run(root,
                      {{"pred", Tensor::Scalar<bool>(p)},
                       {"limit", Tensor::Scalar<int32_t>(10)}},
                      outs);
    REQUIRE_THAT(r.status, IsOk());
    int32_t counted = 0;
    while (counted < 10) counted += 3;
    CHECK(r.outputs[0].scalar<int32_t>() == (p ? counted : -1));
  }
}

TEST_CASE("a loop whose body runs on another device gives the same result") {
  // acc = 1; i = 0; while (i < n) { acc = acc * 3 + i; i++ } with the body
  // on CPU:1 and the rest on CPU:0.
  Scope root = Scope::NewRootScope();
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, int64_t{1})},
          [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [](const Scope& b, const std::vector<Output>& in,
             std::vector<Output>* next) {
            const Scope on1 = b.WithDevice(kCpu1);
            next->push_back(ops::AddV2(on1, in[0], ops::Const(on1, 1)));
            next->push_back(ops::AddV2(
                on1, ops::Mul(on1, in[1], ops::Const(on1, int64_t{3})),
                ops::Cast(on1, in[0], DT_INT64)));
            return b.status();
          },
          &outs),
      IsOk());
  for (int32_t limit : {0, 1, 20}) {
    INFO("n " << limit);
    RunResult r = Run(root, {{"n", Tensor::Scalar<int32_t>(limit)}}, outs,
                      /*cpus=*/2);
    REQUIRE_THAT(r.status, IsOk());
    int64_t acc = 1;
    for (int32_t i = 0; i < limit; ++i) acc = acc * 3 + i;
    CHECK(r.outputs[0].scalar<int32_t>() == limit);
    CHECK(r.outputs[1].scalar<int64_t>() == acc);
    // The step really ran on both devices.
    CHECK(r.metadata.partition_graphs_size() == 2);
  }
}

TEST_CASE("a control dependency on an outside node reaches into the loop") {
  // The body's nodes wait for `gate`, built outside the loop; without the
  // builder's rewiring the graph would mix frames.
  Scope root = Scope::NewRootScope();
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  Output gate = ops::Identity(root.WithOpName("gate"), n);
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0)},
          [&](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], n);
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& in,
              std::vector<Output>* next) {
            const Scope gated = b.WithControlDependencies({gate});
            next->push_back(ops::AddV2(gated, in[0], ops::Const(gated, 2)));
            return b.status();
          },
          &outs),
      IsOk());
  RunResult r = Run(root, {{"n", Tensor::Scalar<int32_t>(9)}}, outs);
  REQUIRE_THAT(r.status, IsOk());
  CHECK(r.outputs[0].scalar<int32_t>() == 10);
}

TEST_CASE("a loop built in a scope with control dependencies waits for them") {
  // Only the loop's Enters take the scope's control inputs: the nodes in the
  // frame would otherwise depend on a node outside it.
  Scope root = Scope::NewRootScope();
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  Output first = ops::Identity(root.WithOpName("first"), n);
  Output counted;
  REQUIRE_THAT(
      CounterLoop(root.WithControlDependencies({first}), n, 2, &counted),
      IsOk());
  GraphDef def;
  REQUIRE_THAT(root.ToGraphDef(&def), IsOk());
  for (const NodeDef& node : def.node()) {
    const bool waits = std::find(node.input().begin(), node.input().end(),
                                 "^first") != node.input().end();
    INFO("node " << node.name());
    CHECK(waits == (node.op() == "Enter" || node.name() == "Const"));
  }
  RunResult r = Run(root, {{"n", Tensor::Scalar<int32_t>(7)}}, {counted});
  REQUIRE_THAT(r.status, IsOk());
  CHECK(r.outputs[0].scalar<int32_t>() == 8);
}

TEST_CASE("gradients flow through a loop whose length depends on its input") {
  // while (v < 10) v *= 2: y = x * 2^n with n the number of doublings, so
  // dy/dx = 2^n (the iteration count itself has no gradient).
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<Output> loop_outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {x},
          [](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], ops::Const(c, 10.0f));
            return c.status();
          },
          [](const Scope& b, const std::vector<Output>& in,
             std::vector<Output>* next) {
            next->push_back(ops::Mul(b, in[0], ops::Const(b, 2.0f)));
            return b.status();
          },
          &loop_outs),
      IsOk());
  std::vector<Output> grads;
  REQUIRE_THAT(AddSymbolicGradients(root, loop_outs, {x}, &grads), IsOk());
  for (auto [xv, doublings] : {std::pair{1.0f, 4}, std::pair{3.0f, 2},
                               std::pair{12.0f, 0}}) {
    RunResult r = Run(root, {{"x", Tensor::Scalar<float>(xv)}},
                      {loop_outs[0], grads[0]});
    REQUIRE_THAT(r.status, IsOk());
    CHECK(r.outputs[0].scalar<float>() == xv * (1 << doublings));
    CHECK(r.outputs[1].scalar<float>() == static_cast<float>(1 << doublings));
  }
}

// r = pred ? x * x + y : sin(x) * y, with y from outside the cond (the
// builder routes it through a Switch). `ignore_x_in_then`: then is y * 2.
absl::Status AddGradCond(const Scope& s, const Output& pred, const Output& x,
                         const Output& y, bool ignore_x_in_then,
                         std::vector<Output>* outs) {
  return ops::Cond(
      s, pred, {x},
      [&y, ignore_x_in_then](const Scope& t, const std::vector<Output>& in,
                             std::vector<Output>* out) {
        out->push_back(ignore_x_in_then
                           ? ops::Mul(t, y, ops::Const(t, 2.0))
                           : ops::AddV2(t, ops::Mul(t, in[0], in[0]), y));
        return t.status();
      },
      [&y](const Scope& e, const std::vector<Output>& in,
           std::vector<Output>* out) {
        out->push_back(ops::Mul(e, ops::Sin(e, in[0]), y));
        return e.status();
      },
      outs);
}

TEST_CASE("gradients flow through the branch a cond took") {
  for (bool p : {true, false}) {
    for (bool ignore : {false, true}) {
      SECTION(std::string("pred ") + (p ? "true" : "false") +
              (ignore ? ", then ignores x" : "")) {
        Scope root = Scope::NewRootScope();
        Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
        Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
        Output y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
        std::vector<Output> outs;
        REQUIRE_THAT(AddGradCond(root, pred, x, y, ignore, &outs), IsOk());
        // x used after the cond too: its gradients add up.
        Output r = ops::AddV2(root, outs[0], ops::Mul(root, x, x));
        std::vector<Output> grads;
        REQUIRE_THAT(AddSymbolicGradients(root, {r}, {x, y}, &grads), IsOk());
        const double xv = 0.7, yv = -1.3;
        RunResult run = Run(root,
                            {{"pred", Tensor::Scalar<bool>(p)},
                             {"x", Tensor::Scalar<double>(xv)},
                             {"y", Tensor::Scalar<double>(yv)}},
                            grads);
        REQUIRE_THAT(run.status, IsOk());
        double dx = 2 * xv, dy = 0;
        if (p && !ignore) {
          dx += 2 * xv;
          dy = 1;
        } else if (p) {
          dy = 2;
        } else {
          dx += std::cos(xv) * yv;
          dy = std::sin(xv);
        }
        CHECK(run.outputs[0].scalar<double>() == Approx(dx));
        CHECK(run.outputs[1].scalar<double>() == Approx(dy));
      }
    }
  }
}

TEST_CASE("gradients through nested conds") {
  // r = p ? (q ? x * 3 : x * x) : x
  for (bool p : {true, false}) {
    for (bool q : {true, false}) {
      SECTION(std::string("p ") + (p ? "1" : "0") + " q " + (q ? "1" : "0")) {
        Scope root = Scope::NewRootScope();
        Output pp = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
        Output qq = ops::Placeholder(root.WithOpName("q"), DT_BOOL);
        Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
        std::vector<Output> outs;
        REQUIRE_THAT(
            ops::Cond(
                root, pp, {x},
                [&qq](const Scope& t, const std::vector<Output>& in,
                      std::vector<Output>* out) {
                  return ops::Cond(
                      t, qq, in,
                      [](const Scope& a, const std::vector<Output>& v,
                         std::vector<Output>* o) {
                        o->push_back(ops::Mul(a, v[0], ops::Const(a, 3.0)));
                        return a.status();
                      },
                      [](const Scope& b, const std::vector<Output>& v,
                         std::vector<Output>* o) {
                        o->push_back(ops::Mul(b, v[0], v[0]));
                        return b.status();
                      },
                      out);
                },
                [](const Scope& e, const std::vector<Output>& in,
                   std::vector<Output>* out) {
                  out->push_back(ops::Identity(e, in[0]));
                  return e.status();
                },
                &outs),
            IsOk());
        std::vector<Output> grads;
        REQUIRE_THAT(AddSymbolicGradients(root, outs, {x}, &grads), IsOk());
        RunResult run = Run(root,
                            {{"p", Tensor::Scalar<bool>(p)},
                             {"q", Tensor::Scalar<bool>(q)},
                             {"x", Tensor::Scalar<double>(2.5)}},
                            grads);
        REQUIRE_THAT(run.status, IsOk());
        CHECK(run.outputs[0].scalar<double>() == (p ? (q ? 3.0 : 5.0) : 1.0));
      }
    }
  }
}

TEST_CASE(
    "a loop's value used after the loop without its Exit fails at run "
    "time") {
  // The body's Output kept and used outside: the builder cannot see it.
  Scope root = Scope::NewRootScope();
  Output leaked;
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0)},
          [](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], ops::Const(c, 3));
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& in,
              std::vector<Output>* next) {
            leaked = ops::AddV2(b, in[0], ops::Const(b, 1));
            next->push_back(leaked);
            return b.status();
          },
          &outs),
      IsOk());
  Output bad = ops::AddV2(root.WithOpName("bad"), outs[0], leaked);
  RunResult r = Run(root, {}, {bad});
  CHECK_THAT(r.status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "a value enters a loop only through an Enter"));
  CHECK_THAT(r.status, StatusIs(absl::StatusCode::kInvalidArgument, "'bad'"));
}

TEST_CASE("a loop condition that is not a scalar fails when the graph runs") {
  Scope root = Scope::NewRootScope();
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0)},
          [](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred =
                ops::Less(c, ops::Pack(c, {in[0], in[0]}), ops::Const(c, 3));
            return c.status();
          },
          [](const Scope& b, const std::vector<Output>& in,
             std::vector<Output>* next) {
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            return b.status();
          },
          &outs),
      IsOk());
  RunResult r = Run(root, {}, outs);
  CHECK_THAT(r.status,
             StatusIs(absl::StatusCode::kInvalidArgument, "must be a scalar"));
  CHECK_THAT(r.status, StatusIs(absl::StatusCode::kInvalidArgument, "'while/"));
}

// cond: in[0] < 3; body: in[0] + 1, for the error cases.
absl::Status LessThanThree(const Scope& c, const std::vector<Output>& in,
                           Output* pred) {
  *pred = ops::Less(c, in[0], ops::Const(c, 3));
  return c.status();
}
absl::Status AddOne(const Scope& b, const std::vector<Output>& in,
                    std::vector<Output>* next) {
  next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
  return b.status();
}

TEST_CASE("WhileLoop reports a bad loop naming it, in the scope too") {
  Scope root = Scope::NewRootScope();
  const Scope s = root.NewSubScope("outer");
  std::vector<Output> outs = {Output("stale", 0, DT_INT32)};
  absl::Status status;

  SECTION("cond returns an error") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)},
        [](const Scope&, const std::vector<Output>&, Output*) {
          return absl::FailedPreconditionError("no condition today");
        },
        AddOne, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kFailedPrecondition,
                                "WhileLoop 'outer/while': cond: no condition "
                                "today"));
  }
  SECTION("body returns an error") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)}, LessThanThree,
        [](const Scope&, const std::vector<Output>&, std::vector<Output>*) {
          return absl::UnimplementedError("no body");
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kUnimplemented,
                                "WhileLoop 'outer/while': body: no body"));
  }
  SECTION("body returns too few outputs") {
    status = ops::WhileLoop(s, {ops::Const(s, 0), ops::Const(s, 1.0f)},
                            LessThanThree, AddOne, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "WhileLoop 'outer/while': body returned 1 "
                                "output(s) for 2 loop variable(s)"));
  }
  SECTION("body returns another dtype") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)}, LessThanThree,
        [](const Scope& b, const std::vector<Output>& in,
           std::vector<Output>* next) {
          next->push_back(ops::Cast(b, in[0], DT_FLOAT));
          return b.status();
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "body output 0 ('outer/while/body/Cast') is "
                                "float but loop variable 0 is int32"));
  }
  SECTION("cond returns a non-bool") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)},
        [](const Scope& c, const std::vector<Output>& in, Output* pred) {
          *pred = ops::AddV2(c, in[0], in[0]);
          return c.status();
        },
        AddOne, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "WhileLoop 'outer/while': cond must return a "
                                "bool scalar, got int32"));
  }
  SECTION("cond returns no Output") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)},
        [](const Scope&, const std::vector<Output>&, Output*) {
          return absl::OkStatus();
        },
        AddOne, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "cond returned an invalid Output"));
  }
  SECTION("a node of the body fails") {
    status = ops::WhileLoop(
        s, {ops::Const(s, 0)}, LessThanThree,
        [](const Scope& b, const std::vector<Output>& in,
           std::vector<Output>* next) {
          // int32 + float: the wrapper records the error in the scope.
          next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1.0f)));
          return b.status();
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "WhileLoop 'outer/while': body: node "
                                "'outer/while/body/AddV2'"));
  }
  SECTION("no loop variables") {
    status = ops::WhileLoop(s, {}, LessThanThree, AddOne, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "needs at least one loop variable"));
  }
  SECTION("parallel_iterations below 1") {
    status = ops::WhileLoop(s, {ops::Const(s, 0)}, LessThanThree, AddOne, &outs,
                            {.parallel_iterations = 0});
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "parallel_iterations must be at least 1"));
  }
  SECTION("a frame_name another loop has") {
    REQUIRE_THAT(ops::WhileLoop(s, {ops::Const(s, 0)}, LessThanThree, AddOne,
                                &outs, {.frame_name = "f"}),
                 IsOk());
    status = ops::WhileLoop(s, {ops::Const(s, 0)}, LessThanThree, AddOne, &outs,
                            {.frame_name = "f"});
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "WhileLoop 'outer/while_1': frame_name 'f' is "
                                "another loop's already"));
  }
  CHECK(outs.empty());
  // The scope holds the first error: this one, or the node's own that it
  // wraps.
  CHECK(root.status().code() == status.code());
  CHECK_THAT(std::string(status.message()),
             Catch::Contains(std::string(root.status().message())));
}

TEST_CASE("WhileLoop on a failed scope adds nothing and calls nothing") {
  Scope root = Scope::NewRootScope();
  ops::AddV2(root, ops::Const(root, 1), ops::Const(root, 1.0f));  // fails
  const absl::Status failed = root.status();
  REQUIRE_FALSE(failed.ok());
  bool called = false;
  std::vector<Output> outs;
  const absl::Status status = ops::WhileLoop(
      root, {Output()},
      [&](const Scope&, const std::vector<Output>&, Output*) {
        called = true;
        return absl::OkStatus();
      },
      AddOne, &outs);
  CHECK(status == failed);
  CHECK_FALSE(called);
  CHECK(outs.empty());
}

TEST_CASE("Cond reports a bad conditional naming it, in the scope too") {
  Scope root = Scope::NewRootScope();
  const Scope s = root.NewSubScope("outer");
  Output pred = ops::Placeholder(s.WithOpName("pred"), DT_BOOL);
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto identity = [](const Scope&, const std::vector<Output>& in,
                     std::vector<Output>* out) {
    *out = in;
    return absl::OkStatus();
  };
  std::vector<Output> outs;
  absl::Status status;

  SECTION("pred is not bool") {
    status = ops::Cond(s, x, {x}, identity, identity, &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "Cond 'outer/cond': pred must be a bool "
                                "scalar, got float"));
  }
  SECTION("a branch returns an error") {
    status = ops::Cond(
        s, pred, {x}, identity,
        [](const Scope&, const std::vector<Output>&, std::vector<Output>*) {
          return absl::OutOfRangeError("else is out");
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kOutOfRange,
                                "Cond 'outer/cond': else_fn: else is out"));
  }
  SECTION("the branches return different numbers of outputs") {
    status = ops::Cond(
        s, pred, {x}, identity,
        [](const Scope&, const std::vector<Output>& in,
           std::vector<Output>* out) {
          *out = {in[0], in[0]};
          return absl::OkStatus();
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "then_fn returned 1 output(s) and else_fn 2"));
  }
  SECTION("the branches return different dtypes") {
    status = ops::Cond(
        s, pred, {x}, identity,
        [](const Scope& e, const std::vector<Output>& in,
           std::vector<Output>* out) {
          out->push_back(ops::Cast(e, in[0], DT_INT32));
          return e.status();
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "output 0 is float in then_fn"));
  }
  SECTION("the else branch uses a value of the then branch") {
    Output from_then;
    status = ops::Cond(
        s, pred, {x},
        [&](const Scope& t, const std::vector<Output>& in,
            std::vector<Output>* out) {
          from_then = ops::Neg(t, in[0]);
          out->push_back(from_then);
          return t.status();
        },
        [&](const Scope& e, const std::vector<Output>&,
            std::vector<Output>* out) {
          out->push_back(ops::Sqrt(e, from_then));
          return e.status();
        },
        &outs);
    CHECK_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                "else_fn uses 'outer/cond/Neg' of then_fn"));
  }
  CHECK(outs.empty());
  // The scope holds the first error: this one, or the node's own that it
  // wraps.
  CHECK(root.status().code() == status.code());
  CHECK_THAT(std::string(status.message()),
             Catch::Contains(std::string(root.status().message())));
}

}  // namespace
}  // namespace dfx

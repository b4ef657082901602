// TF1 control flow end to end through the "local" session: loops (frames,
// iterations, parallel_iterations, nesting, loop invariants), conditionals
// (Switch/Merge deadness, also through control edges and ControlTrigger), a
// loop on the untaken branch of a conditional, and malformed graphs that must
// fail with a clear error instead of hanging.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "master/local_session.h"
#include "proto/graph.pb.h"
#include "tests/testing/loop_graph.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

using ::dfx::testing::CounterLoop;
using ::dfx::testing::G;
using ::dfx::testing::Loop;

absl::StatusOr<std::vector<Tensor>> RunGraph(
    const GraphDef& def, std::vector<std::pair<std::string, Tensor>> feeds,
    std::vector<std::string> fetches, int cpus = 1) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = cpus;
  auto session = LocalSession::Create(options);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Extend(def);
  std::vector<Tensor> outputs;
  if (s.ok()) s = (*session)->Run(feeds, fetches, {}, &outputs);
  (void)(*session)->Close();
  if (!s.ok()) return s;
  return outputs;
}

TEST_CASE("a counter loop runs its iterations and exits with the count") {
  for (int parallel : {1, 2, 10}) {
    for (int32_t limit : {0, 1, 7, 300}) {
      G g;
      g.Placeholder("limit", DT_INT32);
      const std::string exit = CounterLoop(&g, "while", parallel);
      INFO("parallel_iterations " << parallel << ", limit " << limit);
      auto out = RunGraph(g.def(), {{"limit", Tensor::Scalar<int32_t>(limit)}},
                          {exit});
      REQUIRE(out.ok());
      CHECK(out->at(0).scalar<int32_t>() == limit);
    }
  }
}

TEST_CASE("a loop split over two devices gives the one-device result") {
  // The condition and the counter's Merge/Switch on CPU:0, the body's add
  // and the NextIteration on CPU:1: each iteration crosses twice, and CPU:1
  // needs a control loop driven by the LoopCond's value.
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  for (int parallel : {1, 10}) {
    for (int32_t limit : {0, 1, 50}) {
      G g;
      g.Placeholder("limit", DT_INT32);
      const std::string exit = CounterLoop(&g, "while", parallel);
      for (const char* n : {"while/one", "while/add", "while/i/next"}) {
        g.Place(n, cpu1);
      }
      INFO("parallel_iterations " << parallel << ", limit " << limit);
      auto out = RunGraph(g.def(), {{"limit", Tensor::Scalar<int32_t>(limit)}},
                          {exit}, /*cpus=*/2);
      REQUIRE(out.ok());
      CHECK(out->at(0).scalar<int32_t>() == limit);
    }
  }
}

TEST_CASE("a loop with two variables accumulates over its iterations") {
  // acc = 0.5; i = 0; while (i < 10) { acc += float(i) * x; i += 1 }
  G g;
  g.Placeholder("x", DT_FLOAT);
  g.Const<int32_t>("limit", 10);
  g.Const<int32_t>("zero", 0);
  g.Const<float>("acc0", 0.5f);
  Loop loop(&g, "sum", 3);
  const std::string i = loop.Var("i", "zero", DT_INT32);
  loop.Var("acc", "acc0", DT_FLOAT);
  const std::string n = loop.Invariant("n", "limit", DT_INT32);
  const std::string x = loop.Invariant("x", "x", DT_FLOAT);
  g.Add("sum/less", "Less", {i, n}, DT_INT32);
  loop.Cond("sum/less");
  NodeDef* cast = g.Add("sum/cast", "Cast", {loop.Body("i")});
  (*cast->mutable_attr())["SrcT"].set_type(DT_INT32);
  (*cast->mutable_attr())["DstT"].set_type(DT_FLOAT);
  g.Add("sum/mul", "Mul", {"sum/cast", x}, DT_FLOAT);
  g.Add("sum/acc_add", "AddV2", {loop.Body("acc"), "sum/mul"}, DT_FLOAT);
  g.Const<int32_t>("sum/one", 1, {loop.Pivot()});
  g.Add("sum/i_add", "AddV2", {loop.Body("i"), "sum/one"}, DT_INT32);
  loop.Next("i", "sum/i_add");
  loop.Next("acc", "sum/acc_add");
  auto out = RunGraph(g.def(), {{"x", Tensor::Scalar<float>(2.0f)}},
                      {loop.Exit("acc"), loop.Exit("i")});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar<float>() == 0.5f + 2.0f * 45);
  CHECK(out->at(1).scalar<int32_t>() == 10);
}

TEST_CASE("a loop nested in a loop runs a fresh inner frame per iteration") {
  // total = 0; for i in [0, 4): for j in [0, i): total += 1  → 0+1+2+3 = 6
  G g;
  g.Const<int32_t>("limit", 4);
  g.Const<int32_t>("zero", 0);
  Loop outer(&g, "outer", 2);
  const std::string i = outer.Var("i", "zero", DT_INT32);
  outer.Var("total", "zero", DT_INT32);
  const std::string n = outer.Invariant("n", "limit", DT_INT32);
  g.Add("outer/less", "Less", {i, n}, DT_INT32);
  outer.Cond("outer/less");
  // The inner loop counts j up to i, adding one to total each time.
  g.Const<int32_t>("outer/zero", 0, {outer.Pivot()});
  Loop inner(&g, "outer/inner", 4);
  const std::string j = inner.Var("j", "outer/zero", DT_INT32);
  inner.Var("t", outer.Body("total"), DT_INT32);
  const std::string bound = inner.Invariant("bound", outer.Body("i"),
                                            DT_INT32);
  g.Add("outer/inner/less", "Less", {j, bound}, DT_INT32);
  inner.Cond("outer/inner/less");
  g.Const<int32_t>("outer/inner/one", 1, {inner.Pivot()});
  g.Add("outer/inner/j_add", "AddV2", {inner.Body("j"), "outer/inner/one"},
        DT_INT32);
  g.Add("outer/inner/t_add", "AddV2", {inner.Body("t"), "outer/inner/one"},
        DT_INT32);
  inner.Next("j", "outer/inner/j_add");
  inner.Next("t", "outer/inner/t_add");
  g.Const<int32_t>("outer/one", 1, {outer.Pivot()});
  g.Add("outer/i_add", "AddV2", {outer.Body("i"), "outer/one"}, DT_INT32);
  outer.Next("i", "outer/i_add");
  outer.Next("total", inner.Exit("t"));
  auto out = RunGraph(g.def(), {}, {outer.Exit("total"), outer.Exit("i")});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar<int32_t>() == 6);
  CHECK(out->at(1).scalar<int32_t>() == 4);
}

// r = pred ? x + 1 : x * 3, as tf.cond builds it.
void AddCond(G* g) {
  g->Placeholder("pred", DT_BOOL);
  g->Placeholder("x", DT_FLOAT);
  g->Add("cond/switch", "Switch", {"x", "pred"}, DT_FLOAT);
  g->Add("cond/switch_t", "Identity", {"cond/switch:1"}, DT_FLOAT);
  g->Add("cond/switch_f", "Identity", {"cond/switch:0"}, DT_FLOAT);
  g->Const<float>("cond/one", 1.0f, {"^cond/switch_t"});
  g->Const<float>("cond/three", 3.0f, {"^cond/switch_f"});
  g->Add("cond/add", "AddV2", {"cond/switch_t", "cond/one"}, DT_FLOAT);
  g->Add("cond/mul", "Mul", {"cond/switch_f", "cond/three"}, DT_FLOAT);
  NodeDef* merge =
      g->Add("cond/merge", "Merge", {"cond/mul", "cond/add"}, DT_FLOAT);
  (*merge->mutable_attr())["N"].set_i(2);
}

TEST_CASE("a conditional runs the taken branch and merges its value") {
  G g;
  AddCond(&g);
  for (bool pred : {true, false}) {
    auto out = RunGraph(g.def(),
                        {{"pred", Tensor::Scalar<bool>(pred)},
                         {"x", Tensor::Scalar<float>(5.0f)}},
                        {"cond/merge:0", "cond/merge:1"});
    REQUIRE(out.ok());
    CHECK(out->at(0).scalar<float>() == (pred ? 6.0f : 15.0f));
    CHECK(out->at(1).scalar<int32_t>() == (pred ? 1 : 0));
  }
}

TEST_CASE("fetching a dead tensor of the untaken branch is an error") {
  G g;
  AddCond(&g);
  auto out = RunGraph(g.def(),
                      {{"pred", Tensor::Scalar<bool>(true)},
                       {"x", Tensor::Scalar<float>(5.0f)}},
                      {"cond/mul"});
  CHECK_FALSE(out.ok());
}

TEST_CASE("a ControlTrigger runs after a dead branch and is alive") {
  G g;
  AddCond(&g);
  g.Add("trigger", "ControlTrigger", {"^cond/mul", "^cond/add"});
  g.Const<float>("after", 42.0f, {"^trigger"});
  auto out = RunGraph(g.def(),
                      {{"pred", Tensor::Scalar<bool>(false)},
                       {"x", Tensor::Scalar<float>(5.0f)}},
                      {"after"});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar<float>() == 42.0f);
}

TEST_CASE("a loop on the untaken branch of a conditional does not hang") {
  // r = pred ? (count to limit) : -1
  for (bool pred : {true, false}) {
    G g;
    g.Placeholder("pred", DT_BOOL);
    g.Const<int32_t>("limit0", 5);
    g.Add("switch", "Switch", {"limit0", "pred"}, DT_INT32);
    g.Add("limit", "Identity", {"switch:1"}, DT_INT32);
    g.Add("no", "Identity", {"switch:0"}, DT_INT32);
    const std::string exit = CounterLoop(&g, "while", 10);
    g.Const<int32_t>("minus_one", -1, {"^no"});
    NodeDef* merge = g.Add("merge", "Merge", {"minus_one", exit}, DT_INT32);
    (*merge->mutable_attr())["N"].set_i(2);
    // while/zero has no inputs: tie it to the taken branch like tf.cond.
    GraphDef def = g.def();
    for (NodeDef& n : *def.mutable_node()) {
      if (n.name() == "while/zero") n.add_input("^limit");
    }
    INFO("pred " << pred);
    auto out = RunGraph(def, {{"pred", Tensor::Scalar<bool>(pred)}},
                        {"merge"});
    REQUIRE(out.ok());
    CHECK(out->at(0).scalar<int32_t>() == (pred ? 5 : -1));
  }
}

TEST_CASE("an error inside a loop body ends the step naming the node") {
  // i = 0; while (i < 10) i = i + 1 + CheckNumerics(log(i - 5)) ... fails at
  // i = 5 (log(0) = -inf).
  G g;
  g.Const<int32_t>("limit", 10);
  Loop loop(&g, "while", 4);
  g.Const<int32_t>("zero", 0);
  const std::string i = loop.Var("i", "zero", DT_INT32);
  const std::string n = loop.Invariant("n", "limit", DT_INT32);
  g.Add("while/less", "Less", {i, n}, DT_INT32);
  loop.Cond("while/less");
  NodeDef* cast = g.Add("while/cast", "Cast", {loop.Body("i")});
  (*cast->mutable_attr())["SrcT"].set_type(DT_INT32);
  (*cast->mutable_attr())["DstT"].set_type(DT_FLOAT);
  g.Const<float>("while/five", 5.0f, {loop.Pivot()});
  g.Add("while/sub", "Sub", {"while/cast", "while/five"}, DT_FLOAT);
  g.Add("while/log", "Log", {"while/sub"}, DT_FLOAT);
  NodeDef* check = g.Add("while/check", "CheckNumerics", {"while/log"},
                         DT_FLOAT);
  (*check->mutable_attr())["message"].set_s("bad log");
  g.Const<int32_t>("while/one", 1, {"^while/check"});
  g.Add("while/add", "AddV2", {loop.Body("i"), "while/one"}, DT_INT32);
  loop.Next("i", "while/add");
  auto out = RunGraph(g.def(), {}, {loop.Exit("i")});
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(out.status().message()),
             Catch::Contains("while/check"));
}

TEST_CASE("a Switch whose predicate is not a scalar fails naming it") {
  // The executor forwards Switch itself; a bad predicate still gets the
  // kernel's error.
  G g;
  AddCond(&g);
  auto out = RunGraph(g.def(),
                      {{"pred", Tensor::FromVector<bool>({true, false})},
                       {"x", Tensor::Scalar<float>(5.0f)}},
                      {"cond/merge"});
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(out.status().message()),
             Catch::Contains("cond/switch") &&
                 Catch::Contains("must be a scalar"));
}

TEST_CASE("traced steps run loops and conditionals as untraced ones do") {
  // Untraced, the executor moves values through Identity, Switch, Merge,
  // Enter, Exit, NextIteration and LoopCond itself; traced, it runs their
  // kernels so that each gets its record. Both give the same values, and
  // the trace has a record per node run (every iteration of the loop).
  G g;
  AddCond(&g);
  g.Placeholder("limit", DT_INT32);
  const std::string exit = CounterLoop(&g, "while", 3);
  SessionOptions options;
  auto session = LocalSession::Create(options);
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(g.def()).ok());
  for (bool pred : {true, false}) {
    for (int32_t limit : {0, 5}) {
      const std::vector<std::pair<std::string, Tensor>> feeds = {
          {"pred", Tensor::Scalar<bool>(pred)},
          {"x", Tensor::Scalar<float>(5.0f)},
          {"limit", Tensor::Scalar<int32_t>(limit)}};
      const std::vector<std::string> fetches = {"cond/merge:0",
                                                "cond/merge:1", exit};
      std::vector<Tensor> plain;
      REQUIRE((*session)->Run(feeds, fetches, {}, &plain).ok());
      RunOptions run_options;
      run_options.set_trace_level(RunOptions::FULL_TRACE);
      RunMetadata metadata;
      std::vector<Tensor> traced;
      REQUIRE((*session)
                  ->Run(run_options, feeds, fetches, {}, &traced, &metadata)
                  .ok());
      INFO("pred " << pred << ", limit " << limit);
      for (const std::vector<Tensor>* out : {&plain, &traced}) {
        CHECK(out->at(0).scalar<float>() == (pred ? 6.0f : 15.0f));
        CHECK(out->at(1).scalar<int32_t>() == (pred ? 1 : 0));
        CHECK(out->at(2).scalar<int32_t>() == limit);
      }
      int merges = 0;
      int switches = 0;
      int loop_merges = 0;
      int loop_nexts = 0;
      for (const auto& dev : metadata.step_stats().dev_stats()) {
        for (const auto& n : dev.node_stats()) {
          merges += n.node_name() == "cond/merge";
          switches += n.node_name() == "cond/switch";
          loop_merges += n.node_name() == "while/i/merge";
          loop_nexts += n.node_name() == "while/i/next";
        }
      }
      CHECK(merges == 1);
      CHECK(switches == 1);
      // Alive: every iteration's Merge, and the NextIteration of each
      // iteration but the last.
      CHECK(loop_merges == limit + 1);
      CHECK(loop_nexts == limit);
    }
  }
  (void)(*session)->Close();
}

TEST_CASE("a long chain of Identities after a Switch runs") {
  // The executor runs forwarded nodes that become ready one after another
  // under one lock; a chain this long must not make that recursive (it
  // would overflow the thread's stack).
  constexpr int kChain = 200000;
  G g;
  g.Placeholder("pred", DT_BOOL);
  g.Placeholder("x", DT_FLOAT);
  g.Add("switch", "Switch", {"x", "pred"}, DT_FLOAT);
  std::string prev = "switch:1";
  for (int i = 0; i < kChain; ++i) {
    const std::string name = absl::StrCat("id", i);
    g.Add(name, "Identity", {prev}, DT_FLOAT);
    prev = name;
  }
  SessionOptions options;
  // Unoptimized: the optimizer would drop the Identities.
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  auto session = LocalSession::Create(options);
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(g.def()).ok());
  std::vector<Tensor> out;
  REQUIRE((*session)
              ->Run({{"pred", Tensor::Scalar<bool>(true)},
                     {"x", Tensor::Scalar<float>(2.5f)}},
                    {prev}, {}, &out)
              .ok());
  CHECK(out.at(0).scalar<float>() == 2.5f);
  (void)(*session)->Close();
}

TEST_CASE("a list of lists pushed onto itself keeps what it held") {
  // x = [[v]]; PushBack(x, x): both inputs come from x's one output (one
  // input slot), so the kernel must not take x's list over as its own.
  G g;
  g.Placeholder("v", DT_FLOAT);
  g.Const<int32_t>("shape", -1);
  g.Const<int32_t>("max", -1);
  g.Const<int32_t>("one", 1);
  auto list = [&](const std::string& name, DataType element) {
    NodeDef* n = g.Add(name, "EmptyTensorList", {"shape", "max"});
    (*n->mutable_attr())["element_dtype"].set_type(element);
    (*n->mutable_attr())["shape_type"].set_type(DT_INT32);
  };
  auto push = [&](const std::string& name, std::vector<std::string> in,
                  DataType element) {
    NodeDef* n = g.Add(name, "TensorListPushBack", std::move(in));
    (*n->mutable_attr())["element_dtype"].set_type(element);
  };
  list("inner0", DT_FLOAT);
  push("inner", {"inner0", "v"}, DT_FLOAT);
  list("outer0", DT_VARIANT);
  push("x", {"outer0", "inner"}, DT_VARIANT);
  push("y", {"x", "x"}, DT_VARIANT);
  NodeDef* get = g.Add("second", "TensorListGetItem", {"y", "one", "shape"});
  (*get->mutable_attr())["element_dtype"].set_type(DT_VARIANT);
  g.Add("outer_length", "TensorListLength", {"y"});
  g.Add("second_length", "TensorListLength", {"second"});
  auto out = RunGraph(g.def(), {{"v", Tensor::Scalar<float>(2.5f)}},
                      {"outer_length", "second_length"});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar<int32_t>() == 2);
  // The pushed copy of x holds x's one element.
  CHECK(out->at(1).scalar<int32_t>() == 1);
}

TEST_CASE("malformed loops are clear errors, not hangs") {
  SECTION("an Exit outside any loop") {
    G g;
    g.Const<int32_t>("x", 1);
    g.Add("exit", "Exit", {"x"}, DT_INT32);
    auto out = RunGraph(g.def(), {}, {"exit"});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(out.status().message()),
               Catch::Contains("'exit' (op Exit) is not inside a loop frame"));
  }
  SECTION("a NextIteration outside any loop") {
    G g;
    g.Const<int32_t>("x", 1);
    g.Add("next", "NextIteration", {"x"}, DT_INT32);
    auto out = RunGraph(g.def(), {}, {"next"});
    REQUIRE_FALSE(out.ok());
    CHECK_THAT(std::string(out.status().message()),
               Catch::Contains("'next' (op NextIteration) is not inside"));
  }
  SECTION("a Merge fed only by its own NextIteration can never fire") {
    G g;
    NodeDef* merge = g.Add("merge", "Merge", {"next", "next"}, DT_INT32);
    (*merge->mutable_attr())["N"].set_i(2);
    g.Add("next", "NextIteration", {"merge"}, DT_INT32);
    auto out = RunGraph(g.def(), {}, {"merge"});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(out.status().message()),
               Catch::Contains("can never run"));
  }
  SECTION("a value used inside a loop without an Enter") {
    G g;
    g.Placeholder("limit", DT_INT32);
    Loop loop(&g, "while", 10);
    g.Const<int32_t>("zero", 0);
    const std::string i = loop.Var("i", "zero", DT_INT32);
    // Compares with the outer tensor directly: no Enter.
    g.Add("while/less", "Less", {i, "limit"}, DT_INT32);
    loop.Cond("while/less");
    g.Add("while/add", "AddV2", {loop.Body("i"), loop.Body("i")}, DT_INT32);
    loop.Next("i", "while/add");
    auto out = RunGraph(g.def(), {{"limit", Tensor::Scalar<int32_t>(3)}},
                        {loop.Exit("i")});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(out.status().message()),
               Catch::Contains("'while/less' (op Less) has inputs from two "
                               "frames"));
  }
}

}  // namespace
}  // namespace dfx

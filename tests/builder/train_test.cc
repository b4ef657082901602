// Training with the C++ builder: variables, optimizers (GradientDescent,
// Momentum, Adam) minimizing a softmax classifier's loss in a local
// session, the replica device setter, and a checkpoint saved and restored.
#include "graph/builder/train.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

constexpr int kRows = 64, kFeatures = 6, kClasses = 3;

// A separable problem: the class is the argmax of a fixed linear map.
void MakeData(Tensor* x, Tensor* y) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  *x = Tensor(DT_FLOAT, TensorShape({kRows, kFeatures}));
  *y = Tensor(DT_INT32, TensorShape({kRows}));
  for (int r = 0; r < kRows; ++r) {
    float best = -1e9f;
    for (int f = 0; f < kFeatures; ++f) x->data<float>()[r * kFeatures + f] = normal(gen);
    for (int c = 0; c < kClasses; ++c) {
      float s = 0;
      for (int f = 0; f < kFeatures; ++f) {
        s += x->data<float>()[r * kFeatures + f] * ((f + 2 * c) % 3 - 1.0f);
      }
      if (s > best) {
        best = s;
        y->data<int32_t>()[r] = c;
      }
    }
  }
}

struct Model {
  Scope scope = Scope::NewRootScope();
  std::vector<train::Variable> vars;
  Output loss;
};

Model BuildModel() {
  Model m;
  const Scope& s = m.scope;
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  train::Variable w = train::NewVariable(
      s.WithOpName("w"), train::GlorotUniform(s, {kFeatures, kClasses}, 3),
      DT_FLOAT, {kFeatures, kClasses});
  train::Variable b = train::NewVariable(
      s.WithOpName("b"), train::Zeros(s, {kClasses}), DT_FLOAT, {kClasses});
  Output logits = ops::BiasAdd(s, ops::MatMul(s, x, w.value), b.value);
  Output per_row = ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss;
  m.loss = ops::Mean(s.WithOpName("loss"), per_row, ops::Const(s, 0));
  m.vars = {w, b};
  return m;
}

std::unique_ptr<Session> Start(const Scope& scope) {
  GraphDef def;
  REQUIRE(scope.ToGraphDef(&def).ok());
  auto session = Session::Create("local", {});
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(def).ok());
  return *std::move(session);
}

float RunLoss(Session* s, const Tensor& x, const Tensor& y,
              const std::string& target = "") {
  std::vector<Tensor> out;
  std::vector<std::string> targets;
  if (!target.empty()) targets.push_back(target);
  absl::Status st = s->Run({{"x", x}, {"y", y}}, {"loss"}, targets, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return out[0].scalar<float>();
}

float TrainFor(train::Optimizer* opt, int steps) {
  Model m = BuildModel();
  absl::StatusOr<Operation> train = opt->Minimize(m.scope, m.loss, m.vars);
  REQUIRE(train.ok());
  std::vector<train::Variable> all = m.vars;
  all.insert(all.end(), opt->slots().begin(), opt->slots().end());
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), all);
  REQUIRE(m.scope.ok());
  auto s = Start(m.scope);
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {}, {init.node_name()}, &out).ok());
  Tensor x, y;
  MakeData(&x, &y);
  const float first = RunLoss(s.get(), x, y);
  for (int i = 0; i < steps; ++i) RunLoss(s.get(), x, y, train->node_name());
  const float last = RunLoss(s.get(), x, y);
  INFO("loss " << first << " -> " << last);
  CHECK(last < 0.5f * first);
  return last;
}

TEST_CASE("optimizers built in C++ minimize a classifier's loss") {
  train::GradientDescent sgd(0.5f);
  TrainFor(&sgd, 60);
  train::Momentum momentum(0.1f, 0.9f);
  TrainFor(&momentum, 60);
  train::Momentum nesterov(0.1f, 0.9f, /*use_nesterov=*/true);
  TrainFor(&nesterov, 60);
  train::Adam adam(0.05f);
  TrainFor(&adam, 60);
}

TEST_CASE("Minimize rejects an empty variable list") {
  Model m = BuildModel();
  train::GradientDescent sgd(0.1f);
  CHECK_THAT(sgd.Minimize(m.scope, m.loss, {}).status(),
             testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("the replica device setter spreads variables over ps tasks") {
  train::ReplicaDeviceSetter rr(2);
  CHECK(rr.NextDevice(DT_FLOAT, {10}) == "/job:ps/task:0");
  CHECK(rr.NextDevice(DT_FLOAT, {1000}) == "/job:ps/task:1");
  CHECK(rr.NextDevice(DT_FLOAT, {10}) == "/job:ps/task:0");
  train::ReplicaDeviceSetter greedy(
      2, train::ReplicaDeviceSetter::Strategy::kGreedyBySize);
  CHECK(greedy.NextDevice(DT_FLOAT, {1000}) == "/job:ps/task:0");
  CHECK(greedy.NextDevice(DT_FLOAT, {10}) == "/job:ps/task:1");
  CHECK(greedy.NextDevice(DT_FLOAT, {10}) == "/job:ps/task:1");
  CHECK(greedy.NextDevice(DT_DOUBLE, {600}) == "/job:ps/task:1");
  CHECK(greedy.NextDevice(DT_FLOAT, {10}) == "/job:ps/task:0");
}

TEST_CASE("a checkpoint saved from the builder restores the variables") {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("dfx-train-test-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  const std::string prefix = dir + "/model.ckpt";

  Model m = BuildModel();
  train::GradientDescent sgd(0.5f);
  absl::StatusOr<Operation> step = sgd.Minimize(m.scope, m.loss, m.vars);
  REQUIRE(step.ok());
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), m.vars);
  Output path = ops::Const(m.scope, prefix);
  Operation save = train::Save(m.scope.WithOpName("save"), path, m.vars);
  Operation restore =
      train::Restore(m.scope.WithOpName("restore"), path, m.vars);
  auto s = Start(m.scope);
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {}, {init.node_name()}, &out).ok());
  Tensor x, y;
  MakeData(&x, &y);
  for (int i = 0; i < 20; ++i) RunLoss(s.get(), x, y, step->node_name());
  const float trained = RunLoss(s.get(), x, y);
  REQUIRE(s->Run({}, {}, {save.node_name()}, &out).ok());
  CHECK(std::filesystem::exists(prefix + ".index"));
  // Back to the initial values, then the checkpoint.
  REQUIRE(s->Run({}, {}, {init.node_name()}, &out).ok());
  CHECK(RunLoss(s.get(), x, y) > trained);
  REQUIRE(s->Run({}, {}, {restore.node_name()}, &out).ok());
  CHECK(RunLoss(s.get(), x, y) == trained);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dfx

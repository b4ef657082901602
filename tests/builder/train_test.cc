// Training with the C++ builder: variables (resource and reference),
// optimizers (GradientDescent, Momentum, Adam, Adagrad) minimizing a softmax
// classifier's loss in a local session, sparse updates of an embedding, the
// replica device setter, and a checkpoint saved and restored.
#include "graph/builder/train.h"

#include <cstdio>
#include <cmath>
#include <filesystem>
#include <functional>
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

Model BuildModel(train::VariableKind kind = train::VariableKind::kResource) {
  Model m;
  const Scope& s = m.scope;
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  train::Variable w = train::NewVariable(
      s.WithOpName("w"), train::GlorotUniform(s, {kFeatures, kClasses}, 3),
      DT_FLOAT, {kFeatures, kClasses}, kind);
  train::Variable b = train::NewVariable(
      s.WithOpName("b"), train::Zeros(s, {kClasses}), DT_FLOAT, {kClasses},
      kind);
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
  train::Adagrad adagrad(0.5f);
  TrainFor(&adagrad, 60);
}

// The loss before each of `steps` steps, then after the last.
std::vector<float> LossCurve(Model& m, train::Optimizer* opt, int steps,
                             const std::vector<std::pair<std::string, Tensor>>&
                                 feeds) {
  absl::StatusOr<Operation> step = opt->Minimize(m.scope, m.loss, m.vars);
  REQUIRE(step.ok());
  std::vector<train::Variable> all = m.vars;
  all.insert(all.end(), opt->slots().begin(), opt->slots().end());
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), all);
  REQUIRE(m.scope.ok());
  auto s = Start(m.scope);
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {}, {init.node_name()}, &out).ok());
  std::vector<float> losses;
  for (int i = 0; i <= steps; ++i) {
    std::vector<std::string> targets;
    if (i < steps) targets.push_back(step->node_name());
    absl::Status st = s->Run(feeds, {"loss"}, targets, &out);
    INFO(st.ToString());
    REQUIRE(st.ok());
    losses.push_back(out[0].scalar<float>());
  }
  return losses;
}

void RequireSameCurve(const std::vector<float>& a, const std::vector<float>& b,
                      float tolerance) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("step " << i << ": " << a[i] << " vs " << b[i]);
    CHECK(std::fabs(a[i] - b[i]) <= tolerance);
  }
  // And it trained.
  CHECK(a.back() < 0.8f * a.front());
}

// Whether the graph has a node of op `op`.
bool HasOp(const Scope& scope, const std::string& op) {
  GraphDef def;
  REQUIRE(scope.ToGraphDef(&def).ok());
  for (const NodeDef& n : def.node()) {
    if (n.op() == op) return true;
  }
  return false;
}

TEST_CASE("reference variables train exactly as resource variables") {
  Tensor x, y;
  MakeData(&x, &y);
  struct Case {
    const char* name;
    std::function<std::unique_ptr<train::Optimizer>()> make;
    const char* ref_op;
  };
  const Case cases[] = {
      {"GradientDescent",
       [] { return std::make_unique<train::GradientDescent>(0.5f); },
       "ApplyGradientDescent"},
      {"Momentum",
       [] { return std::make_unique<train::Momentum>(0.1f, 0.9f); },
       "ApplyMomentum"},
      {"Adam", [] { return std::make_unique<train::Adam>(0.05f); },
       "ApplyAdam"},
      {"Adagrad", [] { return std::make_unique<train::Adagrad>(0.5f); },
       "ApplyAdagrad"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Model resource = BuildModel(train::VariableKind::kResource);
      Model ref = BuildModel(train::VariableKind::kRef);
      auto opt_resource = c.make();
      auto opt_ref = c.make();
      const std::vector<float> a =
          LossCurve(resource, opt_resource.get(), 20, {{"x", x}, {"y", y}});
      const std::vector<float> b =
          LossCurve(ref, opt_ref.get(), 20, {{"x", x}, {"y", y}});
      CHECK(HasOp(ref.scope, "VariableV2"));
      CHECK(HasOp(ref.scope, c.ref_op));
      CHECK_FALSE(HasOp(ref.scope, "VarHandleOp"));
      RequireSameCurve(a, b, 1e-6f);
    }
  }
}

TEST_CASE("reference variable ops: Assign, AssignAdd, AssignSub, "
          "IsVariableInitialized") {
  Scope root = Scope::NewRootScope();
  const Output v = ops::VariableV2(root.WithOpName("v"), DT_FLOAT, {2});
  const Output initialized =
      ops::IsVariableInitialized(root.WithOpName("initialized"), v);
  const Output assign =
      ops::Assign(root.WithOpName("assign"), v, ops::Const(root, {1.f, 2.f}));
  const Output add = ops::AssignAdd(root.WithOpName("add"), v,
                                    ops::Const(root, {10.f, 20.f}));
  const Output sub =
      ops::AssignSub(root.WithOpName("sub"), v, ops::Const(root, {1.f, 1.f}));
  ops::Identity(root.WithOpName("read"), v);
  // A resource handle is no ref.
  Scope other = Scope::NewRootScope();
  ops::AssignAdd(other, ops::VarHandleOp(other, DT_FLOAT, {2}, ""),
                 ops::Const(other, {1.f, 1.f}));
  CHECK_THAT(other.status(),
             testing::StatusIs(absl::StatusCode::kInvalidArgument,
                               "input ref must be a ref"));
  auto s = Start(root);
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {"initialized"}, {}, &out).ok());
  CHECK_FALSE(out[0].scalar<bool>());
  REQUIRE(s->Run({}, {}, {"assign"}, &out).ok());
  REQUIRE(s->Run({}, {"initialized"}, {"add"}, &out).ok());
  CHECK(out[0].scalar<bool>());
  REQUIRE(s->Run({}, {}, {"sub"}, &out).ok());
  REQUIRE(s->Run({}, {"read"}, {}, &out).ok());
  CHECK(out[0].data<float>()[0] == 10.f);
  CHECK(out[0].data<float>()[1] == 21.f);
}

// An embedding model: ids [kBatch, 2] -> rows of a [kVocab, kDim]
// embedding (of `kind`) -> a linear classifier (a resource variable: the
// embedding's gradient reads it, and a ref variable's read aliases its
// buffer, so its own update could race with that read, as in TensorFlow).
// Only ids below kUsed occur, some twice in a batch.
constexpr int kVocab = 10, kUsed = 7, kDim = 3, kBatch = 16;

enum class Lookup { kGatherV2, kResourceGather };

// `dense_too`: the loss also has a small L2 term on the whole embedding.
Model BuildEmbeddingModel(train::VariableKind kind, Lookup lookup,
                          bool dense_too = false) {
  Model m;
  const Scope& s = m.scope;
  Output ids = ops::Placeholder(s.WithOpName("ids"), DT_INT32);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  train::Variable emb = train::NewVariable(
      s.WithOpName("embedding"), train::GlorotUniform(s, {kVocab, kDim}, 5),
      DT_FLOAT, {kVocab, kDim}, kind);
  train::Variable w = train::NewVariable(
      s.WithOpName("w"), train::GlorotUniform(s, {2 * kDim, kClasses}, 6),
      DT_FLOAT, {2 * kDim, kClasses});
  const Output rows = lookup == Lookup::kGatherV2
                          ? ops::GatherV2(s, emb.value, ids, ops::Const(s, 0))
                          : ops::ResourceGather(s, emb.handle, ids, DT_FLOAT);
  const Output h = ops::Reshape(s, rows, ops::Const(s, {-1, 2 * kDim}));
  Output per_row =
      ops::SparseSoftmaxCrossEntropyWithLogits(s, ops::MatMul(s, h, w.value), y)
          .loss;
  if (dense_too) {
    m.loss = ops::AddV2(
        s.WithOpName("loss"), ops::Mean(s, per_row, ops::Const(s, 0)),
        ops::Mul(s, ops::L2Loss(s, emb.value), ops::Const(s, 0.05f)));
  } else {
    m.loss = ops::Mean(s.WithOpName("loss"), per_row, ops::Const(s, 0));
  }
  ops::Identity(s.WithOpName("embedding_value"), emb.value);
  m.vars = {emb, w};
  return m;
}

void MakeEmbeddingData(Tensor* ids, Tensor* y) {
  *ids = Tensor(DT_INT32, TensorShape({kBatch, 2}));
  *y = Tensor(DT_INT32, TensorShape({kBatch}));
  for (int r = 0; r < kBatch; ++r) {
    const int a = (r * 3) % kUsed, b = (r * 5 + 1) % kUsed;
    ids->data<int32_t>()[2 * r] = a;
    ids->data<int32_t>()[2 * r + 1] = b;
    y->data<int32_t>()[r] = (a + 2 * b) % kClasses;
  }
}

// Trains `steps` steps; returns the losses and the embedding at the end.
// The embedding's values are copied out at once: a ref variable's read
// aliases its buffer, which later steps update in place.
std::vector<float> TrainEmbedding(Model& m, train::Optimizer* opt, int steps,
                                  std::vector<float>* embedding_before,
                                  std::vector<float>* embedding_after) {
  Tensor ids, y;
  MakeEmbeddingData(&ids, &y);
  absl::StatusOr<Operation> step = opt->Minimize(m.scope, m.loss, m.vars);
  REQUIRE(step.ok());
  std::vector<train::Variable> all = m.vars;
  all.insert(all.end(), opt->slots().begin(), opt->slots().end());
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), all);
  REQUIRE(m.scope.ok());
  auto s = Start(m.scope);
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {}, {init.node_name()}, &out).ok());
  REQUIRE(s->Run({}, {"embedding_value"}, {}, &out).ok());
  embedding_before->assign(out[0].data<float>(),
                           out[0].data<float>() + out[0].NumElements());
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    absl::Status st =
        s->Run({{"ids", ids}, {"y", y}}, {"loss"}, {step->node_name()}, &out);
    INFO(st.ToString());
    REQUIRE(st.ok());
    losses.push_back(out[0].scalar<float>());
  }
  REQUIRE(s->Run({}, {"embedding_value"}, {}, &out).ok());
  embedding_after->assign(out[0].data<float>(),
                          out[0].data<float>() + out[0].NumElements());
  return losses;
}

TEST_CASE("an embedding read through a gather gets sparse updates") {
  struct Case {
    const char* name;
    std::function<std::unique_ptr<train::Optimizer>()> make;
    const char* resource_op;
    const char* ref_op;
  };
  const Case cases[] = {
      {"GradientDescent",
       [] { return std::make_unique<train::GradientDescent>(0.5f); },
       "ResourceScatterSub", "ScatterSub"},
      {"Adagrad", [] { return std::make_unique<train::Adagrad>(0.3f); },
       "ResourceSparseApplyAdagrad", "SparseApplyAdagrad"},
      {"Momentum",
       [] { return std::make_unique<train::Momentum>(0.1f, 0.9f); },
       "ResourceSparseApplyMomentum", "SparseApplyMomentum"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      std::vector<float> before_dense, after_dense, before, after;
      Model dense_model = BuildEmbeddingModel(train::VariableKind::kResource,
                                              Lookup::kGatherV2);
      auto dense_opt = c.make();
      dense_opt->set_sparse_updates(false);
      const std::vector<float> dense = TrainEmbedding(
          dense_model, dense_opt.get(), 20, &before_dense, &after_dense);
      CHECK_FALSE(HasOp(dense_model.scope, c.resource_op));

      struct Variant {
        const char* name;
        train::VariableKind kind;
        Lookup lookup;
        const char* op;
      };
      const Variant variants[] = {
          {"GatherV2 of a resource variable", train::VariableKind::kResource,
           Lookup::kGatherV2, c.resource_op},
          {"ResourceGather", train::VariableKind::kResource,
           Lookup::kResourceGather, c.resource_op},
          {"GatherV2 of a ref variable", train::VariableKind::kRef,
           Lookup::kGatherV2, c.ref_op},
      };
      for (const Variant& v : variants) {
        INFO(v.name);
        Model model = BuildEmbeddingModel(v.kind, v.lookup);
        auto opt = c.make();
        const std::vector<float> sparse =
            TrainEmbedding(model, opt.get(), 20, &before, &after);
        CHECK(HasOp(model.scope, v.op));
        RequireSameCurve(dense, sparse, 1e-5f);
        // Rows no batch used are untouched; the others moved.
        for (int row = 0; row < kVocab; ++row) {
          bool same = true;
          for (int d = 0; d < kDim; ++d) {
            same = same && before[row * kDim + d] == after[row * kDim + d];
          }
          INFO("row " << row);
          CHECK(same == (row >= kUsed));
        }
      }
    }
  }
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

TEST_CASE("an embedding also read densely gets one dense update, "
          "gathers counted once") {
  std::vector<float> before, after;
  Model reference =
      BuildEmbeddingModel(train::VariableKind::kResource, Lookup::kGatherV2,
                          /*dense_too=*/true);
  train::GradientDescent dense_sgd(0.5f);
  dense_sgd.set_sparse_updates(false);
  const std::vector<float> want =
      TrainEmbedding(reference, &dense_sgd, 20, &before, &after);
  for (Lookup lookup : {Lookup::kGatherV2, Lookup::kResourceGather}) {
    INFO((lookup == Lookup::kGatherV2 ? "GatherV2" : "ResourceGather"));
    Model model = BuildEmbeddingModel(train::VariableKind::kResource, lookup,
                                      /*dense_too=*/true);
    train::GradientDescent sgd(0.5f);
    const std::vector<float> got =
        TrainEmbedding(model, &sgd, 20, &before, &after);
    CHECK_FALSE(HasOp(model.scope, "ResourceScatterSub"));
    RequireSameCurve(want, got, 1e-5f);
  }
}

}  // namespace
}  // namespace dfx

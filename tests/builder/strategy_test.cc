// Distribution strategies built in C++ (graph/builder/strategy.h), run in a
// local session over several CPU devices: mirrored and sharded training
// give the loss curve and the variables of one replica training on the
// whole batch; mirrored copies stay identical; gradient buckets; sync-on-read
// variables; refused inputs.
#include "graph/builder/strategy.h"

#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "master/local_session.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

constexpr int kBatch = 12, kIn = 6, kHidden = 7, kClasses = 3, kSteps = 8;

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

std::vector<std::string> Cpus(int n) {
  std::vector<std::string> d;
  for (int i = 0; i < n; ++i) d.push_back(Cpu(i));
  return d;
}

// A fixed batch: features and labels that follow a linear rule.
struct Batch {
  Tensor x{DT_FLOAT, TensorShape({kBatch, kIn})};
  Tensor y{DT_INT32, TensorShape({kBatch})};
};

Batch MakeBatch() {
  Batch b;
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  for (int r = 0; r < kBatch; ++r) {
    float best = -1e9f;
    for (int f = 0; f < kIn; ++f) b.x.data<float>()[r * kIn + f] = normal(gen);
    for (int c = 0; c < kClasses; ++c) {
      float s = 0;
      for (int f = 0; f < kIn; ++f) {
        s += b.x.data<float>()[r * kIn + f] * ((f + c) % 3 - 1.0f);
      }
      if (s > best) {
        best = s;
        b.y.data<int32_t>()[r] = c;
      }
    }
  }
  return b;
}

// Rows [r * rows/n, (r + 1) * rows/n) of t.
Tensor Rows(const Tensor& t, int r, int n) {
  const int64_t rows = t.dim_size(0) / n;
  return t.Slice(r * rows, (r + 1) * rows);
}

// The model: two dense layers and the mean cross-entropy of the rows.
Output Loss(const Scope& s, const Output& x, const Output& y,
            const std::vector<Output>& params) {
  Output h = ops::Relu(
      s, ops::BiasAdd(s, ops::MatMul(s, x, params[0]), params[1]));
  Output logits = ops::BiasAdd(s, ops::MatMul(s, h, params[2]), params[3]);
  return ops::Mean(s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
                   ops::Const(s, 0));
}

struct ParamSpec {
  const char* name;
  std::vector<int64_t> shape;
  int seed;  // 0: zeros
};

const std::vector<ParamSpec>& Params() {
  static const std::vector<ParamSpec> specs = {
      {"w1", {kIn, kHidden}, 5},
      {"b1", {kHidden}, 0},
      {"w2", {kHidden, kClasses}, 6},
      {"b2", {kClasses}, 0}};
  return specs;
}

Output Initial(const Scope& s, const ParamSpec& p) {
  return p.seed == 0 ? train::Zeros(s, p.shape)
                     : train::GlorotUniform(s, p.shape, p.seed);
}

std::unique_ptr<LocalSession> NewSession(int devices) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = devices;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  REQUIRE_THAT(s.status(), IsOk());
  return std::move(s).value();
}

std::unique_ptr<LocalSession> Start(const Scope& scope, int devices,
                                    const std::string& init) {
  GraphDef def;
  REQUIRE_THAT(scope.ToGraphDef(&def), IsOk());
  auto session = NewSession(devices);
  REQUIRE_THAT(session->Extend(def), IsOk());
  std::vector<Tensor> out;
  REQUIRE_THAT(session->Run({}, {}, {init}, &out), IsOk());
  return session;
}

std::vector<float> Values(const Tensor& t) {
  auto v = t.span<float>();
  return std::vector<float>(v.begin(), v.end());
}

void RequireClose(const std::vector<float>& a, const std::vector<float>& b,
                  float tolerance) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": " << a[i] << " vs " << b[i]);
    CHECK(std::fabs(a[i] - b[i]) <= tolerance);
  }
}

// One replica on the whole batch: the loss before each step, and the
// variables after the last.
struct Run {
  std::vector<float> losses;
  std::vector<std::vector<float>> params;
};

std::unique_ptr<train::Optimizer> MakeAdam() {
  return std::make_unique<train::Adam>(0.05f);
}

Run Reference(const Batch& batch) {
  Scope s = Scope::NewRootScope();
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  std::vector<train::Variable> vars;
  std::vector<Output> values;
  for (const ParamSpec& p : Params()) {
    vars.push_back(train::NewVariable(s.WithOpName(p.name), Initial(s, p),
                                      DT_FLOAT, p.shape));
    values.push_back(vars.back().value);
  }
  Output loss = Loss(s.WithOpName("loss"), x, y, values);
  auto adam = MakeAdam();
  absl::StatusOr<Operation> train = adam->Minimize(s, loss, vars);
  REQUIRE_THAT(train.status(), IsOk());
  std::vector<train::Variable> all = vars;
  all.insert(all.end(), adam->slots().begin(), adam->slots().end());
  Operation init = train::InitializeAll(s.WithOpName("init"), all);
  auto session = Start(s, 1, init.node_name());
  Run run;
  std::vector<Tensor> out;
  for (int i = 0; i < kSteps; ++i) {
    REQUIRE_THAT(session->Run({{"x", batch.x}, {"y", batch.y}},
                              {loss.node_name()}, {train->node_name()}, &out),
                 IsOk());
    run.losses.push_back(out[0].scalar<float>());
  }
  for (const Output& v : values) {
    REQUIRE_THAT(session->Run({}, {v.ToString()}, {}, &out), IsOk());
    run.params.push_back(Values(out[0]));
  }
  return run;
}

// Feeds for replica r's placeholders ("replica_<r>/x", "replica_<r>/y").
std::vector<std::pair<std::string, Tensor>> ReplicaFeeds(
    const Batch& batch, const std::vector<Output>& xs,
    const std::vector<Output>& ys) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  const int n = static_cast<int>(xs.size());
  for (int r = 0; r < n; ++r) {
    feeds.emplace_back(xs[r].node_name(), Rows(batch.x, r, n));
    feeds.emplace_back(ys[r].node_name(), Rows(batch.y, r, n));
  }
  return feeds;
}

struct Mirrored {
  Scope scope = Scope::NewRootScope();
  std::unique_ptr<strategy::MirroredStrategy> strategy;
  std::vector<strategy::MirroredVariable> vars;
  std::vector<Output> xs, ys, losses;
};

Mirrored BuildMirrored(int replicas, int64_t bucket_bytes,
                       int32_t first_instance_key = 1) {
  Mirrored m;
  auto strategy = strategy::MirroredStrategy::Create(
      {{.devices = Cpus(replicas), .first_instance_key = first_instance_key},
       bucket_bytes});
  REQUIRE_THAT(strategy.status(), IsOk());
  m.strategy = std::move(strategy).value();
  const Scope& s = m.scope;
  for (const ParamSpec& p : Params()) {
    m.vars.push_back(m.strategy->CreateVariable(
        s.WithOpName(p.name), Initial(s.WithDevice(Cpu(0)), p), DT_FLOAT,
        p.shape));
  }
  for (int r = 0; r < replicas; ++r) {
    const Scope rs = m.strategy->ReplicaScope(s, r);
    m.xs.push_back(ops::Placeholder(rs.WithOpName("x"), DT_FLOAT));
    m.ys.push_back(ops::Placeholder(rs.WithOpName("y"), DT_INT32));
    std::vector<Output> values;
    for (const auto& v : m.vars) values.push_back(v.on(r).value);
    m.losses.push_back(Loss(rs, m.xs[r], m.ys[r], values));
  }
  REQUIRE_THAT(s.status(), IsOk());
  return m;
}

// Trains a mirrored model; the replicas' copies must be equal bit for bit
// after every step.
Run TrainMirrored(Mirrored& m, const strategy::TrainStep& step,
                  const Batch& batch) {
  std::vector<train::Variable> all;
  for (const auto& v : m.vars) {
    all.insert(all.end(), v.replicas.begin(), v.replicas.end());
  }
  all.insert(all.end(), step.slots.begin(), step.slots.end());
  Operation init = train::InitializeAll(m.scope.WithOpName("init"), all);
  const int n = m.strategy->num_replicas();
  auto session = Start(m.scope, n, init.node_name());
  const auto feeds = ReplicaFeeds(batch, m.xs, m.ys);
  Run run;
  std::vector<Tensor> out;
  for (int i = 0; i < kSteps; ++i) {
    REQUIRE_THAT(session->Run(feeds, {step.loss.ToString()},
                              {step.train.node_name()}, &out),
                 IsOk());
    run.losses.push_back(out[0].scalar<float>());
  }
  for (const auto& v : m.vars) {
    std::vector<std::string> fetches;
    for (const auto& copy : v.replicas) fetches.push_back(copy.value.ToString());
    REQUIRE_THAT(session->Run({}, fetches, {}, &out), IsOk());
    for (int r = 1; r < n; ++r) {
      INFO("variable " << v.name << ", replica " << r);
      CHECK(Values(out[r]) == Values(out[0]));
    }
    run.params.push_back(Values(out[0]));
  }
  return run;
}

void RequireSameRun(const Run& a, const Run& b) {
  INFO("loss curve");
  RequireClose(a.losses, b.losses, 2e-5f);
  CHECK(a.losses.back() < 0.8f * a.losses.front());
  REQUIRE(a.params.size() == b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    INFO("variable " << Params()[i].name);
    RequireClose(a.params[i], b.params[i], 2e-5f);
  }
}

TEST_CASE("MirroredStrategy trains as one replica on the whole batch",
          "[strategy]") {
  const Batch batch = MakeBatch();
  const Run reference = Reference(batch);
  for (int replicas : {2, 3}) {
    for (int64_t bucket : {int64_t{0}, int64_t{100}, int64_t{25} << 20}) {
      INFO(replicas << " replicas, buckets of " << bucket << " bytes");
      Mirrored m = BuildMirrored(replicas, bucket);
      auto step = m.strategy->Minimize(m.scope, m.losses, m.vars, MakeAdam);
      REQUIRE_THAT(step.status(), IsOk());
      RequireSameRun(TrainMirrored(m, *step, batch), reference);
    }
  }
}

TEST_CASE("MirroredStrategy buckets gradients in reverse order, each "
          "all-reduced as soon as its gradients exist", "[strategy]") {
  // One all-reduce per gradient, in reverse variable order.
  {
    Mirrored m = BuildMirrored(2, 0);
    auto step = m.strategy->Minimize(m.scope, m.losses, m.vars, MakeAdam);
    REQUIRE_THAT(step.status(), IsOk());
    CHECK(step->buckets == std::vector<std::vector<std::string>>{
                               {"b2"}, {"w2"}, {"b1"}, {"w1"}});
  }
  // b2 (12 bytes) + w2 (84) reach 80 bytes; b1 (28) + w1 (168) the next.
  {
    Mirrored m = BuildMirrored(2, 80);
    auto step = m.strategy->Minimize(m.scope, m.losses, m.vars, MakeAdam);
    REQUIRE_THAT(step.status(), IsOk());
    CHECK(step->buckets == std::vector<std::vector<std::string>>{
                               {"b2", "w2"}, {"b1", "w1"}});
  }
  // The default 25 MiB: one bucket.
  Mirrored m = BuildMirrored(2, int64_t{25} << 20);
  auto step = m.strategy->Minimize(m.scope, m.losses, m.vars, MakeAdam);
  REQUIRE_THAT(step.status(), IsOk());
  CHECK(step->buckets == std::vector<std::vector<std::string>>{
                             {"b2", "w2", "b1", "w1"}});

  // Overlap: with one bucket per gradient, the all-reduce of the last
  // layer's gradients does not wait for the first layer's gradient.
  Mirrored per_grad = BuildMirrored(2, 0);
  step = per_grad.strategy->Minimize(per_grad.scope, per_grad.losses,
                                     per_grad.vars, MakeAdam);
  REQUIRE_THAT(step.status(), IsOk());
  GraphDef def;
  REQUIRE_THAT(per_grad.scope.ToGraphDef(&def), IsOk());
  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  std::vector<const NodeDef*> reduces;  // replica 0's, in bucket order
  for (const NodeDef& n : def.node()) {
    by_name[n.name()] = &n;
    if (n.op() == "CollectiveReduceV2" && n.device() == Cpu(0)) {
      reduces.push_back(&n);
    }
  }
  REQUIRE(reduces.size() == 4);
  auto ancestors = [&](const NodeDef* node) {
    std::set<std::string> seen;
    std::vector<const NodeDef*> stack = {node};
    while (!stack.empty()) {
      const NodeDef* n = stack.back();
      stack.pop_back();
      for (const std::string& in : n->input()) {
        std::string name = in.substr(in[0] == '^' ? 1 : 0);
        name = name.substr(0, name.find(':'));
        if (seen.insert(name).second) stack.push_back(by_name.at(name));
      }
    }
    return seen;
  };
  // reduces[3] carries w1's gradient: its input is that gradient's node.
  std::string w1_grad = reduces[3]->input(0);
  w1_grad = w1_grad.substr(0, w1_grad.find(':'));
  CHECK(ancestors(reduces[0]).count(w1_grad) == 0);  // b2's
  CHECK(ancestors(reduces[1]).count(w1_grad) == 0);  // w2's
  CHECK(ancestors(reduces[3]).count(w1_grad) == 1);
}

TEST_CASE("sync-on-read variables sum or average the replicas' copies",
          "[strategy]") {
  auto strategy = strategy::MirroredStrategy::Create({{.devices = Cpus(3)}});
  REQUIRE_THAT(strategy.status(), IsOk());
  Scope s = Scope::NewRootScope();
  auto count = (*strategy)->CreateSyncOnReadVariable(
      s.WithOpName("count"), ops::Const(s, 0.0f), DT_FLOAT, {},
      strategy::Aggregation::kSum);
  auto mean = (*strategy)->CreateSyncOnReadVariable(
      s.WithOpName("mean"), ops::Const(s, 0.0f), DT_FLOAT, {},
      strategy::Aggregation::kMean);
  std::vector<Operation> adds;
  for (int r = 0; r < 3; ++r) {
    const Scope rs = (*strategy)->ReplicaScope(s, r);
    // Replica r adds r + 1 to its copies.
    const Output v = ops::Const(rs, r + 1.0f);
    adds.push_back(ops::AssignAddVariableOp(rs, count.on(r).handle, v));
    adds.push_back(ops::AssignAddVariableOp(rs, mean.on(r).handle, v));
  }
  Operation add = ops::NoOp(s.WithOpName("add").WithControlDependencies(adds));
  std::vector<train::Variable> all = count.replicas;
  all.insert(all.end(), mean.replicas.begin(), mean.replicas.end());
  Operation init = train::InitializeAll(s.WithOpName("init"), all);
  Output total = (*strategy)->Read(s.WithOpName("total"), count);
  Output average = (*strategy)->Read(s.WithOpName("average"), mean);
  auto session = Start(s, 3, init.node_name());
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) {
    REQUIRE_THAT(session->Run({}, {}, {add.node_name()}, &out), IsOk());
  }
  REQUIRE_THAT(session->Run({}, {total.ToString(), average.ToString()}, {}, &out),
               IsOk());
  CHECK(out[0].scalar<float>() == 12.0f);  // 2 * (1 + 2 + 3)
  CHECK(out[1].scalar<float>() == 4.0f);
}

TEST_CASE("ShardedStrategy trains as one replica, each holding a shard",
          "[strategy]") {
  const Batch batch = MakeBatch();
  const Run reference = Reference(batch);
  for (int replicas : {2, 3}) {
    INFO(replicas << " replicas");
    auto created = strategy::ShardedStrategy::Create(
        {.devices = Cpus(replicas), .first_instance_key = 500});
    REQUIRE_THAT(created.status(), IsOk());
    strategy::ShardedStrategy& strategy = **created;
    Scope s = Scope::NewRootScope();
    std::vector<strategy::ShardedVariable> vars;
    for (const ParamSpec& p : Params()) {
      vars.push_back(strategy.CreateVariable(
          s.WithOpName(p.name),
          [&p](const Scope& is) { return Initial(is, p); }, DT_FLOAT,
          p.shape));
    }
    std::vector<Output> xs, ys, losses;
    for (int r = 0; r < replicas; ++r) {
      const Scope rs = strategy.ReplicaScope(s, r);
      xs.push_back(ops::Placeholder(rs.WithOpName("x"), DT_FLOAT));
      ys.push_back(ops::Placeholder(rs.WithOpName("y"), DT_INT32));
      std::vector<Output> values;
      for (const auto& v : vars) values.push_back(strategy.Gather(rs, v, r));
      // A second Gather of one variable on one replica is the same value.
      CHECK(strategy.Gather(rs, vars[0], r).node_name() ==
            values[0].node_name());
      losses.push_back(Loss(rs, xs[r], ys[r], values));
    }
    auto step = strategy.Minimize(s, losses, vars, MakeAdam);
    REQUIRE_THAT(step.status(), IsOk());

    // Memory: each replica holds ceil(n / replicas) of every variable's n
    // elements; unsharded 42 + 7 + 21 + 3 = 73 floats.
    CHECK(strategy.ParameterBytesUnsharded() == 73 * 4);
    int64_t shard_elements = 0;
    for (const ParamSpec& p : Params()) {
      int64_t n = 1;
      for (int64_t d : p.shape) n *= d;
      shard_elements += (n + replicas - 1) / replicas;
    }
    CHECK(strategy.ParameterBytesPerReplica() == shard_elements * 4);
    CHECK(strategy.ParameterBytesPerReplica() * replicas <
          strategy.ParameterBytesUnsharded() + 4 * replicas * 4);

    std::vector<train::Variable> all;
    for (const auto& v : vars) {
      all.insert(all.end(), v.shards.begin(), v.shards.end());
    }
    all.insert(all.end(), step->slots.begin(), step->slots.end());
    Operation init = train::InitializeAll(s.WithOpName("init"), all);
    auto session = Start(s, replicas, init.node_name());
    const auto feeds = ReplicaFeeds(batch, xs, ys);
    Run run;
    std::vector<Tensor> out;
    for (int i = 0; i < kSteps; ++i) {
      REQUIRE_THAT(session->Run(feeds, {step->loss.ToString()},
                                {step->train.node_name()}, &out),
                   IsOk());
      run.losses.push_back(out[0].scalar<float>());
    }
    // The whole values: the shards in order, without the padding; each
    // shard is a rank-1 variable on its own replica's device.
    for (const auto& v : vars) {
      std::vector<std::string> fetches;
      for (const auto& shard : v.shards) {
        CHECK(shard.shape == std::vector<int64_t>{v.shard_elements});
        fetches.push_back(shard.value.ToString());
      }
      REQUIRE_THAT(session->Run({}, fetches, {}, &out), IsOk());
      std::vector<float> whole;
      for (const Tensor& t : out) {
        const auto part = Values(t);
        whole.insert(whole.end(), part.begin(), part.end());
      }
      whole.resize(v.num_elements);
      run.params.push_back(whole);
    }
    RequireSameRun(run, reference);
  }
}

TEST_CASE("strategies refuse bad devices, losses and variables",
          "[strategy]") {
  CHECK_THAT(strategy::MirroredStrategy::Create({}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "at least one"));
  CHECK_THAT(strategy::MirroredStrategy::Create({{.devices = {"/cpu:0"}}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'/cpu:0'"));
  CHECK_THAT(
      strategy::MirroredStrategy::Create({{.devices = {Cpu(1), Cpu(1)}}})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "listed twice"));
  CHECK_THAT(
      strategy::MirroredStrategy::Create({{.devices = Cpus(2)}, -1}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "bucket_bytes"));

  // Devices are put in the collective group's order.
  auto ordered =
      strategy::MirroredStrategy::Create({{.devices = {Cpu(2), Cpu(0)}}});
  REQUIRE_THAT(ordered.status(), IsOk());
  CHECK((*ordered)->devices() == std::vector<std::string>{Cpu(0), Cpu(2)});

  Mirrored m = BuildMirrored(2, 0);
  CHECK_THAT(
      m.strategy->Minimize(m.scope, {m.losses[0]}, m.vars, MakeAdam).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "one loss per replica"));
  CHECK_THAT(m.strategy->Minimize(m.scope, m.losses, {}, MakeAdam).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "no variables"));

  // A sharded variable that a replica's model did not gather.
  auto sharded = strategy::ShardedStrategy::Create({.devices = Cpus(2)});
  REQUIRE_THAT(sharded.status(), IsOk());
  Scope s = Scope::NewRootScope();
  auto w = (*sharded)->CreateVariable(
      s.WithOpName("w"), [](const Scope& is) { return train::Zeros(is, {4}); },
      DT_FLOAT, {4});
  std::vector<Output> losses;
  for (int r = 0; r < 2; ++r) {
    const Scope rs = (*sharded)->ReplicaScope(s, r);
    Output value = r == 0 ? (*sharded)->Gather(rs, w, r)
                          : ops::Const(rs, std::vector<float>{1, 2, 3, 4});
    losses.push_back(ops::Sum(rs, value, ops::Const(rs, 0)));
  }
  CHECK_THAT((*sharded)->Minimize(s, losses, {w}, MakeAdam).status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "'w' was not gathered on replica 1"));
  // A variable of unknown shape.
  Scope u = Scope::NewRootScope();
  (*sharded)->CreateVariable(
      u.WithOpName("v"), [](const Scope& is) { return train::Zeros(is, {4}); },
      DT_FLOAT, {-1});
  CHECK_THAT(u.status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "fully known shape"));
}

}  // namespace
}  // namespace dfx

// Synchronous data-parallel training with the C++ API's strategies
// (graph/builder/strategy.h) on a cluster of `worker` tasks, one replica
// per task: examples/ps_train.cc's classifier (features and a token
// embedding) trained three ways on the same batches --
// one replica on task 0 with the whole batch, MirroredStrategy (a copy of
// every variable per task, gradients averaged by bucketed all-reduce) and
// ShardedStrategy (each task holds 1/N of every variable, gathers it
// before use, reduce-scatters its gradient) -- must give the same loss
// curve to float rounding. The sharded run reports what each task holds.
//
//   build/bin/dfx cluster up --workers 2 --dir /tmp/c
//   build/bin/example_strategy_train --cluster /tmp/c/cluster.json
//   build/bin/dfx cluster down --dir /tmp/c
//
// Exit status 0 when the curves agree within --tolerance (relative to the
// loss, at least 1) and each run reaches --min-accuracy. They differ only
// by float rounding: the replicas sum their parts of the batch's
// gradients before averaging, one replica sums them all at once, and Adam
// magnifies the last bits of the embedding rows' small gradients.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/builder/ops.h"
#include "graph/builder/strategy.h"
#include "graph/builder/train.h"
#include "rpc/cluster_spec.h"
#include "runtime/session.h"

namespace {

using namespace dfx;  // NOLINT: an example reads better without prefixes

constexpr int kFeatures = 16, kVocab = 50, kEmbed = 8, kHidden = 32,
              kClasses = 4;

struct Options {
  std::string cluster_file;
  int steps = 60;
  int batch = 240;
  float tolerance = 1e-3f;  // relative to the loss
  float min_accuracy = 0.85f;
};

// A batch of examples_ps_train's data: 16 features and a token id whose
// class follows a fixed rule of both.
struct Batch {
  Tensor x, ids, y;
};

Batch MakeBatch(int rows, uint32_t seed) {
  std::mt19937 rule_gen(99);
  std::normal_distribution<float> normal;
  std::vector<float> rule(kFeatures * kClasses), token(kVocab * kClasses);
  for (float& v : rule) v = normal(rule_gen);
  for (float& v : token) v = 2 * normal(rule_gen);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> id(0, kVocab - 1);
  Batch b{Tensor(DT_FLOAT, TensorShape({rows, kFeatures})),
          Tensor(DT_INT32, TensorShape({rows})),
          Tensor(DT_INT32, TensorShape({rows}))};
  for (int r = 0; r < rows; ++r) {
    float* x = b.x.data<float>() + r * kFeatures;
    for (int f = 0; f < kFeatures; ++f) x[f] = normal(gen);
    const int t = id(gen);
    b.ids.data<int32_t>()[r] = t;
    int best = 0;
    float best_score = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
      float s = token[t * kClasses + c];
      for (int f = 0; f < kFeatures; ++f) s += x[f] * rule[f * kClasses + c];
      if (s > best_score) {
        best_score = s;
        best = c;
      }
    }
    b.y.data<int32_t>()[r] = best;
  }
  return b;
}

struct Param {
  const char* name;
  std::vector<int64_t> shape;
  int seed;  // 0: zeros
};
// The model of examples/ps_train.cc: an 8-wide embedding of the token and
// the features into a hidden layer of 32, then 4 classes.
const Param kParams[] = {{"embedding", {kVocab, kEmbed}, 1},
                         {"w1", {kFeatures, kHidden}, 2},
                         {"w1_embedding", {kEmbed, kHidden}, 3},
                         {"b1", {kHidden}, 0},
                         {"w2", {kHidden, kClasses}, 4},
                         {"b2", {kClasses}, 0}};

Output Initial(const Scope& s, const Param& p) {
  return p.seed == 0 ? train::Zeros(s, p.shape)
                     : train::GlorotUniform(s, p.shape, p.seed);
}

// The logits of (x, ids) under the params, in kParams' order.
Output Logits(const Scope& s, const Output& x, const Output& ids,
              const std::vector<Output>& p) {
  Output emb = ops::GatherV2(s, p[0], ids, ops::Const(s, 0));
  Output h = ops::Relu(
      s, ops::BiasAdd(s,
                      ops::Add(s, ops::MatMul(s, x, p[1]),
                               ops::MatMul(s, emb, p[2])),
                      p[3]));
  return ops::BiasAdd(s, ops::MatMul(s, h, p[4]), p[5]);
}

Output Loss(const Scope& s, const Output& logits, const Output& y) {
  return ops::Mean(
      s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
      ops::Const(s, 0));
}

// The fraction of rows of `logits` whose argmax is the label.
float Accuracy(const Tensor& logits, const Tensor& y) {
  const int64_t rows = y.NumElements();
  int64_t hits = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits.data<float>() + r * kClasses;
    hits += std::max_element(row, row + kClasses) - row ==
            y.data<int32_t>()[r];
  }
  return rows == 0 ? 0.f : static_cast<float>(hits) / rows;
}

std::unique_ptr<train::Optimizer> MakeOptimizer() {
  return std::make_unique<train::Adam>(0.01f);
}

// One way of training: its graph and what a step feeds and runs.
struct Setup {
  Scope scope = Scope::NewRootScope();
  std::vector<Output> xs, ids, ys;  // one per replica
  std::string loss, train, init;
  std::string eval_x, eval_ids, logits;  // task 0, replica 0's values
  // What an evaluation step must also run (the other replicas' gathers:
  // every member of a collective takes part).
  std::vector<std::string> eval_targets;
  // Sharded: per replica, the element counts of the variables on its task.
  std::vector<std::vector<std::string>> held;
};

// Rows [r * n/k, (r + 1) * n/k) of t.
Tensor Part(const Tensor& t, int r, int k) {
  const int64_t rows = t.dim_size(0) / k;
  return t.Slice(r * rows, (r + 1) * rows);
}

struct Result {
  std::vector<float> losses;
  float accuracy = 0;
  double seconds = 0;
  std::vector<int64_t> held_bytes;  // sharded: parameters on each task
};

absl::StatusOr<Result> Train(const std::string& target, Setup& setup,
                             const Options& opt) {
  GraphDef def;
  absl::Status s = setup.scope.ToGraphDef(&def);
  if (!s.ok()) return s;
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(120000);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(target, options);
  if (!session.ok()) return session.status();
  Session& sess = **session;
  if (s = sess.Extend(def); !s.ok()) return s;
  std::vector<Tensor> out;
  if (s = sess.Run({}, {}, {setup.init}, &out); !s.ok()) return s;
  Result result;
  const auto start = std::chrono::steady_clock::now();
  const int k = static_cast<int>(setup.xs.size());
  for (int step = 0; step < opt.steps; ++step) {
    const Batch batch = MakeBatch(opt.batch, 1000 + step);
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (int r = 0; r < k; ++r) {
      feeds.emplace_back(setup.xs[r].node_name(), Part(batch.x, r, k));
      feeds.emplace_back(setup.ids[r].node_name(), Part(batch.ids, r, k));
      feeds.emplace_back(setup.ys[r].node_name(), Part(batch.y, r, k));
    }
    if (s = sess.Run(feeds, {setup.loss}, {setup.train}, &out); !s.ok()) {
      return s;
    }
    result.losses.push_back(out[0].scalar<float>());
  }
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  const Batch eval = MakeBatch(2048, 1);
  s = sess.Run({{setup.eval_x, eval.x}, {setup.eval_ids, eval.ids}},
               {setup.logits}, setup.eval_targets, &out);
  if (!s.ok()) return s;
  result.accuracy = Accuracy(out[0], eval.y);
  for (size_t r = 0; r < setup.held.size(); ++r) {
    if (s = sess.Run({}, setup.held[r], {}, &out); !s.ok()) return s;
    int64_t elements = 0;
    for (const Tensor& t : out) elements += t.scalar<int32_t>();
    result.held_bytes.push_back(elements * 4);
  }
  sess.Close().IgnoreError();
  return result;
}

void AddEval(Setup& setup, const Scope& scope,
             const std::vector<Output>& params) {
  Output x = ops::Placeholder(scope.WithOpName("eval_x"), DT_FLOAT);
  Output ids = ops::Placeholder(scope.WithOpName("eval_ids"), DT_INT32);
  setup.eval_x = x.node_name();
  setup.eval_ids = ids.node_name();
  setup.logits = Logits(scope, x, ids, params).ToString();
}

Setup Single(const std::string& device) {
  Setup setup;
  const Scope s = setup.scope.NewSubScope("single").WithDevice(device);
  std::vector<train::Variable> vars;
  std::vector<Output> values;
  for (const Param& p : kParams) {
    vars.push_back(train::NewVariable(s.WithOpName(p.name), Initial(s, p),
                                      DT_FLOAT, p.shape));
    values.push_back(vars.back().value);
  }
  setup.xs.push_back(ops::Placeholder(s.WithOpName("x"), DT_FLOAT));
  setup.ids.push_back(ops::Placeholder(s.WithOpName("ids"), DT_INT32));
  setup.ys.push_back(ops::Placeholder(s.WithOpName("y"), DT_INT32));
  Output loss = Loss(s.WithOpName("loss"),
                     Logits(s, setup.xs[0], setup.ids[0], values),
                     setup.ys[0]);
  auto optimizer = MakeOptimizer();
  absl::StatusOr<Operation> train = optimizer->Minimize(s, loss, vars);
  if (!train.ok()) {
    s.UpdateStatus(train.status());
    return setup;
  }
  vars.insert(vars.end(), optimizer->slots().begin(),
              optimizer->slots().end());
  setup.loss = loss.node_name();
  setup.train = train->node_name();
  setup.init = train::InitializeAll(s.WithOpName("init"), vars).node_name();
  AddEval(setup, s, values);
  return setup;
}

Setup Mirrored(strategy::MirroredStrategy& strategy) {
  Setup setup;
  const Scope s = setup.scope.NewSubScope("mirrored");
  std::vector<strategy::MirroredVariable> vars;
  for (const Param& p : kParams) {
    vars.push_back(strategy.CreateVariable(
        s.WithOpName(p.name), Initial(s.WithDevice(strategy.device(0)), p),
        DT_FLOAT, p.shape));
  }
  std::vector<Output> losses;
  for (int r = 0; r < strategy.num_replicas(); ++r) {
    const Scope rs = strategy.ReplicaScope(s, r);
    setup.xs.push_back(ops::Placeholder(rs.WithOpName("x"), DT_FLOAT));
    setup.ids.push_back(ops::Placeholder(rs.WithOpName("ids"), DT_INT32));
    setup.ys.push_back(ops::Placeholder(rs.WithOpName("y"), DT_INT32));
    std::vector<Output> values;
    for (const auto& v : vars) values.push_back(v.on(r).value);
    losses.push_back(
        Loss(rs, Logits(rs, setup.xs[r], setup.ids[r], values), setup.ys[r]));
  }
  absl::StatusOr<strategy::TrainStep> step =
      strategy.Minimize(s, losses, vars, MakeOptimizer);
  if (!step.ok()) {
    s.UpdateStatus(step.status());
    return setup;
  }
  std::vector<train::Variable> all = step->slots;
  std::vector<Output> values;
  for (const auto& v : vars) {
    all.insert(all.end(), v.replicas.begin(), v.replicas.end());
    values.push_back(v.on(0).value);
  }
  setup.loss = step->loss.ToString();
  setup.train = step->train.node_name();
  setup.init = train::InitializeAll(s.WithOpName("init"), all).node_name();
  std::printf("mirrored: %zu all-reduce(s) a step, buckets:", step->buckets.size());
  for (const auto& bucket : step->buckets) {
    std::printf(" [");
    for (size_t i = 0; i < bucket.size(); ++i) {
      std::printf("%s%s", i ? " " : "", bucket[i].c_str());
    }
    std::printf("]");
  }
  std::printf("\n");
  AddEval(setup, s.WithDevice(strategy.device(0)), values);
  return setup;
}

Setup Sharded(strategy::ShardedStrategy& strategy) {
  Setup setup;
  const Scope s = setup.scope.NewSubScope("sharded");
  std::vector<strategy::ShardedVariable> vars;
  for (const Param& p : kParams) {
    vars.push_back(strategy.CreateVariable(
        s.WithOpName(p.name),
        [&p](const Scope& is) { return Initial(is, p); }, DT_FLOAT,
        p.shape));
  }
  std::vector<Output> losses, replica0;
  for (int r = 0; r < strategy.num_replicas(); ++r) {
    const Scope rs = strategy.ReplicaScope(s, r);
    setup.xs.push_back(ops::Placeholder(rs.WithOpName("x"), DT_FLOAT));
    setup.ids.push_back(ops::Placeholder(rs.WithOpName("ids"), DT_INT32));
    setup.ys.push_back(ops::Placeholder(rs.WithOpName("y"), DT_INT32));
    std::vector<Output> values;
    for (const auto& v : vars) values.push_back(strategy.Gather(rs, v, r));
    if (r == 0) replica0 = values;
    losses.push_back(
        Loss(rs, Logits(rs, setup.xs[r], setup.ids[r], values), setup.ys[r]));
  }
  absl::StatusOr<strategy::TrainStep> step =
      strategy.Minimize(s, losses, vars, MakeOptimizer);
  if (!step.ok()) {
    s.UpdateStatus(step.status());
    return setup;
  }
  std::vector<train::Variable> all = step->slots;
  setup.held.resize(strategy.num_replicas());
  for (const auto& v : vars) {
    all.insert(all.end(), v.shards.begin(), v.shards.end());
    for (int r = 0; r < strategy.num_replicas(); ++r) {
      const Scope rs = s.WithDevice(strategy.device(r));
      setup.held[r].push_back(ops::Size(rs, v.shards[r].value).ToString());
    }
  }
  setup.loss = step->loss.ToString();
  setup.train = step->train.node_name();
  setup.init = train::InitializeAll(s.WithOpName("init"), all).node_name();
  // Accuracy from the values replica 0 gathers; the evaluation step runs
  // every replica's gathers too (each member of a collective takes part).
  AddEval(setup, s.WithDevice(strategy.device(0)), replica0);
  for (const auto& v : vars) {
    for (int r = 1; r < strategy.num_replicas(); ++r) {
      setup.eval_targets.push_back(strategy.Gather(s, v, r).node_name());
    }
  }
  std::printf(
      "sharded: each of %d tasks holds %lld bytes of parameters (one "
      "unsharded copy: %lld bytes), Adam's slots sharded the same way\n",
      strategy.num_replicas(),
      static_cast<long long>(strategy.ParameterBytesPerReplica()),
      static_cast<long long>(strategy.ParameterBytesUnsharded()));
  return setup;
}

int Run(const Options& opt) {
  absl::StatusOr<ClusterDef> cluster = ReadClusterJsonFile(opt.cluster_file);
  if (!cluster.ok()) {
    std::fprintf(stderr, "%s\n", cluster.status().ToString().c_str());
    return 1;
  }
  const int workers =
      static_cast<int>(JobAddresses(*cluster, "worker").size());
  if (workers < 1 || opt.batch % workers != 0) {
    std::fprintf(stderr, "the cluster needs worker tasks, and --batch (%d) a "
                         "multiple of their number (%d)\n",
                 opt.batch, workers);
    return 1;
  }
  absl::StatusOr<std::string> address = TaskAddress(*cluster, "worker", 0);
  if (!address.ok()) return 1;
  const std::string target = "grpc://" + *address;
  std::vector<std::string> devices;
  for (int t = 0; t < workers; ++t) {
    devices.push_back(
        absl::StrCat("/job:worker/replica:0/task:", t, "/device:CPU:0"));
  }
  auto mirrored = strategy::MirroredStrategy::Create(
      {{.devices = devices, .first_instance_key = 1}});
  auto sharded = strategy::ShardedStrategy::Create(
      {.devices = devices, .first_instance_key = 1000});
  if (!mirrored.ok() || !sharded.ok()) return 1;

  struct Way {
    const char* name;
    Setup setup;
    Result result;
  };
  std::vector<Way> ways;
  ways.push_back({"one replica", Single(devices[0]), {}});
  ways.push_back({"mirrored", Mirrored(**mirrored), {}});
  ways.push_back({"sharded", Sharded(**sharded), {}});
  for (Way& way : ways) {
    absl::StatusOr<Result> r = Train(target, way.setup, opt);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n", way.name, r.status().ToString().c_str());
      return 1;
    }
    way.result = *std::move(r);
  }
  std::printf("step  one replica  mirrored x%d  sharded x%d\n", workers,
              workers);
  float worst = 0;
  for (int step = 0; step < opt.steps; ++step) {
    const float base = ways[0].result.losses[step];
    for (size_t w = 1; w < ways.size(); ++w) {
      worst = std::max(worst, std::fabs(ways[w].result.losses[step] - base) /
                                  std::max(1.0f, std::fabs(base)));
    }
    if (step % 10 == 0 || step == opt.steps - 1) {
      std::printf("%4d  %11.6f  %11.6f  %10.6f\n", step, base,
                  ways[1].result.losses[step], ways[2].result.losses[step]);
    }
  }
  // What each task holds, read from the variables on it: 1/N of the
  // parameters (rounded up per variable).
  const std::vector<int64_t>& held = ways[2].result.held_bytes;
  bool ok = worst <= opt.tolerance;
  for (size_t t = 0; t < held.size(); ++t) {
    std::printf("sharded: task %zu holds %lld bytes of parameters (%.2f of "
                "one copy)\n",
                t, static_cast<long long>(held[t]),
                static_cast<double>(held[t]) /
                    (**sharded).ParameterBytesUnsharded());
    ok = ok && held[t] == (**sharded).ParameterBytesPerReplica();
  }
  for (const Way& way : ways) {
    std::printf("%s: accuracy %.3f, %.1f steps/s\n", way.name,
                way.result.accuracy, opt.steps / way.result.seconds);
    ok = ok && way.result.accuracy >= opt.min_accuracy;
  }
  std::printf("largest loss difference from one replica, relative: %.2g "
              "(tolerance %.2g)\n",
              worst, opt.tolerance);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--cluster") {
      opt.cluster_file = value();
    } else if (flag == "--steps") {
      opt.steps = std::atoi(value().c_str());
    } else if (flag == "--batch") {
      opt.batch = std::atoi(value().c_str());
    } else if (flag == "--tolerance") {
      opt.tolerance = std::strtof(value().c_str(), nullptr);
    } else if (flag == "--min-accuracy") {
      opt.min_accuracy = std::strtof(value().c_str(), nullptr);
    } else {
      std::fprintf(stderr,
                   "usage: example_strategy_train --cluster cluster.json "
                   "[--steps N] [--batch N] [--tolerance F] "
                   "[--min-accuracy F]\n");
      return 2;
    }
  }
  if (opt.cluster_file.empty() || opt.steps < 1 || opt.batch < 1 ||
      opt.batch > 65536) {
    std::fprintf(stderr, "example_strategy_train: --cluster is required; "
                         "steps and batch (<= 65536) must be positive\n");
    return 2;
  }
  return Run(opt);
}

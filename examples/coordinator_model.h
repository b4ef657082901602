// The model of examples/coordinator_train.cc, shared with its integration
// test (tests/integration/coordinator_cluster_test.cc): a classifier (an MLP
// over 16 features and an 8-wide embedding of a token id) on a synthetic,
// deterministic dataset, in the form a ClusterCoordinator runs:
//
// - variables on the `ps` tasks (round robin), updated by GradientDescent;
// - one copy of the step per worker ("worker<i>/..." on /job:worker/task:<i>):
//   it gathers its batch from the worker's own shard of the data, held in
//   variables on that worker ("worker<i>/data_x", ...; loaded by
//   "worker<i>/load"
//   from the feeds "worker<i>/shard_x", ...), so no input crosses the network
//   per step. The shard is a per-worker value: a restarted worker has lost
//   it, and the coordinator loads it again before the worker takes
//   closures;
// - an evaluation copy ("eval/...") on ps task 0.
#ifndef DFX_EXAMPLES_COORDINATOR_MODEL_H_
#define DFX_EXAMPLES_COORDINATOR_MODEL_H_

#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "coordinator/cluster_coordinator.h"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "runtime/session.h"

namespace dfx::examples {

inline constexpr int kFeatures = 16, kVocab = 50, kEmbed = 8, kHidden = 32,
                     kClasses = 4;

// Examples whose class follows a fixed rule of the features and the token.
struct Data {
  Tensor x, ids, y;
  int rows = 0;
};

inline Data MakeData(int rows, uint32_t seed) {
  std::mt19937 rule_gen(99);
  std::normal_distribution<float> normal;
  std::vector<float> rule(kFeatures * kClasses), token(kVocab * kClasses);
  for (float& v : rule) v = normal(rule_gen);
  for (float& v : token) v = 2 * normal(rule_gen);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> id(0, kVocab - 1);
  Data d;
  d.rows = rows;
  d.x = Tensor(DT_FLOAT, TensorShape({rows, kFeatures}));
  d.ids = Tensor(DT_INT32, TensorShape({rows}));
  d.y = Tensor(DT_INT32, TensorShape({rows}));
  for (int r = 0; r < rows; ++r) {
    float* x = d.x.data<float>() + r * kFeatures;
    for (int f = 0; f < kFeatures; ++f) x[f] = normal(gen);
    const int t = id(gen);
    d.ids.data<int32_t>()[r] = t;
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
    d.y.data<int32_t>()[r] = best;
  }
  return d;
}

struct CoordinatorModel {
  GraphDef def;
  std::string init;  // the ps variables' initializers
  int num_workers = 0;
};

inline std::string WorkerPrefix(int worker) {
  return absl::StrCat("worker", worker);
}

inline absl::StatusOr<CoordinatorModel> BuildCoordinatorModel(
    int num_workers, int num_ps, float learning_rate) {
  Scope root = Scope::NewRootScope();
  train::ReplicaDeviceSetter setter(num_ps);
  std::vector<train::Variable> vars;
  auto variable = [&](const std::string& name, std::vector<int64_t> shape,
                      bool zeros, int64_t seed) {
    const Scope s = root.WithDevice(setter.NextDevice(DT_FLOAT, shape));
    Output init = zeros ? train::Zeros(s, shape)
                        : train::GlorotUniform(s, shape, seed);
    vars.push_back(
        train::NewVariable(s.WithOpName(name), init, DT_FLOAT, shape));
    return vars.back();
  };
  const train::Variable embedding =
      variable("embedding", {kVocab, kEmbed}, false, 1);
  const train::Variable w1 = variable("w1", {kFeatures, kHidden}, false, 2);
  const train::Variable w1e =
      variable("w1_embedding", {kEmbed, kHidden}, false, 3);
  const train::Variable b1 = variable("b1", {kHidden}, true, 0);
  const train::Variable w2 = variable("w2", {kHidden, kClasses}, false, 4);
  const train::Variable b2 = variable("b2", {kClasses}, true, 0);

  auto logits_of = [&](const Scope& s, const Output& x, const Output& ids) {
    Output emb = ops::GatherV2(s, embedding.value, ids, ops::Const(s, 0));
    Output h = ops::Relu(
        s, ops::BiasAdd(s,
                        ops::Add(s, ops::MatMul(s, x, w1.value),
                                 ops::MatMul(s, emb, w1e.value)),
                        b1.value));
    return ops::BiasAdd(s.WithOpName("logits"), ops::MatMul(s, h, w2.value),
                        b2.value);
  };

  for (int w = 0; w < num_workers; ++w) {
    const Scope s = root.NewSubScope(WorkerPrefix(w))
                        .WithDevice(absl::StrCat("/job:worker/task:", w));
    // The worker's shard: fed once by "load", then gathered by index.
    Output shard_x = ops::Placeholder(s.WithOpName("shard_x"), DT_FLOAT);
    Output shard_ids = ops::Placeholder(s.WithOpName("shard_ids"), DT_INT32);
    Output shard_y = ops::Placeholder(s.WithOpName("shard_y"), DT_INT32);
    const train::Variable data_x = train::NewVariable(
        s.WithOpName("data_x"), shard_x, DT_FLOAT, {-1, kFeatures});
    const train::Variable data_ids = train::NewVariable(
        s.WithOpName("data_ids"), shard_ids, DT_INT32, {-1});
    const train::Variable data_y = train::NewVariable(
        s.WithOpName("data_y"), shard_y, DT_INT32, {-1});
    train::InitializeAll(s.WithOpName("load"), {data_x, data_ids, data_y});

    Output rows = ops::Placeholder(s.WithOpName("rows"), DT_INT32);
    Output zero = ops::Const(s, 0);
    Output x = ops::GatherV2(s, data_x.value, rows, zero);
    Output ids = ops::GatherV2(s, data_ids.value, rows, zero);
    Output y = ops::GatherV2(s, data_y.value, rows, zero);
    Output logits = logits_of(s, x, ids);
    Output loss = ops::Mean(
        s.WithOpName("loss"),
        ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
        ops::Const(s, 0));
    train::GradientDescent optimizer(learning_rate);
    absl::StatusOr<Operation> step =
        optimizer.Minimize(s.NewSubScope("train"), loss, vars);
    if (!step.ok()) return step.status();
    // A stable name for the step's target.
    ops::NoOp(s.WithOpName("step").WithControlDependencies({*step}));
  }
  const Scope e = root.NewSubScope("eval").WithDevice("/job:ps/task:0");
  logits_of(e, ops::Placeholder(e.WithOpName("x"), DT_FLOAT),
            ops::Placeholder(e.WithOpName("ids"), DT_INT32));

  CoordinatorModel model;
  model.num_workers = num_workers;
  model.init = train::InitializeAll(root.WithOpName("init"), vars).node_name();
  absl::Status status = root.ToGraphDef(&model.def);
  if (!status.ok()) return status;
  return model;
}

// Loads worker `worker`'s shard (rows of seed 10 + worker) into its
// variables: a per-worker value's fn. The value: the shard's row count.
inline coordinator::Closure LoadShard(int shard_rows) {
  return [shard_rows](coordinator::ClosureContext& ctx)
             -> absl::StatusOr<std::vector<Tensor>> {
    const int w = ctx.worker_index();
    const Data d = MakeData(shard_rows, 10 + w);
    const std::string p = WorkerPrefix(w);
    absl::StatusOr<std::vector<Tensor>> r =
        ctx.Run({{p + "/shard_x", d.x}, {p + "/shard_ids", d.ids},
                 {p + "/shard_y", d.y}},
                {}, {p + "/load"});
    if (!r.ok()) return r.status();
    Tensor rows(DT_INT32, TensorShape({}));
    rows.scalar<int32_t>() = d.rows;
    return std::vector<Tensor>{rows};
  };
}

// One training step on the closure's worker, on batch number `k` of its
// shard: returns the loss.
inline coordinator::Closure TrainStep(int shard_value, int k, int batch) {
  return [shard_value, k, batch](coordinator::ClosureContext& ctx)
             -> absl::StatusOr<std::vector<Tensor>> {
    absl::StatusOr<std::vector<Tensor>> shard =
        ctx.PerWorkerValue(shard_value);
    if (!shard.ok()) return shard.status();
    const int rows = (*shard)[0].scalar<int32_t>();
    const int start = (k * batch) % (rows - batch + 1);
    Tensor index(DT_INT32, TensorShape({batch}));
    for (int i = 0; i < batch; ++i) index.data<int32_t>()[i] = start + i;
    const std::string p = WorkerPrefix(ctx.worker_index());
    return ctx.Run({{p + "/rows", index}}, {p + "/loss"}, {p + "/step"});
  };
}

// Accuracy of the model on `d` (the eval copy, on ps task 0); -1 on error.
inline float Accuracy(Session* session, const Data& d) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"eval/x", d.x}, {"eval/ids", d.ids}},
                                {"eval/logits"}, {}, &out);
  if (!s.ok()) return -1;
  int right = 0;
  for (int r = 0; r < d.rows; ++r) {
    const float* row = out[0].data<float>() + r * kClasses;
    int best = 0;
    for (int c = 1; c < kClasses; ++c) {
      if (row[c] > row[best]) best = c;
    }
    right += best == d.y.data<int32_t>()[r];
  }
  return static_cast<float>(right) / d.rows;
}

}  // namespace dfx::examples

#endif  // DFX_EXAMPLES_COORDINATOR_MODEL_H_

// The model of examples/coordinator_train.cc, shared with its integration
// test (tests/integration/coordinator_cluster_test.cc): a classifier (an MLP
// over 16 features and an 8-wide embedding of a token id) on a synthetic,
// deterministic dataset, in the form a ClusterCoordinator runs:
//
// - variables on the `ps` tasks (round robin), updated by GradientDescent;
// - one copy of the step per worker ("worker<i>/..." on /job:worker/task:<i>):
//   it takes its batch from a tf.data iterator on that worker
//   ("worker<i>/iterator": from_tensor_slices of the worker's shard,
//   repeat, batch; initialized by "worker<i>/load" from the feeds
//   "worker<i>/shard_x", ...), so no input crosses the network per step.
//   The initialized iterator is a per-worker value: a restarted worker has
//   lost it, and the coordinator initializes it again before the worker
//   takes closures;
// - an evaluation copy ("eval/...") on ps task 0.
#ifndef DFX_EXAMPLES_COORDINATOR_MODEL_H_
#define DFX_EXAMPLES_COORDINATOR_MODEL_H_

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "coordinator/cluster_coordinator.h"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
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

// A node of `op` the builder has no wrapper for (the tf.data ops), named
// `name` under the scope; its output 0 (a variant or resource: the type
// given is what the edge carries in the builder's bookkeeping only).
inline Output RawNode(const Scope& scope, const std::string& op,
                      const std::string& name,
                      const std::vector<Output>& inputs,
                      const std::vector<std::pair<std::string, AttrValue>>&
                          attrs) {
  NodeDef node;
  node.set_name(scope.WithOpName(name).GetUniqueNameForOp(op));
  node.set_op(op);
  for (const Output& in : inputs) node.add_input(in.ToString());
  for (const auto& [key, value] : attrs) (*node.mutable_attr())[key] = value;
  if (!scope.AddNode(node).ok()) return Output();
  return Output(node.name(), 0, DT_VARIANT);
}

inline AttrValue TypeList(const std::vector<DataType>& types) {
  AttrValue v;
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

inline AttrValue ShapeList(const std::vector<std::vector<int64_t>>& shapes) {
  AttrValue v;
  for (const auto& shape : shapes) {
    TensorShapeProto* p = v.mutable_list()->add_shape();
    for (int64_t d : shape) p->add_dim()->set_size(d);
  }
  return v;
}

// `batch`: the rows of one step (the pipeline's batch size).
inline absl::StatusOr<CoordinatorModel> BuildCoordinatorModel(
    int num_workers, int num_ps, float learning_rate, int batch) {
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
    // The worker's input pipeline, as tf.compat.v1's initializable
    // iterator: from_tensor_slices(shard fed at "load").repeat()
    // .batch(batch, drop_remainder=True), iterated on the worker.
    Output shard_x = ops::Placeholder(s.WithOpName("shard_x"), DT_FLOAT);
    Output shard_ids = ops::Placeholder(s.WithOpName("shard_ids"), DT_INT32);
    Output shard_y = ops::Placeholder(s.WithOpName("shard_y"), DT_INT32);
    const std::vector<DataType> types = {DT_FLOAT, DT_INT32, DT_INT32};
    const std::vector<std::vector<int64_t>> rows = {{kFeatures}, {}, {}};
    const std::vector<std::vector<int64_t>> batches = {
        {batch, kFeatures}, {batch}, {batch}};
    Output slices = RawNode(s, "TensorSliceDataset", "slices",
                            {shard_x, shard_ids, shard_y},
                            {{"Toutput_types", TypeList(types)},
                             {"output_shapes", ShapeList(rows)}});
    Output repeated = RawNode(
        s, "RepeatDataset", "repeat",
        {slices, ops::Const(s, static_cast<int64_t>(-1))},
        {{"output_types", TypeList(types)}, {"output_shapes", ShapeList(rows)}});
    Output batched = RawNode(
        s, "BatchDatasetV2", "batch",
        {repeated, ops::Const(s, static_cast<int64_t>(batch)),
         ops::Const(s, true)},
        {{"output_types", TypeList(types)},
         {"output_shapes", ShapeList(batches)}});
    AttrValue shared_name;
    shared_name.set_s(WorkerPrefix(w) + "/iterator");
    AttrValue container;
    container.set_s("");
    Output iterator = RawNode(s, "IteratorV2", "iterator", {},
                              {{"shared_name", shared_name},
                               {"container", container},
                               {"output_types", TypeList(types)},
                               {"output_shapes", ShapeList(batches)}});
    RawNode(s, "MakeIterator", "load", {batched, iterator}, {});
    Output next = RawNode(s, "IteratorGetNext", "next", {iterator},
                          {{"output_types", TypeList(types)},
                           {"output_shapes", ShapeList(batches)}});
    const Output x(next.node_name(), 0, DT_FLOAT);
    const Output ids(next.node_name(), 1, DT_INT32);
    const Output y(next.node_name(), 2, DT_INT32);
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

// Initializes worker `worker`'s iterator over its shard (rows of seed
// 10 + worker): a per-worker value's fn. The value: the shard's row count.
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

// One training step on the closure's worker, on the next batch of its
// iterator: returns the loss. The per-worker value `shard_value` must be
// there (the iterator initialized on this worker's current process).
inline coordinator::Closure TrainStep(int shard_value) {
  return [shard_value](coordinator::ClosureContext& ctx)
             -> absl::StatusOr<std::vector<Tensor>> {
    absl::StatusOr<std::vector<Tensor>> shard =
        ctx.PerWorkerValue(shard_value);
    if (!shard.ok()) return shard.status();
    const std::string p = WorkerPrefix(ctx.worker_index());
    return ctx.Run({}, {p + "/loss"}, {p + "/step"});
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

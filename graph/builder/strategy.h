// Synchronous data-parallel training in the C++ builder, with TensorFlow's
// collective ops (CollectiveReduceV2, CollectiveGatherV2,
// CollectiveReduceScatterV2), in one graph that holds every replica
// (in-graph replication: one client builds and runs the step for all of
// them; dfx's collectives match their members within one step).
//
//   MirroredStrategy: every replica holds a copy of each variable; each
//   computes the gradients of its own loss, the gradients are averaged over
//   the replicas by all-reduce (grouped into buckets, as PyTorch's DDP
//   does: each bucket is all-reduced as soon as its gradients exist, so the
//   exchange overlaps the rest of the backward pass), and each replica
//   applies the same update to its copy. Sync-on-read variables (metrics)
//   keep one value per replica and are aggregated when read.
//
//   ShardedStrategy (ZeRO-3 / FSDP): each variable is cut into one shard
//   per replica; a replica holds only its shard (and the optimizer's slots
//   for it), gathers the whole value before using it, and gets the mean
//   gradient of its shard by reduce-scatter.
//
// With the loss of each replica the mean over its part of the batch, and
// equal parts, both give the updates of one replica training on the whole
// batch (to float rounding). A strategy object builds into one graph (it
// keeps instance keys and, sharded, the gathered values): make another for
// another graph.
//
//   auto strategy = strategy::MirroredStrategy::Create({.devices = devs});
//   strategy::MirroredVariable w = strategy->CreateVariable(
//       scope.WithOpName("w"), train::GlorotUniform(scope, {4, 2}, 1),
//       DT_FLOAT, {4, 2});
//   std::vector<Output> losses;
//   for (int r = 0; r < strategy->num_replicas(); ++r) {
//     Scope rs = strategy->ReplicaScope(scope, r);
//     Output x = ops::Placeholder(rs.WithOpName("x"), DT_FLOAT);
//     losses.push_back(Loss(rs, x, w.on(r).value));
//   }
//   auto step = strategy->Minimize(scope, losses, {w}, [] {
//     return std::make_unique<train::GradientDescent>(0.1f);
//   });
#ifndef DFX_GRAPH_BUILDER_STRATEGY_H_
#define DFX_GRAPH_BUILDER_STRATEGY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/builder/scope.h"
#include "graph/builder/train.h"

namespace dfx::strategy {

// A fresh optimizer for one replica (each replica keeps its own slots).
using OptimizerFactory = std::function<std::unique_ptr<train::Optimizer>()>;

// What every strategy is made from.
struct ReplicaOptions {
  // One replica per device, each a full name
  // ("/job:worker/replica:0/task:1/device:CPU:0"). The strategy orders them
  // as the collective group does (job, replica, task, device type, id):
  // replica r is the group's rank r, whatever order they are given in.
  std::vector<std::string> devices;
  // The collective group; 0 derives one from the devices (the same devices
  // give the same key). Groups last as long as the servers: a cluster whose
  // member restarted needs a new key.
  int32_t group_key = 0;
  // Instance keys are taken in order from here, one per collective of the
  // step; two strategies in one graph need disjoint ranges.
  int32_t first_instance_key = 1;
};

// The replicas' devices, the collective keys and per-replica scopes.
class Replicas {
 public:
  int num_replicas() const { return static_cast<int>(devices_.size()); }
  // Replica r's device (the collective group's rank r).
  const std::string& device(int r) const { return devices_[r]; }
  const std::vector<std::string>& devices() const { return devices_; }
  int32_t group_key() const { return group_key_; }
  // Nodes built in the result go to replica r's device, under a new
  // sub-scope "replica_<r>" ("replica_<r>_1" the second time, ...).
  Scope ReplicaScope(const Scope& scope, int r) const;

 protected:
  // Validates and orders the devices; InvalidArgument naming a device that
  // is not a full name, or listed twice, or no device at all.
  absl::Status Init(const ReplicaOptions& options);
  int32_t NextInstanceKey() { return next_instance_key_++; }
  // A collective's three int32 key inputs, as Consts in `scope`.
  struct Keys {
    Output group_size, group_key, instance_key;
  };
  Keys MakeKeys(const Scope& scope, int32_t instance_key) const;

 private:
  std::vector<std::string> devices_;
  int32_t group_key_ = 0;
  int32_t next_instance_key_ = 1;
};

// The result of Minimize.
struct TrainStep {
  // Runs every replica's update (a NoOp).
  Operation train;
  // The mean of the replicas' losses, on replica 0's device.
  Output loss;
  // The optimizers' slots (all replicas'): initialize them with the
  // variables.
  std::vector<train::Variable> slots;
  // The variables (by name) whose gradients each collective carries, in
  // the order the collectives were added.
  std::vector<std::vector<std::string>> buckets;
};

// A variable of a MirroredStrategy: one copy per replica, all holding the
// same value. replicas[0] is named as asked ("w"), replica r's copy
// "w_replica_<r>"; save replicas[0] to checkpoint it.
struct MirroredVariable {
  std::string name;
  std::vector<train::Variable> replicas;
  const train::Variable& on(int r) const { return replicas[r]; }
};

// How a sync-on-read variable's copies combine when read.
enum class Aggregation { kSum, kMean };

// A variable each replica updates on its own (a metric, a counter); reads
// aggregate the copies.
struct SyncOnReadVariable {
  std::string name;
  Aggregation aggregation = Aggregation::kSum;
  std::vector<train::Variable> replicas;
  const train::Variable& on(int r) const { return replicas[r]; }
};

class MirroredStrategy : public Replicas {
 public:
  struct Options : ReplicaOptions {
    // Gradients are all-reduced in buckets of about this many bytes
    // (PyTorch DDP's 25 MiB), filled in reverse variable order (the order
    // the backward pass produces them); a gradient larger than the bucket
    // gets one of its own. 0: one all-reduce per gradient.
    int64_t bucket_bytes = int64_t{25} << 20;
  };
  static absl::StatusOr<std::unique_ptr<MirroredStrategy>> Create(
      const Options& options);

  // A variable with one copy per replica, each on its replica's device and
  // assigned `initial_value` (computed once, where it was built: the
  // initializer copies it to every replica). The scope names it
  // (scope.WithOpName("w")); its device is ignored.
  MirroredVariable CreateVariable(const Scope& scope,
                                  const Output& initial_value, DataType dtype,
                                  const std::vector<int64_t>& shape);
  SyncOnReadVariable CreateSyncOnReadVariable(
      const Scope& scope, const Output& initial_value, DataType dtype,
      const std::vector<int64_t>& shape, Aggregation aggregation);
  // The copies of `var` combined (AddN, divided by the number of replicas
  // for kMean), in `scope` (on its device).
  Output Read(const Scope& scope, const SyncOnReadVariable& var) const;

  // Adds, per replica, the gradients of replica_losses[r] (a scalar built
  // from replica r's copies) with respect to its copies of `vars`, their
  // mean over the replicas by bucketed all-reduce, and the update of
  // replica r's copies by an optimizer of its own. InvalidArgument when
  // there is not one loss per replica, or no variable.
  absl::StatusOr<TrainStep> Minimize(const Scope& scope,
                                     absl::Span<const Output> replica_losses,
                                     absl::Span<const MirroredVariable> vars,
                                     const OptimizerFactory& make_optimizer);

  // A checkpoint in TensorFlow's format at `prefix` (a scalar string) of
  // replica 0's copies, under the variables' names: what one unreplicated
  // model saves. Restore assigns each saved value to every copy (after a
  // replica's task restarted, say).
  Operation Save(const Scope& scope, const Output& prefix,
                 absl::Span<const MirroredVariable> vars) const;
  Operation Restore(const Scope& scope, const Output& prefix,
                    absl::Span<const MirroredVariable> vars) const;

 private:
  MirroredStrategy() = default;
  std::vector<train::Variable> Copies(const Scope& scope,
                                      const Output& initial_value,
                                      DataType dtype,
                                      const std::vector<int64_t>& shape);

  int64_t bucket_bytes_ = 0;
};

// A variable of a ShardedStrategy: `shape` cut into one shard per replica.
// The value flattened and padded with zeros to num_replicas * shard_elements
// elements; replica r holds elements [r * shard_elements, (r + 1) *
// shard_elements) as a rank-1 variable "<name>_shard_<r>". `name` is the
// scope's name for it ("w"), taken: no node has it.
struct ShardedVariable {
  std::string name;
  DataType dtype = DT_INVALID;
  std::vector<int64_t> shape;
  int64_t num_elements = 0;
  int64_t shard_elements = 0;
  int32_t gather_key = 0;  // the instance key of its all-gather
  std::vector<train::Variable> shards;
};

class ShardedStrategy : public Replicas {
 public:
  using Options = ReplicaOptions;
  static absl::StatusOr<std::unique_ptr<ShardedStrategy>> Create(
      const Options& options);

  // A variable sharded over the replicas. `initial_value(s)` builds the
  // whole initial value in a scope on one replica's device; each replica
  // keeps its shard of it (so only a seeded or constant initializer gives
  // the value of an unsharded variable). The scope names it.
  ShardedVariable CreateVariable(
      const Scope& scope,
      const std::function<Output(const Scope&)>& initial_value,
      DataType dtype, const std::vector<int64_t>& shape);

  // The whole value of `var` on replica r (CollectiveGatherV2 of the
  // shards, the padding cut off, reshaped): build replica r's model from
  // it. The same Output on every call for one (var, r): one gather per
  // replica and step. Freed after its last use in the step.
  Output Gather(const Scope& scope, const ShardedVariable& var, int r);

  // As MirroredStrategy::Minimize, with the gradient of each gathered value
  // reduce-scattered (its mean over the replicas, cut by shard) and applied
  // to replica r's shard. Every variable must have been gathered on every
  // replica (FailedPrecondition naming it otherwise).
  absl::StatusOr<TrainStep> Minimize(const Scope& scope,
                                     absl::Span<const Output> replica_losses,
                                     absl::Span<const ShardedVariable> vars,
                                     const OptimizerFactory& make_optimizer);

  // A checkpoint of the whole values (the shards joined, the padding cut
  // off) under the variables' names, as one unsharded model writes it: a
  // plain model, a MirroredStrategy or TensorFlow can restore it, and
  // Restore reads one of theirs, each replica keeping its shard. Save
  // brings every shard to `scope`'s device.
  Operation Save(const Scope& scope, const Output& prefix,
                 absl::Span<const ShardedVariable> vars) const;
  Operation Restore(const Scope& scope, const Output& prefix,
                    absl::Span<const ShardedVariable> vars) const;

  // Bytes of the variables made so far that one replica holds (its
  // shards), and what one unsharded copy of them takes.
  int64_t ParameterBytesPerReplica() const { return shard_bytes_; }
  int64_t ParameterBytesUnsharded() const { return full_bytes_; }

 private:
  ShardedStrategy() = default;
  // (variable name, replica) -> the gathered value.
  std::map<std::pair<std::string, int>, Output> gathered_;
  int64_t shard_bytes_ = 0;
  int64_t full_bytes_ = 0;
};

}  // namespace dfx::strategy

#endif  // DFX_GRAPH_BUILDER_STRATEGY_H_

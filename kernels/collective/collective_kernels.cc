// The collective kernels. Each is asynchronous: it asks the device's
// CollectiveResolver (runtime/collective.h) for its group and for the
// instance of this step, then moves the data over the step's rendezvous
// (runtime/collective_ring.h); no thread waits at any point.
#include "kernels/collective/collective_kernels.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "runtime/cancellation.h"
#include "runtime/collective.h"
#include "runtime/collective_ring.h"
#include "runtime/device.h"
#include "runtime/rendezvous.h"
#include "runtime/resource_mgr.h"
#include "runtime/timer.h"

namespace dfx {
namespace {

absl::StatusOr<int32_t> ScalarInt32(const Tensor& t, const char* name) {
  if (t.dtype() != DT_INT32 || t.NumElements() != 1 || t.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be an int32 scalar, got ",
                     DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  return t.data<int32_t>()[0];
}

// `group` with the members' incarnations of this execution of the instance
// (the leader's answer): a member's cached group still has the incarnation
// of a member that restarted since it was cached (a server process, or the
// devices of a new local session), and the data keys need the current one.
std::shared_ptr<const CollectiveGroup> WithIncarnations(
    std::shared_ptr<const CollectiveGroup> group,
    const CompleteInstanceResponse& resolved) {
  const auto& current = resolved.member_incarnation();
  if (current.size() != static_cast<int>(group->members.size())) return group;
  bool same = true;
  for (int i = 0; i < current.size(); ++i) {
    same = same && group->members[i].incarnation() == current[i];
  }
  if (same) return group;
  auto updated = std::make_shared<CollectiveGroup>(*group);
  for (int i = 0; i < current.size(); ++i) {
    updated->members[i].set_incarnation(current[i]);
  }
  return updated;
}

// The process-wide timer of the collectives' timeout_seconds (its thread
// starts with the first timeout).
Timer& CollectiveTimeouts() {
  static Timer* timer = new Timer();
  return *timer;
}

// One execution's own deadline (timeout_seconds > 0): a cancellation
// manager for this collective alone, cancelled when the step's is or when
// the timeout passes (on the timer's thread). Shared by the callbacks that
// may still run; Disarm when the kernel is done.
struct CollectiveDeadline {
  CancellationManager cm;
  std::atomic<bool> expired{false};
  CancellationManager* step = nullptr;
  CancellationToken token = -1;
  Timer::Id timer = 0;

  // DeadlineExceeded, as TensorFlow words it, for an error after the
  // timeout passed; `s` otherwise.
  absl::Status Map(absl::Status s, bool running) const {
    if (s.ok() || !expired.load()) return s;
    return absl::DeadlineExceededError(
        running ? "Collective has timed out during execution."
                : "Collective has timed out waiting for other workers.");
  }
  void Disarm() {
    if (timer != 0) CollectiveTimeouts().Cancel(timer);
    if (step != nullptr && token >= 0) step->TryDeregisterCallback(token);
  }
};

// What every collective kernel does before moving data: read group_size,
// group_key and instance_key (inputs `first_key_input`..+2), complete the
// group and the instance, then call Run.
class CollectiveOpBase : public AsyncOpKernel {
 public:
  // The keys come from inputs first_key_input..+2 (the V2 ops) or, when
  // first_key_input is kKeysFromAttrs, from the attrs group_size, group_key
  // and instance_key (the v1 ops, which TensorFlow 1 graphs hold).
  static constexpr int kKeysFromAttrs = -1;

  // read_attrs false: the keys come from elsewhere (ReadKeys overridden).
  CollectiveOpBase(OpKernelConstruction* ctx, CollectiveType type,
                   int first_key_input, bool read_attrs = true)
      : AsyncOpKernel(ctx), type_(type), first_key_input_(first_key_input) {
    // Every collective op has timeout_seconds (0: none).
    if (!ctx->GetAttr("timeout_seconds", &timeout_seconds_).ok()) {
      timeout_seconds_ = 0;
    }
    if (first_key_input_ != kKeysFromAttrs || !read_attrs) return;
    absl::Status s = ctx->GetAttr("group_size", &attr_group_size_);
    if (s.ok()) s = ctx->GetAttr("group_key", &attr_group_key_);
    if (s.ok()) s = ctx->GetAttr("instance_key", &attr_instance_key_);
    if (s.ok() && attr_group_size_ <= 0) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "group_size must be positive integer but got ", attr_group_size_));
    }
    if (!s.ok()) ctx->SetStatus(s);
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) final {
    DFX_OP_REQUIRES_ASYNC(
        ctx, ctx->rendezvous() != nullptr,
        absl::FailedPreconditionError(
            "a collective runs only in a step with a rendezvous"),
        done);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, Check(*ctx), done);
    absl::StatusOr<Keys> keys = ReadKeys(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, keys.status(), done);
    const int32_t group_size = keys->group_size;
    const int32_t group_key = keys->group_key;
    const int32_t instance_key = keys->instance_key;
    DFX_OP_REQUIRES_ASYNC(ctx, group_size >= 1,
                          absl::InvalidArgumentError(absl::StrCat(
                              "group_size must be positive, got ", group_size)),
                          done);

    // timeout_seconds > 0: the collective ends with DeadlineExceeded when
    // its group, its instance or its data have not all come in time (a
    // member that never runs its op), as in TensorFlow.
    CancellationManager* cm = ctx->cancellation_manager();
    std::shared_ptr<CollectiveDeadline> deadline;
    if (timeout_seconds_ > 0) {
      deadline = std::make_shared<CollectiveDeadline>();
      if (cm != nullptr) {
        deadline->step = cm;
        deadline->token = cm->get_cancellation_token();
        DFX_OP_REQUIRES_ASYNC(
            ctx,
            cm->RegisterCallback(deadline->token,
                                 [deadline] { deadline->cm.StartCancel(); }),
            absl::CancelledError("the step was cancelled"), done);
      }
      deadline->timer = CollectiveTimeouts().Schedule(
          absl::Seconds(timeout_seconds_), [deadline] {
            deadline->expired = true;
            deadline->cm.StartCancel();
          });
      cm = &deadline->cm;
      done = [deadline, done = std::move(done)] {
        deadline->Disarm();
        done();
      };
    }
    auto fail = [ctx, deadline](absl::Status s, bool running) {
      ctx->SetStatus(deadline ? deadline->Map(std::move(s), running) : s);
    };

    CollectiveResolver* resolver = CollectiveResolverFor(ctx->device());
    CompleteGroupRequest group_request;
    group_request.set_group_key(group_key);
    group_request.set_group_size(group_size);
    group_request.set_device_type(ctx->device()->device_type());
    group_request.set_collective_type(type_);
    *group_request.mutable_device_attributes() = ctx->device()->attributes();

    CompleteInstanceRequest instance;
    instance.set_name(name());
    instance.set_type(type_);
    instance.set_data_type(DataType(DataTypeOf(*ctx)));
    ShapeOf(*ctx).AsProto(instance.mutable_shape());
    instance.set_group_key(group_key);
    instance.set_group_size(group_size);
    instance.set_instance_key(instance_key);
    instance.set_device_type(ctx->device()->device_type());
    instance.set_device(ctx->device()->name());
    instance.set_is_source(type_ == kBroadcastCollective && IsSource());
    instance.set_step_id(ctx->step_id());

    resolver->CompleteGroupAsync(
        group_request, cm,
        [this, ctx, resolver, cm, fail, instance = std::move(instance),
         done = std::move(done)](
            absl::StatusOr<std::shared_ptr<const CollectiveGroup>> group) {
          if (!group.ok()) {
            fail(group.status(), false);
            done();
            return;
          }
          resolver->CompleteInstanceAsync(
              instance, cm,
              [this, ctx, cm, fail, group = *std::move(group),
               instance_key = instance.instance_key(),
               done](absl::StatusOr<CompleteInstanceResponse> resolved) {
                if (!resolved.ok()) {
                  fail(resolved.status(), false);
                  done();
                  return;
                }
                std::shared_ptr<const CollectiveGroup> current =
                    WithIncarnations(group, *resolved);
                CollectiveRun run;
                run.rendezvous = ctx->rendezvous();
                run.cancellation = cm;
                run.group = current.get();
                run.rank = group->RankOf(ctx->device()->name());
                run.instance_key = instance_key;
                // Reductions run on the device's intra-op pool.
                run.pool = ctx->device()->intra_op_pool();
                Run(ctx, run, resolved->source_rank(),
                    [ctx, current, fail, done](absl::StatusOr<Tensor> out) {
                      if (out.ok()) {
                        ctx->set_output(0, *std::move(out));
                      } else {
                        fail(out.status(), true);
                      }
                      done();
                    });
              });
        });
  }

 protected:
  // The dtype and shape this member brings (checked against the others').
  virtual DataType DataTypeOf(const OpKernelContext& ctx) const {
    return ctx.input(0).dtype();
  }
  virtual TensorShape ShapeOf(const OpKernelContext& ctx) const {
    return ctx.input(0).shape();
  }
  virtual bool IsSource() const { return false; }
  struct Keys {
    int32_t group_size = 0;
    int32_t group_key = 0;
    int32_t instance_key = 0;
  };
  // This execution's keys: from the inputs or attrs (see kKeysFromAttrs).
  virtual absl::StatusOr<Keys> ReadKeys(OpKernelContext* ctx) {
    if (first_key_input_ == kKeysFromAttrs) {
      return Keys{attr_group_size_, attr_group_key_, attr_instance_key_};
    }
    Keys keys;
    DFX_ASSIGN_OR_RETURN(
        keys.group_size,
        ScalarInt32(ctx->input(first_key_input_), "group_size"));
    DFX_ASSIGN_OR_RETURN(
        keys.group_key,
        ScalarInt32(ctx->input(first_key_input_ + 1), "group_key"));
    DFX_ASSIGN_OR_RETURN(
        keys.instance_key,
        ScalarInt32(ctx->input(first_key_input_ + 2), "instance_key"));
    return keys;
  }
  // Checks this member's inputs before it joins the group (an error ends
  // only this member's kernel).
  virtual absl::Status Check(const OpKernelContext&) const {
    return absl::OkStatus();
  }
  // Moves the data; `run.group` lives until `done`.
  virtual void Run(OpKernelContext* ctx, const CollectiveRun& run,
                   int source_rank, CollectiveDone done) = 0;

 private:
  const CollectiveType type_;
  const int first_key_input_;
  float timeout_seconds_ = 0;
  int32_t attr_group_size_ = 0;
  int32_t attr_group_key_ = 0;
  int32_t attr_instance_key_ = 0;
};

// merge_op and final_op of the reducing ops.
absl::Status ReadReduction(OpKernelConstruction* ctx, ReduceOp* op,
                           bool* divide) {
  std::string merge, final_op;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("merge_op", &merge));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("final_op", &final_op));
  if (merge == "Add") {
    *op = ReduceOp::kAdd;
  } else if (merge == "Mul") {
    *op = ReduceOp::kMul;
  } else if (merge == "Min") {
    *op = ReduceOp::kMin;
  } else if (merge == "Max") {
    *op = ReduceOp::kMax;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "merge_op must be Add, Mul, Min or Max, got '", merge, "'"));
  }
  if (final_op != "Id" && final_op != "Div") {
    return absl::InvalidArgumentError(
        absl::StrCat("final_op must be Id or Div, got '", final_op, "'"));
  }
  *divide = final_op == "Div";
  return absl::OkStatus();
}

class CollectiveReduceV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveReduceV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kReductionCollective, 1) {
    if (absl::Status s = ReadReduction(ctx, &op_, &divide_); !s.ok()) {
      ctx->SetStatus(s);
    }
  }

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingAllReduce(run, ctx->input(0), op_, divide_, std::move(done));
  }

  ReduceOp op_ = ReduceOp::kAdd;
  bool divide_ = false;
};

// TensorFlow's CollectiveReduceScatterV2: the reduction's rows
// [rank * k, (rank + 1) * k) of dim 0, k = dim 0 / group_size.
class CollectiveReduceScatterV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveReduceScatterV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kReduceScatterCollective, 1) {
    if (absl::Status s = ReadReduction(ctx, &op_, &divide_); !s.ok()) {
      ctx->SetStatus(s);
    }
  }

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingReduceScatter(run, ctx->input(0), op_, divide_, std::move(done));
  }

  ReduceOp op_ = ReduceOp::kAdd;
  bool divide_ = false;
};

// TensorFlow's all-to-all: row j of the input (dim 0 must equal the group
// size, as TensorFlow's AllToAll requires) to member j. dfx's AllToAll
// would take blocks of several rows; the ops keep TensorFlow's contract.
void AllToAllOneRowEach(const CollectiveRun& run, const Tensor& in,
                        CollectiveDone done) {
  const int64_t n = static_cast<int64_t>(run.group->members.size());
  if (in.dims() == 0 || in.shape().dim_size(0) != n) {
    done(absl::InvalidArgumentError(
        absl::StrCat("input to all-to-all first dimension size (",
                     in.dims() == 0 ? int64_t{0} : in.shape().dim_size(0),
                     ") must be the same as the group size (", n, ")")));
    return;
  }
  AllToAll(run, in, std::move(done));
}

class CollectiveAllToAllV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveAllToAllV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kAllToAllCollective, 1) {}

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    AllToAllOneRowEach(run, ctx->input(0), std::move(done));
  }
};

class CollectiveGatherV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveGatherV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kGatherCollective, 1) {}

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingAllGather(run, ctx->input(0), std::move(done));
  }
};

class CollectiveBcastSendV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveBcastSendV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kBroadcastCollective, 1) {}

 private:
  bool IsSource() const override { return true; }
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int source_rank,
           CollectiveDone done) override {
    const Tensor& in = ctx->input(0);
    Broadcast(run, source_rank, in, in.dtype(), in.shape(), std::move(done));
  }
};

class CollectiveBcastRecvV2Op : public CollectiveOpBase {
 public:
  explicit CollectiveBcastRecvV2Op(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kBroadcastCollective, 0) {}

  // The shape input, checked in Run (ShapeOf cannot fail).
  static absl::StatusOr<TensorShape> ShapeInput(const Tensor& t) {
    if (t.dims() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape must be an int32 or int64 vector, got ",
          DataTypeString(t.dtype()), " ", t.shape().DebugString()));
    }
    TensorShape shape;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const int64_t d =
          t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape has a negative dimension: ", d));
      }
      DFX_RETURN_IF_ERROR(shape.AddDim(d));
    }
    return shape;
  }

 private:
  DataType DataTypeOf(const OpKernelContext&) const override {
    return output_type(0);
  }
  TensorShape ShapeOf(const OpKernelContext& ctx) const override {
    absl::StatusOr<TensorShape> shape = ShapeInput(ctx.input(3));
    return shape.ok() ? *shape : TensorShape();
  }
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int source_rank,
           CollectiveDone done) override {
    absl::StatusOr<TensorShape> shape = ShapeInput(ctx->input(3));
    if (!shape.ok()) {
      run.rendezvous->StartAbort(shape.status());
      done(shape.status());
      return;
    }
    Broadcast(run, source_rank, Tensor(), output_type(0), *shape,
              std::move(done));
  }
};

// The v1 ops (TensorFlow 1's CollectiveAllReduceStrategy and
// cross_device_ops in graph mode): the V2 kernels with their keys from
// attrs. subdiv_offsets and wait_for only steer TensorFlow's own ring
// subdivisions and NCCL ordering; dfx's ring cuts pieces itself and
// ignores them, as it ignores communication_hint. timeout_seconds is
// CollectiveOpBase's, as for the V2 ops.
class CollectiveReduceOp : public CollectiveOpBase {
 public:
  explicit CollectiveReduceOp(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kReductionCollective, kKeysFromAttrs) {
    std::vector<int32_t> unused;
    absl::Status s = ReadReduction(ctx, &op_, &divide_);
    if (s.ok()) s = ctx->GetAttr("subdiv_offsets", &unused);
    if (s.ok()) s = ctx->GetAttr("wait_for", &unused);
    if (!s.ok()) ctx->SetStatus(s);
  }

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingAllReduce(run, ctx->input(0), op_, divide_, std::move(done));
  }

  ReduceOp op_ = ReduceOp::kAdd;
  bool divide_ = false;
};

// CollectiveGather: the members' inputs (rank >= 1, equal shapes)
// concatenated along dim 0 in rank order. The `shape` attr is not read,
// as in TensorFlow's kernel.
class CollectiveGatherOp : public CollectiveOpBase {
 public:
  explicit CollectiveGatherOp(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kGatherCollective, kKeysFromAttrs) {}

 private:
  absl::Status Check(const OpKernelContext& ctx) const override {
    if (ctx.input(0).dims() == 0) {
      return absl::InvalidArgumentError(
          "the input of CollectiveGather must have rank >= 1, got a scalar");
    }
    return absl::OkStatus();
  }
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingAllGather(run, ctx->input(0), std::move(done));
  }
};

// The `shape` attr of the v1 broadcasts, which must be fully defined.
absl::Status ReadShapeAttr(OpKernelConstruction* ctx, TensorShape* shape) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("shape", &proto));
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError(
        "the shape attr of a broadcast must be fully defined, got an unknown "
        "rank");
  }
  for (const auto& dim : proto.dim()) {
    if (dim.size() < 0) {
      return absl::InvalidArgumentError(
          "the shape attr of a broadcast must be fully defined, got an "
          "unknown dimension");
    }
    DFX_RETURN_IF_ERROR(shape->AddDim(dim.size()));
  }
  return absl::OkStatus();
}

class CollectiveBcastSendOp : public CollectiveOpBase {
 public:
  explicit CollectiveBcastSendOp(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kBroadcastCollective, kKeysFromAttrs) {
    if (absl::Status s = ReadShapeAttr(ctx, &shape_); !s.ok()) {
      ctx->SetStatus(s);
    }
  }

 private:
  bool IsSource() const override { return true; }
  // TensorFlow's kernel: Internal when the input is not the declared shape.
  absl::Status Check(const OpKernelContext& ctx) const override {
    if (ctx.input(0).shape() != shape_) {
      return absl::InternalError(
          absl::StrCat("Declared shape of op ", name(), ": Broadcast(1) ",
                       shape_.DebugString(), " does not match shape of input ",
                       ctx.input(0).shape().DebugString()));
    }
    return absl::OkStatus();
  }
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int source_rank,
           CollectiveDone done) override {
    const Tensor& in = ctx->input(0);
    Broadcast(run, source_rank, in, in.dtype(), in.shape(), std::move(done));
  }

  TensorShape shape_;
};

class CollectiveBcastRecvOp : public CollectiveOpBase {
 public:
  explicit CollectiveBcastRecvOp(OpKernelConstruction* ctx)
      : CollectiveOpBase(ctx, kBroadcastCollective, kKeysFromAttrs) {
    if (absl::Status s = ReadShapeAttr(ctx, &shape_); !s.ok()) {
      ctx->SetStatus(s);
    }
  }

 private:
  DataType DataTypeOf(const OpKernelContext&) const override {
    return output_type(0);
  }
  TensorShape ShapeOf(const OpKernelContext&) const override { return shape_; }
  void Run(OpKernelContext*, const CollectiveRun& run, int source_rank,
           CollectiveDone done) override {
    Broadcast(run, source_rank, Tensor(), output_type(0), shape_,
              std::move(done));
  }

  TensorShape shape_;
};

// CollectiveAssignGroupV2: the group (row of group_assignment) that holds
// device_index; group_size is the row length and group_key base_key + the
// row's index, wrapping as TensorFlow's unsigned sum does. Rows are
// searched in order and every entry up to the match must be within [0,
// number of entries).
class CollectiveAssignGroupV2Op : public OpKernel {
 public:
  explicit CollectiveAssignGroupV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& assignment = ctx->input(0);
    const Tensor& device_index = ctx->input(1);
    const Tensor& base_key = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, device_index.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "device_index must be a scalar, but received tensor of shape: ",
            device_index.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, assignment.dims() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "group_assignment must be a 2-d Tensor, but received tensor of "
            "shape: ",
            assignment.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, base_key.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "base_key must be a scalar, but received tensor of shape: ",
            base_key.shape().DebugString())));
    const int64_t rows = assignment.shape().dim_size(0);
    const int64_t cols = assignment.shape().dim_size(1);
    const int64_t count = assignment.NumElements();
    const int32_t* a = assignment.data<int32_t>();
    const int32_t device = device_index.data<int32_t>()[0];
    const uint32_t base = static_cast<uint32_t>(base_key.data<int32_t>()[0]);
    for (int64_t row = 0; row < rows; ++row) {
      const int32_t key =
          static_cast<int32_t>(base + static_cast<uint32_t>(row));
      DFX_OP_REQUIRES(
          ctx, key != 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Using the reserved group_key = 0 is not allowed: group_id = ",
              row, ", base_key = ", static_cast<int32_t>(base))));
      for (int64_t col = 0; col < cols; ++col) {
        const int32_t index = a[row * cols + col];
        DFX_OP_REQUIRES(
            ctx, index >= 0 && index < count,
            absl::InvalidArgumentError(absl::StrCat(
                "Not all items in group_assignment ", assignment.DebugString(),
                " is within [0, number of devices)")));
        if (index == device) {
          ctx->set_output(0,
                          Tensor::Scalar<int32_t>(static_cast<int32_t>(cols)));
          ctx->set_output(1, Tensor::Scalar<int32_t>(key));
          return;
        }
      }
    }
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "device_index ", device, " is not found in group_assignment ",
        assignment.DebugString())));
  }
};

// The communicator CollectiveInitializeCommunicator makes (TensorFlow's
// CollectiveGroupResource): a group key, this member's rank and the group
// size, and the instance keys its V3 collectives take one after another.
class CollectiveCommunicator : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "CollectiveGroupResource";
  CollectiveCommunicator(int32_t group_key, int32_t rank, int32_t group_size)
      : group_key_(group_key), rank_(rank), group_size_(group_size) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("Collective Group with group_key = ", group_key_,
                        ", group_size = ", group_size_, ", rank = ", rank_);
  }
  int32_t group_key() const { return group_key_; }
  int32_t group_size() const { return group_size_; }
  int32_t NextInstanceKey() { return next_instance_key_.fetch_add(1); }

 private:
  const int32_t group_key_;
  const int32_t rank_;
  const int32_t group_size_;
  std::atomic<int32_t> next_instance_key_{0};
};

// CollectiveInitializeCommunicator: makes the communicator (container
// collective_op_group, name "<group_key>:r<rank, 4 digits>" as in
// TensorFlow; AlreadyExists when this device made it before, so a graph
// runs it once per session) and completes its group. The rank is kept for
// TensorFlow's debug string only: dfx orders a group's members itself
// (by task, then device), as for the V2 ops. Its timeout_seconds and
// communication_hint are not used: the step's deadline ends a group that
// never completes.
class CollectiveInitializeCommunicatorOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& key_t = ctx->input(0);
    const Tensor& rank_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    DFX_OP_REQUIRES_ASYNC(
        ctx, size_t_.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Unexpected dimensions on input group_size. It shoulbe a scalar, "
            "got tensor with shape ",
            size_t_.shape().DebugString())),
        done);
    DFX_OP_REQUIRES_ASYNC(ctx, key_t.dims() == 0,
                          absl::InvalidArgumentError(absl::StrCat(
                              "Unexpected dimensions on input group_key, got ",
                              key_t.shape().DebugString())),
                          done);
    DFX_OP_REQUIRES_ASYNC(ctx, rank_t.NumElements() >= 1,
                          absl::InvalidArgumentError(
                              absl::StrCat("rank must hold a value, got shape ",
                                           rank_t.shape().DebugString())),
                          done);
    const int32_t group_size = size_t_.data<int32_t>()[0];
    const int32_t group_key = key_t.data<int32_t>()[0];
    const int32_t rank = rank_t.data<int32_t>()[0];
    DFX_OP_REQUIRES_ASYNC(
        ctx, group_size > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "group_size must be positive integer but got ", group_size)),
        done);
    ResourceMgr* rm = ctx->resource_manager();
    const std::string name = absl::StrFormat("%d:r%04d", group_key, rank);
    DFX_OP_REQUIRES_OK_ASYNC(
        ctx,
        rm->Create(kContainer, name,
                   std::make_shared<CollectiveCommunicator>(group_key, rank,
                                                            group_size)),
        done);
    // TensorFlow checks the rank when the group completes, after making the
    // communicator; a negative rank is "unspecified" there.
    DFX_OP_REQUIRES_ASYNC(ctx, rank < group_size,
                          absl::InvalidArgumentError(absl::StrCat(
                              "rank must be less than group size but got ",
                              rank, " >= ", group_size)),
                          done);
    Tensor handle(DT_RESOURCE, TensorShape());
    ResourceHandle& h = handle.scalar<ResourceHandle>();
    h.set_device(ctx->device()->name());
    h.set_container(kContainer);
    h.set_name(name);
    h.set_maybe_type_name(CollectiveCommunicator::kTypeName);
    ctx->set_output(0, std::move(handle));

    CompleteGroupRequest request;
    request.set_group_key(group_key);
    request.set_group_size(group_size);
    request.set_device_type(ctx->device()->device_type());
    request.set_collective_type(kReductionCollective);
    *request.mutable_device_attributes() = ctx->device()->attributes();
    CollectiveResolverFor(ctx->device())
        ->CompleteGroupAsync(
            request, ctx->cancellation_manager(),
            [ctx, done = std::move(done)](
                absl::StatusOr<std::shared_ptr<const CollectiveGroup>> group) {
              if (!group.ok()) ctx->SetStatus(group.status());
              done();
            });
  }

  static constexpr const char* kContainer = "collective_op_group";
};

// The V3 ops: group and instance from the communicator (input 1), one new
// instance key per execution; group_assignment (input 2) must be empty, as
// TensorFlow 2.21 supports no other.
class CollectiveV3OpBase : public CollectiveOpBase {
 public:
  CollectiveV3OpBase(OpKernelConstruction* ctx, CollectiveType type)
      : CollectiveOpBase(ctx, type, kKeysFromAttrs, /*read_attrs=*/false) {}

 protected:
  absl::StatusOr<Keys> ReadKeys(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(1);
    if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("communicator must be a scalar resource handle, got ",
                       t.shape().DebugString()));
    }
    const ResourceHandle& h = t.scalar<ResourceHandle>();
    DFX_ASSIGN_OR_RETURN(
        std::shared_ptr<CollectiveCommunicator> communicator,
        ctx->resource_manager()->Lookup<CollectiveCommunicator>(h.container(),
                                                                h.name()));
    if (ctx->input(2).NumElements() != 0) {
      return absl::UnimplementedError(
          "Group assignments are not supported yet.");
    }
    // TensorFlow's <11 bits of group id (0)><21 bits of instance>.
    return Keys{communicator->group_size(), communicator->group_key(),
                communicator->NextInstanceKey()};
  }
};

class CollectiveReduceV3Op : public CollectiveV3OpBase {
 public:
  explicit CollectiveReduceV3Op(OpKernelConstruction* ctx)
      : CollectiveV3OpBase(ctx, kReductionCollective) {
    std::string reduction;
    absl::Status s = ctx->GetAttr("reduction", &reduction);
    if (!s.ok()) {
      ctx->SetStatus(s);
    } else if (reduction == "Add") {
      op_ = ReduceOp::kAdd;
    } else if (reduction == "Mul") {
      op_ = ReduceOp::kMul;
    } else if (reduction == "Min") {
      op_ = ReduceOp::kMin;
    } else if (reduction == "Max") {
      op_ = ReduceOp::kMax;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "reduction must be Add, Mul, Min or Max, got '", reduction, "'")));
    }
  }

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    RingAllReduce(run, ctx->input(0), op_, /*divide=*/false, std::move(done));
  }

  ReduceOp op_ = ReduceOp::kAdd;
};

// CollectiveAllToAllV3: as CollectiveAllToAllV2, on a communicator.
class CollectiveAllToAllV3Op : public CollectiveV3OpBase {
 public:
  explicit CollectiveAllToAllV3Op(OpKernelConstruction* ctx)
      : CollectiveV3OpBase(ctx, kAllToAllCollective) {}

 private:
  void Run(OpKernelContext* ctx, const CollectiveRun& run, int,
           CollectiveDone done) override {
    AllToAllOneRowEach(run, ctx->input(0), std::move(done));
  }
};

}  // namespace

void RegisterCollectiveKernels(KernelRegistry* registry) {
  RegisterKernel<CollectiveReduceV2Op>(
      registry, KernelDefBuilder("CollectiveReduceV2").Device("CPU"));
  RegisterKernel<CollectiveReduceScatterV2Op>(
      registry, KernelDefBuilder("CollectiveReduceScatterV2").Device("CPU"));
  RegisterKernel<CollectiveAllToAllV2Op>(
      registry, KernelDefBuilder("CollectiveAllToAllV2").Device("CPU"));
  RegisterKernel<CollectiveGatherV2Op>(
      registry, KernelDefBuilder("CollectiveGatherV2").Device("CPU"));
  RegisterKernel<CollectiveBcastSendV2Op>(
      registry, KernelDefBuilder("CollectiveBcastSendV2").Device("CPU"));
  RegisterKernel<CollectiveBcastRecvV2Op>(
      registry, KernelDefBuilder("CollectiveBcastRecvV2").Device("CPU"));
  RegisterKernel<CollectiveReduceOp>(
      registry, KernelDefBuilder("CollectiveReduce").Device("CPU"));
  RegisterKernel<CollectiveGatherOp>(
      registry, KernelDefBuilder("CollectiveGather").Device("CPU"));
  RegisterKernel<CollectiveBcastSendOp>(
      registry, KernelDefBuilder("CollectiveBcastSend").Device("CPU"));
  RegisterKernel<CollectiveBcastRecvOp>(
      registry, KernelDefBuilder("CollectiveBcastRecv").Device("CPU"));
  RegisterKernel<CollectiveAssignGroupV2Op>(
      registry, KernelDefBuilder("CollectiveAssignGroupV2").Device("CPU"));
  RegisterKernel<CollectiveInitializeCommunicatorOp>(
      registry,
      KernelDefBuilder("CollectiveInitializeCommunicator").Device("CPU"));
  RegisterKernel<CollectiveReduceV3Op>(
      registry, KernelDefBuilder("CollectiveReduceV3").Device("CPU"));
  RegisterKernel<CollectiveAllToAllV3Op>(
      registry, KernelDefBuilder("CollectiveAllToAllV3").Device("CPU"));
}

}  // namespace dfx

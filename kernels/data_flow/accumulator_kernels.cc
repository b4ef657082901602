// Conditional accumulators (graph/ops/queue_ops.cc), as TensorFlow's
// SyncReplicasOptimizer uses them: workers apply gradients tagged with the
// global step they were computed at; a gradient older than the
// accumulator's global step is dropped silently; a take waits (without a
// thread: the attempt is stored in the accumulator) until num_required
// gradients have arrived, returns their MEAN or SUM, resets the count and
// advances the accumulator's global step by one.
//
// ConditionalAccumulator and SparseConditionalAccumulator hand out a
// reference to a [2] string tensor (container, name) as TensorFlow does;
// ResourceConditionalAccumulator a resource handle. Either finds the
// accumulator in the device's resource manager, so later steps and other
// sessions that name it share it. Kernels exist for half, float and double,
// the types TensorFlow 2.21 registers.
//
// Sparse gradients (indices, values, shape) are summed per index; MEAN
// divides each row by the number of gradients that had its index, as
// TensorFlow does. Taken indices come out sorted.
#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"
#include "runtime/types.h"

namespace dfx::data_flow {
namespace {

std::atomic<int64_t> next_accumulator_id{0};

template <typename Fn>
bool VisitAccumulatorType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_HALF: fn.template operator()<Eigen::half>(); return true;
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    default: return false;
  }
}

// dst[dst_off + i] += src[src_off + i], i < n.
void AddInto(Tensor* dst, int64_t dst_off, const Tensor& src, int64_t src_off,
             int64_t n) {
  VisitAccumulatorType(dst->dtype(), [&]<typename T>() {
    T* d = dst->data<T>() + dst_off;
    const T* s = src.data<T>() + src_off;
    for (int64_t i = 0; i < n; ++i) d[i] = d[i] + s[i];
  });
}

// t[off + i] /= count, i < n.
void DivideBy(Tensor* t, int64_t off, int64_t n, int64_t count) {
  VisitAccumulatorType(t->dtype(), [&]<typename T>() {
    T* d = t->data<T>() + off;
    const T c = static_cast<T>(static_cast<float>(count));
    for (int64_t i = 0; i < n; ++i) d[i] = d[i] / c;
  });
}

class Accumulator : public ResourceBase,
                    public std::enable_shared_from_this<Accumulator> {
 public:
  static constexpr const char* kTypeName = "ConditionalAccumulator";
  using TakeDone = std::function<void(absl::Status, std::vector<Tensor>)>;

  Accumulator(bool sparse, DataType dtype, PartialShape shape,
              std::string name, bool mean, Allocator* allocator)
      : sparse_(sparse),
        dtype_(dtype),
        shape_(std::move(shape)),
        name_(std::move(name)),
        mean_(mean),
        allocator_(allocator) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    absl::MutexLock lock(&mu_);
    return absl::StrCat(sparse_ ? "SparseConditionalAccumulator"
                                : "ConditionalAccumulator",
                        " '", name_, "' of ", DataTypeString(dtype_), " ",
                        shape_.DebugString(), ": ", counter_,
                        " gradients at global step ", global_step_);
  }
  int64_t MemoryUsed() const override {
    absl::MutexLock lock(&mu_);
    int64_t bytes = static_cast<int64_t>(dense_.TotalBytes());
    for (const auto& [i, row] : rows_) bytes += row.TotalBytes();
    return bytes;
  }

  bool sparse() const { return sparse_; }
  DataType dtype() const { return dtype_; }
  const PartialShape& shape() const { return shape_; }
  bool mean() const { return mean_; }
  const std::string& name() const { return name_; }

  absl::Status ApplyDense(int64_t local_step, const Tensor& grad) {
    std::vector<Finished> finished;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      if (local_step >= global_step_) {
        status = AddDenseLocked(grad);
        if (status.ok()) ++counter_;
      }
      FlushLocked(&finished);
    }
    Finish(std::move(finished));
    return status;
  }

  absl::Status ApplySparse(int64_t local_step, const Tensor& indices,
                           const Tensor& values, const Tensor* shape) {
    std::vector<Finished> finished;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      if (local_step >= global_step_) {
        status = AddSparseLocked(indices, values, shape);
        if (status.ok()) ++counter_;
      }
      FlushLocked(&finished);
    }
    Finish(std::move(finished));
    return status;
  }

  void Take(int32_t num_required, CancellationManager* cm, TakeDone done) {
    std::vector<Finished> finished;
    {
      absl::MutexLock lock(&mu_);
      auto t = std::make_unique<Taker>();
      t->id = next_id_++;
      t->num_required = num_required;
      t->cm = cm;
      t->done = std::move(done);
      Taker* raw = t.get();
      const int64_t id = t->id;
      takers_.push_back(std::move(t));
      FlushLocked(&finished);
      const bool waiting = std::none_of(
          finished.begin(), finished.end(),
          [raw](const Finished& f) { return f.taker.get() == raw; });
      if (waiting && cm != nullptr) {
        raw->token = cm->get_cancellation_token();
        std::weak_ptr<Accumulator> weak = weak_from_this();
        const std::string msg = absl::StrCat(
            "TakeGrad operation on accumulator '", name_, "' was cancelled");
        if (!cm->RegisterCallback(raw->token, [weak, id, msg] {
              if (auto a = weak.lock()) a->Abort(id, msg);
            })) {
          raw->token = -1;
          for (auto it = takers_.begin(); it != takers_.end(); ++it) {
            if (it->get() == raw) {
              finished.push_back(
                  {std::move(*it), absl::CancelledError(msg), {}});
              takers_.erase(it);
              break;
            }
          }
        }
      }
    }
    Finish(std::move(finished));
  }

  void SetGlobalStep(int64_t step) {
    // TensorFlow only warns when the step goes back; so does nothing here.
    absl::MutexLock lock(&mu_);
    global_step_ = step;
  }

  int32_t NumAccumulated() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int32_t>(counter_);
  }

 private:
  struct Taker {
    int64_t id = 0;
    int32_t num_required = 0;
    CancellationManager* cm = nullptr;
    CancellationToken token = -1;
    TakeDone done;
  };
  struct Finished {
    std::unique_ptr<Taker> taker;
    absl::Status status;
    std::vector<Tensor> outputs;
  };

  absl::Status Mismatch(const TensorShape& got) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape mismatch: expected ",
        counter_ > 0 ? dense_.shape().DebugString() : shape_.DebugString(),
        ", got ", got.DebugString(), " (accumulator '", name_, "')"));
  }

  absl::Status AddDenseLocked(const Tensor& grad)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!IsCompatible(shape_, grad.shape())) return Mismatch(grad.shape());
    if (counter_ > 0) {
      if (dense_.shape() != grad.shape()) return Mismatch(grad.shape());
      AddInto(&dense_, 0, grad, 0, grad.NumElements());
      return absl::OkStatus();
    }
    DFX_ASSIGN_OR_RETURN(dense_,
                         Tensor::Allocate(allocator_, dtype_, grad.shape()));
    CopyElements(grad, 0, &dense_, 0, grad.NumElements());
    return absl::OkStatus();
  }

  absl::Status AddSparseLocked(const Tensor& indices, const Tensor& values,
                               const Tensor* shape)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string who = absl::StrCat(" (accumulator '", name_, "')");
    if (indices.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gradient_indices must be a vector, got shape ",
          indices.shape().DebugString(), who));
    }
    if (values.dims() < 1 || values.dim_size(0) != indices.dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gradient_values must have one row per index: ",
          indices.dim_size(0), " indices, values of shape ",
          values.shape().DebugString(), who));
    }
    const int known = shape_.RankKnown() ? shape_.rank() : 0;
    if (shape != nullptr) {
      if (known > shape->NumElements()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Shape mismatch: expected shape rank at least ", known, ", got ",
            shape->NumElements(), who));
      }
      for (int i = 0; i < known; ++i) {
        const int64_t got = shape->data<int64_t>()[i];
        if (shape_.dims[i] != -1 && shape_.dims[i] != got) {
          return absl::InvalidArgumentError(
              absl::StrCat("Shape mismatch: expected shape dim ", i, " to be ",
                           shape_.dims[i], ", got ", got, who));
        }
      }
    }
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      if (idx[i] < 0 || (known > 0 && shape_.dims[0] != -1 &&
                         idx[i] >= shape_.dims[0])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Shape mismatch: index of slice ", i, " exceeded limits of shape"
            "; index is ", idx[i], " exceeded ", known > 0 ? shape_.dims[0] : 0,
            who));
      }
    }
    TensorShape row_shape = values.shape();
    row_shape.RemoveDim(0);
    if (counter_ > 0 && !rows_.empty()) {
      if (row_shape_ != row_shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Shape mismatch: expected values of shape [?]+",
            row_shape_.DebugString(), ", got ", values.shape().DebugString(),
            who));
      }
    } else {
      if (known > values.dims()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Shape mismatch: expected values rank at least ",
                         known, ", got ", values.dims(), who));
      }
      for (int i = 1; i < known; ++i) {
        if (shape_.dims[i] != -1 && shape_.dims[i] != values.dim_size(i)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Shape mismatch: expected values dim ", i, " to be ",
              shape_.dims[i], ", got ", values.dim_size(i), who));
        }
      }
      rows_.clear();
      counts_.clear();
      row_shape_ = row_shape;
    }
    const int64_t n = row_shape.num_elements();
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      auto it = rows_.find(idx[i]);
      if (it != rows_.end()) {
        AddInto(&it->second, 0, values, i * n, n);
        ++counts_[idx[i]];
        continue;
      }
      DFX_ASSIGN_OR_RETURN(Tensor row,
                           Tensor::Allocate(allocator_, dtype_, row_shape));
      CopyElements(values, i * n, &row, 0, n);
      rows_.emplace(idx[i], std::move(row));
      counts_[idx[i]] = 1;
    }
    return absl::OkStatus();
  }

  // The result of a take, and the reset.
  absl::StatusOr<std::vector<Tensor>> TakeLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<Tensor> out;
    if (!sparse_) {
      if (mean_) DivideBy(&dense_, 0, dense_.NumElements(), counter_);
      out.push_back(dense_);
      // Let go of the buffer (the output owns it now).
      dense_ = Tensor(dtype_, TensorShape({0}));
    } else {
      const int64_t nnz = static_cast<int64_t>(rows_.size());
      Tensor indices(DT_INT64, TensorShape({nnz}));
      std::vector<int64_t> dims = {nnz};
      for (int64_t d : row_shape_.dim_sizes()) dims.push_back(d);
      DFX_ASSIGN_OR_RETURN(TensorShape values_shape, TensorShape::Build(dims));
      DFX_ASSIGN_OR_RETURN(Tensor values,
                           Tensor::Allocate(allocator_, dtype_, values_shape));
      const int64_t n = row_shape_.num_elements();
      int64_t i = 0;
      for (auto& [index, row] : rows_) {
        indices.data<int64_t>()[i] = index;
        CopyElements(row, 0, &values, i * n, n);
        if (mean_) DivideBy(&values, i * n, n, counts_[index]);
        ++i;
      }
      Tensor shape(DT_INT64, TensorShape({static_cast<int64_t>(dims.size())}));
      shape.data<int64_t>()[0] =
          shape_.RankKnown() && shape_.rank() > 0 ? shape_.dims[0] : -1;
      for (size_t d = 1; d < dims.size(); ++d) {
        shape.data<int64_t>()[d] = dims[d];
      }
      out = {std::move(indices), std::move(values), std::move(shape)};
      rows_.clear();
      counts_.clear();
    }
    counter_ = 0;
    ++global_step_;
    return out;
  }

  void FlushLocked(std::vector<Finished>* finished)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (!takers_.empty() && counter_ >= takers_.front()->num_required) {
      absl::StatusOr<std::vector<Tensor>> out = TakeLocked();
      Finished f{std::move(takers_.front()), out.status(), {}};
      if (out.ok()) f.outputs = *std::move(out);
      takers_.pop_front();
      finished->push_back(std::move(f));
    }
  }

  void Abort(int64_t id, const std::string& msg) {
    std::vector<Finished> finished;
    {
      absl::MutexLock lock(&mu_);
      for (auto it = takers_.begin(); it != takers_.end(); ++it) {
        if ((*it)->id != id) continue;
        finished.push_back({std::move(*it), absl::CancelledError(msg), {}});
        takers_.erase(it);
        break;
      }
    }
    Finish(std::move(finished));
  }

  static void Finish(std::vector<Finished> finished) {
    for (Finished& f : finished) {
      if (f.taker->cm != nullptr && f.taker->token >= 0) {
        f.taker->cm->DeregisterCallback(f.taker->token);
      }
      f.taker->done(std::move(f.status), std::move(f.outputs));
    }
  }

  const bool sparse_;
  const DataType dtype_;
  const PartialShape shape_;
  const std::string name_;
  const bool mean_;
  Allocator* const allocator_;

  mutable absl::Mutex mu_;
  int64_t counter_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t global_step_ ABSL_GUARDED_BY(mu_) = 0;
  Tensor dense_ ABSL_GUARDED_BY(mu_);
  TensorShape row_shape_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Tensor> rows_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, int64_t> counts_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::unique_ptr<Taker>> takers_ ABSL_GUARDED_BY(mu_);
};

// ConditionalAccumulator, SparseConditionalAccumulator and
// ResourceConditionalAccumulator.
class AccumulatorOp : public OpKernel {
 public:
  explicit AccumulatorOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    const std::string& op = c->def().op();
    sparse_ = op == "SparseConditionalAccumulator";
    resource_ = op == "ResourceConditionalAccumulator";
    std::string reduction;
    TensorShapeProto shape;
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    c->SetStatus(c->GetAttr("shape", &shape));
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    c->SetStatus(c->GetAttr("reduction_type", &reduction));
    if (!c->status().ok()) return;
    shape_ = PartialShape::FromProto(shape);
    mean_ = reduction == "MEAN";
    if (name_.empty()) {
      name_ = absl::StrCat("_", next_accumulator_id.fetch_add(1), "_",
                           c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    allocator_ = c->device()->GetAllocator();
    (resource_ ? resource_handle_ : ref_handle_) = SharedResourceHandle(
        *c->device(), !resource_, container_, name_, Accumulator::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Accumulator>> a =
        ctx->resource_manager()->LookupOrCreate<Accumulator>(
            container_, name_, [this] {
              return std::make_shared<Accumulator>(sparse_, dtype_, shape_,
                                                   name_, mean_, allocator_);
            });
    DFX_OP_REQUIRES_OK(ctx, a.status());
    const Accumulator& acc = **a;
    DFX_OP_REQUIRES(
        ctx,
        acc.sparse() == sparse_ && acc.dtype() == dtype_ &&
            acc.mean() == mean_ &&
            acc.shape().unknown_rank == shape_.unknown_rank &&
            acc.shape().dims == shape_.dims,
        absl::InvalidArgumentError(absl::StrCat(
            "Shared accumulator '", name_, "' exists as ", acc.DebugString(),
            "; this node asks for a ", sparse_ ? "sparse" : "dense",
            " one of ", DataTypeString(dtype_), " ", shape_.DebugString(),
            mean_ ? " (MEAN)" : " (SUM)")));
    if (resource_) {
      ctx->set_output(0, resource_handle_);
    } else {
      ctx->set_output_ref(0, TensorRef{&ref_handle_, &ref_mu_});
    }
  }

 private:
  bool sparse_ = false;
  bool resource_ = false;
  DataType dtype_ = DT_INVALID;
  PartialShape shape_;
  bool mean_ = true;
  std::string container_;
  std::string name_;
  Allocator* allocator_ = nullptr;
  Tensor resource_handle_;
  Tensor ref_handle_;
  absl::Mutex ref_mu_;
};

// The accumulator input 0 names: a reference to [container, name] or a
// resource handle.
absl::StatusOr<std::shared_ptr<Accumulator>> GetAccumulator(
    OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<Accumulator>(container, name);
}

absl::Status CheckDtype(const Accumulator& a, DataType dtype) {
  if (a.dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "accumulator '", a.name(), "' holds ", DataTypeString(a.dtype()),
        ", not ", DataTypeString(dtype)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Int64Scalar(const Tensor& t, const char* what) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  return t.data<int64_t>()[0];
}

class ApplyGradientOp : public OpKernel {
 public:
  explicit ApplyGradientOp(OpKernelConstruction* c) : OpKernel(c) {
    sparse_ = c->def().op() == "SparseAccumulatorApplyGradient";
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    if (sparse_) c->SetStatus(c->GetAttr("has_known_shape", &known_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Accumulator>> a = GetAccumulator(ctx);
    DFX_OP_REQUIRES_OK(ctx, a.status());
    Accumulator& acc = **a;
    DFX_OP_REQUIRES_OK(ctx, CheckDtype(acc, dtype_));
    DFX_OP_REQUIRES(
        ctx, acc.sparse() == sparse_,
        absl::InvalidArgumentError(absl::StrCat(
            "accumulator '", acc.name(), "' is ",
            acc.sparse() ? "sparse" : "dense", "; ", type_string(),
            " needs a ", sparse_ ? "sparse" : "dense", " one")));
    absl::StatusOr<int64_t> step = Int64Scalar(ctx->input(1), "local_step");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    if (!sparse_) {
      DFX_OP_REQUIRES_OK(ctx, acc.ApplyDense(*step, ctx->input(2)));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx,
                       acc.ApplySparse(*step, ctx->input(2), ctx->input(3),
                                       known_shape_ ? &ctx->input(4) : nullptr));
  }

 private:
  bool sparse_ = false;
  bool known_shape_ = false;
  DataType dtype_ = DT_INVALID;
};

class TakeGradientOp : public AsyncOpKernel {
 public:
  explicit TakeGradientOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    sparse_ = c->def().op() == "SparseAccumulatorTakeGradient";
    c->SetStatus(c->GetAttr("dtype", &dtype_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<Accumulator>> a = GetAccumulator(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, a.status(), done);
    std::shared_ptr<Accumulator> acc = *a;
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckDtype(*acc, dtype_), done);
    DFX_OP_REQUIRES_ASYNC(
        ctx, acc->sparse() == sparse_,
        absl::InvalidArgumentError(absl::StrCat(
            "accumulator '", acc->name(), "' is ",
            acc->sparse() ? "sparse" : "dense", "; ", type_string(),
            " needs a ", sparse_ ? "sparse" : "dense", " one")),
        done);
    const Tensor& n = ctx->input(1);
    DFX_OP_REQUIRES_ASYNC(
        ctx, n.NumElements() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "num_required must be a scalar, got shape ",
            n.shape().DebugString())),
        done);
    const int32_t num_required = n.data<int32_t>()[0];
    DFX_OP_REQUIRES_ASYNC(
        ctx, num_required > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Argument num_required must be positive, but was ",
            num_required)),
        done);
    acc->Take(num_required, ctx->cancellation_manager(),
              [ctx, done, acc](absl::Status s, std::vector<Tensor> out) {
                if (!s.ok()) {
                  ctx->SetStatus(std::move(s));
                } else {
                  for (size_t i = 0; i < out.size(); ++i) {
                    ctx->set_output(static_cast<int>(i), std::move(out[i]));
                  }
                }
                done();
              });
  }

 private:
  bool sparse_ = false;
  DataType dtype_ = DT_INVALID;
};

class NumAccumulatedOp : public OpKernel {
 public:
  explicit NumAccumulatedOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Accumulator>> a = GetAccumulator(ctx);
    DFX_OP_REQUIRES_OK(ctx, a.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>((*a)->NumAccumulated()));
  }
};

class SetGlobalStepOp : public OpKernel {
 public:
  explicit SetGlobalStepOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Accumulator>> a = GetAccumulator(ctx);
    DFX_OP_REQUIRES_OK(ctx, a.status());
    absl::StatusOr<int64_t> step =
        Int64Scalar(ctx->input(1), "new_global_step");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    (*a)->SetGlobalStep(*step);
  }
};

}  // namespace

void RegisterAccumulatorKernels(KernelRegistry* r) {
  const DataTypeVector types = {DT_HALF, DT_FLOAT, DT_DOUBLE};
  for (const char* op : {"ConditionalAccumulator",
                         "SparseConditionalAccumulator",
                         "ResourceConditionalAccumulator"}) {
    RegisterKernel<AccumulatorOp>(
        r, KernelDefBuilder(op).TypeConstraint("dtype", types));
  }
  for (const char* op : {"AccumulatorApplyGradient",
                         "ResourceAccumulatorApplyGradient",
                         "SparseAccumulatorApplyGradient"}) {
    // Unconstrained, as TensorFlow's: the accumulator holds one of `types`
    // and CheckDtype rejects any other dtype when the step runs.
    RegisterKernel<ApplyGradientOp>(r, KernelDefBuilder(op));
  }
  for (const char* op : {"AccumulatorTakeGradient",
                         "ResourceAccumulatorTakeGradient",
                         "SparseAccumulatorTakeGradient"}) {
    RegisterKernel<TakeGradientOp>(r, KernelDefBuilder(op));
  }
  for (const char* op :
       {"AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated"}) {
    RegisterKernel<NumAccumulatedOp>(r, KernelDefBuilder(op));
  }
  for (const char* op :
       {"AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep"}) {
    RegisterKernel<SetGlobalStepOp>(r, KernelDefBuilder(op));
  }
}

}  // namespace dfx::data_flow

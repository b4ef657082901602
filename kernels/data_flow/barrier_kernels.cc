// Kernels of the barrier ops (graph/ops/staging_ops.cc). Barrier makes (or
// finds) the barrier named by container and shared_name (without a
// shared_name, one of its own, as TensorFlow's) and outputs TensorFlow's
// reference to a [2] string handle; the others find it through that
// handle. BarrierTakeMany is asynchronous and waits in the barrier
// (kernels/data_flow/barrier.h).
//
// timeout_ms: TensorFlow 2.21 rejects any value but -1 ("Timeout not
// supported yet"); dfx honours it: a take waiting longer ends with
// DeadlineExceeded naming the barrier.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/data_flow/barrier.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/kernels.h"
#include "runtime/resource_mgr.h"

namespace dfx::data_flow {
namespace {

std::atomic<int64_t> next_barrier_id{0};

std::string ShapesString(const std::vector<TensorShape>& shapes) {
  std::vector<std::string> s;
  for (const TensorShape& p : shapes) s.push_back(p.DebugString());
  return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
}

class BarrierOp : public OpKernel {
 public:
  explicit BarrierOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    int64_t capacity = -1;
    c->SetStatus(c->GetAttr("component_types", &types_));
    c->SetStatus(c->GetAttr("capacity", &capacity));
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    if (!c->status().ok()) return;
    if (const AttrValue* shapes = FindNodeAttr(c->def(), "shapes")) {
      for (const TensorShapeProto& p : shapes->list().shape()) {
        const PartialShape s = PartialShape::FromProto(p);
        if (!s.FullyDefined()) {
          c->SetStatus(absl::InvalidArgumentError(
              absl::StrCat("a Barrier's shapes must be fully defined; got ",
                           s.DebugString())));
          return;
        }
        shapes_.push_back(ToTensorShape(s));
      }
    }
    if (shapes_.size() != types_.size()) {
      c->SetStatus(absl::InvalidArgumentError(
          "All of the component shapes must be specified"));
      return;
    }
    if (capacity != -1) {
      c->SetStatus(absl::InvalidArgumentError(
          "Barrier only accepts capacity=-1.  Feed the inputs to your "
          "Barrier through a queue to enforce a limited capacity."));
      return;
    }
    // Without a shared_name, the barrier belongs to its kernel (one per node
    // and session), under a name of its own.
    if (name_.empty()) {
      name_ =
          absl::StrCat("_", next_barrier_id.fetch_add(1), "_", c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    handle_ = SharedResourceHandle(*c->device(), /*ref=*/true, container_,
                                   name_, Barrier::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    // Looked up every step, so a reset container gives a fresh barrier.
    absl::StatusOr<std::shared_ptr<Barrier>> b =
        ctx->resource_manager()->LookupOrCreate<Barrier>(
            container_, name_, [this] {
              return std::make_shared<Barrier>(name_, types_, shapes_);
            });
    DFX_OP_REQUIRES_OK(ctx, b.status());
    DFX_OP_REQUIRES(
        ctx, (*b)->types() == types_,
        absl::InvalidArgumentError(absl::StrCat(
            "Shared barrier '", name_, "' has component types ",
            TypesString((*b)->types()), " but requested component types were ",
            TypesString(types_))));
    DFX_OP_REQUIRES(
        ctx, (*b)->shapes() == shapes_,
        absl::InvalidArgumentError(absl::StrCat(
            "Shared barrier '", name_, "' has component shapes ",
            ShapesString((*b)->shapes()),
            " but requested component shapes were ", ShapesString(shapes_))));
    ctx->set_output_ref(0, TensorRef{&handle_, &handle_mu_});
  }

 private:
  DataTypeVector types_;
  std::vector<TensorShape> shapes_;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_STRING, TensorShape({2})};
  absl::Mutex handle_mu_;  // the reference's mutex (the handle never changes)
};

absl::StatusOr<std::shared_ptr<Barrier>> GetBarrier(OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<Barrier>(container, name);
}

class BarrierInsertManyOp : public OpKernel {
 public:
  explicit BarrierInsertManyOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("component_index", &component_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Barrier>> b = GetBarrier(ctx);
    DFX_OP_REQUIRES_OK(ctx, b.status());
    Barrier& barrier = **b;
    const int64_t num = static_cast<int64_t>(barrier.types().size());
    DFX_OP_REQUIRES(ctx, component_ >= 0 && component_ < num,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The component ID is out of range ", component_,
                        " > num_components (= ", num, ")")));
    const Tensor& values = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, values.dtype() == barrier.types()[component_],
        absl::InvalidArgumentError(absl::StrCat(
            "component ", component_, " of barrier '", barrier.name(), "' is ",
            DataTypeString(barrier.types()[component_]), ", got values of ",
            DataTypeString(values.dtype()))));
    const Tensor& keys_t = ctx->input(1);
    std::vector<std::string> keys(
        keys_t.data<std::string>(),
        keys_t.data<std::string>() + keys_t.NumElements());
    DFX_OP_REQUIRES_OK(
        ctx, barrier.InsertMany(keys, static_cast<int>(component_), values,
                                ctx->allocator()));
  }

 private:
  int64_t component_ = 0;
};

class BarrierTakeManyOp : public AsyncOpKernel {
 public:
  explicit BarrierTakeManyOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    bool wait_for_incomplete = false;
    c->SetStatus(c->GetAttr("component_types", &types_));
    c->SetStatus(c->GetAttr("allow_small_batch", &allow_small_batch_));
    c->SetStatus(c->GetAttr("wait_for_incomplete", &wait_for_incomplete));
    c->SetStatus(c->GetAttr("timeout_ms", &timeout_ms_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<Barrier>> b = GetBarrier(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, b.status(), done);
    std::shared_ptr<Barrier> barrier = *b;
    const Tensor& n_t = ctx->input(1);
    DFX_OP_REQUIRES_ASYNC(
        ctx, n_t.dims() == 0,
        absl::InvalidArgumentError("num_elements must be a scalar."), done);
    const int32_t n = n_t.scalar<int32_t>();
    DFX_OP_REQUIRES_ASYNC(ctx, n >= 0,
                          absl::InvalidArgumentError(absl::StrCat(
                              "num_elements must not be negative, got ", n)),
                          done);
    DFX_OP_REQUIRES_ASYNC(
        ctx, barrier->types() == types_,
        absl::InvalidArgumentError(absl::StrCat(
            "BarrierTakeMany's component_types ", TypesString(types_),
            " are not barrier '", barrier->name(), "''s ",
            TypesString(barrier->types()))),
        done);
    barrier->TakeMany(
        n, allow_small_batch_, ctx->cancellation_manager(), timeout_ms_,
        [ctx, done, barrier](absl::Status s,
                             std::vector<Barrier::Element> elements) {
          if (s.ok()) s = Outputs(ctx, *barrier, elements);
          if (!s.ok()) ctx->SetStatus(std::move(s));
          done();
        });
  }

 private:
  static absl::Status Outputs(OpKernelContext* ctx, const Barrier& barrier,
                              const std::vector<Barrier::Element>& elements) {
    const int64_t n = static_cast<int64_t>(elements.size());
    Tensor* indices = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n}), &indices));
    Tensor* keys = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &keys));
    for (int64_t i = 0; i < n; ++i) {
      indices->data<int64_t>()[i] = elements[i].index;
      keys->data<std::string>()[i] = elements[i].key;
    }
    for (size_t j = 0; j < barrier.types().size(); ++j) {
      std::vector<int64_t> dims = {n};
      for (int64_t d : barrier.shapes()[j].dim_sizes()) dims.push_back(d);
      DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      Tensor* out = nullptr;
      DFX_RETURN_IF_ERROR(
          ctx->allocate_output(static_cast<int>(j) + 2, shape, &out));
      const int64_t size = barrier.shapes()[j].num_elements();
      for (int64_t i = 0; i < n; ++i) {
        CopyElements(elements[i].values[j], 0, out, i * size, size);
      }
    }
    return absl::OkStatus();
  }

  DataTypeVector types_;
  bool allow_small_batch_ = false;
  int64_t timeout_ms_ = -1;
};

class BarrierCloseOp : public OpKernel {
 public:
  explicit BarrierCloseOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("cancel_pending_enqueues", &cancel_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Barrier>> b = GetBarrier(ctx);
    DFX_OP_REQUIRES_OK(ctx, b.status());
    DFX_OP_REQUIRES_OK(ctx, (*b)->Close(cancel_));
  }

 private:
  bool cancel_ = false;
};

// BarrierReadySize (ready true) and BarrierIncompleteSize.
template <bool Ready>
class BarrierSizeOp : public OpKernel {
 public:
  explicit BarrierSizeOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Barrier>> b = GetBarrier(ctx);
    DFX_OP_REQUIRES_OK(ctx, b.status());
    const int64_t size = Ready ? (*b)->ReadySize() : (*b)->IncompleteSize();
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
  }
};

}  // namespace

void RegisterBarrierKernels(KernelRegistry* r) {
  RegisterKernel<BarrierOp>(r, KernelDefBuilder("Barrier"));
  // TensorFlow's TF_CALL_ALL_TYPES, less resource and variant.
  RegisterKernel<BarrierInsertManyOp>(
      r,
      KernelDefBuilder("BarrierInsertMany")
          .TypeConstraint(
              "T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
                    DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL, DT_BFLOAT16,
                    DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64}));
  RegisterKernel<BarrierTakeManyOp>(r, KernelDefBuilder("BarrierTakeMany"));
  RegisterKernel<BarrierCloseOp>(r, KernelDefBuilder("BarrierClose"));
  RegisterKernel<BarrierSizeOp<true>>(r, KernelDefBuilder("BarrierReadySize"));
  RegisterKernel<BarrierSizeOp<false>>(
      r, KernelDefBuilder("BarrierIncompleteSize"));
}

}  // namespace dfx::data_flow

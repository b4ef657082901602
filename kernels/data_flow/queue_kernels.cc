// Kernels of the queue ops (graph/ops/queue_ops.cc): FIFOQueueV2 and
// PaddingFIFOQueueV2 make (or find) the queue named by container and
// shared_name in the device's resource manager, so later steps and other
// sessions that name it use the same queue; the enqueue and dequeue kernels
// are asynchronous and wait in the queue (kernels/data_flow/queue.h).
//
// timeout_ms: TensorFlow 2.21 rejects any value but -1 ("Timeout not
// supported yet"); dfx honours it: a wait longer than timeout_ms ends with
// DeadlineExceeded naming the queue.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/data_flow/queue.h"
#include "kernels/kernels.h"
#include "kernels/nn/nn2_kernels.h"
#include "runtime/memory_limit.h"
#include "runtime/resource_mgr.h"

namespace dfx::data_flow {
namespace {

std::atomic<int64_t> next_queue_id{0};

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  std::vector<std::string> s;
  for (const PartialShape& p : shapes) s.push_back(p.DebugString());
  return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
}

bool SameShapes(const std::vector<PartialShape>& a,
                const std::vector<PartialShape>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].unknown_rank != b[i].unknown_rank || a[i].dims != b[i].dims) {
      return false;
    }
  }
  return true;
}

class QueueOp : public OpKernel {
 public:
  explicit QueueOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    const std::string& op = c->def().op();
    kind_ = absl::StartsWith(op, "Padding")         ? "PaddingFIFOQueue"
            : absl::StartsWith(op, "RandomShuffle") ? "RandomShuffleQueue"
            : absl::StartsWith(op, "Priority")      ? "PriorityQueue"
                                                    : "FIFOQueue";
    ref_ = !absl::EndsWith(op, "V2");
    c->SetStatus(c->GetAttr("component_types", &types_));
    c->SetStatus(c->GetAttr("capacity", &capacity_));
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    if (!c->status().ok()) return;
    if (const AttrValue* shapes = FindNodeAttr(c->def(), "shapes")) {
      for (const TensorShapeProto& p : shapes->list().shape()) {
        shapes_.push_back(PartialShape::FromProto(p));
      }
    }
    if (!shapes_.empty() && shapes_.size() != types_.size()) {
      c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "shapes has ", shapes_.size(), " entries but component_types has ",
          types_.size(), "; give one shape per component or none")));
      return;
    }
    if (kind_ == "PaddingFIFOQueue") {
      if (shapes_.empty()) {
        c->SetStatus(absl::InvalidArgumentError(
            "a PaddingFIFOQueue needs its component shapes (shapes, with -1 "
            "for dims to pad)"));
        return;
      }
      for (const PartialShape& s : shapes_) {
        if (!s.RankKnown()) {
          c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "a PaddingFIFOQueue needs the rank of every component; shapes ",
              ShapesString(shapes_))));
          return;
        }
      }
    } else {
      for (const PartialShape& s : shapes_) {
        if (!s.FullyDefined()) {
          c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "a ", kind_, "'s shapes must be fully defined; got ",
              ShapesString(shapes_))));
          return;
        }
      }
    }
    if (kind_ == "PriorityQueue") {
      // The attrs name the components after the priority, an int64 scalar
      // the queue puts first (as TensorFlow's PriorityQueueOp does).
      types_.insert(types_.begin(), DT_INT64);
      if (!shapes_.empty()) {
        shapes_.insert(shapes_.begin(), PartialShape::Scalar());
      }
    }
    if (capacity_ == 0 || capacity_ < -1) {
      c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "capacity must be positive or -1 (unbounded), got ", capacity_)));
      return;
    }
    if (kind_ == "RandomShuffleQueue") {
      Queue::Shuffle shuffle;
      c->SetStatus(c->GetAttr("min_after_dequeue", &shuffle.min_after_dequeue));
      c->SetStatus(c->GetAttr("seed", &shuffle.seed));
      c->SetStatus(c->GetAttr("seed2", &shuffle.seed2));
      if (!c->status().ok()) return;
      const int64_t capacity =
          capacity_ < 0 ? std::numeric_limits<int32_t>::max() : capacity_;
      if (shuffle.min_after_dequeue < 0) {
        c->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("min_after_dequeue ", shuffle.min_after_dequeue,
                         " must be >= 0")));
        return;
      }
      if (shuffle.min_after_dequeue >= capacity) {
        c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "min_after_dequeue ", shuffle.min_after_dequeue,
            " must be < capacity ", capacity)));
        return;
      }
      shuffle_ = shuffle;
    }
    // TensorFlow's queues without a shared_name belong to their kernel
    // (one per node and session), under a name of their own.
    if (name_.empty()) {
      name_ = absl::StrCat("_", next_queue_id.fetch_add(1), "_",
                           c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    // FIFOQueue, PaddingFIFOQueue (TF1): a reference to [container, name].
    handle_ = SharedResourceHandle(*c->device(), ref_, container_, name_,
                                   Queue::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    // Looked up every step, so a reset container gives a fresh queue.
    absl::StatusOr<std::shared_ptr<Queue>> q =
        ctx->resource_manager()->LookupOrCreate<Queue>(
            container_, name_, [this] {
              return std::make_shared<Queue>(kind_, name_, types_, shapes_,
                                             capacity_, shuffle_);
            });
    DFX_OP_REQUIRES_OK(ctx, q.status());
    const Queue& queue = **q;
    const int64_t capacity =
        capacity_ < 0 ? std::numeric_limits<int32_t>::max() : capacity_;
    DFX_OP_REQUIRES(
        ctx,
        queue.kind() == kind_ && queue.types() == types_ &&
            SameShapes(queue.shapes(), shapes_) &&
            queue.capacity() == capacity,
        absl::InvalidArgumentError(absl::StrCat(
            "Shared queue '", name_, "' is a ", queue.kind(),
            " of component types ", TypesString(queue.types()), ", shapes ",
            ShapesString(queue.shapes()), " and capacity ", queue.capacity(),
            "; this node asks for a ", kind_, " of ", TypesString(types_),
            ", ", ShapesString(shapes_), " and ", capacity)));
    if (shuffle_.has_value()) {
      const Queue::Shuffle& have = *queue.shuffle();
      DFX_OP_REQUIRES(
          ctx, have.min_after_dequeue == shuffle_->min_after_dequeue,
          absl::InvalidArgumentError(absl::StrCat(
              "Shared queue '", name_, "' has min_after_dequeue ",
              have.min_after_dequeue, " but requested min_after_dequeue was ",
              shuffle_->min_after_dequeue, ".")));
      const bool seeded = shuffle_->seed != 0 || shuffle_->seed2 != 0;
      DFX_OP_REQUIRES(
          ctx,
          !seeded || (have.seed == shuffle_->seed &&
                      have.seed2 == shuffle_->seed2),
          absl::InvalidArgumentError(absl::StrCat(
              "Shared queue '", name_, "' has random seeds (", have.seed, ", ",
              have.seed2, ") but requested seeds are (", shuffle_->seed, ", ",
              shuffle_->seed2, ").")));
    }
    if (ref_) {
      ctx->set_output_ref(0, TensorRef{&handle_, &handle_mu_});
    } else {
      ctx->set_output(0, handle_);
    }
  }

 private:
  bool ref_ = false;
  std::string kind_;
  DataTypeVector types_;
  std::vector<PartialShape> shapes_;
  int64_t capacity_ = -1;
  std::optional<Queue::Shuffle> shuffle_;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
  absl::Mutex handle_mu_;  // the reference's mutex (the handle never changes)
};

absl::StatusOr<std::shared_ptr<Queue>> GetQueue(OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<Queue>(container, name);
}

// The component types an enqueue's or dequeue's attr names must be the
// queue's.
absl::Status CheckTypes(const Queue& q, const DataTypeVector& types) {
  if (types.size() != q.types().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Wrong number of components in tuple. Expected ", q.types().size(),
        ", got ", types.size(), " (", q.kind(), " '", q.name(), "')"));
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != q.types()[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Type mismatch in tuple component ", i, ". Expected ",
          DataTypeString(q.types()[i]), ", got ", DataTypeString(types[i]),
          " (", q.kind(), " '", q.name(), "' has types ",
          TypesString(q.types()), ")"));
    }
  }
  return absl::OkStatus();
}

class EnqueueOp : public AsyncOpKernel {
 public:
  explicit EnqueueOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    many_ = absl::StartsWith(c->def().op(), "QueueEnqueueMany");
    c->SetStatus(c->GetAttr("timeout_ms", &timeout_ms_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<Queue>> q = GetQueue(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, q.status(), done);
    Queue& queue = **q;
    DataTypeVector types;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      types.push_back(ctx->input_dtype(i));
    }
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckTypes(queue, types), done);
    const int k = static_cast<int>(types.size());
    std::vector<Queue::Tuple> elements;
    if (!many_) {
      Queue::Tuple t;
      for (int i = 0; i < k; ++i) {
        const Tensor& c = ctx->input(i + 1);
        if (!queue.shapes().empty() &&
            !IsCompatible(queue.shapes()[i], c.shape())) {
          DFX_OP_REQUIRES_ASYNC(
              ctx, false,
              absl::InvalidArgumentError(absl::StrCat(
                  "Shape mismatch in tuple component ", i, ". Expected ",
                  queue.shapes()[i].DebugString(), ", got ",
                  c.shape().DebugString(), " (", queue.kind(), " '",
                  queue.name(), "')")),
              done);
        }
        t.push_back(c);
      }
      elements.push_back(std::move(t));
    } else {
      int64_t n = -1;
      for (int i = 0; i < k; ++i) {
        const Tensor& c = ctx->input(i + 1);
        DFX_OP_REQUIRES_ASYNC(
            ctx, c.dims() >= 1,
            absl::InvalidArgumentError(absl::StrCat(
                "Tuple component ", i, " of an EnqueueMany must have rank "
                ">= 1 (a batch), got shape ", c.shape().DebugString())),
            done);
        if (n < 0) n = c.dim_size(0);
        DFX_OP_REQUIRES_ASYNC(
            ctx, c.dim_size(0) == n,
            absl::InvalidArgumentError(absl::StrCat(
                "All input tensors must have the same size in the 0th "
                "dimension. Component 0 has ", n, ", and component ", i,
                " has ", c.dim_size(0))),
            done);
        TensorShape element = c.shape();
        element.RemoveDim(0);
        if (!queue.shapes().empty() &&
            !IsCompatible(queue.shapes()[i], element)) {
          DFX_OP_REQUIRES_ASYNC(
              ctx, false,
              absl::InvalidArgumentError(absl::StrCat(
                  "Shape mismatch in tuple component ", i, ". Expected [?]+",
                  queue.shapes()[i].DebugString(), ", got ",
                  c.shape().DebugString(), " (", queue.kind(), " '",
                  queue.name(), "')")),
              done);
        }
        DFX_OP_REQUIRES_ASYNC(
            ctx, CanMove(c.dtype()),
            absl::UnimplementedError(absl::StrCat(
                "EnqueueMany cannot split ", DataTypeString(c.dtype()),
                " tensors")),
            done);
      }
      elements.resize(n);
      for (int i = 0; i < k; ++i) {
        const Tensor& c = ctx->input(i + 1);
        TensorShape element = c.shape();
        element.RemoveDim(0);
        const int64_t size = element.num_elements();
        for (int64_t j = 0; j < n; ++j) {
          // Its own buffer: a dequeued element must not keep the whole batch
          // alive, and the memory limit sees what the queue holds.
          absl::StatusOr<Tensor> e =
              Tensor::Allocate(ctx->allocator(), c.dtype(), element);
          DFX_OP_REQUIRES_OK_ASYNC(ctx, e.status(), done);
          CopyElements(c, j * size, &*e, 0, size);
          elements[j].push_back(*std::move(e));
        }
      }
    }
    // A priority queue orders by a scalar first component (unshaped
    // queues take any shape, so this is checked per element).
    if (queue.priority()) {
      for (const Queue::Tuple& t : elements) {
        DFX_OP_REQUIRES_ASYNC(
            ctx, t[0].dims() == 0,
            absl::InvalidArgumentError(absl::StrCat(
                "Expected the priority element to be a scalar, but received "
                "shape: ",
                t[0].shape().DebugString())),
            done);
      }
    }
    // What the queue would hold must fit under the host memory limit
    // beside what is allocated (an unbounded queue whose producer outruns
    // its consumer fails here, naming the queue, rather than elsewhere).
    int64_t bytes = queue.MemoryUsed();
    for (const Queue::Tuple& t : elements) {
      for (const Tensor& c : t) bytes += static_cast<int64_t>(c.TotalBytes());
    }
    DFX_OP_REQUIRES_OK_ASYNC(
        ctx,
        CheckHostMemoryHeadroom(bytes, absl::StrCat("the elements ",
                                                    queue.kind(), " '",
                                                    queue.name(), "' holds")),
        done);
    queue.Enqueue(std::move(elements), ctx->cancellation_manager(),
                  timeout_ms_, [ctx, done, keep = *q](absl::Status s) {
                    if (!s.ok()) ctx->SetStatus(std::move(s));
                    done();
                  });
  }

 private:
  bool many_ = false;
  int64_t timeout_ms_ = -1;
};

// Copies `e` into row `row` of `out` ([n] + padded shape), whose element
// shape may be larger in any dim (PaddingFIFOQueue); the rest stays as
// filled.
void CopyIntoRow(const Tensor& e, int64_t row, Tensor* out) {
  const int rank = e.dims();
  int64_t row_size = 1;
  for (int d = 1; d < out->dims(); ++d) row_size *= out->dim_size(d);
  if (rank == 0) {
    CopyElements(e, 0, out, row * row_size, 1);
    return;
  }
  const int64_t inner = e.dim_size(rank - 1);
  if (e.NumElements() == 0) return;
  // Walk the element's index space row by row of its last dim.
  std::vector<int64_t> index(rank, 0);
  const int64_t rows = e.NumElements() / inner;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t dst = 0;
    for (int d = 0; d < rank; ++d) dst = dst * out->dim_size(d + 1) + index[d];
    CopyElements(e, r * inner, out, row * row_size + dst, inner);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < e.dim_size(d)) break;
      index[d] = 0;
    }
  }
}

class DequeueOp : public AsyncOpKernel {
 public:
  explicit DequeueOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    const std::string& op = c->def().op();
    many_ = op != "QueueDequeueV2" && op != "QueueDequeue";
    up_to_ = absl::StartsWith(op, "QueueDequeueUpTo");
    c->SetStatus(c->GetAttr("component_types", &types_));
    c->SetStatus(c->GetAttr("timeout_ms", &timeout_ms_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<Queue>> q = GetQueue(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, q.status(), done);
    std::shared_ptr<Queue> queue = *q;
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckTypes(*queue, types_), done);
    int64_t n = 1;
    if (many_) {
      const Tensor& nt = ctx->input(1);
      DFX_OP_REQUIRES_ASYNC(
          ctx, nt.NumElements() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "n must be a scalar, got shape ", nt.shape().DebugString())),
          done);
      n = nt.data<int32_t>()[0];
      DFX_OP_REQUIRES_ASYNC(
          ctx, n >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              up_to_ ? "DequeueUpToOp" : "DequeueManyOp", " requested ", n,
              " < 0 elements")),
          done);
      if (queue->kind() != "PaddingFIFOQueue") {
        bool specified = !queue->shapes().empty();
        DFX_OP_REQUIRES_ASYNC(
            ctx, specified,
            absl::InvalidArgumentError(absl::StrCat(
                queue->kind(),
                "'s DequeueMany and DequeueUpTo require the components to "
                "have specified shapes (queue '",
                queue->name(), "')")),
            done);
      }
      if (n == 0) {
        // Empty batches at once, without waiting.
        for (size_t i = 0; i < types_.size(); ++i) {
          std::vector<int64_t> dims = {0};
          for (int64_t d : queue->shapes()[i].dims) {
            dims.push_back(d < 0 ? 0 : d);
          }
          absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
          DFX_OP_REQUIRES_OK_ASYNC(ctx, shape.status(), done);
          Tensor* out = nullptr;
          DFX_OP_REQUIRES_OK_ASYNC(
              ctx, ctx->allocate_output(static_cast<int>(i), *shape, &out),
              done);
        }
        done();
        return;
      }
    }
    queue->Dequeue(
        n, up_to_, ctx->cancellation_manager(), timeout_ms_,
        [this, ctx, done, queue](absl::Status s,
                                 std::vector<Queue::Tuple> elements) {
          if (!s.ok()) {
            ctx->SetStatus(std::move(s));
          } else if (!many_) {
            for (size_t i = 0; i < elements[0].size(); ++i) {
              ctx->set_output(static_cast<int>(i), elements[0][i]);
            }
          } else {
            ctx->SetStatus(Batch(ctx, *queue, elements));
          }
          done();
        });
  }

 private:
  absl::Status Batch(OpKernelContext* ctx, const Queue& queue,
                     const std::vector<Queue::Tuple>& elements) {
    const int64_t n = static_cast<int64_t>(elements.size());
    for (size_t i = 0; i < types_.size(); ++i) {
      // The batch's element shape: the queue's, with padded dims the
      // largest of the batch.
      std::vector<int64_t> dims = queue.shapes()[i].dims;
      for (const Queue::Tuple& t : elements) {
        const Tensor& e = t[i];
        for (size_t d = 0; d < dims.size(); ++d) {
          if (queue.shapes()[i].dims[d] < 0) {
            dims[d] = std::max(dims[d], e.dim_size(static_cast<int>(d)));
          }
        }
      }
      dims.insert(dims.begin(), n);
      DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      Tensor* out = nullptr;
      DFX_RETURN_IF_ERROR(
          ctx->allocate_output(static_cast<int>(i), shape, &out));
      if (out->dtype() == DT_STRING) {
        for (std::string& s : out->span<std::string>()) s.clear();
      } else if (DataTypeCanMemcpy(out->dtype())) {
        std::memset(out->raw_data(), 0, out->TotalBytes());
      }
      for (int64_t j = 0; j < n; ++j) CopyIntoRow(elements[j][i], j, out);
    }
    return absl::OkStatus();
  }

  bool many_ = false;
  bool up_to_ = false;
  DataTypeVector types_;
  int64_t timeout_ms_ = -1;
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("cancel_pending_enqueues", &cancel_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Queue>> q = GetQueue(ctx);
    DFX_OP_REQUIRES_OK(ctx, q.status());
    (*q)->Close(cancel_);
  }

 private:
  bool cancel_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  explicit QueueSizeOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Queue>> q = GetQueue(ctx);
    DFX_OP_REQUIRES_OK(ctx, q.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(
                           static_cast<int32_t>((*q)->Size())));
  }
};

class QueueIsClosedOp : public OpKernel {
 public:
  explicit QueueIsClosedOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Queue>> q = GetQueue(ctx);
    DFX_OP_REQUIRES_OK(ctx, q.status());
    ctx->set_output(0, Tensor::Scalar<bool>((*q)->IsClosed()));
  }
};

}  // namespace

void RegisterQueueKernels(KernelRegistry* r) {
  RegisterKernel<QueueOp>(r, KernelDefBuilder("FIFOQueueV2"));
  RegisterKernel<QueueOp>(r, KernelDefBuilder("PaddingFIFOQueueV2"));
  RegisterKernel<EnqueueOp>(r, KernelDefBuilder("QueueEnqueueV2"));
  RegisterKernel<EnqueueOp>(r, KernelDefBuilder("QueueEnqueueManyV2"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeueV2"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeueManyV2"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeueUpToV2"));
  RegisterKernel<QueueCloseOp>(r, KernelDefBuilder("QueueCloseV2"));
  RegisterKernel<QueueSizeOp>(r, KernelDefBuilder("QueueSizeV2"));
  RegisterKernel<QueueIsClosedOp>(r, KernelDefBuilder("QueueIsClosedV2"));
  // TF1's forms, with a reference to a [2] string handle.
  RegisterKernel<QueueOp>(r, KernelDefBuilder("FIFOQueue"));
  RegisterKernel<QueueOp>(r, KernelDefBuilder("PaddingFIFOQueue"));
  RegisterKernel<QueueOp>(r, KernelDefBuilder("PriorityQueueV2"));
  RegisterKernel<QueueOp>(r, KernelDefBuilder("PriorityQueue"));
  RegisterKernel<EnqueueOp>(r, KernelDefBuilder("QueueEnqueue"));
  RegisterKernel<EnqueueOp>(r, KernelDefBuilder("QueueEnqueueMany"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeue"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeueMany"));
  RegisterKernel<DequeueOp>(r, KernelDefBuilder("QueueDequeueUpTo"));
  RegisterKernel<QueueCloseOp>(r, KernelDefBuilder("QueueClose"));
  RegisterKernel<QueueSizeOp>(r, KernelDefBuilder("QueueSize"));
  RegisterKernel<QueueIsClosedOp>(r, KernelDefBuilder("QueueIsClosed"));
}

}  // namespace dfx::data_flow

namespace dfx::nn2_internal {

void RegisterRandomShuffleQueueKernels(KernelRegistry* r) {
  RegisterKernel<data_flow::QueueOp>(
      r, KernelDefBuilder("RandomShuffleQueueV2"));
  RegisterKernel<data_flow::QueueOp>(r, KernelDefBuilder("RandomShuffleQueue"));
}

}  // namespace dfx::nn2_internal

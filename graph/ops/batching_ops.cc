// The batching family: TensorFlow Serving's in-graph batching. BatchFunction
// gathers the inputs of concurrent steps into one batch, runs its function
// once and splits the results back; Batch, Unbatch and UnbatchGrad are the
// older form of the same, with the batch travelling between them by id.
// Signatures follow TensorFlow 2.21's batch_ops.cc (checked by
// tests/kernels/batching_test.cc); the kernels are in kernels/batching/.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// TensorFlow sets is_distributed_communication on these ops; OpDefBuilder
// has no setter for it (collective_ops.cc does the same).
absl::Status RegisterCommunicating(OpRegistry* registry,
                                   const OpDefBuilder& builder) {
  DFX_ASSIGN_OR_RETURN(OpRegistrationData data, builder.Finalize());
  data.op_def.set_is_distributed_communication(true);
  return registry->Register(std::move(data));
}

// `shape` with dim 0 unknown; InvalidArgument for a scalar.
absl::Status DimZeroUnknown(InferenceContext* c, const PartialShape& shape,
                            PartialShape* out) {
  *out = shape;
  if (!shape.RankKnown()) return absl::OkStatus();
  if (shape.rank() == 0) {
    return c->Error("Shape must be at least rank 1 but is rank 0");
  }
  out->dims[0] = -1;
  return absl::OkStatus();
}

// Batch: each batched tensor is its input with dim 0 unknown; batch_index
// is [?, 3], id a scalar.
absl::Status BatchShape(InferenceContext* c) {
  const int n = c->num_inputs();
  for (int i = 0; i < n; ++i) {
    PartialShape out;
    DFX_RETURN_IF_ERROR(DimZeroUnknown(c, c->input(i), &out));
    c->set_output(i, out);
  }
  c->set_output(n, PartialShape::Known({-1, 3}));
  c->set_output(n + 1, PartialShape::Scalar());
  return absl::OkStatus();
}

// Unbatch: the batched tensor with dim 0 unknown.
absl::Status UnbatchShape(InferenceContext* c) {
  PartialShape out;
  DFX_RETURN_IF_ERROR(DimZeroUnknown(c, c->input(0), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

// UnbatchGrad: the gradient's rank, every dim unknown.
absl::Status UnbatchGradShape(InferenceContext* c) {
  const PartialShape& grad = c->input(2);
  c->set_output(
      0, grad.RankKnown() ? UnknownDims(grad.rank()) : PartialShape::Unknown());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterBatchingOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(RegisterCommunicating(
      r, OpDefBuilder("BatchFunction")
             .Input("in_tensors: Tin")
             .Input("captured_tensors: Tcaptured")
             .Output("out_tensors: Tout")
             .Attr("f: func")
             .Attr("num_batch_threads: int")
             .Attr("max_batch_size: int")
             .Attr("batch_timeout_micros: int")
             .Attr("max_enqueued_batches: int = 10")
             .Attr("allowed_batch_sizes: list(int) = []")
             .Attr("container: string = ''")
             .Attr("shared_name: string = ''")
             .Attr("batching_queue: string = ''")
             .Attr("low_priority_max_batch_size: int = 0")
             .Attr("low_priority_batch_timeout_micros: int = 0")
             .Attr("low_priority_allowed_batch_sizes: list(int) = []")
             .Attr("low_priority_max_enqueued_batches: int = 0")
             .Attr("mixed_priority_policy: "
                   "{'low_priority_padding_with_max_batch_size', "
                   "'low_priority_padding_with_next_allowed_batch_size', "
                   "'priority_isolation', 'priority_merge'} = "
                   "'low_priority_padding_with_max_batch_size'")
             .Attr("batch_padding_policy: "
                   "{'PAD_UP', 'BATCH_DOWN', "
                   "'MINIMIZE_TPU_COST_PER_REQUEST'} = 'PAD_UP'")
             .Attr("Tin: list(type) >= 1")
             .Attr("Tcaptured: list(type) >= 0")
             .Attr("Tout: list(type) >= 1")
             .Attr("enable_large_batch_splitting: bool = false")
             .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      RegisterCommunicating(r, OpDefBuilder("Batch")
                                   .Input("in_tensors: T")
                                   .Output("batched_tensors: T")
                                   .Output("batch_index: int64")
                                   .Output("id: int64")
                                   .Attr("num_batch_threads: int")
                                   .Attr("max_batch_size: int")
                                   .Attr("max_enqueued_batches: int = 10")
                                   .Attr("batch_timeout_micros: int")
                                   .Attr("allowed_batch_sizes: list(int) = []")
                                   .Attr("grad_timeout_micros: int")
                                   .Attr("container: string = ''")
                                   .Attr("shared_name: string = ''")
                                   .Attr("batching_queue: string = ''")
                                   .Attr("T: list(type) >= 1")
                                   .SetShapeFn(BatchShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Unbatch")
                                      .Input("batched_tensor: T")
                                      .Input("batch_index: int64")
                                      .Input("id: int64")
                                      .Output("unbatched_tensor: T")
                                      .Attr("timeout_micros: int")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .Attr("T: type")
                                      .SetShapeFn(UnbatchShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("UnbatchGrad")
                                      .Input("original_input: T")
                                      .Input("batch_index: int64")
                                      .Input("grad: T")
                                      .Input("id: int64")
                                      .Output("batched_grad: T")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .Attr("T: type")
                                      .SetShapeFn(UnbatchGradShape)));
  return absl::OkStatus();
}

}  // namespace dfx

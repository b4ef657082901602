// Queues and conditional accumulators: what TensorFlow's synchronous
// parameter servers (SyncReplicasOptimizer) and TF1 input pipelines build.
// FIFOQueueV2 and PaddingFIFOQueueV2 with QueueEnqueue(Many)V2,
// QueueDequeue(Many|UpTo)V2, QueueCloseV2, QueueSizeV2 and QueueIsClosedV2,
// and their TF1 forms without "V2" (reference string handles, which older
// GraphDefs hold);
// ConditionalAccumulator and SparseConditionalAccumulator (reference string
// handles) with their Accumulator*/SparseAccumulator* ops, and the
// Resource* forms of the dense accumulator ops. Signatures equal TensorFlow
// 2.21's byte for byte (tests/kernels/queue_test.cc compares them with
// tests/golden/data/queues/tf_op_defs.pbtxt, written by gen_queues.py). The
// kernels are in kernels/data_flow/queue_kernels.cc and
// accumulator_kernels.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// A reference accumulator's handle: TensorFlow's [2] strings.
absl::Status RefHandle(InferenceContext* c) {
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// Outputs of unknown shape: dfx does not carry a queue's shapes on its
// handle.
absl::Status UnknownOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

// DequeueMany/UpTo: `n` is a scalar.
absl::Status DequeueManyShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  return UnknownOutputs(c);
}

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// Input 1 (a step) is a scalar; no outputs.
absl::Status ScalarInput1(InferenceContext* c) {
  return c->WithRank(c->input(1), 0);
}

absl::Status TakeGradientShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status SparseTakeGradientShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Unknown());
  c->set_output(2, PartialShape::Known({-1}));
  return absl::OkStatus();
}

OpDefBuilder QueueOp(const char* name, const char* handle) {
  return std::move(OpDefBuilder(name)
                       .Output(handle)
                       .Attr("component_types: list(type) >= 1")
                       .Attr("shapes: list(shape) >= 0 = []")
                       .Attr("capacity: int = -1")
                       .Attr("container: string = ''")
                       .Attr("shared_name: string = ''")
                       .SetIsStateful());
}

// The ops on a queue: `v1` the TF1 forms (a reference to TensorFlow's [2]
// string handle; TensorFlow does not mark them stateful, as they reach
// their state through the reference), otherwise the V2 forms.
absl::Status RegisterQueueUsers(OpRegistry* r, bool v1) {
  const std::string v = v1 ? "" : "V2";
  const char* handle = v1 ? "handle: Ref(string)" : "handle: resource";
  auto op = [&](const char* base) {
    OpDefBuilder b(absl::StrCat(base, v));
    b.Input(handle);
    return b;
  };
  auto stateful = [&](OpDefBuilder& b) -> OpDefBuilder& {
    if (!v1) b.SetIsStateful();
    return b;
  };
  for (const char* name : {"QueueEnqueue", "QueueEnqueueMany"}) {
    OpDefBuilder b = op(name);
    b.Input("components: Tcomponents")
        .Attr("Tcomponents: list(type) >= 1")
        .Attr("timeout_ms: int = -1");
    DFX_RETURN_IF_ERROR(r->Register(stateful(b).SetShapeFn(NoOutputs)));
  }
  {
    OpDefBuilder b = op("QueueDequeue");
    b.Output("components: component_types")
        .Attr("component_types: list(type) >= 1")
        .Attr("timeout_ms: int = -1");
    DFX_RETURN_IF_ERROR(r->Register(stateful(b).SetShapeFn(UnknownOutputs)));
  }
  for (const char* name : {"QueueDequeueMany", "QueueDequeueUpTo"}) {
    OpDefBuilder b = op(name);
    b.Input("n: int32")
        .Output("components: component_types")
        .Attr("component_types: list(type) >= 1")
        .Attr("timeout_ms: int = -1");
    DFX_RETURN_IF_ERROR(
        r->Register(stateful(b).SetShapeFn(DequeueManyShape)));
  }
  {
    OpDefBuilder b = op("QueueClose");
    b.Attr("cancel_pending_enqueues: bool = false");
    DFX_RETURN_IF_ERROR(r->Register(stateful(b).SetShapeFn(NoOutputs)));
  }
  {
    OpDefBuilder b = op("QueueSize");
    b.Output("size: int32");
    DFX_RETURN_IF_ERROR(r->Register(stateful(b).SetShapeFn(ScalarOutput)));
  }
  {
    OpDefBuilder b = op("QueueIsClosed");
    b.Output("is_closed: bool");
    DFX_RETURN_IF_ERROR(r->Register(stateful(b).SetShapeFn(ScalarOutput)));
  }
  return absl::OkStatus();
}

OpDefBuilder AccumulatorOp(const char* name, const char* handle) {
  return std::move(OpDefBuilder(name)
                       .Output(handle)
                       .Attr("dtype: numbertype")
                       .Attr("shape: shape")
                       .Attr("container: string = ''")
                       .Attr("shared_name: string = ''")
                       .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
                       .SetIsStateful());
}

}  // namespace

absl::Status RegisterQueueOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      QueueOp("FIFOQueueV2", "handle: resource").SetShapeFn(ScalarHandle)));
  DFX_RETURN_IF_ERROR(
      r->Register(QueueOp("PaddingFIFOQueueV2", "handle: resource")
                      .SetShapeFn(ScalarHandle)));
  DFX_RETURN_IF_ERROR(RegisterQueueUsers(r, /*v1=*/false));
  DFX_RETURN_IF_ERROR(r->Register(
      QueueOp("FIFOQueue", "handle: Ref(string)").SetShapeFn(RefHandle)));
  DFX_RETURN_IF_ERROR(
      r->Register(QueueOp("PaddingFIFOQueue", "handle: Ref(string)")
                      .SetShapeFn(RefHandle)));
  DFX_RETURN_IF_ERROR(RegisterQueueUsers(r, /*v1=*/true));
  // Priority queues: the first component an int64 scalar; shapes must be
  // given (an empty list leaves them unconstrained).
  for (const bool v1 : {false, true}) {
    OpDefBuilder b(v1 ? "PriorityQueue" : "PriorityQueueV2");
    b.Output(v1 ? "handle: Ref(string)" : "handle: resource")
        .Attr("component_types: list(type) >= 0 = []")
        .Attr("shapes: list(shape) >= 0")
        .Attr("capacity: int = -1")
        .Attr("container: string = ''")
        .Attr("shared_name: string = ''")
        .SetIsStateful()
        .SetShapeFn(v1 ? RefHandle : ScalarHandle);
    DFX_RETURN_IF_ERROR(r->Register(std::move(b)));
  }

  // Accumulators. TensorFlow 2.21 marks the reference forms' consumers
  // stateless (they reach their state through the reference input) and
  // the Resource* ones stateful.
  DFX_RETURN_IF_ERROR(r->Register(
      AccumulatorOp("ConditionalAccumulator", "handle: Ref(string)")
          .SetShapeFn(RefHandle)));
  DFX_RETURN_IF_ERROR(r->Register(
      AccumulatorOp("SparseConditionalAccumulator", "handle: Ref(string)")
          .SetShapeFn(RefHandle)));
  DFX_RETURN_IF_ERROR(r->Register(
      AccumulatorOp("ResourceConditionalAccumulator", "handle: resource")
          .SetShapeFn(ScalarHandle)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AccumulatorApplyGradient")
                                      .Input("handle: Ref(string)")
                                      .Input("local_step: int64")
                                      .Input("gradient: dtype")
                                      .Attr("dtype: numbertype")
                                      .SetShapeFn(ScalarInput1)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ResourceAccumulatorApplyGradient")
                      .Input("handle: resource")
                      .Input("local_step: int64")
                      .Input("gradient: dtype")
                      .Attr("dtype: numbertype")
                      .SetIsStateful()
                      .SetShapeFn(ScalarInput1)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AccumulatorNumAccumulated")
                                      .Input("handle: Ref(string)")
                                      .Output("num_accumulated: int32")
                                      .SetShapeFn(ScalarOutput)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ResourceAccumulatorNumAccumulated")
                      .Input("handle: resource")
                      .Output("num_accumulated: int32")
                      .SetIsStateful()
                      .SetShapeFn(ScalarOutput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AccumulatorSetGlobalStep")
                                      .Input("handle: Ref(string)")
                                      .Input("new_global_step: int64")
                                      .SetShapeFn(ScalarInput1)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ResourceAccumulatorSetGlobalStep")
                      .Input("handle: resource")
                      .Input("new_global_step: int64")
                      .SetIsStateful()
                      .SetShapeFn(ScalarInput1)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AccumulatorTakeGradient")
                                      .Input("handle: Ref(string)")
                                      .Input("num_required: int32")
                                      .Output("average: dtype")
                                      .Attr("dtype: numbertype")
                                      .SetShapeFn(TakeGradientShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ResourceAccumulatorTakeGradient")
                      .Input("handle: resource")
                      .Input("num_required: int32")
                      .Output("average: dtype")
                      .Attr("dtype: numbertype")
                      .SetIsStateful()
                      .SetShapeFn(TakeGradientShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseAccumulatorApplyGradient")
                      .Input("handle: Ref(string)")
                      .Input("local_step: int64")
                      .Input("gradient_indices: int64")
                      .Input("gradient_values: dtype")
                      .Input("gradient_shape: int64")
                      .Attr("dtype: numbertype")
                      .Attr("has_known_shape: bool")
                      .SetShapeFn(ScalarInput1)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseAccumulatorTakeGradient")
                      .Input("handle: Ref(string)")
                      .Input("num_required: int32")
                      .Output("indices: int64")
                      .Output("values: dtype")
                      .Output("shape: int64")
                      .Attr("dtype: numbertype")
                      .SetShapeFn(SparseTakeGradientShape)));
  return absl::OkStatus();
}

}  // namespace dfx

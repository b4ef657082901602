// The seedfor family: small op types TensorFlow 2.21 graphs still hold.
// DeleteRandomSeedGenerator (DeleteSeedGenerator's older name; TensorFlow
// 2.21 cannot run its partner AnonymousRandomSeedGenerator, which dfx
// leaves out: see kernels/data/shuffle_kernels.cc), For (a functional
// for-loop, lowered like While) and the two internal ops its lowering uses,
// FakeParam, FakeQueue, FileSystemSetConfiguration, and TensorFlow's test
// ops SleepOp and SleepIdentityOp. Signatures follow TensorFlow 2.21's
// dataset_ops.cc, functional_ops.cc, array_ops.cc, data_flow_ops.cc,
// io_ops.cc and python/framework/test_ops.cc.
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// FakeParam: the attr's shape (TensorFlow's shape function sets it as
// given; the kernel makes unknown dimensions 0).
absl::Status FakeParamShape(InferenceContext* c) {
  TensorShapeProto shape;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &shape));
  c->set_output(0, PartialShape::FromProto(shape));
  return absl::OkStatus();
}

absl::Status RefHandle(InferenceContext* c) {
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

// SleepIdentityOp: the shape of `input` (TensorFlow's UnchangedShape names
// input 0, the scalar sleep_seconds; the kernel outputs input 1).
absl::Status SleepIdentityShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSeedforOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteRandomSeedGenerator")
                                      .Input("handle: resource")
                                      .Input("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  // For: no kernel runs it; the master lowers it (lower_functional_ops.h).
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("For")
                                      .Input("start: int32")
                                      .Input("limit: int32")
                                      .Input("delta: int32")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: list(type) >= 0")
                                      .Attr("body: func")
                                      .SetShapeFn(shape_fn::Unknown)));
  // The lowered For's pieces: _ForLoopStart passes `start` on once
  // start/limit/delta make a loop TensorFlow runs (else InvalidArgument as
  // TensorFlow's kernel says) and the loop's inputs (which it only waits
  // for) are there; _ForLoopCond is true while the loop goes on.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("_ForLoopStart")
                                      .Input("start: int32")
                                      .Input("limit: int32")
                                      .Input("delta: int32")
                                      .Input("input: T")
                                      .Output("iter: int32")
                                      .Attr("T: list(type) >= 0")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("_ForLoopCond")
                                      .Input("iter: int32")
                                      .Input("limit: int32")
                                      .Input("delta: int32")
                                      .Output("go_on: bool")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("FakeParam")
                                      .Output("output: dtype")
                                      .Attr("dtype: type")
                                      .Attr("shape: shape")
                                      .SetShapeFn(FakeParamShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("FakeQueue")
                                      .Input("resource: resource")
                                      .Output("handle: Ref(string)")
                                      .SetIsStateful()
                                      .SetShapeFn(RefHandle)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("FileSystemSetConfiguration")
                                      .Input("scheme: string")
                                      .Input("key: string")
                                      .Input("value: string")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SleepOp")
                                      .Input("sleep_seconds: int32")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SleepIdentityOp")
                                      .Input("sleep_seconds: int32")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(SleepIdentityShape)));
  return absl::OkStatus();
}

}  // namespace dfx

// Staging areas and barriers: TensorFlow's StagingArea (Stage, Unstage,
// StagePeek, StageSize, StageClear), MapStagingArea (MapStage, MapPeek,
// MapUnstage, MapUnstageNoKey, MapSize, MapIncompleteSize, MapClear and
// their Ordered* forms) and Barrier (Barrier, BarrierInsertMany,
// BarrierTakeMany, BarrierClose, BarrierReadySize, BarrierIncompleteSize),
// what tf.compat.v1's data_flow_ops front ends build. Signatures equal
// TensorFlow 2.21's byte for byte (tests/kernels/staging_test.cc compares
// them with tests/golden/data/staging/tf_op_defs.pbtxt, written by
// gen_staging.py). The kernels are in kernels/data_flow/staging_kernels.cc
// and barrier_kernels.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

absl::Status UnknownOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// The attrs of every staging op, in TensorFlow's order; `dtypes_min`:
// whether dtypes has "minimum: 1" (the ops that output or take its tuple).
OpDefBuilder StagingOp(const std::string& name, bool dtypes_min,
                       bool fake_dtypes = false) {
  OpDefBuilder b(name);
  b.Attr("capacity: int >= 0 = 0").Attr("memory_limit: int >= 0 = 0");
  b.Attr(dtypes_min ? "dtypes: list(type) >= 1" : "dtypes: list(type)");
  if (fake_dtypes) b.Attr("fake_dtypes: list(type) >= 1");
  b.Attr("container: string = ''").Attr("shared_name: string = ''");
  b.SetIsStateful();
  return b;
}

absl::Status RegisterMapOps(OpRegistry* r, const std::string& prefix) {
  auto name = [&](const char* base) { return absl::StrCat(prefix, base); };
  {
    OpDefBuilder b = StagingOp(name("MapStage"), false, true);
    b.Input("key: int64").Input("indices: int32").Input("values: fake_dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(NoOutputs)));
  }
  for (const char* base : {"MapPeek", "MapUnstage"}) {
    OpDefBuilder b = StagingOp(name(base), true);
    b.Input("key: int64").Input("indices: int32").Output("values: dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(UnknownOutputs)));
  }
  {
    OpDefBuilder b = StagingOp(name("MapUnstageNoKey"), true);
    b.Input("indices: int32").Output("key: int64").Output("values: dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(UnknownOutputs)));
  }
  for (const char* base : {"MapSize", "MapIncompleteSize"}) {
    OpDefBuilder b = StagingOp(name(base), false);
    b.Output("size: int32");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(ScalarOutput)));
  }
  OpDefBuilder clear = StagingOp(name("MapClear"), false);
  return r->Register(clear.SetShapeFn(NoOutputs));
}

// A barrier's handle: TensorFlow's [2] strings.
absl::Status RefHandle(InferenceContext* c) {
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

absl::Status CheckRefHandle(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  const int64_t d = c->input(0).RankKnown() ? c->input(0).dims[0] : -1;
  if (d >= 0 && d != 2) {
    return c->Error(absl::StrCat("a barrier handle has 2 elements, got ", d));
  }
  return absl::OkStatus();
}

absl::Status HandleToScalar(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckRefHandle(c));
  if (c->num_outputs() > 0) c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// keys a vector, values a batch of as many rows.
absl::Status InsertManyShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckRefHandle(c));
  const PartialShape& keys = c->input(1);
  const PartialShape& values = c->input(2);
  DFX_RETURN_IF_ERROR(c->WithRank(keys, 1));
  if (values.RankKnown() && values.rank() < 1) {
    return c->Error(
        absl::StrCat("values must have rank >= 1, got ", values.DebugString()));
  }
  if (keys.RankKnown() && values.RankKnown()) {
    int64_t unused = 0;
    DFX_RETURN_IF_ERROR(c->MergeDim(keys.dims[0], values.dims[0], &unused));
  }
  return absl::OkStatus();
}

absl::Status RegisterBarrierOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Barrier")
                                      .Output("handle: Ref(string)")
                                      .Attr("component_types: list(type) >= 1")
                                      .Attr("shapes: list(shape) >= 0 = []")
                                      .Attr("capacity: int = -1")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(RefHandle)));
  // TensorFlow 2.21 does not mark the others stateful: they reach the
  // barrier through the reference input.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("BarrierInsertMany")
                                      .Input("handle: Ref(string)")
                                      .Input("keys: string")
                                      .Input("values: T")
                                      .Attr("T: type")
                                      .Attr("component_index: int")
                                      .SetShapeFn(InsertManyShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("BarrierTakeMany")
                                      .Input("handle: Ref(string)")
                                      .Input("num_elements: int32")
                                      .Output("indices: int64")
                                      .Output("keys: string")
                                      .Output("values: component_types")
                                      .Attr("component_types: list(type) >= 1")
                                      .Attr("allow_small_batch: bool = false")
                                      .Attr("wait_for_incomplete: bool = false")
                                      .Attr("timeout_ms: int = -1")
                                      .SetShapeFn(UnknownOutputs)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("BarrierClose")
                      .Input("handle: Ref(string)")
                      .Attr("cancel_pending_enqueues: bool = false")
                      .SetShapeFn(HandleToScalar)));
  for (const char* name : {"BarrierReadySize", "BarrierIncompleteSize"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("handle: Ref(string)")
                                        .Output("size: int32")
                                        .SetShapeFn(HandleToScalar)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterStagingOps(OpRegistry* r) {
  {
    OpDefBuilder b = StagingOp("Stage", true);
    b.Input("values: dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(NoOutputs)));
  }
  {
    OpDefBuilder b = StagingOp("Unstage", true);
    b.Output("values: dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(UnknownOutputs)));
  }
  {
    OpDefBuilder b = StagingOp("StagePeek", true);
    b.Input("index: int32").Output("values: dtypes");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(UnknownOutputs)));
  }
  {
    OpDefBuilder b = StagingOp("StageSize", false);
    b.Output("size: int32");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(ScalarOutput)));
  }
  {
    OpDefBuilder b = StagingOp("StageClear", false);
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(NoOutputs)));
  }
  DFX_RETURN_IF_ERROR(RegisterMapOps(r, ""));
  DFX_RETURN_IF_ERROR(RegisterMapOps(r, "Ordered"));
  return RegisterBarrierOps(r);
}

}  // namespace dfx

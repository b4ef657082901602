// Counting and bucketing ops: Bincount, DenseBincount, Bucketize,
// HistogramFixedWidth, InTopK, InTopKV2, Roll, UniqueV2, UniqueWithCounts,
// UniqueWithCountsV2. Signatures follow TensorFlow 2.21's math_ops.cc,
// array_ops.cc, manip_ops.cc and nn_ops.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// [value of scalar input i] when it is a constant, else [-1].
PartialShape VectorOfConstant(InferenceContext* c, int i) {
  std::vector<int64_t> v;
  if (ConstantInts(c->input_tensor(i), &v) && v.size() == 1 && v[0] >= 0) {
    return PartialShape::Known({v[0]});
  }
  return PartialShape::Known({-1});
}

absl::Status BincountShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, VectorOfConstant(c, 1));
  return absl::OkStatus();
}

absl::Status DenseBincountShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  if (in.RankKnown() && in.rank() > 2) {
    return c->Error("Shape must be at most rank 2 but is rank " +
                    std::to_string(in.rank()));
  }
  const int64_t size = VectorOfConstant(c, 1).dims[0];
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
  } else if (in.rank() == 2) {
    c->set_output(0, PartialShape::Known({in.dims[0], size}));
  } else {
    c->set_output(0, PartialShape::Known({size}));
  }
  return absl::OkStatus();
}

absl::Status HistogramShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  c->set_output(0, VectorOfConstant(c, 2));
  return absl::OkStatus();
}

// InTopKV2, and InTopK (v1: k an attr, no third input).
absl::Status InTopKShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  if (c->num_inputs() == 3) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  }
  int64_t batch = -1;
  const PartialShape& p = c->input(0);
  const PartialShape& t = c->input(1);
  DFX_RETURN_IF_ERROR(c->MergeDim(p.RankKnown() ? p.dims[0] : -1,
                                  t.RankKnown() ? t.dims[0] : -1, &batch));
  c->set_output(0, PartialShape::Known({batch}));
  return absl::OkStatus();
}

absl::Status UniqueWithCountsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(
      1, c->input(0).RankKnown() ? c->input(0) : PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({-1}));
  return absl::OkStatus();
}

// With an axis the unique slices' count is known only at run time.
absl::Status UniqueAxisShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& in = c->input(0);
  c->set_output(
      0, in.RankKnown() ? UnknownDims(in.rank()) : PartialShape::Unknown());
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Known({-1}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCountingOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Bincount")
                      .Input("arr: int32")
                      .Input("size: int32")
                      .Input("weights: T")
                      .Output("bins: T")
                      .Attr("T: {int32, int64, float32, float64}")
                      .SetShapeFn(BincountShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DenseBincount")
                      .Input("input: Tidx")
                      .Input("size: Tidx")
                      .Input("weights: T")
                      .Output("output: T")
                      .Attr("Tidx: {int32, int64}")
                      .Attr("T: {int32, int64, float32, float64}")
                      .Attr("binary_output: bool = false")
                      .SetShapeFn(DenseBincountShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Bucketize")
                                      .Input("input: T")
                                      .Output("output: int32")
                                      .Attr("T: {int32, int64, float, double}")
                                      .Attr("boundaries: list(float)")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("HistogramFixedWidth")
                      .Input("values: T")
                      .Input("value_range: T")
                      .Input("nbins: int32")
                      .Output("out: dtype")
                      .Attr("T: {int32, int64, float32, float64}")
                      .Attr("dtype: {int32, int64} = DT_INT32")
                      .SetShapeFn(HistogramShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InTopKV2")
                                      .Input("predictions: float")
                                      .Input("targets: T")
                                      .Input("k: T")
                                      .Output("precision: bool")
                                      .Attr("T: {int32, int64} = DT_INT32")
                                      .SetShapeFn(InTopKShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InTopK")
                                      .Input("predictions: float")
                                      .Input("targets: T")
                                      .Output("precision: bool")
                                      .Attr("k: int")
                                      .Attr("T: {int32, int64} = DT_INT32")
                                      .SetShapeFn(InTopKShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Roll")
                                      .Input("input: T")
                                      .Input("shift: Tshift")
                                      .Input("axis: Taxis")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tshift: {int32, int64}")
                                      .Attr("Taxis: {int32, int64}")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("UniqueV2")
                      .Input("x: T")
                      .Input("axis: Taxis")
                      .Output("y: T")
                      .Output("idx: out_idx")
                      .Attr("T: type")
                      .Attr("Taxis: {int32, int64} = DT_INT64")
                      .Attr("out_idx: {int32, int64} = DT_INT32")
                      .SetShapeFn(UniqueAxisShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("UniqueWithCounts")
                      .Input("x: T")
                      .Output("y: T")
                      .Output("idx: out_idx")
                      .Output("count: out_idx")
                      .Attr("T: type")
                      .Attr("out_idx: {int32, int64} = DT_INT32")
                      .SetShapeFn(UniqueWithCountsShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("UniqueWithCountsV2")
                      .Input("x: T")
                      .Input("axis: Taxis")
                      .Output("y: T")
                      .Output("idx: out_idx")
                      .Output("count: out_idx")
                      .Attr("T: type")
                      .Attr("Taxis: {int32, int64} = DT_INT64")
                      .Attr("out_idx: {int32, int64} = DT_INT32")
                      .SetShapeFn(UniqueAxisShape)));
  return absl::OkStatus();
}

}  // namespace dfx

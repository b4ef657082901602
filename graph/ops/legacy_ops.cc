// The legacy family: ops old TF1 GraphDefs (and some new ones) hold that
// belong to no other family: Diag, DiagPart, ToBool, GuaranteeConst,
// DeepCopy, NextAfter, Spence, Dawsn, Expint, FresnelCos, FresnelSin,
// DataFormatDimMap, DataFormatVecPermute,
// Cross and BatchNormWithGlobalNormalization (and its Grad, deprecated at
// version 9).
// Signatures follow TensorFlow 2.21's array_ops.cc, math_ops.cc, nn_ops.cc
// and control_flow_ops.cc. The deprecated old names of existing ops are
// registered beside those (matrix_ops.cc, volumetric_ops.cc).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kDiagTypes[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, "
    "complex128}";

// Diag: [d...] -> [d..., d...].
absl::Status DiagShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() < 1) {
    return c->Error(absl::StrCat("Shape must be at least rank 1 but is rank ",
                                 in.rank()));
  }
  PartialShape out = in;
  out.dims.insert(out.dims.end(), in.dims.begin(), in.dims.end());
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// DiagPart: [d..., d...] -> [d...], the halves merged.
absl::Status DiagPartShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = in.rank();
  if (rank % 2 != 0 || rank <= 0) {
    return c->Error(absl::StrCat(
        "Input must have even and non-zero rank, input rank is ", rank));
  }
  const int half = rank / 2;
  PartialShape out = PartialShape::Known({});
  for (int i = 0; i < half; ++i) {
    int64_t d = 0;
    DFX_RETURN_IF_ERROR(c->MergeDim(in.dims[i], in.dims[i + half], &d));
    out.dims.push_back(d);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Cross: two [..., 3] tensors of one shape.
absl::Status CrossShape(InferenceContext* c) {
  for (int i = 0; i < 2; ++i) {
    if (c->input(i).RankKnown() && c->input(i).rank() < 1) {
      return c->Error(absl::StrCat(
          "Shape must be at least rank 1 but is rank ", c->input(i).rank()));
    }
  }
  PartialShape out;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  if (out.RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(out.dims.back(), 3, &out.dims.back()));
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// BatchNormWithGlobalNormalization(Grad): a [N, H, W, C] input (and
// backprop, input 4 of the Grad) and vectors of C; the outputs are the
// input's shape, then (Grad) four vectors of C.
absl::Status BatchNormGlobalShape(InferenceContext* c) {
  const bool grad = c->num_outputs() > 1;
  PartialShape input = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
  if (grad) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(4), 4));
    DFX_RETURN_IF_ERROR(c->Merge(input, c->input(4), &input));
  }
  if (!input.RankKnown()) input = UnknownDims(4);
  int64_t depth = input.dims[3];
  for (int i = 1; i < (grad ? 4 : 5); ++i) {
    const PartialShape& vec = c->input(i);
    DFX_RETURN_IF_ERROR(c->WithRank(vec, 1));
    if (vec.RankKnown()) {
      DFX_RETURN_IF_ERROR(c->MergeDim(depth, vec.dims[0], &depth));
    }
  }
  input.dims[3] = depth;
  c->set_output(0, input);
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Known({depth}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterLegacyOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Diag")
                                      .Input("diagonal: T")
                                      .Output("output: T")
                                      .Attr(kDiagTypes)
                                      .SetShapeFn(DiagShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DiagPart")
                                      .Input("input: T")
                                      .Output("diagonal: T")
                                      .Attr(kDiagTypes)
                                      .SetShapeFn(DiagPartShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ToBool")
                                      .Input("input: T")
                                      .Output("output: bool")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::Scalar)));
  for (const char* name : {"GuaranteeConst", "DeepCopy"}) {
    const bool guarantee = std::string(name) == "GuaranteeConst";
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input(guarantee ? "input: T" : "x: T")
                                        .Output(guarantee ? "output: T" : "y: T")
                                        .Attr("T: type")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("NextAfter")
                                      .Input("x1: T")
                                      .Input("x2: T")
                                      .Output("output: T")
                                      .Attr("T: {float64, float32} = DT_FLOAT")
                                      .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  // Cephes' special integrals (math_ops.cc in TensorFlow).
  for (const char* name :
       {"Spence", "Dawsn", "Expint", "FresnelCos", "FresnelSin"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("x: T")
                        .Output("y: T")
                        .Attr("T: {bfloat16, half, float, double}")
                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  for (const char* name : {"DataFormatDimMap", "DataFormatVecPermute"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("x: T")
                                        .Output("y: T")
                                        .Attr("T: {int32, int64} = DT_INT32")
                                        .Attr("src_format: string = 'NHWC'")
                                        .Attr("dst_format: string = 'NCHW'")
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Cross")
                      .Input("a: T")
                      .Input("b: T")
                      .Output("product: T")
                      .Attr("T: {float, double, int32, uint8, int16, int8, "
                            "int64, bfloat16, uint16, half, uint32, uint64}")
                      .SetShapeFn(CrossShape)));
  for (const char* name : {"BatchNormWithGlobalNormalization",
                           "BatchNormWithGlobalNormalizationGrad"}) {
    const bool grad = std::string(name) != "BatchNormWithGlobalNormalization";
    OpDefBuilder b(name);
    b.Input("t: T").Input("m: T").Input("v: T");
    if (grad) {
      b.Input("gamma: T").Input("backprop: T");
      for (const char* out : {"dx: T", "dm: T", "dv: T", "db: T", "dg: T"}) {
        b.Output(out);
      }
    } else {
      b.Input("beta: T").Input("gamma: T").Output("result: T");
    }
    b.Attr("T: numbertype")
        .Attr("variance_epsilon: float")
        .Attr("scale_after_normalization: bool")
        .SetShapeFn(BatchNormGlobalShape);
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data, b.Finalize());
    data.op_def.mutable_deprecation()->set_version(9);
    data.op_def.mutable_deprecation()->set_explanation(
        "Use tf.nn.batch_normalization()");
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  return absl::OkStatus();
}

}  // namespace dfx

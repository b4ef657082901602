// Quantization-aware-training ops: FakeQuantWithMinMaxArgs/Vars/
// VarsPerChannel with their gradients, and QuantizeAndDequantize (v1,
// deprecated), V2/V3/V4 with V4's gradient. Signatures follow TensorFlow 2.21's array_ops.cc.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/misc_ops.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kQdqTypes[] = "T: {bfloat16, half, float, double}";

OpDefBuilder& FakeQuantAttrs(OpDefBuilder& b) {
  return b.Attr("num_bits: int = 8").Attr("narrow_range: bool = false");
}

// Inputs `first_range` and `first_range + 1` (min and max) have rank
// `range_rank`; output 0 has the shape of input `data`.
absl::Status FakeQuantVarsShape(InferenceContext* c, int data,
                                int first_range, int range_rank) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(first_range), range_rank));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(first_range + 1), range_rank));
  PartialShape data_shape = c->input(data);
  if (data > 0) {
    // A gradient op: gradients and inputs describe the same tensor.
    DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(data), &data_shape));
  }
  if (range_rank == 1) {
    if (data_shape.RankKnown() && data_shape.rank() < 1) {
      return c->Error(absl::StrCat("Shape must be at least rank 1 but is rank ",
                                   data_shape.rank()));
    }
    int64_t depth = data_shape.RankKnown() ? data_shape.dims.back() : -1;
    for (int i = first_range; i < first_range + 2; ++i) {
      if (c->input(i).RankKnown()) {
        DFX_RETURN_IF_ERROR(c->MergeDim(depth, c->input(i).dims[0], &depth));
      }
    }
    if (data_shape.RankKnown()) data_shape.dims.back() = depth;
    for (int i = 1; i < c->num_outputs(); ++i) {
      c->set_output(i, PartialShape::Known({depth}));
    }
  } else {
    for (int i = 1; i < c->num_outputs(); ++i) {
      c->set_output(i, PartialShape::Scalar());
    }
  }
  c->set_output(0, std::move(data_shape));
  return absl::OkStatus();
}

// QuantizeAndDequantizeV2/V3/V4 and V4Grad: the output has the input's
// shape; min and max are scalars (axis -1) or vectors of the axis' size.
absl::Status QdqShape(InferenceContext* c, int data) {
  int64_t axis = -1;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "axis", &axis));
  if (axis < -1) {
    return c->Error(absl::StrCat("axis should be at least -1, got ", axis));
  }
  PartialShape data_shape = c->input(data);
  if (data > 0) {
    DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(data), &data_shape));
  }
  const int range_rank = axis == -1 ? 0 : 1;
  int64_t depth = -1;
  if (axis != -1 && data_shape.RankKnown()) {
    if (data_shape.rank() <= axis) {
      return c->Error(absl::StrCat("Shape must be at least rank ", axis + 1,
                                   " but is rank ", data_shape.rank()));
    }
    depth = data_shape.dims[axis];
  }
  for (int i = data + 1; i < data + 3; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), range_rank));
    if (range_rank == 1 && c->input(i).RankKnown()) {
      DFX_RETURN_IF_ERROR(c->MergeDim(depth, c->input(i).dims[0], &depth));
    }
  }
  c->set_output(0, std::move(data_shape));
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, range_rank == 0 ? PartialShape::Scalar()
                                     : PartialShape::Known({depth}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterQuantizationOps(OpRegistry* r) {
  {
    OpDefBuilder b("FakeQuantWithMinMaxArgs");
    b.Input("inputs: float")
        .Output("outputs: float")
        .Attr("min: float = -6.0")
        .Attr("max: float = 6.0");
    FakeQuantAttrs(b).SetShapeFn(shape_fn::UnchangedShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("FakeQuantWithMinMaxArgsGradient");
    b.Input("gradients: float")
        .Input("inputs: float")
        .Output("backprops: float")
        .Attr("min: float = -6.0")
        .Attr("max: float = 6.0");
    FakeQuantAttrs(b).SetShapeFn([](InferenceContext* c) {
      PartialShape merged;
      DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
      c->set_output(0, std::move(merged));
      return absl::OkStatus();
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name :
       {"FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"}) {
    const int range_rank =
        std::string(name) == "FakeQuantWithMinMaxVars" ? 0 : 1;
    OpDefBuilder b(name);
    b.Input("inputs: float")
        .Input("min: float")
        .Input("max: float")
        .Output("outputs: float");
    FakeQuantAttrs(b).SetShapeFn([range_rank](InferenceContext* c) {
      return FakeQuantVarsShape(c, 0, 1, range_rank);
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"FakeQuantWithMinMaxVarsGradient",
                           "FakeQuantWithMinMaxVarsPerChannelGradient"}) {
    const int range_rank =
        std::string(name) == "FakeQuantWithMinMaxVarsGradient" ? 0 : 1;
    OpDefBuilder b(name);
    b.Input("gradients: float")
        .Input("inputs: float")
        .Input("min: float")
        .Input("max: float")
        .Output("backprops_wrt_input: float")
        .Output("backprop_wrt_min: float")
        .Output("backprop_wrt_max: float");
    FakeQuantAttrs(b).SetShapeFn([range_rank](InferenceContext* c) {
      return FakeQuantVarsShape(c, 1, 2, range_rank);
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input("input: T")
            .Input("input_min: T")
            .Input("input_max: T")
            .Output("output: T")
            .Attr("signed_input: bool = true")
            .Attr("num_bits: int = 8")
            .Attr("range_given: bool = false")
            .Attr(kQdqTypes)
            .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
            .Attr("narrow_range: bool = false")
            .Attr("axis: int = -1")
            .SetShapeFn([](InferenceContext* c) { return QdqShape(c, 0); })));
  }
  {
    // Deprecated at GraphDef version 22: older graphs still run it.
    OpDefBuilder b("QuantizeAndDequantize");
    b.Input("input: T")
        .Output("output: T")
        .Attr("signed_input: bool = true")
        .Attr("num_bits: int = 8")
        .Attr("range_given: bool = false")
        .Attr("input_min: float = 0")
        .Attr("input_max: float = 0")
        .Attr(kQdqTypes)
        .SetShapeFn(shape_fn::UnchangedShape);
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data, b.Finalize());
    data.op_def.mutable_deprecation()->set_version(22);
    data.op_def.mutable_deprecation()->set_explanation(
        "Replaced by QuantizeAndDequantizeV2");
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("QuantizeAndDequantizeV3")
          .Input("input: T")
          .Input("input_min: T")
          .Input("input_max: T")
          .Input("num_bits: int32")
          .Output("output: T")
          .Attr("signed_input: bool = true")
          .Attr("range_given: bool = true")
          .Attr(kQdqTypes)
          .Attr("narrow_range: bool = false")
          .Attr("axis: int = -1")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
            return QdqShape(c, 0);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("QuantizeAndDequantizeV4Grad")
          .Input("gradients: T")
          .Input("input: T")
          .Input("input_min: T")
          .Input("input_max: T")
          .Output("input_backprop: T")
          .Output("input_min_backprop: T")
          .Output("input_max_backprop: T")
          .Attr(kQdqTypes)
          .Attr("axis: int = -1")
          .SetShapeFn([](InferenceContext* c) { return QdqShape(c, 1); })));
  return absl::OkStatus();
}

}  // namespace dfx

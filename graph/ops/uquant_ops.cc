// The uquant family: TensorFlow's uniform quantized ops, whose levels mean
// (level - zero_point) * scale with a scale and zero point per tensor or
// per slice along one axis: UniformQuantize, UniformDequantize,
// UniformRequantize, UniformQuantizedAdd, UniformQuantizedClipByValue,
// UniformQuantizedDot, UniformQuantizedDotHybrid,
// UniformQuantizedConvolution(Hybrid); and the per-channel
// requantization of qint32 NHWC tensors, RequantizePerChannel and
// RequantizationRangePerChannel, and oneDNN's QuantizedConcatV2. Signatures
// follow TensorFlow 2.21's uniform_quant_ops.cc and array_ops.cc; each shape
// function gives the output's shape and checks the ranks TensorFlow's do.
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace dfx {
namespace {

// Scales and zero points are scalars or vectors of the same rank.
absl::Status ScalesAndZeroPoints(InferenceContext* c, int scales) {
  const PartialShape& s = c->input(scales);
  const PartialShape& z = c->input(scales + 1);
  for (const PartialShape* p : {&s, &z}) {
    if (p->RankKnown() && p->rank() > 1) {
      return c->Error(
          absl::StrCat("Shape must be at most rank 1 but is rank ", p->rank()));
    }
  }
  if (s.RankKnown() && z.RankKnown() && s.rank() != z.rank()) {
    return c->Error("scales and zero_points must have same rank.");
  }
  return absl::OkStatus();
}

// Output 0 has input 0's shape; scales and zero points from `scales` on.
ShapeFn Unchanged(std::initializer_list<int> scale_inputs) {
  std::vector<int> inputs(scale_inputs);
  return [inputs](InferenceContext* c) {
    for (int i : inputs) DFX_RETURN_IF_ERROR(ScalesAndZeroPoints(c, i));
    c->set_output(0, c->input(0));
    return absl::OkStatus();
  };
}

// [lhs rows, rhs columns] of two matrices whose inner dims agree.
absl::Status DotShape(InferenceContext* c) {
  const PartialShape& lhs = c->input(0);
  const PartialShape& rhs = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(lhs, 2));
  DFX_RETURN_IF_ERROR(c->WithRank(rhs, 2));
  int64_t inner = -1;
  DFX_RETURN_IF_ERROR(c->MergeDim(lhs.RankKnown() ? lhs.dims[1] : -1,
                                  rhs.RankKnown() ? rhs.dims[0] : -1, &inner));
  for (int i = 2; i + 1 < c->num_inputs(); i += 2) {
    DFX_RETURN_IF_ERROR(ScalesAndZeroPoints(c, i));
  }
  c->set_output(0, PartialShape::Known({lhs.RankKnown() ? lhs.dims[0] : -1,
                                        rhs.RankKnown() ? rhs.dims[1] : -1}));
  return absl::OkStatus();
}

// The three attrs of one quantized operand: `<prefix>quantization_axis`
// (default -1, per tensor) and its level range.
OpDefBuilder& QuantizationAttrs(OpDefBuilder& b, const std::string& prefix,
                                bool axis = true) {
  if (axis) b.Attr(absl::StrCat(prefix, "quantization_axis: int = -1"));
  return b.Attr(absl::StrCat(prefix, "quantization_min_val: int"))
      .Attr(absl::StrCat(prefix, "quantization_max_val: int"));
}

}  // namespace

absl::Status RegisterUquantOps(OpRegistry* r) {
  {
    OpDefBuilder b("UniformQuantize");
    b.Input("input: Tin")
        .Input("scales: float")
        .Input("zero_points: int32")
        .Output("output: Tout")
        .Attr("Tin: {float}")
        .Attr("Tout: {qint8, quint8, qint32}");
    QuantizationAttrs(b, "").SetShapeFn(Unchanged({1}));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformDequantize");
    b.Input("input: Tin")
        .Input("scales: float")
        .Input("zero_points: int32")
        .Output("output: Tout")
        .Attr("Tin: {qint8, quint8, qint32}")
        .Attr("Tout: {float}");
    QuantizationAttrs(b, "").SetShapeFn(Unchanged({1}));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformRequantize");
    b.Input("input: Tin")
        .Input("input_scales: float")
        .Input("input_zero_points: int32")
        .Input("output_scales: float")
        .Input("output_zero_points: int32")
        .Output("output: Tout")
        .Attr("Tin: {qint8, qint32}")
        .Attr("Tout: {qint8, qint32}");
    QuantizationAttrs(b, "input_");
    QuantizationAttrs(b, "output_").SetShapeFn(Unchanged({1, 3}));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformQuantizedAdd");
    b.Input("lhs: T").Input("rhs: T");
    for (const char* side : {"lhs", "rhs", "output"}) {
      b.Input(absl::StrCat(side, "_scales: float"))
          .Input(absl::StrCat(side, "_zero_points: int32"));
    }
    b.Output("output: T");
    for (const char* side : {"lhs_", "rhs_", "output_"}) {
      QuantizationAttrs(b, side);
    }
    b.Attr("T: {qint32}").SetShapeFn([](InferenceContext* c) {
      for (int i : {2, 4, 6}) DFX_RETURN_IF_ERROR(ScalesAndZeroPoints(c, i));
      return shape_fn::BroadcastBinaryOp(c);
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformQuantizedClipByValue");
    b.Input("operand: T")
        .Input("min: T")
        .Input("max: T")
        .Input("scales: float")
        .Input("zero_points: int32")
        .Output("output: T")
        .Attr("T: {qint32}");
    QuantizationAttrs(b, "").SetShapeFn(Unchanged({3}));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformQuantizedDot");
    b.Input("lhs: Tin").Input("rhs: Tin");
    for (const char* side : {"lhs", "rhs", "output"}) {
      b.Input(absl::StrCat(side, "_scales: float"))
          .Input(absl::StrCat(side, "_zero_points: int32"));
    }
    b.Output("output: Tout").Attr("Tin: {qint8}").Attr("Tout: {qint32}");
    for (const char* side : {"lhs_", "rhs_", "output_"}) {
      QuantizationAttrs(b, side);
    }
    b.SetShapeFn(DotShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("UniformQuantizedDotHybrid");
    b.Input("lhs: Tlhs")
        .Input("rhs: Trhs")
        .Input("rhs_scales: float")
        .Input("rhs_zero_points: int32")
        .Output("output: Tout")
        .Attr("Tlhs: {float}")
        .Attr("Trhs: {qint8}")
        .Attr("Tout: {float}");
    QuantizationAttrs(b, "rhs_").SetShapeFn(DotShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (bool hybrid : {false, true}) {
    OpDefBuilder b(hybrid ? "UniformQuantizedConvolutionHybrid"
                          : "UniformQuantizedConvolution");
    if (hybrid) {
      b.Input("lhs: Tlhs")
          .Input("rhs: Trhs")
          .Input("rhs_scales: float")
          .Input("rhs_zero_points: int32")
          .Output("output: Tout")
          .Attr("Tlhs: {float}")
          .Attr("Trhs: {qint8}")
          .Attr("Tout: {float}");
    } else {
      b.Input("lhs: Tin").Input("rhs: Tin");
      for (const char* side : {"lhs", "rhs", "output"}) {
        b.Input(absl::StrCat(side, "_scales: float"))
            .Input(absl::StrCat(side, "_zero_points: int32"));
      }
      b.Output("output: Tout").Attr("Tin: {qint8}").Attr("Tout: {qint32}");
    }
    b.Attr("window_strides: list(int) = []")
        .Attr("padding: string")
        .Attr("explicit_padding: list(int) = []")
        .Attr("lhs_dilation: list(int) = []")
        .Attr("rhs_dilation: list(int) = []")
        .Attr("batch_group_count: int = 1")
        .Attr("feature_group_count: int = 1")
        .Attr("dimension_numbers: string = ''");
    if (!hybrid) QuantizationAttrs(b, "lhs_");
    QuantizationAttrs(b, "rhs_");
    if (!hybrid) QuantizationAttrs(b, "output_");
    // The output has the operands' rank; its dims depend on every attr
    // and are left to the kernel.
    b.SetShapeFn([](InferenceContext* c) {
      const PartialShape& lhs = c->input(0);
      const PartialShape& rhs = c->input(1);
      if (lhs.RankKnown() && rhs.RankKnown() && lhs.rank() != rhs.rank()) {
        return c->Error(absl::StrCat(
            "lhs and rhs must have same dims. Given lhs and rhs of shapes: ",
            lhs.DebugString(), rhs.DebugString()));
      }
      c->set_output(0, lhs.RankKnown()   ? UnknownDims(lhs.rank())
                       : rhs.RankKnown() ? UnknownDims(rhs.rank())
                                         : PartialShape::Unknown());
      return absl::OkStatus();
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  constexpr char kQuantizedTypes[] = "{qint8, quint8, qint32, qint16, quint16}";
  {
    OpDefBuilder b("RequantizePerChannel");
    b.Input("input: T")
        .Input("input_min: float")
        .Input("input_max: float")
        .Input("requested_output_min: float")
        .Input("requested_output_max: float")
        .Output("output: out_type")
        .Output("output_min: float")
        .Output("output_max: float")
        .Attr(absl::StrCat("T: ", kQuantizedTypes, " = DT_QINT32"))
        .Attr(absl::StrCat("out_type: ", kQuantizedTypes, " = DT_QUINT8"))
        .SetShapeFn([](InferenceContext* c) {
          c->set_output(0, c->input(0));
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(4), 0));
          c->set_output(1, PartialShape::Scalar());
          c->set_output(2, PartialShape::Scalar());
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("RequantizationRangePerChannel");
    b.Input("input: T")
        .Input("input_min: float")
        .Input("input_max: float")
        .Output("output_min: float")
        .Output("output_max: float")
        .Attr(absl::StrCat("T: ", kQuantizedTypes, " = DT_QINT32"))
        .Attr("clip_value_max: float")
        .SetShapeFn([](InferenceContext* c) {
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
          c->set_output(0, PartialShape::Scalar());
          c->set_output(1, PartialShape::Scalar());
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("QuantizedConcatV2");
    b.Input("values: N * T")
        .Input("axis: Tidx")
        .Input("input_mins: N * float")
        .Input("input_maxes: N * float")
        .Output("output: T")
        .Output("output_min: float")
        .Output("output_max: float")
        .Attr("N: int >= 2")
        .Attr("T: type")
        .Attr("Tidx: {int32, int64} = DT_INT32")
        .SetShapeFn([](InferenceContext* c) {
          // ConcatV2's shape of the values and the axis; scalar ranges.
          const int n = (c->num_inputs() - 1) / 3;
          const OpRegistrationData* concat =
              OpRegistry::Global()->LookUp("ConcatV2");
          if (concat != nullptr && concat->shape_fn) {
            std::vector<PartialShape> shapes;
            std::vector<const TensorProto*> tensors;
            for (int i = 0; i <= n; ++i) {
              shapes.push_back(c->input(i));
              tensors.push_back(c->input_tensor(i));
            }
            InferenceContext inner(c->node_def(), concat->op_def,
                                   std::move(shapes), std::move(tensors), 1);
            DFX_RETURN_IF_ERROR(concat->shape_fn(&inner));
            c->set_output(0, inner.output(0));
          } else {
            c->set_output(0, PartialShape::Unknown());
          }
          for (int i = n + 1; i < c->num_inputs(); ++i) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
          }
          c->set_output(1, PartialShape::Scalar());
          c->set_output(2, PartialShape::Scalar());
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  return absl::OkStatus();
}

}  // namespace dfx

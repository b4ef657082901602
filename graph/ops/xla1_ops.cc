// The xla1 family: TensorFlow's XLA array ops (tf2xla/ops/xla_ops.cc) that
// TensorFlow 2.21 also runs on CPU: XlaDot, XlaDotV2, XlaConv, XlaConvV2,
// XlaEinsum, XlaScatter, XlaPad,
// XlaDynamicSlice, XlaDynamicUpdateSlice, XlaGather, XlaBroadcastHelper,
// XlaReducePrecision, XlaDequantize, XlaSelfAdjointEig, XlaSvd, XlaSharding,
// XlaSpmdShardToFullShape and XlaOptimizationBarrier. Signatures and shape
// functions follow TensorFlow 2.21's; the dimension numbers are serialized xla
// protos (proto/xla_data.proto).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/einsum_equation.h"
#include "graph/ops/ops.h"
#include "proto/xla_data.pb.h"

namespace dfx {
namespace {

// XlaGather's and XlaScatter's T: TensorFlow's {numbertype, bool}, in its
// order.
constexpr char kNumberOrBool[] =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64, bool}";

// TensorFlow's UnchangedRank: output 0 has input 0's rank, every dim
// unknown.
absl::Status UnchangedRank(InferenceContext* c) {
  if (c->input(0).RankKnown()) {
    c->set_output(0, UnknownDims(c->input(0).rank()));
  } else {
    c->set_output(0, c->input(0));
  }
  return absl::OkStatus();
}

// A dim of a known-rank shape; InvalidArgument when `d` is outside it.
absl::Status DimOf(InferenceContext* c, const PartialShape& s, int64_t d,
                   int64_t* out) {
  if (d < 0 || d >= s.rank()) {
    return c->Error(absl::StrCat("Tried to access dimension ", d,
                                 " in a shape with ", s.rank(), " dimensions"));
  }
  *out = s.dims[d];
  return absl::OkStatus();
}

// XlaDot and XlaDotV2: batch dims, then lhs's free dims, then rhs's.
absl::Status XlaDotShape(InferenceContext* c) {
  const PartialShape& lhs = c->input(0);
  const PartialShape& rhs = c->input(1);
  if (!lhs.RankKnown() || !rhs.RankKnown()) {
    return shape_fn::Unknown(c);
  }
  std::string bytes;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "dimension_numbers", &bytes));
  xla::DotDimensionNumbers dn;
  // TensorFlow's shape function ignores a parse failure.
  dn.ParseFromString(bytes);
  if (dn.lhs_contracting_dimensions_size() !=
      dn.rhs_contracting_dimensions_size()) {
    return c->Error(absl::StrCat(
        "Must specify the same number of contracting dimensions for lhs and "
        "rhs. Got: ",
        dn.lhs_contracting_dimensions_size(), " and ",
        dn.rhs_contracting_dimensions_size()));
  }
  for (int i = 0; i < dn.lhs_contracting_dimensions_size(); ++i) {
    int64_t a = 0, b = 0, unused = 0;
    DFX_RETURN_IF_ERROR(DimOf(c, lhs, dn.lhs_contracting_dimensions(i), &a));
    DFX_RETURN_IF_ERROR(DimOf(c, rhs, dn.rhs_contracting_dimensions(i), &b));
    DFX_RETURN_IF_ERROR(c->MergeDim(a, b, &unused));
  }
  if (dn.lhs_batch_dimensions_size() != dn.rhs_batch_dimensions_size()) {
    return c->Error(absl::StrCat(
        "Must specify the same number of batch dimensions for lhs and rhs. "
        "Got: ",
        dn.lhs_batch_dimensions_size(), " and ",
        dn.rhs_batch_dimensions_size()));
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < dn.lhs_batch_dimensions_size(); ++i) {
    int64_t a = 0, b = 0, out = 0;
    DFX_RETURN_IF_ERROR(DimOf(c, lhs, dn.lhs_batch_dimensions(i), &a));
    DFX_RETURN_IF_ERROR(DimOf(c, rhs, dn.rhs_batch_dimensions(i), &b));
    DFX_RETURN_IF_ERROR(c->MergeDim(a, b, &out));
    dims.push_back(out);
  }
  for (int i = 0; i < lhs.rank(); ++i) {
    if (absl::c_linear_search(dn.lhs_contracting_dimensions(), i) ||
        absl::c_linear_search(dn.lhs_batch_dimensions(), i)) {
      continue;
    }
    dims.push_back(lhs.dims[i]);
  }
  for (int i = 0; i < rhs.rank(); ++i) {
    if (absl::c_linear_search(dn.rhs_contracting_dimensions(), i) ||
        absl::c_linear_search(dn.rhs_batch_dimensions(), i)) {
      continue;
    }
    dims.push_back(rhs.dims[i]);
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// XlaPad: the padded shape when the three paddings are constants.
absl::Status XlaPadShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) return UnchangedRank(c);
  const int rank = in.rank();
  if (c->input(1).RankKnown() && c->input(1).rank() != 0) {
    return c->Error(absl::StrCat(
        "padding_value input must be scalar, found rank ", c->input(1).rank()));
  }
  std::vector<int64_t> pads[3];
  for (int k = 0; k < 3; ++k) {
    if (!ConstantInts(c->input_tensor(2 + k), &pads[k])) {
      return UnchangedRank(c);
    }
  }
  static constexpr const char* kNames[3] = {"padding_low", "padding_high",
                                            "padding_interior"};
  for (int k = 0; k < 3; ++k) {
    const TensorProto* t = c->input_tensor(2 + k);
    if (t->tensor_shape().dim_size() != 1 ||
        static_cast<int>(pads[k].size()) != rank) {
      return c->Error(
          absl::StrCat(kNames[k], " must be a 1D tensor of size ", rank));
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    const int64_t interior = pads[2][i];
    if (interior < 0) {
      return c->Error(absl::StrCat(
          "padding_interior must contain only non-negative values, found ",
          interior));
    }
    const int64_t d = in.dims[i];
    if (d < 0) {
      dims.push_back(-1);
      continue;
    }
    int64_t n = d + pads[0][i] + pads[1][i];
    if (d > 0) n += interior * (d - 1);
    if (n < 0) {
      return c->Error(
          absl::StrCat("resulting padded dimension has negative size ", n));
    }
    dims.push_back(n);
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// XlaDynamicSlice: the sizes' values when constant, else input 0's rank.
absl::Status XlaDynamicSliceShape(InferenceContext* c) {
  const PartialShape& sizes = c->input(2);
  if (!sizes.RankKnown()) return UnchangedRank(c);
  if (sizes.rank() != 1) {
    return c->Error("size_indices must be a 1D tensor");
  }
  std::vector<int64_t> values;
  if (ConstantInts(c->input_tensor(2), &values)) {
    for (int64_t& v : values) {
      if (v < -1) {
        return c->Error(absl::StrCat("Dimension ", v, " must be >= -1"));
      }
    }
    c->set_output(0, PartialShape::Known(std::move(values)));
    return absl::OkStatus();
  }
  if (sizes.dims[0] >= 0) {
    c->set_output(0, UnknownDims(static_cast<int>(sizes.dims[0])));
    return absl::OkStatus();
  }
  return UnchangedRank(c);
}

// XlaEinsum: TensorFlow's checks one ',' and then infers as Einsum does:
// each label's size, broadcast labels NumPy's way.
absl::Status XlaEinsumShape(InferenceContext* c) {
  std::string equation;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "equation", &equation));
  if (absl::c_count(equation, ',') != 1) {
    return c->Error(
        absl::StrCat("Expected one \",\" in equation. Got: ", equation));
  }
  auto eq = ParseEinsumEquation(equation, 2);
  if (!eq.ok()) return c->Error(eq.status().message());
  if (!c->input(0).RankKnown() || !c->input(1).RankKnown()) {
    if (!EinsumEquation::HasEllipsis(eq->output)) {
      c->set_output(0, UnknownDims(static_cast<int>(eq->output.size())));
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  auto r = ResolveEinsum(*eq, {c->input(0).rank(), c->input(1).rank()});
  if (!r.ok()) return c->Error(r.status().message());
  std::vector<int64_t> size(r->num_labels, -2);  // -2: not seen
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c->input(i);
    for (int d = 0; d < s.rank(); ++d) {
      const int label = r->inputs[i][d];
      const int64_t dim = s.dims[d];
      const bool broadcast = label >= r->num_named;
      if (dim < 0) {
        if (size[label] == -2) size[label] = -1;
        continue;
      }
      if (broadcast && dim == 1) {
        if (size[label] == -2) size[label] = 1;
        continue;
      }
      if (size[label] >= 0 && size[label] != dim &&
          !(broadcast && size[label] == 1)) {
        return c->Error(absl::StrCat("Dimensions must be equal, but are ",
                                     size[label], " and ", dim,
                                     " in equation '", equation, "'"));
      }
      size[label] = dim;
    }
  }
  std::vector<int64_t> dims;
  for (int label : r->output)
    dims.push_back(size[label] == -2 ? 1 : size[label]);
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// XlaSpmdShardToFullShape: the full_shape attr.
absl::Status FullShapeAttr(InferenceContext* c) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "full_shape", &proto));
  PartialShape shape = PartialShape::FromProto(proto);
  if (!shape.FullyDefined()) {
    return c->Error(absl::StrCat("full_shape must be fully defined, got ",
                                 shape.DebugString()));
  }
  c->set_output(0, std::move(shape));
  return absl::OkStatus();
}

// Each output has its input's shape.
absl::Status ForwardEach(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(i));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterXla1Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaDot")
                                      .Input("lhs: T")
                                      .Input("rhs: T")
                                      .Output("output: T")
                                      .Attr("T: numbertype")
                                      .Attr("dimension_numbers: string")
                                      .Attr("precision_config: string")
                                      .SetShapeFn(XlaDotShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("XlaDotV2")
                      .Input("lhs: LhsT")
                      .Input("rhs: RhsT")
                      .Output("output: preferred_element_type")
                      .Attr("LhsT: numbertype")
                      .Attr("RhsT: numbertype")
                      .Attr("dimension_numbers: string")
                      .Attr("precision_config: string")
                      .Attr("preferred_element_type: numbertype")
                      .SetShapeFn(XlaDotShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaConv")
                                      .Input("lhs: T")
                                      .Input("rhs: T")
                                      .Input("window_strides: Tindices")
                                      .Input("padding: Tindices")
                                      .Input("lhs_dilation: Tindices")
                                      .Input("rhs_dilation: Tindices")
                                      .Input("feature_group_count: Tindices")
                                      .Output("output: T")
                                      .Attr("T: numbertype")
                                      .Attr("Tindices: {int32, int64}")
                                      .Attr("dimension_numbers: string")
                                      .Attr("precision_config: string")
                                      .SetShapeFn(UnchangedRank)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("XlaConvV2")
                      .Input("lhs: LhsT")
                      .Input("rhs: RhsT")
                      .Input("window_strides: Tindices")
                      .Input("padding: Tindices")
                      .Input("lhs_dilation: Tindices")
                      .Input("rhs_dilation: Tindices")
                      .Input("feature_group_count: Tindices")
                      .Output("output: preferred_element_type")
                      .Attr("LhsT: numbertype")
                      .Attr("RhsT: numbertype")
                      .Attr("Tindices: {int32, int64}")
                      .Attr("dimension_numbers: string")
                      .Attr("precision_config: string")
                      .Attr("preferred_element_type: numbertype")
                      .Attr("batch_group_count: int = 1")
                      .SetShapeFn(UnchangedRank)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaEinsum")
                                      .Input("a: T")
                                      .Input("b: T")
                                      .Output("product: T")
                                      .Attr("equation: string")
                                      .Attr("T: {complex64, bfloat16, float}")
                                      .SetShapeFn(XlaEinsumShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaPad")
                                      .Input("input: T")
                                      .Input("padding_value: T")
                                      .Input("padding_low: Tindices")
                                      .Input("padding_high: Tindices")
                                      .Input("padding_interior: Tindices")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(XlaPadShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaDynamicSlice")
                                      .Input("input: T")
                                      .Input("start_indices: Tindices")
                                      .Input("size_indices: Tindices")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(XlaDynamicSliceShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaDynamicUpdateSlice")
                                      .Input("input: T")
                                      .Input("update: T")
                                      .Input("indices: Tindices")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaGather")
                                      .Input("operand: T")
                                      .Input("start_indices: Tindices")
                                      .Input("slice_sizes: Tindices")
                                      .Output("output: T")
                                      .Attr("dimension_numbers: string")
                                      .Attr("indices_are_sorted: bool")
                                      .Attr(kNumberOrBool)
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaScatter")
                                      .Input("operand: T")
                                      .Input("scatter_indices: Tindices")
                                      .Input("updates: T")
                                      .Output("output: T")
                                      .Attr("update_computation: func")
                                      .Attr("dimension_numbers: string")
                                      .Attr("indices_are_sorted: bool")
                                      .Attr(kNumberOrBool)
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaBroadcastHelper")
                                      .Input("lhs: T")
                                      .Input("rhs: T")
                                      .Input("broadcast_dims: Tindices")
                                      .Output("lhs_output: T")
                                      .Output("rhs_output: T")
                                      .Attr("T: numbertype")
                                      .Attr("Tindices: {int32, int64}")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("XlaReducePrecision")
                      .Input("operand: T")
                      .Output("output: T")
                      .Attr("T: {bfloat16, half, float, double}")
                      .Attr("exponent_bits: int")
                      .Attr("mantissa_bits: int")
                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSharding")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("sharding: string = ''")
                                      .Attr("unspecified_dims: list(int) = []")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSpmdShardToFullShape")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("manual_sharding: string")
                                      .Attr("full_shape: shape")
                                      .Attr("dim: int = -1")
                                      .Attr("unspecified_dims: list(int) = []")
                                      .SetShapeFn(FullShapeAttr)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaDequantize")
                                      .Input("input: uint32")
                                      .Output("output: bfloat16")
                                      .Attr("min_range: float")
                                      .Attr("max_range: float")
                                      .Attr("mode: string")
                                      .Attr("transpose_output: bool")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSelfAdjointEig")
                                      .Input("a: T")
                                      .Output("w: T")
                                      .Output("v: T")
                                      .Attr("lower: bool")
                                      .Attr("max_iter: int")
                                      .Attr("epsilon: float")
                                      .Attr("T: numbertype")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSvd")
                                      .Input("a: T")
                                      .Output("s: T")
                                      .Output("u: T")
                                      .Output("v: T")
                                      .Attr("max_iter: int")
                                      .Attr("epsilon: float")
                                      .Attr("precision_config: string")
                                      .Attr("T: numbertype")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaOptimizationBarrier")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: list(type) >= 0")
                                      .SetShapeFn(ForwardEach)));
  return absl::OkStatus();
}

}  // namespace dfx

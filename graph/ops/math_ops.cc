#include <initializer_list>
#include <string>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Type sets as TensorFlow declares them.
constexpr char kBinaryMore[] =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "int64, complex64, complex128}";
constexpr char kBinaryFewer[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";
constexpr char kUnary[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";
constexpr char kUnaryComplex[] =
    "T: {bfloat16, half, float, double, complex64, complex128}";

OpDefBuilder BinaryOp(const char* name, const char* type_attr) {
  OpDefBuilder b(name);
  b.Input("x: T").Input("y: T").Output("z: T").Attr(type_attr).SetShapeFn(
      shape_fn::BroadcastBinaryOp);
  return b;
}

OpDefBuilder UnaryOp(const char* name, const char* type_attr) {
  OpDefBuilder b(name);
  b.Input("x: T").Output("y: T").Attr(type_attr).SetShapeFn(
      shape_fn::UnchangedShape);
  return b;
}

// Equal and NotEqual: broadcast, unless incompatible_shape_error is false and
// the shapes do not broadcast, in which case the output is a scalar (known
// only at run time, so left unknown here).
absl::Status EqualityShapeFn(InferenceContext* c) {
  bool incompatible_shape_error = true;
  if (const AttrValue* v =
          FindNodeAttr(c->node_def(), "incompatible_shape_error")) {
    incompatible_shape_error = v->b();
  }
  PartialShape out;
  absl::Status s = c->BroadcastBinary(c->input(0), c->input(1), &out);
  if (!s.ok()) {
    if (incompatible_shape_error) return s;
    out = PartialShape::Scalar();
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

OpDefBuilder ComparisonOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("x: T")
      .Input("y: T")
      .Output("z: bool")
      .Attr("T: realnumbertype")
      .SetShapeFn(shape_fn::BroadcastBinaryOp);
  return b;
}

OpDefBuilder EqualityOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("x: T")
      .Input("y: T")
      .Output("z: bool")
      .SetIsCommutative()
      .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, "
            "int64, uint16, uint32, uint64, complex64, quint8, qint8, qint32, "
            "string, bool, complex128}")
      .Attr("incompatible_shape_error: bool = true")
      .SetShapeFn(EqualityShapeFn);
  return b;
}

// Select (v1): t and e have one shape; condition is a scalar, that shape,
// or a vector as long as its first dim.
absl::Status SelectShapeFn(InferenceContext* c) {
  PartialShape data;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &data));
  const PartialShape& cond = c->input(0);
  if (!cond.RankKnown() || !data.RankKnown() || cond.rank() == 0) {
    c->set_output(0, data);
    return absl::OkStatus();
  }
  if (cond.rank() != 1 || data.rank() == 0) {
    DFX_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return absl::OkStatus();
  }
  int64_t unused;
  DFX_RETURN_IF_ERROR(c->MergeDim(cond.dims[0], data.dims[0], &unused));
  c->set_output(0, data);
  return absl::OkStatus();
}

absl::Status SelectV2ShapeFn(InferenceContext* c) {
  PartialShape te, out;
  DFX_RETURN_IF_ERROR(c->BroadcastBinary(c->input(1), c->input(2), &te));
  DFX_RETURN_IF_ERROR(c->BroadcastBinary(c->input(0), te, &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status AddNShapeFn(InferenceContext* c) {
  PartialShape cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    DFX_RETURN_IF_ERROR(c->Merge(c->input(i), cur, &cur));
  }
  c->set_output(0, std::move(cur));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterMathOps(OpRegistry* registry) {
  // Binary arithmetic, broadcasting.
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "Add",
      "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
      "complex64, complex128, string}")));
  DFX_RETURN_IF_ERROR(registry->Register(
      BinaryOp("AddV2",
               "T: {bfloat16, half, float, double, uint8, uint16, uint32, "
               "uint64, int8, int16, int32, int64, complex64, complex128}")
          .SetIsAggregate()
          .SetIsCommutative()));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("Sub", kBinaryMore)));
  DFX_RETURN_IF_ERROR(
      registry->Register(BinaryOp("Mul", kBinaryMore).SetIsCommutative()));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("Div", kBinaryMore)));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("RealDiv", kBinaryMore)));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("FloorDiv", kBinaryMore)));
  DFX_RETURN_IF_ERROR(registry->Register(
      BinaryOp("SquaredDifference", kBinaryFewer).SetIsCommutative()));
  constexpr char kMinMax[] =
      "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
      "uint32, int64, uint64}";
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("Maximum", kMinMax)));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp("Minimum", kMinMax)));

  // Comparisons.
  for (const char* name : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    DFX_RETURN_IF_ERROR(registry->Register(ComparisonOp(name)));
  }
  for (const char* name : {"Equal", "NotEqual"}) {
    DFX_RETURN_IF_ERROR(registry->Register(EqualityOp(name)));
  }

  // Unary.
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Neg",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
      "complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Abs", "T: {bfloat16, half, float, double, int8, int16, int32, int64}")));
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Square",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
      "uint16, uint32, uint64, complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp("Reciprocal", kUnary)));
  for (const char* name : {"Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid"}) {
    DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(name, kUnaryComplex)));
  }

  // Select.
  for (const char* name : {"Select", "SelectV2"}) {
    OpDefBuilder b(name);
    b.Input("condition: bool")
        .Input("t: T")
        .Input("e: T")
        .Output("output: T")
        .Attr("T: type")
        .SetShapeFn(std::string(name) == "Select" ? SelectShapeFn
                                                  : SelectV2ShapeFn);
    DFX_RETURN_IF_ERROR(registry->Register(b));
  }

  // Cast.
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Cast")
          .Input("x: SrcT")
          .Output("y: DstT")
          .Attr("SrcT: type")
          .Attr("DstT: type")
          .Attr("Truncate: bool = false")
          .SetShapeFn(shape_fn::UnchangedShape)));

  // AddN.
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("AddN")
          .Input("inputs: N * T")
          .Output("sum: T")
          .Attr("N: int >= 1")
          .Attr("T: {float, double, int32, uint8, int16, int8, complex64, "
                "int64, qint8, quint8, qint32, bfloat16, uint16, complex128, "
                "half, uint32, uint64, variant}")
          .SetIsCommutative()
          .SetIsAggregate()
          .SetShapeFn(AddNShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx

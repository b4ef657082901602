// The math ops: element-wise arithmetic, comparisons, logical ops, unary
// functions and their gradients, Select, Cast, AddN, ClipByValue, and the
// reductions All, Any and EuclideanNorm (Sum, Mean, Prod, Max and Min are in
// nn_ops.cc). Signatures follow TensorFlow's math_ops.cc.
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Type sets as TensorFlow declares them.
constexpr char kBinaryMore[] =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "uint32, uint64, int64, complex64, complex128}";
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

// TanhGrad, SigmoidGrad, ...: z = f(y, dy) with y's shape (TensorFlow's
// kernel requires as many elements in both, checked at run time).
OpDefBuilder GradOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("y: T")
      .Input("dy: T")
      .Output("z: T")
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
      .SetShapeFn(shape_fn::UnchangedShape);
  return b;
}

// x and y must describe one shape; the output has x's.
absl::Status ApproximateEqualShapeFn(InferenceContext* c) {
  PartialShape merged;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &merged));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// The reductions' shape: input's dims with those named by the constant
// reduction_indices removed (or set to 1 with keep_dims). The same function
// as nn_ops.cc's for Sum/Mean/...; it lives in both files until shape_fn
// offers it.
absl::Status ReductionShapeFn(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const PartialShape& indices = c->input(1);
  if (indices.RankKnown() && indices.rank() > 1) {
    return c->Error(absl::StrCat(
        "reduction_indices must be a scalar or a vector, got shape ",
        indices.DebugString()));
  }
  bool keep_dims = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "keep_dims", &keep_dims));
  std::vector<int64_t> axes;
  if (!ConstantInts(c->input_tensor(1), &axes)) {
    if (keep_dims && input.RankKnown()) {
      c->set_output(0, UnknownDims(input.rank()));
    } else if (indices.RankKnown() && indices.rank() == 1 &&
               indices.dims[0] == 0) {
      c->set_output(0, input);  // reducing over no axis changes nothing
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  if (!input.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return c->Error(absl::StrCat("Invalid reduction dimension (", axis,
                                   " for input with ", rank,
                                   " dimension(s))"));
    }
    reduced[axis < 0 ? axis + rank : axis] = true;
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.dims.push_back(input.dims[i]);
    } else if (keep_dims) {
      out.dims.push_back(1);
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// A reduction of `input_type` ("bool", or "T" with attr `type_attr`).
OpDefBuilder ReductionOp(const char* name, const char* input_type,
                         const char* type_attr = nullptr) {
  OpDefBuilder b(name);
  b.Input(absl::StrCat("input: ", input_type))
      .Input("reduction_indices: Tidx")
      .Output(absl::StrCat("output: ", input_type))
      .Attr("keep_dims: bool = false");
  if (type_attr != nullptr) b.Attr(type_attr);
  b.Attr("Tidx: {int32, int64} = DT_INT32").SetShapeFn(ReductionShapeFn);
  return b;
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

  // More binary arithmetic, broadcasting.
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "Pow",
      "T: {bfloat16, float, half, double, int8, int16, int32, int64, "
      "complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "Atan2", "T: {bfloat16, half, float, double}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "FloorMod",
      "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
      "bfloat16, half, float, double}")));
  // TensorFlow lists half twice (as float16 and half).
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "Mod", "T: {int32, int64, half, half, bfloat16, float, double}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "TruncateDiv",
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
      "uint32, uint64, int64, complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "TruncateMod", "T: {int32, int64, bfloat16, half, float, double}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "DivNoNan",
      "T: {half, float, bfloat16, double, complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
      "MulNoNan",
      "T: {bfloat16, half, float, double, complex64, complex128}")));
  for (const char* name : {"Xdivy", "Xlogy", "Xlog1py"}) {
    DFX_RETURN_IF_ERROR(registry->Register(BinaryOp(
        name, "T: {half, bfloat16, float, double, complex64, complex128}")));
  }

  // Logical.
  for (const char* name : {"LogicalAnd", "LogicalOr"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("x: bool")
            .Input("y: bool")
            .Output("z: bool")
            .SetIsCommutative()
            .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  }
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LogicalNot")
          .Input("x: bool")
          .Output("y: bool")
          .SetShapeFn(shape_fn::UnchangedShape)));

  // More unary functions.
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Sign",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
      "complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Round",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
      "complex64, complex128}")));
  DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(
      "Inv",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
      "complex64, complex128}")));
  for (const char* name : {"Floor", "Ceil", "Rint", "Erf", "Erfc"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        UnaryOp(name, "T: {bfloat16, half, float, double}")));
  }
  for (const char* name :
       {"Log1p", "Expm1", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
        "Cosh", "Asinh", "Acosh", "Atanh"}) {
    DFX_RETURN_IF_ERROR(registry->Register(UnaryOp(name, kUnaryComplex)));
  }
  for (const char* name : {"IsNan", "IsInf", "IsFinite"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("x: T")
            .Output("y: bool")
            .Attr("T: {bfloat16, half, float, double}")
            .SetShapeFn(shape_fn::UnchangedShape)));
  }

  // Gradients of unary functions, from their output y and its gradient dy.
  for (const char* name : {"TanhGrad", "SigmoidGrad", "RsqrtGrad", "SqrtGrad",
                           "ReciprocalGrad", "InvGrad"}) {
    DFX_RETURN_IF_ERROR(registry->Register(GradOp(name)));
  }

  // ClipByValue: bounds are scalars or of t's shape (checked at run time).
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("ClipByValue")
          .Input("t: T")
          .Input("clip_value_min: T")
          .Input("clip_value_max: T")
          .Output("output: T")
          .Attr("T: numbertype")
          .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("ApproximateEqual")
          .Input("x: T")
          .Input("y: T")
          .Output("z: bool")
          .SetIsCommutative()
          .Attr("T: numbertype")
          .Attr("tolerance: float = 0.00001")
          .SetShapeFn(ApproximateEqualShapeFn)));

  // Reductions beside Sum/Mean/Prod/Max/Min (nn_ops.cc).
  DFX_RETURN_IF_ERROR(registry->Register(ReductionOp("All", "bool")));
  DFX_RETURN_IF_ERROR(registry->Register(ReductionOp("Any", "bool")));
  DFX_RETURN_IF_ERROR(registry->Register(
      ReductionOp("EuclideanNorm", "T", "T: numbertype")));

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
                "int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "
                "uint16, complex128, half, uint32, uint64, variant}")
          .SetIsCommutative()
          .SetIsAggregate()
          .SetShapeFn(AddNShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx

#include "graph/builder/ops.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"

namespace dfx::ops {
namespace {

// Builds one NodeDef; the first problem found is recorded in the scope and
// the node is not added.
class NodeBuilder {
 public:
  NodeBuilder(const Scope& scope, absl::string_view op)
      : scope_(scope), ok_(scope.ok()) {
    if (!ok_) return;
    def_.set_name(scope.GetUniqueNameForOp(op));
    def_.set_op(std::string(op));
  }

  // The node's name (empty on a failed scope).
  const std::string& name() const { return def_.name(); }

  // `what` names the input in errors ("a", "values[2]").
  NodeBuilder& Input(const Output& input, absl::string_view what) {
    if (!ok_) return *this;
    if (!input.valid()) {
      Fail(absl::StrCat("input ", what,
                        " is not a valid Output (built on a failed scope?)"));
      return *this;
    }
    def_.add_input(input.ToString());
    return *this;
  }

  NodeBuilder& Attr(absl::string_view name, AttrValue value) {
    (*def_.mutable_attr())[std::string(name)] = std::move(value);
    return *this;
  }
  NodeBuilder& TypeAttr(absl::string_view name, DataType t) {
    AttrValue v;
    v.set_type(t);
    return Attr(name, std::move(v));
  }
  NodeBuilder& BoolAttr(absl::string_view name, bool b) {
    AttrValue v;
    v.set_b(b);
    return Attr(name, std::move(v));
  }
  NodeBuilder& IntAttr(absl::string_view name, int64_t i) {
    AttrValue v;
    v.set_i(i);
    return Attr(name, std::move(v));
  }
  NodeBuilder& StringAttr(absl::string_view name, absl::string_view s) {
    AttrValue v;
    v.set_s(std::string(s));
    return Attr(name, std::move(v));
  }
  NodeBuilder& FloatAttr(absl::string_view name, float f) {
    AttrValue v;
    v.set_f(f);
    return Attr(name, std::move(v));
  }
  NodeBuilder& IntListAttr(absl::string_view name,
                           const std::vector<int64_t>& list) {
    AttrValue v;
    v.mutable_list();  // an empty list is still a list
    for (int64_t i : list) v.mutable_list()->add_i(i);
    return Attr(name, std::move(v));
  }

  // Records InvalidArgument naming this node.
  void Fail(absl::string_view message) {
    if (!ok_) return;
    ok_ = false;
    scope_.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "node '", def_.name(), "' (op ", def_.op(), "): ", message)));
  }
  bool ok() const { return ok_; }

  // The base dtype of `input` (a ref output feeds its base type); DT_INVALID
  // after a failure.
  DataType TypeOf(const Output& input) const {
    return input.valid() ? BaseType(input.dtype()) : DT_INVALID;
  }

  // Every input in `inputs` has the dtype of the first; returns that dtype.
  DataType SameType(const std::vector<std::pair<const Output*, std::string>>&
                        inputs) {
    if (!ok_ || inputs.empty()) return DT_INVALID;
    const DataType t = TypeOf(*inputs[0].first);
    for (size_t i = 1; i < inputs.size(); ++i) {
      const DataType other = TypeOf(*inputs[i].first);
      if (other != t) {
        Fail(absl::StrCat("input ", inputs[i].second, " is ",
                          DataTypeString(other), " but input ",
                          inputs[0].second, " is ", DataTypeString(t),
                          "; they must have the same type"));
        return DT_INVALID;
      }
    }
    return t;
  }

  // `input` is int32 or int64; returns its dtype.
  DataType IndexType(const Output& input, absl::string_view what) {
    if (!ok_) return DT_INVALID;
    const DataType t = TypeOf(input);
    if (t != DT_INT32 && t != DT_INT64) {
      Fail(absl::StrCat("input ", what, " must be int32 or int64, not ",
                        DataTypeString(t)));
      return DT_INVALID;
    }
    return t;
  }

  // Adds the node; an Output for its output 0 of dtype `out`.
  Output Finish(DataType out) {
    if (!Add()) return Output();
    return Output(def_.name(), 0, out);
  }
  // Adds the node; one Output per entry of `outs` (empty on failure).
  std::vector<Output> FinishAll(const std::vector<DataType>& outs) {
    std::vector<Output> result;
    if (!Add()) return result;
    for (size_t i = 0; i < outs.size(); ++i) {
      result.emplace_back(def_.name(), static_cast<int>(i), outs[i]);
    }
    return result;
  }
  Operation FinishOperation() {
    if (!Add()) return Operation();
    return Operation(def_.name());
  }

 private:
  bool Add() {
    if (!ok_) return false;
    const std::string name = def_.name();
    if (!scope_.AddNode(std::move(def_)).ok()) return false;
    def_.set_name(name);
    return true;
  }

  const Scope& scope_;
  bool ok_;
  NodeDef def_;
};

template <typename T>
struct ElementTraits;
#define DFX_ELEMENT(T, DTYPE, ADD)                                \
  template <>                                                     \
  struct ElementTraits<T> {                                       \
    static constexpr DataType kType = DTYPE;                      \
    static void AddField(TensorProto* p, T const& v) { ADD; }     \
  };
DFX_ELEMENT(float, DT_FLOAT, p->add_float_val(v))
DFX_ELEMENT(double, DT_DOUBLE, p->add_double_val(v))
DFX_ELEMENT(int32_t, DT_INT32, p->add_int_val(v))
DFX_ELEMENT(int64_t, DT_INT64, p->add_int64_val(v))
DFX_ELEMENT(bool, DT_BOOL, p->add_bool_val(v))
DFX_ELEMENT(uint8_t, DT_UINT8, p->add_int_val(v))
DFX_ELEMENT(int8_t, DT_INT8, p->add_int_val(v))
DFX_ELEMENT(int16_t, DT_INT16, p->add_int_val(v))
DFX_ELEMENT(std::string, DT_STRING, p->add_string_val(v))
DFX_ELEMENT(const char*, DT_STRING, p->add_string_val(v))
#undef DFX_ELEMENT

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Several elements go into tensor_content as TensorFlow writes them: the raw
// little-endian buffer, or for strings every length as a varint and then
// every string's bytes.
template <typename T>
void SetTensorContent(const std::vector<T>& values, TensorProto* proto) {
  std::string* out = proto->mutable_tensor_content();
  if constexpr (std::is_same_v<T, std::string> ||
                std::is_same_v<T, const char*>) {
    for (const auto& v : values) PutVarint(out, absl::string_view(v).size());
    for (const auto& v : values) {
      const absl::string_view sv(v);
      out->append(sv.data(), sv.size());
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    for (bool v : values) out->push_back(v ? 1 : 0);
  } else {
    out->resize(values.size() * sizeof(T));
    std::memcpy(out->data(), values.data(), out->size());
  }
}

template <typename T>
Output ScalarConst(const Scope& scope, const T& value) {
  return Const(scope, std::vector<T>{value}, std::vector<int64_t>{});
}

Output Unary(const Scope& scope, absl::string_view op, const Output& x) {
  NodeBuilder b(scope, op);
  b.Input(x, "x");
  b.TypeAttr("T", b.TypeOf(x));
  return b.Finish(b.TypeOf(x));
}

// x and y of one type T; the output is T, or bool for comparisons.
Output Binary(const Scope& scope, absl::string_view op, const Output& x,
              const Output& y, bool comparison = false) {
  NodeBuilder b(scope, op);
  b.Input(x, "x").Input(y, "y");
  const DataType t = b.SameType({{&x, "x"}, {&y, "y"}});
  b.TypeAttr("T", t);
  return b.Finish(comparison ? DT_BOOL : t);
}

Output Reduction(const Scope& scope, absl::string_view op, const Output& input,
                 const Output& axis, bool keep_dims) {
  NodeBuilder b(scope, op);
  b.Input(input, "input").Input(axis, "reduction_indices");
  b.BoolAttr("keep_dims", keep_dims);
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tidx", b.IndexType(axis, "reduction_indices"));
  return b.Finish(b.TypeOf(input));
}

}  // namespace

template <ConstElement T>
Output Const(const Scope& scope, const std::vector<T>& values,
             const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "Const: shape has a negative dimension ", d)));
      return Output();
    }
    elements *= d;
  }
  if (elements != static_cast<int64_t>(values.size())) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("Const: ", values.size(), " value(s) for a shape of ",
                     elements, " element(s)")));
    return Output();
  }
  TensorProto proto;
  proto.set_dtype(ElementTraits<T>::kType);
  TensorShapeProto* proto_shape = proto.mutable_tensor_shape();
  for (int64_t d : shape) proto_shape->add_dim()->set_size(d);
  if (values.size() > 1) {
    SetTensorContent(values, &proto);
  } else {
    for (const T& v : values) ElementTraits<T>::AddField(&proto, v);
  }
  return Const(scope, proto);
}

template Output Const(const Scope&, const std::vector<float>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<double>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<int32_t>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<int64_t>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<bool>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<uint8_t>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<int8_t>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<int16_t>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<std::string>&,
                      const std::vector<int64_t>&);
template Output Const(const Scope&, const std::vector<const char*>&,
                      const std::vector<int64_t>&);

Output Placeholder(const Scope& scope, DataType dtype) {
  return Placeholder(scope, dtype, PartialShape::Unknown());
}

Output Placeholder(const Scope& scope, DataType dtype,
                   const PartialShape& shape) {
  NodeBuilder b(scope, "Placeholder");
  b.TypeAttr("dtype", dtype);
  AttrValue shape_attr;
  TensorShapeProto* proto = shape_attr.mutable_shape();
  if (shape.unknown_rank) {
    proto->set_unknown_rank(true);
  } else {
    for (int64_t d : shape.dims) proto->add_dim()->set_size(d < 0 ? -1 : d);
  }
  b.Attr("shape", std::move(shape_attr));
  return b.Finish(dtype);
}

Output Const(const Scope& scope, const TensorProto& value) {
  NodeBuilder b(scope, "Const");
  if (value.dtype() == DT_INVALID) {
    b.Fail("the value has no dtype");
    return Output();
  }
  AttrValue v;
  *v.mutable_tensor() = value;
  b.Attr("value", std::move(v));
  b.TypeAttr("dtype", value.dtype());
  return b.Finish(value.dtype());
}

Output Const(const Scope& scope, float value) {
  return ScalarConst(scope, value);
}
Output Const(const Scope& scope, double value) {
  return ScalarConst(scope, value);
}
Output Const(const Scope& scope, int32_t value) {
  return ScalarConst(scope, value);
}
Output Const(const Scope& scope, int64_t value) {
  return ScalarConst(scope, value);
}
Output Const(const Scope& scope, bool value) {
  return ScalarConst(scope, value);
}
Output Const(const Scope& scope, const char* value) {
  return ScalarConst(scope, std::string(value));
}
Output Const(const Scope& scope, const std::string& value) {
  return ScalarConst(scope, value);
}

Output Identity(const Scope& scope, const Output& input) {
  NodeBuilder b(scope, "Identity");
  b.Input(input, "input");
  b.TypeAttr("T", b.TypeOf(input));
  return b.Finish(b.TypeOf(input));
}

Output MatMul(const Scope& scope, const Output& a, const Output& b,
              const MatMulAttrs& attrs) {
  NodeBuilder nb(scope, "MatMul");
  nb.Input(a, "a").Input(b, "b");
  nb.BoolAttr("transpose_a", attrs.transpose_a);
  nb.BoolAttr("transpose_b", attrs.transpose_b);
  nb.BoolAttr("grad_a", attrs.grad_a);
  nb.BoolAttr("grad_b", attrs.grad_b);
  const DataType t = nb.SameType({{&a, "a"}, {&b, "b"}});
  nb.TypeAttr("T", t);
  return nb.Finish(t);
}

Output BiasAdd(const Scope& scope, const Output& value, const Output& bias,
               absl::string_view data_format) {
  NodeBuilder b(scope, "BiasAdd");
  b.Input(value, "value").Input(bias, "bias");
  const DataType t = b.SameType({{&value, "value"}, {&bias, "bias"}});
  b.TypeAttr("T", t);
  b.StringAttr("data_format", data_format);
  return b.Finish(t);
}

Output Relu(const Scope& scope, const Output& features) {
  NodeBuilder b(scope, "Relu");
  b.Input(features, "features");
  b.TypeAttr("T", b.TypeOf(features));
  return b.Finish(b.TypeOf(features));
}

Output Softmax(const Scope& scope, const Output& logits) {
  NodeBuilder b(scope, "Softmax");
  b.Input(logits, "logits");
  b.TypeAttr("T", b.TypeOf(logits));
  return b.Finish(b.TypeOf(logits));
}

Output Neg(const Scope& scope, const Output& x) { return Unary(scope, "Neg", x); }
Output Exp(const Scope& scope, const Output& x) { return Unary(scope, "Exp", x); }
Output Log(const Scope& scope, const Output& x) { return Unary(scope, "Log", x); }
Output Sqrt(const Scope& scope, const Output& x) {
  return Unary(scope, "Sqrt", x);
}
Output Square(const Scope& scope, const Output& x) {
  return Unary(scope, "Square", x);
}
Output Tanh(const Scope& scope, const Output& x) {
  return Unary(scope, "Tanh", x);
}
Output Sigmoid(const Scope& scope, const Output& x) {
  return Unary(scope, "Sigmoid", x);
}
Output ZerosLike(const Scope& scope, const Output& x) {
  return Unary(scope, "ZerosLike", x);
}
Output OnesLike(const Scope& scope, const Output& x) {
  return Unary(scope, "OnesLike", x);
}

Output AddV2(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "AddV2", x, y);
}
Output Add(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Add", x, y);
}
Output Sub(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Sub", x, y);
}
Output Mul(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Mul", x, y);
}
Output RealDiv(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "RealDiv", x, y);
}
Output Maximum(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Maximum", x, y);
}
Output Minimum(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Minimum", x, y);
}

Output Equal(const Scope& scope, const Output& x, const Output& y) {
  NodeBuilder b(scope, "Equal");
  b.Input(x, "x").Input(y, "y");
  const DataType t = b.SameType({{&x, "x"}, {&y, "y"}});
  b.TypeAttr("T", t);
  b.BoolAttr("incompatible_shape_error", true);
  return b.Finish(DT_BOOL);
}
Output Less(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Less", x, y, /*comparison=*/true);
}
Output Greater(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Greater", x, y, /*comparison=*/true);
}

Output Sum(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims) {
  return Reduction(scope, "Sum", input, axis, keep_dims);
}
Output Mean(const Scope& scope, const Output& input, const Output& axis,
            bool keep_dims) {
  return Reduction(scope, "Mean", input, axis, keep_dims);
}
Output Max(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims) {
  return Reduction(scope, "Max", input, axis, keep_dims);
}
Output Min(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims) {
  return Reduction(scope, "Min", input, axis, keep_dims);
}

Output Reshape(const Scope& scope, const Output& tensor, const Output& shape) {
  NodeBuilder b(scope, "Reshape");
  b.Input(tensor, "tensor").Input(shape, "shape");
  b.TypeAttr("T", b.TypeOf(tensor));
  b.TypeAttr("Tshape", b.IndexType(shape, "shape"));
  return b.Finish(b.TypeOf(tensor));
}

Output Shape(const Scope& scope, const Output& input, DataType out_type) {
  NodeBuilder b(scope, "Shape");
  b.Input(input, "input");
  if (out_type != DT_INT32 && out_type != DT_INT64) {
    b.Fail(absl::StrCat("out_type must be int32 or int64, not ",
                        DataTypeString(out_type)));
  }
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("out_type", out_type);
  return b.Finish(out_type);
}

Output ExpandDims(const Scope& scope, const Output& input, const Output& axis) {
  NodeBuilder b(scope, "ExpandDims");
  b.Input(input, "input").Input(axis, "dim");
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tdim", b.IndexType(axis, "dim"));
  return b.Finish(b.TypeOf(input));
}

Output Squeeze(const Scope& scope, const Output& input,
               const std::vector<int64_t>& axis) {
  NodeBuilder b(scope, "Squeeze");
  b.Input(input, "input");
  b.TypeAttr("T", b.TypeOf(input));
  b.IntListAttr("squeeze_dims", axis);
  return b.Finish(b.TypeOf(input));
}

Output Transpose(const Scope& scope, const Output& x, const Output& perm) {
  NodeBuilder b(scope, "Transpose");
  b.Input(x, "x").Input(perm, "perm");
  b.TypeAttr("T", b.TypeOf(x));
  b.TypeAttr("Tperm", b.IndexType(perm, "perm"));
  return b.Finish(b.TypeOf(x));
}

namespace {

// Adds `values` as inputs "values[i]"; checks one dtype and at least one.
DataType AddValueList(NodeBuilder& b, const std::vector<Output>& values) {
  if (values.empty()) {
    b.Fail("needs at least one value");
    return DT_INVALID;
  }
  std::vector<std::pair<const Output*, std::string>> named;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string what = absl::StrCat("values[", i, "]");
    b.Input(values[i], what);
    named.emplace_back(&values[i], what);
  }
  return b.SameType(named);
}

}  // namespace

Output ConcatV2(const Scope& scope, const std::vector<Output>& values,
                const Output& axis) {
  NodeBuilder b(scope, "ConcatV2");
  const DataType t = AddValueList(b, values);
  b.Input(axis, "axis");
  b.IntAttr("N", static_cast<int64_t>(values.size()));
  b.TypeAttr("T", t);
  b.TypeAttr("Tidx", b.IndexType(axis, "axis"));
  return b.Finish(t);
}

Output Pack(const Scope& scope, const std::vector<Output>& values,
            int64_t axis) {
  NodeBuilder b(scope, "Pack");
  const DataType t = AddValueList(b, values);
  b.IntAttr("N", static_cast<int64_t>(values.size()));
  b.TypeAttr("T", t);
  b.IntAttr("axis", axis);
  return b.Finish(t);
}

Output Fill(const Scope& scope, const Output& dims, const Output& value) {
  NodeBuilder b(scope, "Fill");
  b.Input(dims, "dims").Input(value, "value");
  b.TypeAttr("T", b.TypeOf(value));
  b.TypeAttr("index_type", b.IndexType(dims, "dims"));
  return b.Finish(b.TypeOf(value));
}

Output Cast(const Scope& scope, const Output& x, DataType dst_type,
            bool truncate) {
  NodeBuilder b(scope, "Cast");
  b.Input(x, "x");
  b.TypeAttr("SrcT", b.TypeOf(x));
  b.TypeAttr("DstT", dst_type);
  b.BoolAttr("Truncate", truncate);
  return b.Finish(dst_type);
}

Output Select(const Scope& scope, const Output& condition, const Output& t,
              const Output& e) {
  NodeBuilder b(scope, "Select");
  b.Input(condition, "condition").Input(t, "t").Input(e, "e");
  if (b.ok() && b.TypeOf(condition) != DT_BOOL) {
    b.Fail(absl::StrCat("input condition must be bool, not ",
                        DataTypeString(b.TypeOf(condition))));
  }
  const DataType type = b.SameType({{&t, "t"}, {&e, "e"}});
  b.TypeAttr("T", type);
  return b.Finish(type);
}

Operation NoOp(const Scope& scope) {
  NodeBuilder b(scope, "NoOp");
  return b.FinishOperation();
}


// ---------------------------------------------------------------------------
// Math.

Output Rsqrt(const Scope& scope, const Output& x) {
  return Unary(scope, "Rsqrt", x);
}
Output Log1p(const Scope& scope, const Output& x) {
  return Unary(scope, "Log1p", x);
}
Output Abs(const Scope& scope, const Output& x) {
  return Unary(scope, "Abs", x);
}
Output Sign(const Scope& scope, const Output& x) {
  return Unary(scope, "Sign", x);
}
Output Reciprocal(const Scope& scope, const Output& x) {
  return Unary(scope, "Reciprocal", x);
}
Output Div(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Div", x, y);
}
Output FloorDiv(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "FloorDiv", x, y);
}
Output FloorMod(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "FloorMod", x, y);
}
Output Pow(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Pow", x, y);
}
Output SquaredDifference(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "SquaredDifference", x, y);
}
Output GreaterEqual(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "GreaterEqual", x, y, /*comparison=*/true);
}
Output LessEqual(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "LessEqual", x, y, /*comparison=*/true);
}

Output AddN(const Scope& scope, const std::vector<Output>& inputs) {
  NodeBuilder b(scope, "AddN");
  const DataType t = AddValueList(b, inputs);
  b.IntAttr("N", static_cast<int64_t>(inputs.size()));
  b.TypeAttr("T", t);
  return b.Finish(t);
}

namespace {

// Ops of the form (y, dy) -> z, both T.
Output UnaryGrad(const Scope& scope, absl::string_view op, const Output& y,
                 const Output& dy) {
  NodeBuilder b(scope, op);
  b.Input(y, "y").Input(dy, "dy");
  const DataType t = b.SameType({{&y, "y"}, {&dy, "dy"}});
  b.TypeAttr("T", t);
  return b.Finish(t);
}

// Activation gradients: (gradients, features-or-outputs) -> backprops.
Output ActivationGrad(const Scope& scope, absl::string_view op,
                      const Output& gradients, const Output& second,
                      absl::string_view second_name) {
  NodeBuilder b(scope, op);
  b.Input(gradients, "gradients").Input(second, second_name);
  const DataType t = b.SameType(
      {{&gradients, "gradients"}, {&second, std::string(second_name)}});
  b.TypeAttr("T", t);
  return b.Finish(t);
}

// Checks that `input` is of dtype `want`.
void RequireType(NodeBuilder& b, const Output& input, absl::string_view what,
                 DataType want) {
  if (!b.ok()) return;
  if (b.TypeOf(input) != want) {
    b.Fail(absl::StrCat("input ", what, " must be ", DataTypeString(want),
                        ", not ", DataTypeString(b.TypeOf(input))));
  }
}

}  // namespace

Output TanhGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "TanhGrad", y, dy);
}
Output SigmoidGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "SigmoidGrad", y, dy);
}
Output SqrtGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "SqrtGrad", y, dy);
}
Output RsqrtGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "RsqrtGrad", y, dy);
}

Output BatchMatMulV2(const Scope& scope, const Output& x, const Output& y,
                     const BatchMatMulAttrs& attrs) {
  NodeBuilder b(scope, "BatchMatMulV2");
  b.Input(x, "x").Input(y, "y");
  const DataType t = b.SameType({{&x, "x"}, {&y, "y"}});
  b.TypeAttr("T", t);
  b.BoolAttr("adj_x", attrs.adj_x);
  b.BoolAttr("adj_y", attrs.adj_y);
  b.BoolAttr("grad_x", attrs.grad_x);
  b.BoolAttr("grad_y", attrs.grad_y);
  return b.Finish(t);
}

BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope,
                                                   const Output& s0,
                                                   const Output& s1) {
  NodeBuilder b(scope, "BroadcastGradientArgs");
  b.Input(s0, "s0").Input(s1, "s1");
  b.IndexType(s0, "s0");
  const DataType t = b.SameType({{&s0, "s0"}, {&s1, "s1"}});
  b.TypeAttr("T", t);
  std::vector<Output> out = b.FinishAll({t, t});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

Output Range(const Scope& scope, const Output& start, const Output& limit,
             const Output& delta) {
  NodeBuilder b(scope, "Range");
  b.Input(start, "start").Input(limit, "limit").Input(delta, "delta");
  const DataType t = b.SameType(
      {{&start, "start"}, {&limit, "limit"}, {&delta, "delta"}});
  b.TypeAttr("Tidx", t);
  return b.Finish(t);
}

Output Rank(const Scope& scope, const Output& input) {
  NodeBuilder b(scope, "Rank");
  b.Input(input, "input");
  b.TypeAttr("T", b.TypeOf(input));
  return b.Finish(DT_INT32);
}

Output Size(const Scope& scope, const Output& input, DataType out_type) {
  NodeBuilder b(scope, "Size");
  b.Input(input, "input");
  if (out_type != DT_INT32 && out_type != DT_INT64) {
    b.Fail(absl::StrCat("out_type must be int32 or int64, not ",
                        DataTypeString(out_type)));
  }
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("out_type", out_type);
  return b.Finish(out_type);
}

Output InvertPermutation(const Scope& scope, const Output& x) {
  NodeBuilder b(scope, "InvertPermutation");
  b.Input(x, "x");
  b.TypeAttr("T", b.IndexType(x, "x"));
  return b.Finish(b.TypeOf(x));
}

Output BroadcastTo(const Scope& scope, const Output& input,
                   const Output& shape) {
  NodeBuilder b(scope, "BroadcastTo");
  b.Input(input, "input").Input(shape, "shape");
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tidx", b.IndexType(shape, "shape"));
  return b.Finish(b.TypeOf(input));
}

// ---------------------------------------------------------------------------
// Array ops.

Output StopGradient(const Scope& scope, const Output& input) {
  NodeBuilder b(scope, "StopGradient");
  b.Input(input, "input");
  b.TypeAttr("T", b.TypeOf(input));
  return b.Finish(b.TypeOf(input));
}

Output PreventGradient(const Scope& scope, const Output& input,
                       absl::string_view message) {
  NodeBuilder b(scope, "PreventGradient");
  b.Input(input, "input");
  b.TypeAttr("T", b.TypeOf(input));
  b.StringAttr("message", message);
  return b.Finish(b.TypeOf(input));
}

Output Slice(const Scope& scope, const Output& input, const Output& begin,
             const Output& size) {
  NodeBuilder b(scope, "Slice");
  b.Input(input, "input").Input(begin, "begin").Input(size, "size");
  b.IndexType(begin, "begin");
  const DataType index = b.SameType({{&begin, "begin"}, {&size, "size"}});
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Index", index);
  return b.Finish(b.TypeOf(input));
}

namespace {

void StridedSliceMasks(NodeBuilder& b, const StridedSliceAttrs& attrs) {
  b.IntAttr("begin_mask", attrs.begin_mask);
  b.IntAttr("end_mask", attrs.end_mask);
  b.IntAttr("ellipsis_mask", attrs.ellipsis_mask);
  b.IntAttr("new_axis_mask", attrs.new_axis_mask);
  b.IntAttr("shrink_axis_mask", attrs.shrink_axis_mask);
}

}  // namespace

Output StridedSlice(const Scope& scope, const Output& input,
                    const Output& begin, const Output& end,
                    const Output& strides, const StridedSliceAttrs& attrs) {
  NodeBuilder b(scope, "StridedSlice");
  b.Input(input, "input").Input(begin, "begin").Input(end, "end");
  b.Input(strides, "strides");
  b.IndexType(begin, "begin");
  const DataType index = b.SameType(
      {{&begin, "begin"}, {&end, "end"}, {&strides, "strides"}});
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Index", index);
  StridedSliceMasks(b, attrs);
  return b.Finish(b.TypeOf(input));
}

Output StridedSliceGrad(const Scope& scope, const Output& shape,
                        const Output& begin, const Output& end,
                        const Output& strides, const Output& dy,
                        const StridedSliceAttrs& attrs) {
  NodeBuilder b(scope, "StridedSliceGrad");
  b.Input(shape, "shape").Input(begin, "begin").Input(end, "end");
  b.Input(strides, "strides").Input(dy, "dy");
  b.IndexType(shape, "shape");
  const DataType index = b.SameType({{&shape, "shape"},
                                     {&begin, "begin"},
                                     {&end, "end"},
                                     {&strides, "strides"}});
  b.TypeAttr("T", b.TypeOf(dy));
  b.TypeAttr("Index", index);
  StridedSliceMasks(b, attrs);
  return b.Finish(b.TypeOf(dy));
}

Output Tile(const Scope& scope, const Output& input, const Output& multiples) {
  NodeBuilder b(scope, "Tile");
  b.Input(input, "input").Input(multiples, "multiples");
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tmultiples", b.IndexType(multiples, "multiples"));
  return b.Finish(b.TypeOf(input));
}

Output Pad(const Scope& scope, const Output& input, const Output& paddings) {
  NodeBuilder b(scope, "Pad");
  b.Input(input, "input").Input(paddings, "paddings");
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tpaddings", b.IndexType(paddings, "paddings"));
  return b.Finish(b.TypeOf(input));
}

Output GatherV2(const Scope& scope, const Output& params,
                const Output& indices, const Output& axis,
                int64_t batch_dims) {
  NodeBuilder b(scope, "GatherV2");
  b.Input(params, "params").Input(indices, "indices").Input(axis, "axis");
  b.IntAttr("batch_dims", batch_dims);
  b.TypeAttr("Tparams", b.TypeOf(params));
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.TypeAttr("Taxis", b.IndexType(axis, "axis"));
  return b.Finish(b.TypeOf(params));
}

std::vector<Output> Unpack(const Scope& scope, const Output& value,
                           int64_t num, int64_t axis) {
  NodeBuilder b(scope, "Unpack");
  b.Input(value, "value");
  if (num < 0) b.Fail(absl::StrCat("num must be >= 0, not ", num));
  b.IntAttr("num", num);
  b.TypeAttr("T", b.TypeOf(value));
  b.IntAttr("axis", axis);
  return b.FinishAll(
      std::vector<DataType>(static_cast<size_t>(std::max<int64_t>(num, 0)),
                            b.TypeOf(value)));
}

std::vector<Output> SplitV(const Scope& scope, const Output& value,
                           const Output& size_splits, const Output& axis,
                           int64_t num_split) {
  NodeBuilder b(scope, "SplitV");
  b.Input(value, "value").Input(size_splits, "size_splits");
  b.Input(axis, "split_dim");
  RequireType(b, axis, "split_dim", DT_INT32);
  if (num_split < 1) {
    b.Fail(absl::StrCat("num_split must be >= 1, not ", num_split));
  }
  b.IntAttr("num_split", num_split);
  b.TypeAttr("T", b.TypeOf(value));
  b.TypeAttr("Tlen", b.IndexType(size_splits, "size_splits"));
  return b.FinishAll(std::vector<DataType>(
      static_cast<size_t>(std::max<int64_t>(num_split, 0)), b.TypeOf(value)));
}

Output DynamicStitch(const Scope& scope, const std::vector<Output>& indices,
                     const std::vector<Output>& data) {
  NodeBuilder b(scope, "DynamicStitch");
  if (indices.empty() || indices.size() != data.size()) {
    b.Fail(absl::StrCat("needs as many indices as data, at least one; got ",
                        indices.size(), " and ", data.size()));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::string what = absl::StrCat("indices[", i, "]");
    b.Input(indices[i], what);
    RequireType(b, indices[i], what, DT_INT32);
  }
  DataType t = DT_INVALID;
  if (b.ok()) t = AddValueList(b, data);
  b.IntAttr("N", static_cast<int64_t>(data.size()));
  b.TypeAttr("T", t);
  return b.Finish(t);
}

Output UnsortedSegmentSum(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments) {
  NodeBuilder b(scope, "UnsortedSegmentSum");
  b.Input(data, "data").Input(segment_ids, "segment_ids");
  b.Input(num_segments, "num_segments");
  b.TypeAttr("T", b.TypeOf(data));
  b.TypeAttr("Tindices", b.IndexType(segment_ids, "segment_ids"));
  b.TypeAttr("Tnumsegments", b.IndexType(num_segments, "num_segments"));
  return b.Finish(b.TypeOf(data));
}

Output SelectV2(const Scope& scope, const Output& condition, const Output& t,
                const Output& e) {
  NodeBuilder b(scope, "SelectV2");
  b.Input(condition, "condition").Input(t, "t").Input(e, "e");
  RequireType(b, condition, "condition", DT_BOOL);
  const DataType type = b.SameType({{&t, "t"}, {&e, "e"}});
  b.TypeAttr("T", type);
  return b.Finish(type);
}

// ---------------------------------------------------------------------------
// Neural-network ops.

namespace {

Output Activation(const Scope& scope, absl::string_view op,
                  const Output& features) {
  NodeBuilder b(scope, op);
  b.Input(features, "features");
  b.TypeAttr("T", b.TypeOf(features));
  return b.Finish(b.TypeOf(features));
}

}  // namespace

Output Relu6(const Scope& scope, const Output& features) {
  return Activation(scope, "Relu6", features);
}
Output Elu(const Scope& scope, const Output& features) {
  return Activation(scope, "Elu", features);
}
Output Selu(const Scope& scope, const Output& features) {
  return Activation(scope, "Selu", features);
}
Output Softplus(const Scope& scope, const Output& features) {
  return Activation(scope, "Softplus", features);
}
Output LeakyRelu(const Scope& scope, const Output& features, float alpha) {
  NodeBuilder b(scope, "LeakyRelu");
  b.Input(features, "features");
  b.FloatAttr("alpha", alpha);
  b.TypeAttr("T", b.TypeOf(features));
  return b.Finish(b.TypeOf(features));
}
Output LogSoftmax(const Scope& scope, const Output& logits) {
  NodeBuilder b(scope, "LogSoftmax");
  b.Input(logits, "logits");
  b.TypeAttr("T", b.TypeOf(logits));
  return b.Finish(b.TypeOf(logits));
}
Output L2Loss(const Scope& scope, const Output& t) {
  NodeBuilder b(scope, "L2Loss");
  b.Input(t, "t");
  b.TypeAttr("T", b.TypeOf(t));
  return b.Finish(b.TypeOf(t));
}

Output ReluGrad(const Scope& scope, const Output& gradients,
                const Output& features) {
  return ActivationGrad(scope, "ReluGrad", gradients, features, "features");
}
Output Relu6Grad(const Scope& scope, const Output& gradients,
                 const Output& features) {
  return ActivationGrad(scope, "Relu6Grad", gradients, features, "features");
}
Output EluGrad(const Scope& scope, const Output& gradients,
               const Output& outputs) {
  return ActivationGrad(scope, "EluGrad", gradients, outputs, "outputs");
}
Output SeluGrad(const Scope& scope, const Output& gradients,
                const Output& outputs) {
  return ActivationGrad(scope, "SeluGrad", gradients, outputs, "outputs");
}
Output SoftplusGrad(const Scope& scope, const Output& gradients,
                    const Output& features) {
  return ActivationGrad(scope, "SoftplusGrad", gradients, features,
                        "features");
}
Output LeakyReluGrad(const Scope& scope, const Output& gradients,
                     const Output& features, float alpha) {
  NodeBuilder b(scope, "LeakyReluGrad");
  b.Input(gradients, "gradients").Input(features, "features");
  const DataType t =
      b.SameType({{&gradients, "gradients"}, {&features, "features"}});
  b.FloatAttr("alpha", alpha);
  b.TypeAttr("T", t);
  return b.Finish(t);
}

Output BiasAddGrad(const Scope& scope, const Output& out_backprop,
                   absl::string_view data_format) {
  NodeBuilder b(scope, "BiasAddGrad");
  b.Input(out_backprop, "out_backprop");
  b.TypeAttr("T", b.TypeOf(out_backprop));
  b.StringAttr("data_format", data_format);
  return b.Finish(b.TypeOf(out_backprop));
}

SoftmaxCrossEntropyOutputs SoftmaxCrossEntropyWithLogits(
    const Scope& scope, const Output& features, const Output& labels) {
  NodeBuilder b(scope, "SoftmaxCrossEntropyWithLogits");
  b.Input(features, "features").Input(labels, "labels");
  const DataType t = b.SameType({{&features, "features"}, {&labels, "labels"}});
  b.TypeAttr("T", t);
  std::vector<Output> out = b.FinishAll({t, t});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

SoftmaxCrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(
    const Scope& scope, const Output& features, const Output& labels) {
  NodeBuilder b(scope, "SparseSoftmaxCrossEntropyWithLogits");
  b.Input(features, "features").Input(labels, "labels");
  const DataType t = b.TypeOf(features);
  b.TypeAttr("T", t);
  b.TypeAttr("Tlabels", b.IndexType(labels, "labels"));
  std::vector<Output> out = b.FinishAll({t, t});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

namespace {

// Conv2D's attrs, in the order TensorFlow declares them.
void Conv2DAttrList(NodeBuilder& b, DataType t, const Conv2DAttrs& attrs) {
  b.TypeAttr("T", t);
  b.IntListAttr("strides", attrs.strides);
  b.BoolAttr("use_cudnn_on_gpu", attrs.use_cudnn_on_gpu);
  b.StringAttr("padding", attrs.padding);
  b.IntListAttr("explicit_paddings", attrs.explicit_paddings);
  b.StringAttr("data_format", attrs.data_format);
  b.IntListAttr("dilations", attrs.dilations);
}

}  // namespace

Output Conv2D(const Scope& scope, const Output& input, const Output& filter,
              const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "Conv2D");
  b.Input(input, "input").Input(filter, "filter");
  const DataType t = b.SameType({{&input, "input"}, {&filter, "filter"}});
  Conv2DAttrList(b, t, attrs);
  return b.Finish(t);
}

Output Conv2DBackpropInput(const Scope& scope, const Output& input_sizes,
                           const Output& filter, const Output& out_backprop,
                           const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "Conv2DBackpropInput");
  b.Input(input_sizes, "input_sizes").Input(filter, "filter");
  b.Input(out_backprop, "out_backprop");
  RequireType(b, input_sizes, "input_sizes", DT_INT32);
  const DataType t =
      b.SameType({{&filter, "filter"}, {&out_backprop, "out_backprop"}});
  Conv2DAttrList(b, t, attrs);
  return b.Finish(t);
}

Output Conv2DBackpropFilter(const Scope& scope, const Output& input,
                            const Output& filter_sizes,
                            const Output& out_backprop,
                            const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "Conv2DBackpropFilter");
  b.Input(input, "input").Input(filter_sizes, "filter_sizes");
  b.Input(out_backprop, "out_backprop");
  RequireType(b, filter_sizes, "filter_sizes", DT_INT32);
  const DataType t =
      b.SameType({{&input, "input"}, {&out_backprop, "out_backprop"}});
  Conv2DAttrList(b, t, attrs);
  return b.Finish(t);
}

namespace {

void PoolAttrList(NodeBuilder& b, DataType t, const PoolAttrs& attrs,
                  bool explicit_paddings) {
  b.TypeAttr("T", t);
  b.IntListAttr("ksize", attrs.ksize);
  b.IntListAttr("strides", attrs.strides);
  b.StringAttr("padding", attrs.padding);
  if (explicit_paddings) {
    b.IntListAttr("explicit_paddings", attrs.explicit_paddings);
  } else if (!attrs.explicit_paddings.empty()) {
    b.Fail("this op has no explicit_paddings attr");
  }
  b.StringAttr("data_format", attrs.data_format);
}

}  // namespace

Output MaxPool(const Scope& scope, const Output& input,
               const PoolAttrs& attrs) {
  NodeBuilder b(scope, "MaxPool");
  b.Input(input, "input");
  PoolAttrList(b, b.TypeOf(input), attrs, /*explicit_paddings=*/true);
  return b.Finish(b.TypeOf(input));
}

Output MaxPoolGrad(const Scope& scope, const Output& orig_input,
                   const Output& orig_output, const Output& grad,
                   const PoolAttrs& attrs) {
  NodeBuilder b(scope, "MaxPoolGrad");
  b.Input(orig_input, "orig_input").Input(orig_output, "orig_output");
  b.Input(grad, "grad");
  const DataType t = b.SameType({{&orig_input, "orig_input"},
                                 {&orig_output, "orig_output"},
                                 {&grad, "grad"}});
  PoolAttrList(b, t, attrs, /*explicit_paddings=*/true);
  return b.Finish(t);
}

Output AvgPool(const Scope& scope, const Output& value,
               const PoolAttrs& attrs) {
  NodeBuilder b(scope, "AvgPool");
  b.Input(value, "value");
  PoolAttrList(b, b.TypeOf(value), attrs, /*explicit_paddings=*/false);
  return b.Finish(b.TypeOf(value));
}

Output AvgPoolGrad(const Scope& scope, const Output& orig_input_shape,
                   const Output& grad, const PoolAttrs& attrs) {
  NodeBuilder b(scope, "AvgPoolGrad");
  b.Input(orig_input_shape, "orig_input_shape").Input(grad, "grad");
  RequireType(b, orig_input_shape, "orig_input_shape", DT_INT32);
  PoolAttrList(b, b.TypeOf(grad), attrs, /*explicit_paddings=*/false);
  return b.Finish(b.TypeOf(grad));
}

FusedBatchNormV3Outputs FusedBatchNormV3(const Scope& scope, const Output& x,
                                         const Output& scale,
                                         const Output& offset,
                                         const Output& mean,
                                         const Output& variance,
                                         const FusedBatchNormAttrs& attrs) {
  NodeBuilder b(scope, "FusedBatchNormV3");
  b.Input(x, "x").Input(scale, "scale").Input(offset, "offset");
  b.Input(mean, "mean").Input(variance, "variance");
  const DataType t = b.TypeOf(x);
  const DataType u = b.SameType({{&scale, "scale"},
                                 {&offset, "offset"},
                                 {&mean, "mean"},
                                 {&variance, "variance"}});
  b.TypeAttr("T", t);
  b.TypeAttr("U", u);
  b.FloatAttr("epsilon", attrs.epsilon);
  b.FloatAttr("exponential_avg_factor", attrs.exponential_avg_factor);
  b.StringAttr("data_format", attrs.data_format);
  b.BoolAttr("is_training", attrs.is_training);
  std::vector<Output> out = b.FinishAll({t, u, u, u, u, u});
  if (out.empty()) return {};
  return {out[0], out[1], out[2], out[3], out[4], out[5]};
}

FusedBatchNormGradV3Outputs FusedBatchNormGradV3(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const Output& reserve_space_3,
    const FusedBatchNormAttrs& attrs) {
  NodeBuilder b(scope, "FusedBatchNormGradV3");
  b.Input(y_backprop, "y_backprop").Input(x, "x").Input(scale, "scale");
  b.Input(reserve_space_1, "reserve_space_1");
  b.Input(reserve_space_2, "reserve_space_2");
  b.Input(reserve_space_3, "reserve_space_3");
  const DataType t = b.SameType({{&y_backprop, "y_backprop"}, {&x, "x"}});
  RequireType(b, scale, "scale", DT_FLOAT);
  const DataType u = b.SameType({{&reserve_space_1, "reserve_space_1"},
                                 {&reserve_space_2, "reserve_space_2"},
                                 {&reserve_space_3, "reserve_space_3"}});
  b.TypeAttr("T", t);
  b.TypeAttr("U", u);
  b.FloatAttr("epsilon", attrs.epsilon);
  b.StringAttr("data_format", attrs.data_format);
  b.BoolAttr("is_training", attrs.is_training);
  std::vector<Output> out = b.FinishAll({t, u, u, u, u});
  if (out.empty()) return {};
  return {out[0], out[1], out[2], out[3], out[4]};
}

// ---------------------------------------------------------------------------
// Variables, random initial values, optimizer updates, checkpoints.

namespace {

AttrValue ShapeAttrOf(const std::vector<int64_t>& shape) {
  AttrValue v;
  TensorShapeProto* proto = v.mutable_shape();
  for (int64_t d : shape) proto->add_dim()->set_size(d);
  return v;
}

}  // namespace

Output VarHandleOp(const Scope& scope, DataType dtype,
                   const std::vector<int64_t>& shape,
                   absl::string_view shared_name) {
  NodeBuilder b(scope, "VarHandleOp");
  b.StringAttr("container", "");
  b.StringAttr("shared_name", shared_name.empty() ? absl::string_view(b.name())
                                                  : shared_name);
  b.StringAttr("debug_name", "");
  b.TypeAttr("dtype", dtype);
  b.Attr("shape", ShapeAttrOf(shape));
  AttrValue devices;
  devices.mutable_list();
  b.Attr("allowed_devices", std::move(devices));
  return b.Finish(DT_RESOURCE);
}

Output ReadVariableOp(const Scope& scope, const Output& resource,
                      DataType dtype) {
  NodeBuilder b(scope, "ReadVariableOp");
  b.Input(resource, "resource");
  b.TypeAttr("dtype", dtype);
  return b.Finish(dtype);
}

namespace {

// AssignVariableOp, AssignAddVariableOp: a handle and a value of type dtype.
Operation UpdateVariable(const Scope& scope, absl::string_view op,
                         const Output& resource, const Output& value) {
  NodeBuilder b(scope, op);
  b.Input(resource, "resource").Input(value, "value");
  b.TypeAttr("dtype", b.TypeOf(value));
  if (op == "AssignVariableOp") b.BoolAttr("validate_shape", false);
  return b.FinishOperation();
}

}  // namespace

Operation AssignVariableOp(const Scope& scope, const Output& resource,
                           const Output& value) {
  return UpdateVariable(scope, "AssignVariableOp", resource, value);
}

Operation AssignAddVariableOp(const Scope& scope, const Output& resource,
                              const Output& value) {
  return UpdateVariable(scope, "AssignAddVariableOp", resource, value);
}

namespace {

// RandomUniform, TruncatedNormal, RandomStandardNormal: one shape input,
// seeds and dtype attrs.
Output SeededRandom(const Scope& scope, absl::string_view op,
                    const Output& shape, DataType dtype, int64_t seed,
                    int64_t seed2) {
  NodeBuilder b(scope, op);
  b.Input(shape, "shape");
  b.IntAttr("seed", seed);
  b.IntAttr("seed2", seed2);
  b.TypeAttr("dtype", dtype);
  b.TypeAttr("T", b.IndexType(shape, "shape"));
  return b.Finish(dtype);
}

}  // namespace

Output RandomUniform(const Scope& scope, const Output& shape, DataType dtype,
                     int64_t seed, int64_t seed2) {
  return SeededRandom(scope, "RandomUniform", shape, dtype, seed, seed2);
}

Output TruncatedNormal(const Scope& scope, const Output& shape, DataType dtype,
                       int64_t seed, int64_t seed2) {
  return SeededRandom(scope, "TruncatedNormal", shape, dtype, seed, seed2);
}

Operation ResourceApplyGradientDescent(const Scope& scope, const Output& var,
                                       const Output& alpha,
                                       const Output& delta, bool use_locking) {
  NodeBuilder b(scope, "ResourceApplyGradientDescent");
  b.Input(var, "var").Input(alpha, "alpha").Input(delta, "delta");
  b.TypeAttr("T", b.TypeOf(delta));
  b.BoolAttr("use_locking", use_locking);
  return b.FinishOperation();
}

Operation ResourceApplyMomentum(const Scope& scope, const Output& var,
                                const Output& accum, const Output& lr,
                                const Output& grad, const Output& momentum,
                                bool use_locking, bool use_nesterov) {
  NodeBuilder b(scope, "ResourceApplyMomentum");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(momentum, "momentum");
  b.TypeAttr("T", b.TypeOf(grad));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", use_nesterov);
  return b.FinishOperation();
}

Operation ResourceApplyAdam(const Scope& scope, const Output& var,
                            const Output& m, const Output& v,
                            const Output& beta1_power,
                            const Output& beta2_power, const Output& lr,
                            const Output& beta1, const Output& beta2,
                            const Output& epsilon, const Output& grad,
                            bool use_locking) {
  NodeBuilder b(scope, "ResourceApplyAdam");
  b.Input(var, "var").Input(m, "m").Input(v, "v");
  b.Input(beta1_power, "beta1_power").Input(beta2_power, "beta2_power");
  b.Input(lr, "lr").Input(beta1, "beta1").Input(beta2, "beta2");
  b.Input(epsilon, "epsilon").Input(grad, "grad");
  b.TypeAttr("T", b.TypeOf(grad));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", false);
  return b.FinishOperation();
}

Operation SaveV2(const Scope& scope, const Output& prefix,
                 const Output& tensor_names, const Output& shape_and_slices,
                 absl::Span<const Output> tensors) {
  NodeBuilder b(scope, "SaveV2");
  b.Input(prefix, "prefix").Input(tensor_names, "tensor_names");
  b.Input(shape_and_slices, "shape_and_slices");
  AttrValue dtypes;
  dtypes.mutable_list();
  for (size_t i = 0; i < tensors.size(); ++i) {
    b.Input(tensors[i], absl::StrCat("tensors[", i, "]"));
    dtypes.mutable_list()->add_type(b.TypeOf(tensors[i]));
  }
  b.Attr("dtypes", std::move(dtypes));
  return b.FinishOperation();
}

std::vector<Output> RestoreV2(const Scope& scope, const Output& prefix,
                              const Output& tensor_names,
                              const Output& shape_and_slices,
                              const std::vector<DataType>& dtypes) {
  NodeBuilder b(scope, "RestoreV2");
  b.Input(prefix, "prefix").Input(tensor_names, "tensor_names");
  b.Input(shape_and_slices, "shape_and_slices");
  AttrValue types;
  types.mutable_list();
  for (DataType t : dtypes) types.mutable_list()->add_type(t);
  b.Attr("dtypes", std::move(types));
  return b.FinishAll(dtypes);
}

// ---------------------------------------------------------------------------
// More math, array and nn ops.

Output Sin(const Scope& scope, const Output& x) { return Unary(scope, "Sin", x); }
Output Cos(const Scope& scope, const Output& x) { return Unary(scope, "Cos", x); }
Output Tan(const Scope& scope, const Output& x) { return Unary(scope, "Tan", x); }
Output Asin(const Scope& scope, const Output& x) {
  return Unary(scope, "Asin", x);
}
Output Acos(const Scope& scope, const Output& x) {
  return Unary(scope, "Acos", x);
}
Output Atan(const Scope& scope, const Output& x) {
  return Unary(scope, "Atan", x);
}
Output Sinh(const Scope& scope, const Output& x) {
  return Unary(scope, "Sinh", x);
}
Output Cosh(const Scope& scope, const Output& x) {
  return Unary(scope, "Cosh", x);
}
Output Erf(const Scope& scope, const Output& x) { return Unary(scope, "Erf", x); }
Output Erfc(const Scope& scope, const Output& x) {
  return Unary(scope, "Erfc", x);
}
Output Expm1(const Scope& scope, const Output& x) {
  return Unary(scope, "Expm1", x);
}
Output Inv(const Scope& scope, const Output& x) { return Unary(scope, "Inv", x); }
Output Softsign(const Scope& scope, const Output& features) {
  return Activation(scope, "Softsign", features);
}
Output SoftsignGrad(const Scope& scope, const Output& gradients,
                    const Output& features) {
  return ActivationGrad(scope, "SoftsignGrad", gradients, features,
                        "features");
}

Output Atan2(const Scope& scope, const Output& y, const Output& x) {
  NodeBuilder b(scope, "Atan2");
  b.Input(y, "y").Input(x, "x");
  const DataType t = b.SameType({{&y, "y"}, {&x, "x"}});
  b.TypeAttr("T", t);
  return b.Finish(t);
}
Output Xlogy(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Xlogy", x, y);
}
Output Xdivy(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Xdivy", x, y);
}
Output Xlog1py(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "Xlog1py", x, y);
}
Output DivNoNan(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "DivNoNan", x, y);
}
Output MulNoNan(const Scope& scope, const Output& x, const Output& y) {
  return Binary(scope, "MulNoNan", x, y);
}

Output ClipByValue(const Scope& scope, const Output& t,
                   const Output& clip_value_min,
                   const Output& clip_value_max) {
  NodeBuilder b(scope, "ClipByValue");
  b.Input(t, "t").Input(clip_value_min, "clip_value_min");
  b.Input(clip_value_max, "clip_value_max");
  const DataType type = b.SameType({{&t, "t"},
                                    {&clip_value_min, "clip_value_min"},
                                    {&clip_value_max, "clip_value_max"}});
  b.TypeAttr("T", type);
  return b.Finish(type);
}

Output Prod(const Scope& scope, const Output& input, const Output& axis,
            bool keep_dims) {
  return Reduction(scope, "Prod", input, axis, keep_dims);
}
Output EuclideanNorm(const Scope& scope, const Output& input,
                     const Output& axis, bool keep_dims) {
  return Reduction(scope, "EuclideanNorm", input, axis, keep_dims);
}

namespace {

Output Scan(const Scope& scope, absl::string_view op, const Output& x,
            const Output& axis, const ScanAttrs& attrs) {
  NodeBuilder b(scope, op);
  b.Input(x, "x").Input(axis, "axis");
  b.BoolAttr("exclusive", attrs.exclusive);
  b.BoolAttr("reverse", attrs.reverse);
  b.TypeAttr("T", b.TypeOf(x));
  b.TypeAttr("Tidx", b.IndexType(axis, "axis"));
  return b.Finish(b.TypeOf(x));
}

}  // namespace

Output Cumsum(const Scope& scope, const Output& x, const Output& axis,
              const ScanAttrs& attrs) {
  return Scan(scope, "Cumsum", x, axis, attrs);
}
Output Cumprod(const Scope& scope, const Output& x, const Output& axis,
               const ScanAttrs& attrs) {
  return Scan(scope, "Cumprod", x, axis, attrs);
}

Output Einsum(const Scope& scope, const std::vector<Output>& inputs,
              absl::string_view equation) {
  NodeBuilder b(scope, "Einsum");
  if (inputs.empty()) b.Fail("needs at least one input");
  DataType t = DT_INVALID;
  if (b.ok()) t = AddValueList(b, inputs);
  b.StringAttr("equation", equation);
  b.IntAttr("N", static_cast<int64_t>(inputs.size()));
  b.TypeAttr("T", t);
  return b.Finish(t);
}

TopKOutputs TopKV2(const Scope& scope, const Output& input, const Output& k,
                   bool sorted) {
  NodeBuilder b(scope, "TopKV2");
  b.Input(input, "input").Input(k, "k");
  b.BoolAttr("sorted", sorted);
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tk", b.IndexType(k, "k"));
  b.TypeAttr("index_type", DT_INT32);
  std::vector<Output> out = b.FinishAll({b.TypeOf(input), DT_INT32});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

namespace {

void DepthwiseAttrList(NodeBuilder& b, DataType t, const Conv2DAttrs& attrs) {
  b.TypeAttr("T", t);
  b.IntListAttr("strides", attrs.strides);
  b.StringAttr("padding", attrs.padding);
  b.IntListAttr("explicit_paddings", attrs.explicit_paddings);
  b.StringAttr("data_format", attrs.data_format);
  b.IntListAttr("dilations", attrs.dilations);
}

}  // namespace

Output DepthwiseConv2dNative(const Scope& scope, const Output& input,
                             const Output& filter, const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "DepthwiseConv2dNative");
  b.Input(input, "input").Input(filter, "filter");
  const DataType t = b.SameType({{&input, "input"}, {&filter, "filter"}});
  DepthwiseAttrList(b, t, attrs);
  return b.Finish(t);
}

Output DepthwiseConv2dNativeBackpropInput(const Scope& scope,
                                          const Output& input_sizes,
                                          const Output& filter,
                                          const Output& out_backprop,
                                          const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "DepthwiseConv2dNativeBackpropInput");
  b.Input(input_sizes, "input_sizes").Input(filter, "filter");
  b.Input(out_backprop, "out_backprop");
  RequireType(b, input_sizes, "input_sizes", DT_INT32);
  const DataType t =
      b.SameType({{&filter, "filter"}, {&out_backprop, "out_backprop"}});
  DepthwiseAttrList(b, t, attrs);
  return b.Finish(t);
}

Output DepthwiseConv2dNativeBackpropFilter(const Scope& scope,
                                           const Output& input,
                                           const Output& filter_sizes,
                                           const Output& out_backprop,
                                           const Conv2DAttrs& attrs) {
  NodeBuilder b(scope, "DepthwiseConv2dNativeBackpropFilter");
  b.Input(input, "input").Input(filter_sizes, "filter_sizes");
  b.Input(out_backprop, "out_backprop");
  RequireType(b, filter_sizes, "filter_sizes", DT_INT32);
  const DataType t =
      b.SameType({{&input, "input"}, {&out_backprop, "out_backprop"}});
  DepthwiseAttrList(b, t, attrs);
  return b.Finish(t);
}

namespace {

Output MirrorPadOp(const Scope& scope, absl::string_view op,
                   const Output& input, const Output& paddings,
                   absl::string_view mode) {
  NodeBuilder b(scope, op);
  b.Input(input, "input").Input(paddings, "paddings");
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    b.Fail(absl::StrCat("mode must be REFLECT or SYMMETRIC, not '", mode,
                        "'"));
  }
  b.TypeAttr("T", b.TypeOf(input));
  b.TypeAttr("Tpaddings", b.IndexType(paddings, "paddings"));
  b.StringAttr("mode", mode);
  return b.Finish(b.TypeOf(input));
}

}  // namespace

Output MirrorPad(const Scope& scope, const Output& input,
                 const Output& paddings, absl::string_view mode) {
  return MirrorPadOp(scope, "MirrorPad", input, paddings, mode);
}
Output MirrorPadGrad(const Scope& scope, const Output& input,
                     const Output& paddings, absl::string_view mode) {
  return MirrorPadOp(scope, "MirrorPadGrad", input, paddings, mode);
}

Output PadV2(const Scope& scope, const Output& input, const Output& paddings,
             const Output& constant_values) {
  NodeBuilder b(scope, "PadV2");
  b.Input(input, "input").Input(paddings, "paddings");
  b.Input(constant_values, "constant_values");
  const DataType t =
      b.SameType({{&input, "input"}, {&constant_values, "constant_values"}});
  b.TypeAttr("T", t);
  b.TypeAttr("Tpaddings", b.IndexType(paddings, "paddings"));
  return b.Finish(t);
}

namespace {

Output SortedSegment(const Scope& scope, absl::string_view op,
                     const Output& data, const Output& segment_ids) {
  NodeBuilder b(scope, op);
  b.Input(data, "data").Input(segment_ids, "segment_ids");
  b.TypeAttr("T", b.TypeOf(data));
  b.TypeAttr("Tindices", b.IndexType(segment_ids, "segment_ids"));
  return b.Finish(b.TypeOf(data));
}

Output UnsortedSegment(const Scope& scope, absl::string_view op,
                       const Output& data, const Output& segment_ids,
                       const Output& num_segments) {
  NodeBuilder b(scope, op);
  b.Input(data, "data").Input(segment_ids, "segment_ids");
  b.Input(num_segments, "num_segments");
  b.TypeAttr("T", b.TypeOf(data));
  b.TypeAttr("Tindices", b.IndexType(segment_ids, "segment_ids"));
  b.TypeAttr("Tnumsegments", b.IndexType(num_segments, "num_segments"));
  return b.Finish(b.TypeOf(data));
}

}  // namespace

Output SegmentSum(const Scope& scope, const Output& data,
                  const Output& segment_ids) {
  return SortedSegment(scope, "SegmentSum", data, segment_ids);
}
Output SegmentMean(const Scope& scope, const Output& data,
                   const Output& segment_ids) {
  return SortedSegment(scope, "SegmentMean", data, segment_ids);
}
Output UnsortedSegmentMax(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments) {
  return UnsortedSegment(scope, "UnsortedSegmentMax", data, segment_ids,
                         num_segments);
}
Output UnsortedSegmentMin(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments) {
  return UnsortedSegment(scope, "UnsortedSegmentMin", data, segment_ids,
                         num_segments);
}
Output UnsortedSegmentProd(const Scope& scope, const Output& data,
                           const Output& segment_ids,
                           const Output& num_segments) {
  return UnsortedSegment(scope, "UnsortedSegmentProd", data, segment_ids,
                         num_segments);
}

Output GatherNd(const Scope& scope, const Output& params,
                const Output& indices) {
  NodeBuilder b(scope, "GatherNd");
  b.Input(params, "params").Input(indices, "indices");
  b.TypeAttr("Tparams", b.TypeOf(params));
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  return b.Finish(b.TypeOf(params));
}

Output ScatterNd(const Scope& scope, const Output& indices,
                 const Output& updates, const Output& shape) {
  NodeBuilder b(scope, "ScatterNd");
  b.Input(indices, "indices").Input(updates, "updates").Input(shape, "shape");
  b.IndexType(indices, "indices");
  const DataType index =
      b.SameType({{&indices, "indices"}, {&shape, "shape"}});
  b.TypeAttr("T", b.TypeOf(updates));
  b.TypeAttr("Tindices", index);
  return b.Finish(b.TypeOf(updates));
}

namespace {

Output TensorScatter(const Scope& scope, absl::string_view op,
                     const Output& tensor, const Output& indices,
                     const Output& updates) {
  NodeBuilder b(scope, op);
  b.Input(tensor, "tensor").Input(indices, "indices");
  b.Input(updates, "updates");
  const DataType t = b.SameType({{&tensor, "tensor"}, {&updates, "updates"}});
  b.TypeAttr("T", t);
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  return b.Finish(t);
}

}  // namespace

Output TensorScatterAdd(const Scope& scope, const Output& tensor,
                        const Output& indices, const Output& updates) {
  return TensorScatter(scope, "TensorScatterAdd", tensor, indices, updates);
}
Output TensorScatterUpdate(const Scope& scope, const Output& tensor,
                           const Output& indices, const Output& updates) {
  return TensorScatter(scope, "TensorScatterUpdate", tensor, indices, updates);
}

Output ReverseV2(const Scope& scope, const Output& tensor, const Output& axis) {
  NodeBuilder b(scope, "ReverseV2");
  b.Input(tensor, "tensor").Input(axis, "axis");
  b.TypeAttr("Tidx", b.IndexType(axis, "axis"));
  b.TypeAttr("T", b.TypeOf(tensor));
  return b.Finish(b.TypeOf(tensor));
}

UniqueOutputs Unique(const Scope& scope, const Output& x) {
  NodeBuilder b(scope, "Unique");
  b.Input(x, "x");
  b.TypeAttr("T", b.TypeOf(x));
  b.TypeAttr("out_idx", DT_INT32);
  std::vector<Output> out = b.FinishAll({b.TypeOf(x), DT_INT32});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

Output ReciprocalGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "ReciprocalGrad", y, dy);
}
Output InvGrad(const Scope& scope, const Output& y, const Output& dy) {
  return UnaryGrad(scope, "InvGrad", y, dy);
}

namespace {

void LrnAttrList(NodeBuilder& b, DataType t, const LrnAttrs& attrs) {
  b.IntAttr("depth_radius", attrs.depth_radius);
  b.FloatAttr("bias", attrs.bias);
  b.FloatAttr("alpha", attrs.alpha);
  b.FloatAttr("beta", attrs.beta);
  b.TypeAttr("T", t);
}

}  // namespace

Output LRN(const Scope& scope, const Output& input, const LrnAttrs& attrs) {
  NodeBuilder b(scope, "LRN");
  b.Input(input, "input");
  LrnAttrList(b, b.TypeOf(input), attrs);
  return b.Finish(b.TypeOf(input));
}

Output LRNGrad(const Scope& scope, const Output& input_grads,
               const Output& input_image, const Output& output_image,
               const LrnAttrs& attrs) {
  NodeBuilder b(scope, "LRNGrad");
  b.Input(input_grads, "input_grads").Input(input_image, "input_image");
  b.Input(output_image, "output_image");
  const DataType t = b.SameType({{&input_grads, "input_grads"},
                                 {&input_image, "input_image"},
                                 {&output_image, "output_image"}});
  LrnAttrList(b, t, attrs);
  return b.Finish(t);
}

Output MaxPoolV2(const Scope& scope, const Output& input, const Output& ksize,
                 const Output& strides, const PoolAttrs& attrs) {
  NodeBuilder b(scope, "MaxPoolV2");
  b.Input(input, "input").Input(ksize, "ksize").Input(strides, "strides");
  RequireType(b, ksize, "ksize", DT_INT32);
  RequireType(b, strides, "strides", DT_INT32);
  b.TypeAttr("T", b.TypeOf(input));
  b.StringAttr("padding", attrs.padding);
  b.StringAttr("data_format", attrs.data_format);
  return b.Finish(b.TypeOf(input));
}

Output MaxPoolGradV2(const Scope& scope, const Output& orig_input,
                     const Output& orig_output, const Output& grad,
                     const Output& ksize, const Output& strides,
                     const PoolAttrs& attrs) {
  NodeBuilder b(scope, "MaxPoolGradV2");
  b.Input(orig_input, "orig_input").Input(orig_output, "orig_output");
  b.Input(grad, "grad").Input(ksize, "ksize").Input(strides, "strides");
  RequireType(b, ksize, "ksize", DT_INT32);
  RequireType(b, strides, "strides", DT_INT32);
  const DataType t = b.SameType({{&orig_input, "orig_input"},
                                 {&orig_output, "orig_output"},
                                 {&grad, "grad"}});
  b.StringAttr("padding", attrs.padding);
  b.StringAttr("data_format", attrs.data_format);
  b.TypeAttr("T", t);
  return b.Finish(t);
}

std::vector<Output> DynamicPartition(const Scope& scope, const Output& data,
                                     const Output& partitions,
                                     int64_t num_partitions) {
  NodeBuilder b(scope, "DynamicPartition");
  b.Input(data, "data").Input(partitions, "partitions");
  RequireType(b, partitions, "partitions", DT_INT32);
  if (num_partitions < 1) {
    b.Fail(absl::StrCat("num_partitions must be >= 1, not ", num_partitions));
  }
  b.IntAttr("num_partitions", num_partitions);
  b.TypeAttr("T", b.TypeOf(data));
  return b.FinishAll(std::vector<DataType>(
      static_cast<size_t>(std::max<int64_t>(num_partitions, 0)),
      b.TypeOf(data)));
}

namespace {

FusedBatchNormGradV3Outputs FusedBatchNormGradV1V2(
    const Scope& scope, absl::string_view op, const Output& y_backprop,
    const Output& x, const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormAttrs& attrs) {
  NodeBuilder b(scope, op);
  b.Input(y_backprop, "y_backprop").Input(x, "x").Input(scale, "scale");
  b.Input(reserve_space_1, "reserve_space_1");
  b.Input(reserve_space_2, "reserve_space_2");
  const DataType t = b.SameType({{&y_backprop, "y_backprop"}, {&x, "x"}});
  RequireType(b, scale, "scale", DT_FLOAT);
  const DataType u = b.SameType({{&reserve_space_1, "reserve_space_1"},
                                 {&reserve_space_2, "reserve_space_2"}});
  b.TypeAttr("T", t);
  if (op == "FusedBatchNormGradV2") b.TypeAttr("U", u);
  b.FloatAttr("epsilon", attrs.epsilon);
  b.StringAttr("data_format", attrs.data_format);
  b.BoolAttr("is_training", attrs.is_training);
  std::vector<Output> out = b.FinishAll({t, u, u, u, u});
  if (out.empty()) return {};
  return {out[0], out[1], out[2], out[3], out[4]};
}

}  // namespace

FusedBatchNormGradV3Outputs FusedBatchNormGrad(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormAttrs& attrs) {
  return FusedBatchNormGradV1V2(scope, "FusedBatchNormGrad", y_backprop, x,
                                scale, reserve_space_1, reserve_space_2,
                                attrs);
}

FusedBatchNormGradV3Outputs FusedBatchNormGradV2(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormAttrs& attrs) {
  return FusedBatchNormGradV1V2(scope, "FusedBatchNormGradV2", y_backprop, x,
                                scale, reserve_space_1, reserve_space_2,
                                attrs);
}

SwitchOutputs Switch(const Scope& scope, const Output& data,
                     const Output& pred) {
  NodeBuilder b(scope, "Switch");
  b.Input(data, "data").Input(pred, "pred");
  RequireType(b, pred, "pred", DT_BOOL);
  b.TypeAttr("T", b.TypeOf(data));
  std::vector<Output> out = b.FinishAll({b.TypeOf(data), b.TypeOf(data)});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

MergeOutputs Merge(const Scope& scope, const std::vector<Output>& inputs) {
  NodeBuilder b(scope, "Merge");
  if (inputs.empty()) b.Fail("needs at least one input");
  DataType t = DT_INVALID;
  if (b.ok()) t = AddValueList(b, inputs);
  b.TypeAttr("T", t);
  b.IntAttr("N", static_cast<int64_t>(inputs.size()));
  std::vector<Output> out = b.FinishAll({t, DT_INT32});
  if (out.empty()) return {};
  return {out[0], out[1]};
}

// ---------------------------------------------------------------------------
// Resource variables: sparse reads and updates.

Output ResourceGather(const Scope& scope, const Output& resource,
                      const Output& indices, DataType dtype) {
  NodeBuilder b(scope, "ResourceGather");
  b.Input(resource, "resource").Input(indices, "indices");
  RequireType(b, resource, "resource", DT_RESOURCE);
  b.IntAttr("batch_dims", 0);
  b.BoolAttr("validate_indices", true);
  b.TypeAttr("dtype", dtype);
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  return b.Finish(dtype);
}

namespace {

Operation ResourceScatter(const Scope& scope, absl::string_view op,
                          const Output& resource, const Output& indices,
                          const Output& updates) {
  NodeBuilder b(scope, op);
  b.Input(resource, "resource").Input(indices, "indices");
  b.Input(updates, "updates");
  RequireType(b, resource, "resource", DT_RESOURCE);
  b.TypeAttr("dtype", b.TypeOf(updates));
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  return b.FinishOperation();
}

}  // namespace

Operation ResourceScatterSub(const Scope& scope, const Output& resource,
                             const Output& indices, const Output& updates) {
  return ResourceScatter(scope, "ResourceScatterSub", resource, indices,
                         updates);
}
Operation ResourceScatterAdd(const Scope& scope, const Output& resource,
                             const Output& indices, const Output& updates) {
  return ResourceScatter(scope, "ResourceScatterAdd", resource, indices,
                         updates);
}

Operation ResourceApplyAdagrad(const Scope& scope, const Output& var,
                               const Output& accum, const Output& lr,
                               const Output& grad, bool use_locking) {
  NodeBuilder b(scope, "ResourceApplyAdagrad");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad");
  b.TypeAttr("T", b.TypeOf(grad));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("update_slots", true);
  return b.FinishOperation();
}

Operation ResourceSparseApplyAdagrad(const Scope& scope, const Output& var,
                                     const Output& accum, const Output& lr,
                                     const Output& grad, const Output& indices,
                                     bool use_locking) {
  NodeBuilder b(scope, "ResourceSparseApplyAdagrad");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(indices, "indices");
  b.TypeAttr("T", b.TypeOf(grad));
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("update_slots", true);
  return b.FinishOperation();
}

Operation ResourceSparseApplyMomentum(const Scope& scope, const Output& var,
                                      const Output& accum, const Output& lr,
                                      const Output& grad,
                                      const Output& indices,
                                      const Output& momentum, bool use_locking,
                                      bool use_nesterov) {
  NodeBuilder b(scope, "ResourceSparseApplyMomentum");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(indices, "indices").Input(momentum, "momentum");
  b.TypeAttr("T", b.TypeOf(grad));
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", use_nesterov);
  return b.FinishOperation();
}

// ---------------------------------------------------------------------------
// Reference variables.

namespace {

// `input` is a ref edge; returns its base type.
DataType RefType(NodeBuilder& b, const Output& input, absl::string_view what) {
  if (!b.ok()) return DT_INVALID;
  if (!IsRefType(input.dtype())) {
    b.Fail(absl::StrCat("input ", what, " must be a ref (a VariableV2 or "
                        "an op forwarding one), not ",
                        DataTypeString(input.dtype())));
    return DT_INVALID;
  }
  return BaseType(input.dtype());
}

}  // namespace

Output VariableV2(const Scope& scope, DataType dtype,
                  const std::vector<int64_t>& shape,
                  absl::string_view shared_name) {
  NodeBuilder b(scope, "VariableV2");
  b.Attr("shape", ShapeAttrOf(shape));
  b.TypeAttr("dtype", dtype);
  b.StringAttr("container", "");
  b.StringAttr("shared_name", shared_name);
  return b.Finish(MakeRefType(dtype));
}

Output Assign(const Scope& scope, const Output& ref, const Output& value,
              bool validate_shape, bool use_locking) {
  NodeBuilder b(scope, "Assign");
  b.Input(ref, "ref").Input(value, "value");
  const DataType t = RefType(b, ref, "ref");
  b.SameType({{&ref, "ref"}, {&value, "value"}});
  b.TypeAttr("T", t);
  b.BoolAttr("validate_shape", validate_shape);
  b.BoolAttr("use_locking", use_locking);
  return b.Finish(MakeRefType(t));
}

Output AssignAdd(const Scope& scope, const Output& ref, const Output& value,
                 bool use_locking) {
  NodeBuilder b(scope, "AssignAdd");
  b.Input(ref, "ref").Input(value, "value");
  const DataType t = RefType(b, ref, "ref");
  b.SameType({{&ref, "ref"}, {&value, "value"}});
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  return b.Finish(MakeRefType(t));
}

Output AssignSub(const Scope& scope, const Output& ref, const Output& value,
                 bool use_locking) {
  NodeBuilder b(scope, "AssignSub");
  b.Input(ref, "ref").Input(value, "value");
  const DataType t = RefType(b, ref, "ref");
  b.SameType({{&ref, "ref"}, {&value, "value"}});
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  return b.Finish(MakeRefType(t));
}

Output IsVariableInitialized(const Scope& scope, const Output& ref) {
  NodeBuilder b(scope, "IsVariableInitialized");
  b.Input(ref, "ref");
  b.TypeAttr("dtype", RefType(b, ref, "ref"));
  return b.Finish(DT_BOOL);
}

Output ScatterSub(const Scope& scope, const Output& ref, const Output& indices,
                  const Output& updates, bool use_locking) {
  NodeBuilder b(scope, "ScatterSub");
  b.Input(ref, "ref").Input(indices, "indices").Input(updates, "updates");
  const DataType t = RefType(b, ref, "ref");
  b.SameType({{&ref, "ref"}, {&updates, "updates"}});
  b.TypeAttr("T", t);
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.BoolAttr("use_locking", use_locking);
  return b.Finish(MakeRefType(t));
}

Output ApplyGradientDescent(const Scope& scope, const Output& var,
                            const Output& alpha, const Output& delta,
                            bool use_locking) {
  NodeBuilder b(scope, "ApplyGradientDescent");
  b.Input(var, "var").Input(alpha, "alpha").Input(delta, "delta");
  const DataType t = RefType(b, var, "var");
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  return b.Finish(MakeRefType(t));
}

Output ApplyMomentum(const Scope& scope, const Output& var,
                     const Output& accum, const Output& lr, const Output& grad,
                     const Output& momentum, bool use_locking,
                     bool use_nesterov) {
  NodeBuilder b(scope, "ApplyMomentum");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(momentum, "momentum");
  const DataType t = RefType(b, var, "var");
  RefType(b, accum, "accum");
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", use_nesterov);
  return b.Finish(MakeRefType(t));
}

Output ApplyAdam(const Scope& scope, const Output& var, const Output& m,
                 const Output& v, const Output& beta1_power,
                 const Output& beta2_power, const Output& lr,
                 const Output& beta1, const Output& beta2,
                 const Output& epsilon, const Output& grad, bool use_locking) {
  NodeBuilder b(scope, "ApplyAdam");
  b.Input(var, "var").Input(m, "m").Input(v, "v");
  b.Input(beta1_power, "beta1_power").Input(beta2_power, "beta2_power");
  b.Input(lr, "lr").Input(beta1, "beta1").Input(beta2, "beta2");
  b.Input(epsilon, "epsilon").Input(grad, "grad");
  const DataType t = RefType(b, var, "var");
  RefType(b, m, "m");
  RefType(b, v, "v");
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", false);
  return b.Finish(MakeRefType(t));
}

Output ApplyAdagrad(const Scope& scope, const Output& var, const Output& accum,
                    const Output& lr, const Output& grad, bool use_locking) {
  NodeBuilder b(scope, "ApplyAdagrad");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad");
  const DataType t = RefType(b, var, "var");
  RefType(b, accum, "accum");
  b.TypeAttr("T", t);
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("update_slots", true);
  return b.Finish(MakeRefType(t));
}

Output SparseApplyAdagrad(const Scope& scope, const Output& var,
                          const Output& accum, const Output& lr,
                          const Output& grad, const Output& indices,
                          bool use_locking) {
  NodeBuilder b(scope, "SparseApplyAdagrad");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(indices, "indices");
  const DataType t = RefType(b, var, "var");
  RefType(b, accum, "accum");
  b.TypeAttr("T", t);
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("update_slots", true);
  return b.Finish(MakeRefType(t));
}

Output SparseApplyMomentum(const Scope& scope, const Output& var,
                           const Output& accum, const Output& lr,
                           const Output& grad, const Output& indices,
                           const Output& momentum, bool use_locking,
                           bool use_nesterov) {
  NodeBuilder b(scope, "SparseApplyMomentum");
  b.Input(var, "var").Input(accum, "accum").Input(lr, "lr");
  b.Input(grad, "grad").Input(indices, "indices").Input(momentum, "momentum");
  const DataType t = RefType(b, var, "var");
  RefType(b, accum, "accum");
  b.TypeAttr("T", t);
  b.TypeAttr("Tindices", b.IndexType(indices, "indices"));
  b.BoolAttr("use_locking", use_locking);
  b.BoolAttr("use_nesterov", use_nesterov);
  return b.Finish(MakeRefType(t));
}

namespace {

// The inputs and attrs every V2 collective shares (the three keys, the
// empty ordering-token list when `tokens`, and the tuning attrs).
void CollectiveInputs(NodeBuilder& b, const Output& group_size,
                      const Output& group_key, const Output& instance_key,
                      bool tokens) {
  b.Input(group_size, "group_size").Input(group_key, "group_key");
  b.Input(instance_key, "instance_key");
  RequireType(b, group_size, "group_size", DT_INT32);
  RequireType(b, group_key, "group_key", DT_INT32);
  RequireType(b, instance_key, "instance_key", DT_INT32);
  b.StringAttr("communication_hint", "auto");
  b.FloatAttr("timeout_seconds", 0.0f);
  if (tokens) {
    b.BoolAttr("is_stateless", false);
    b.IntAttr("Nordering_token", 0);
  }
}

Output CollectiveReduction(const Scope& scope, absl::string_view op,
                           const Output& input, const Output& group_size,
                           const Output& group_key, const Output& instance_key,
                           absl::string_view merge_op,
                           absl::string_view final_op) {
  NodeBuilder b(scope, op);
  b.Input(input, "input");
  CollectiveInputs(b, group_size, group_key, instance_key, /*tokens=*/true);
  if (merge_op != "Add" && merge_op != "Mul" && merge_op != "Min" &&
      merge_op != "Max") {
    b.Fail(absl::StrCat("merge_op must be Add, Mul, Min or Max, not '",
                        merge_op, "'"));
  }
  if (final_op != "Id" && final_op != "Div") {
    b.Fail(absl::StrCat("final_op must be Id or Div, not '", final_op, "'"));
  }
  b.TypeAttr("T", b.TypeOf(input));
  b.StringAttr("merge_op", merge_op);
  b.StringAttr("final_op", final_op);
  b.IntAttr("max_subdivs_per_device", -1);
  return b.Finish(b.TypeOf(input));
}

Output CollectiveExchange(const Scope& scope, absl::string_view op,
                          const Output& input, const Output& group_size,
                          const Output& group_key, const Output& instance_key,
                          bool tokens) {
  NodeBuilder b(scope, op);
  b.Input(input, "input");
  CollectiveInputs(b, group_size, group_key, instance_key, tokens);
  b.TypeAttr("T", b.TypeOf(input));
  return b.Finish(b.TypeOf(input));
}

}  // namespace

Output CollectiveReduceV2(const Scope& scope, const Output& input,
                          const Output& group_size, const Output& group_key,
                          const Output& instance_key,
                          absl::string_view merge_op,
                          absl::string_view final_op) {
  return CollectiveReduction(scope, "CollectiveReduceV2", input, group_size,
                             group_key, instance_key, merge_op, final_op);
}

Output CollectiveReduceScatterV2(const Scope& scope, const Output& input,
                                 const Output& group_size,
                                 const Output& group_key,
                                 const Output& instance_key,
                                 absl::string_view merge_op,
                                 absl::string_view final_op) {
  return CollectiveReduction(scope, "CollectiveReduceScatterV2", input,
                             group_size, group_key, instance_key, merge_op,
                             final_op);
}

Output CollectiveGatherV2(const Scope& scope, const Output& input,
                          const Output& group_size, const Output& group_key,
                          const Output& instance_key) {
  return CollectiveExchange(scope, "CollectiveGatherV2", input, group_size,
                            group_key, instance_key, /*tokens=*/true);
}

Output CollectiveAllToAllV2(const Scope& scope, const Output& input,
                            const Output& group_size, const Output& group_key,
                            const Output& instance_key) {
  return CollectiveExchange(scope, "CollectiveAllToAllV2", input, group_size,
                            group_key, instance_key, /*tokens=*/true);
}

Output CollectiveBcastSendV2(const Scope& scope, const Output& input,
                             const Output& group_size, const Output& group_key,
                             const Output& instance_key) {
  return CollectiveExchange(scope, "CollectiveBcastSendV2", input, group_size,
                            group_key, instance_key, /*tokens=*/false);
}

Output CollectiveBcastRecvV2(const Scope& scope, DataType dtype,
                             const Output& group_size, const Output& group_key,
                             const Output& instance_key, const Output& shape) {
  NodeBuilder b(scope, "CollectiveBcastRecvV2");
  CollectiveInputs(b, group_size, group_key, instance_key, /*tokens=*/false);
  b.Input(shape, "shape");
  b.TypeAttr("T", dtype);
  b.TypeAttr("Tshape", b.IndexType(shape, "shape"));
  return b.Finish(dtype);
}

}  // namespace dfx::ops

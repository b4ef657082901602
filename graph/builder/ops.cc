#include "graph/builder/ops.h"

#include <cstring>
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

}  // namespace dfx::ops

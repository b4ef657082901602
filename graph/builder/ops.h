// Typed op wrappers of the C++ graph builder: each adds one node to a Scope's
// GraphDef in exactly the form TensorFlow writes it (op name, attr names,
// input strings), inferring type attrs (T, Tidx, ...) from its inputs.
//
// Every wrapper returns an invalid Output (and adds nothing) when the scope
// has failed already, and records InvalidArgument in the scope when an input
// is invalid, comes from another graph, or has a dtype the op cannot take
// next to the others (e.g. MatMul of float and int32). The builder does not
// consult the op registry; import the GraphDef to check it fully.
#ifndef DFX_GRAPH_BUILDER_OPS_H_
#define DFX_GRAPH_BUILDER_OPS_H_

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/builder/scope.h"
#include "graph/shape_inference.h"
#include "proto/tensor.pb.h"

namespace dfx::ops {

// Placeholder: a value fed at run time. Without a shape, the shape attr says
// unknown rank (as TensorFlow's Python client writes it).
Output Placeholder(const Scope& scope, DataType dtype);
Output Placeholder(const Scope& scope, DataType dtype,
                   const PartialShape& shape);

// Const: attrs `value` (a TensorProto) and `dtype`. As in TensorFlow, a
// single element is written into the typed field (float_val, int_val, ...)
// and several into tensor_content (strings: TensorFlow's varint-length list).
Output Const(const Scope& scope, const TensorProto& value);
Output Const(const Scope& scope, float value);
Output Const(const Scope& scope, double value);
Output Const(const Scope& scope, int32_t value);
Output Const(const Scope& scope, int64_t value);
Output Const(const Scope& scope, bool value);
Output Const(const Scope& scope, const char* value);
Output Const(const Scope& scope, const std::string& value);

// Element types a vector or list Const accepts.
template <typename T>
concept ConstElement =
    std::same_as<T, float> || std::same_as<T, double> ||
    std::same_as<T, int32_t> || std::same_as<T, int64_t> ||
    std::same_as<T, bool> || std::same_as<T, uint8_t> ||
    std::same_as<T, int8_t> || std::same_as<T, int16_t> ||
    std::same_as<T, std::string> || std::same_as<T, const char*>;

// A tensor of the given shape (rank 1 of values.size() elements when no
// shape is given). Const(scope, {1.f, 2.f}); Const(scope, {1, 2, 3, 4}, {2, 2}).
// InvalidArgument in the scope when the element count does not fit the
// shape. Instantiated in ops.cc for every ConstElement type.
template <ConstElement T>
Output Const(const Scope& scope, const std::vector<T>& values,
             const std::vector<int64_t>& shape);
template <ConstElement T>
Output Const(const Scope& scope, const std::vector<T>& values) {
  return Const(scope, values, {static_cast<int64_t>(values.size())});
}
template <ConstElement T>
Output Const(const Scope& scope, std::initializer_list<T> values) {
  return Const(scope, std::vector<T>(values));
}
template <ConstElement T>
Output Const(const Scope& scope, std::initializer_list<T> values,
             const std::vector<int64_t>& shape) {
  return Const(scope, std::vector<T>(values), shape);
}
// A matrix from rows: Const(scope, {{1.f, 2.f}, {3.f, 4.f}}). Rows of
// different lengths record InvalidArgument.
template <ConstElement T>
Output Const(const Scope& scope,
             std::initializer_list<std::initializer_list<T>> rows) {
  std::vector<T> values;
  const size_t cols = rows.size() == 0 ? 0 : rows.begin()->size();
  for (const auto& row : rows) {
    if (row.size() != cols) {
      scope.UpdateStatus(absl::InvalidArgumentError(
          "Const: rows of a matrix initializer have different lengths"));
      return Output();
    }
    values.insert(values.end(), row.begin(), row.end());
  }
  return Const(scope, values,
               {static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols)});
}
// From a dfx::Tensor (runtime/tensor.h), or anything with its proto
// methods; a template so that graph/ does not depend on runtime/.
template <typename TensorT>
  requires requires(const TensorT& t, TensorProto* p) {
    t.AsProtoTensorContent(p);
    t.AsProtoField(p);
    { t.NumElements() } -> std::convertible_to<int64_t>;
  }
Output Const(const Scope& scope, const TensorT& tensor) {
  TensorProto proto;
  if (tensor.NumElements() > 1) {
    tensor.AsProtoTensorContent(&proto);
  } else {
    tensor.AsProtoField(&proto);
  }
  return Const(scope, proto);
}

Output Identity(const Scope& scope, const Output& input);

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
  MatMulAttrs& TransposeA(bool v) {
    transpose_a = v;
    return *this;
  }
  MatMulAttrs& TransposeB(bool v) {
    transpose_b = v;
    return *this;
  }
};
// MatMul(s, a, b, {.transpose_b = true}).
Output MatMul(const Scope& scope, const Output& a, const Output& b,
              const MatMulAttrs& attrs = {});

// data_format is "NHWC" or "NCHW".
Output BiasAdd(const Scope& scope, const Output& value, const Output& bias,
               absl::string_view data_format = "NHWC");

// Unary ops: attr T from x.
Output Relu(const Scope& scope, const Output& features);
Output Softmax(const Scope& scope, const Output& logits);
Output Neg(const Scope& scope, const Output& x);
Output Exp(const Scope& scope, const Output& x);
Output Log(const Scope& scope, const Output& x);
Output Sqrt(const Scope& scope, const Output& x);
Output Square(const Scope& scope, const Output& x);
Output Tanh(const Scope& scope, const Output& x);
Output Sigmoid(const Scope& scope, const Output& x);
Output ZerosLike(const Scope& scope, const Output& x);
Output OnesLike(const Scope& scope, const Output& x);

// Binary ops: x and y of one dtype T.
Output AddV2(const Scope& scope, const Output& x, const Output& y);
Output Add(const Scope& scope, const Output& x, const Output& y);
Output Sub(const Scope& scope, const Output& x, const Output& y);
Output Mul(const Scope& scope, const Output& x, const Output& y);
Output RealDiv(const Scope& scope, const Output& x, const Output& y);
Output Maximum(const Scope& scope, const Output& x, const Output& y);
Output Minimum(const Scope& scope, const Output& x, const Output& y);
// Comparisons give bool. Equal carries incompatible_shape_error = true, as
// TensorFlow 2 writes it.
Output Equal(const Scope& scope, const Output& x, const Output& y);
Output Less(const Scope& scope, const Output& x, const Output& y);
Output Greater(const Scope& scope, const Output& x, const Output& y);

// Reductions over `axis` (int32 or int64: attr Tidx).
Output Sum(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims = false);
Output Mean(const Scope& scope, const Output& input, const Output& axis,
            bool keep_dims = false);
Output Max(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims = false);
Output Min(const Scope& scope, const Output& input, const Output& axis,
           bool keep_dims = false);

// `shape` is int32 or int64 (attr Tshape).
Output Reshape(const Scope& scope, const Output& tensor, const Output& shape);
// out_type is int32 or int64.
Output Shape(const Scope& scope, const Output& input,
             DataType out_type = DT_INT32);
// `axis` is int32 or int64 (attr Tdim).
Output ExpandDims(const Scope& scope, const Output& input, const Output& axis);
// Attr squeeze_dims; empty squeezes every dim of size 1.
Output Squeeze(const Scope& scope, const Output& input,
               const std::vector<int64_t>& axis = {});
// `perm` is int32 or int64 (attr Tperm).
Output Transpose(const Scope& scope, const Output& x, const Output& perm);
// At least one value, all of one dtype; `axis` int32 or int64.
Output ConcatV2(const Scope& scope, const std::vector<Output>& values,
                const Output& axis);
// At least one value, all of one dtype.
Output Pack(const Scope& scope, const std::vector<Output>& values,
            int64_t axis = 0);
// `dims` is int32 or int64 (attr index_type); T from `value`.
Output Fill(const Scope& scope, const Output& dims, const Output& value);
// Attrs SrcT, DstT, Truncate.
Output Cast(const Scope& scope, const Output& x, DataType dst_type,
            bool truncate = false);
// `condition` is bool; t and e share T.
Output Select(const Scope& scope, const Output& condition, const Output& t,
              const Output& e);
Operation NoOp(const Scope& scope);

}  // namespace dfx::ops

#endif  // DFX_GRAPH_BUILDER_OPS_H_

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
  // Hints that the product is a gradient (TensorFlow writes them always).
  bool grad_a = false;
  bool grad_b = false;
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

// ---------------------------------------------------------------------------
// Math. Unary ops take attr T from x; binary ops need x and y of one dtype.
Output Rsqrt(const Scope& scope, const Output& x);
Output Log1p(const Scope& scope, const Output& x);
Output Abs(const Scope& scope, const Output& x);
Output Sign(const Scope& scope, const Output& x);
Output Reciprocal(const Scope& scope, const Output& x);
Output Div(const Scope& scope, const Output& x, const Output& y);
Output FloorDiv(const Scope& scope, const Output& x, const Output& y);
Output FloorMod(const Scope& scope, const Output& x, const Output& y);
Output Pow(const Scope& scope, const Output& x, const Output& y);
Output SquaredDifference(const Scope& scope, const Output& x, const Output& y);
Output GreaterEqual(const Scope& scope, const Output& x, const Output& y);
Output LessEqual(const Scope& scope, const Output& x, const Output& y);
// At least one input, all of one dtype and shape.
Output AddN(const Scope& scope, const std::vector<Output>& inputs);
// Gradient helpers of the unary ops: (y, dy) with y the op's output.
Output TanhGrad(const Scope& scope, const Output& y, const Output& dy);
Output SigmoidGrad(const Scope& scope, const Output& y, const Output& dy);
Output SqrtGrad(const Scope& scope, const Output& y, const Output& dy);
Output RsqrtGrad(const Scope& scope, const Output& y, const Output& dy);

struct BatchMatMulAttrs {
  bool adj_x = false;
  bool adj_y = false;
  bool grad_x = false;
  bool grad_y = false;
};
// Batched matrix product with broadcasting of the batch dims.
Output BatchMatMulV2(const Scope& scope, const Output& x, const Output& y,
                     const BatchMatMulAttrs& attrs = {});

// `s0` and `s1` are shapes (int32 or int64 vectors, attr T): r0 and r1 list
// the axes along which a gradient of the broadcast shape is summed to give
// each input's.
struct BroadcastGradientArgsOutputs {
  Output r0;
  Output r1;
};
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope,
                                                   const Output& s0,
                                                   const Output& s1);

// Range(start, limit, delta), all of one dtype (attr Tidx).
Output Range(const Scope& scope, const Output& start, const Output& limit,
             const Output& delta);
// Attr T from input; int32 output.
Output Rank(const Scope& scope, const Output& input);
// out_type is int32 or int64.
Output Size(const Scope& scope, const Output& input,
            DataType out_type = DT_INT32);
// `x` is int32 or int64.
Output InvertPermutation(const Scope& scope, const Output& x);
// `shape` is int32 or int64 (attr Tidx).
Output BroadcastTo(const Scope& scope, const Output& input,
                   const Output& shape);

// ---------------------------------------------------------------------------
// Array ops.
Output StopGradient(const Scope& scope, const Output& input);
// Building a gradient through it fails with `message` in the error.
Output PreventGradient(const Scope& scope, const Output& input,
                       absl::string_view message = "");
// `begin` and `size` share one index type (attr Index).
Output Slice(const Scope& scope, const Output& input, const Output& begin,
             const Output& size);

struct StridedSliceAttrs {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};
// `begin`, `end` and `strides` share one index type (attr Index).
Output StridedSlice(const Scope& scope, const Output& input,
                    const Output& begin, const Output& end,
                    const Output& strides, const StridedSliceAttrs& attrs = {});
// The gradient of StridedSlice: `dy` scattered into zeros of `shape`.
Output StridedSliceGrad(const Scope& scope, const Output& shape,
                        const Output& begin, const Output& end,
                        const Output& strides, const Output& dy,
                        const StridedSliceAttrs& attrs = {});
// `multiples` is int32 or int64 (attr Tmultiples).
Output Tile(const Scope& scope, const Output& input, const Output& multiples);
// `paddings` is an int32 or int64 [rank, 2] matrix (attr Tpaddings).
Output Pad(const Scope& scope, const Output& input, const Output& paddings);
// `indices` int32 or int64 (Tindices), `axis` int32 or int64 (Taxis).
Output GatherV2(const Scope& scope, const Output& params,
                const Output& indices, const Output& axis,
                int64_t batch_dims = 0);
// `num` outputs, one per slice of `value` along `axis`; empty on failure.
std::vector<Output> Unpack(const Scope& scope, const Output& value,
                           int64_t num, int64_t axis = 0);
// `num_split` pieces of `value` along `axis` (an int32 scalar), sized by
// `size_splits` (int32 or int64, attr Tlen); empty on failure.
std::vector<Output> SplitV(const Scope& scope, const Output& value,
                           const Output& size_splits, const Output& axis,
                           int64_t num_split);
// Interleaves `data` by `indices` (int32), at least one of each, as many
// indices as data.
Output DynamicStitch(const Scope& scope, const std::vector<Output>& indices,
                     const std::vector<Output>& data);
// `segment_ids` int32 or int64 (Tindices), `num_segments` int32 or int64
// (Tnumsegments).
Output UnsortedSegmentSum(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments);
// Like Select with NumPy broadcasting of all three inputs.
Output SelectV2(const Scope& scope, const Output& condition, const Output& t,
                const Output& e);

// ---------------------------------------------------------------------------
// Neural-network ops.
Output Relu6(const Scope& scope, const Output& features);
Output Elu(const Scope& scope, const Output& features);
Output Selu(const Scope& scope, const Output& features);
Output Softplus(const Scope& scope, const Output& features);
Output LeakyRelu(const Scope& scope, const Output& features,
                 float alpha = 0.2f);
Output LogSoftmax(const Scope& scope, const Output& logits);
Output L2Loss(const Scope& scope, const Output& t);
// Activation gradients: (gradients, features) or (gradients, outputs) as
// TensorFlow's signatures name them.
Output ReluGrad(const Scope& scope, const Output& gradients,
                const Output& features);
Output Relu6Grad(const Scope& scope, const Output& gradients,
                 const Output& features);
Output EluGrad(const Scope& scope, const Output& gradients,
               const Output& outputs);
Output SeluGrad(const Scope& scope, const Output& gradients,
                const Output& outputs);
Output SoftplusGrad(const Scope& scope, const Output& gradients,
                    const Output& features);
Output LeakyReluGrad(const Scope& scope, const Output& gradients,
                     const Output& features, float alpha = 0.2f);
// data_format is "NHWC" or "NCHW".
Output BiasAddGrad(const Scope& scope, const Output& out_backprop,
                   absl::string_view data_format = "NHWC");

// Loss and its gradient with respect to features, per row.
struct SoftmaxCrossEntropyOutputs {
  Output loss;
  Output backprop;
};
SoftmaxCrossEntropyOutputs SoftmaxCrossEntropyWithLogits(
    const Scope& scope, const Output& features, const Output& labels);
// `labels` int32 or int64 (attr Tlabels).
SoftmaxCrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(
    const Scope& scope, const Output& features, const Output& labels);

// Attrs of Conv2D and its two gradients. padding is "SAME", "VALID" or
// "EXPLICIT" (then explicit_paddings holds 2 numbers per dimension).
struct Conv2DAttrs {
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings;
  std::string data_format = "NHWC";
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  bool use_cudnn_on_gpu = true;
};
Output Conv2D(const Scope& scope, const Output& input, const Output& filter,
              const Conv2DAttrs& attrs);
// `input_sizes` is an int32 vector.
Output Conv2DBackpropInput(const Scope& scope, const Output& input_sizes,
                           const Output& filter, const Output& out_backprop,
                           const Conv2DAttrs& attrs);
// `filter_sizes` is an int32 vector.
Output Conv2DBackpropFilter(const Scope& scope, const Output& input,
                            const Output& filter_sizes,
                            const Output& out_backprop,
                            const Conv2DAttrs& attrs);

// Attrs of the pooling ops. explicit_paddings is written for MaxPool and
// MaxPoolGrad only (AvgPool has no such attr).
struct PoolAttrs {
  std::vector<int64_t> ksize = {1, 1, 1, 1};
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings;
  std::string data_format = "NHWC";
};
Output MaxPool(const Scope& scope, const Output& input, const PoolAttrs& attrs);
Output MaxPoolGrad(const Scope& scope, const Output& orig_input,
                   const Output& orig_output, const Output& grad,
                   const PoolAttrs& attrs);
Output AvgPool(const Scope& scope, const Output& value, const PoolAttrs& attrs);
// `orig_input_shape` is an int32 vector.
Output AvgPoolGrad(const Scope& scope, const Output& orig_input_shape,
                   const Output& grad, const PoolAttrs& attrs);

struct FusedBatchNormAttrs {
  float epsilon = 0.0001f;
  float exponential_avg_factor = 1.0f;  // FusedBatchNormV3 only
  std::string data_format = "NHWC";
  bool is_training = true;
};
struct FusedBatchNormV3Outputs {
  Output y;
  Output batch_mean;
  Output batch_variance;
  Output reserve_space_1;
  Output reserve_space_2;
  Output reserve_space_3;
};
// x (attr T) and scale, offset, mean, variance (attr U).
FusedBatchNormV3Outputs FusedBatchNormV3(const Scope& scope, const Output& x,
                                         const Output& scale,
                                         const Output& offset,
                                         const Output& mean,
                                         const Output& variance,
                                         const FusedBatchNormAttrs& attrs = {});
struct FusedBatchNormGradV3Outputs {
  Output x_backprop;
  Output scale_backprop;
  Output offset_backprop;
  Output reserve_space_4;
  Output reserve_space_5;
};
// y_backprop and x (attr T); scale is float; reserve spaces attr U.
FusedBatchNormGradV3Outputs FusedBatchNormGradV3(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const Output& reserve_space_3,
    const FusedBatchNormAttrs& attrs = {});

// --- Variables (resource form), random initial values, optimizer updates
// and checkpoints: TensorFlow's nodes with every attr TensorFlow writes.

// A variable handle; `shared_name` names the variable on its device
// (empty: the node's own full name, which is what tf.compat.v1 writes).
Output VarHandleOp(const Scope& scope, DataType dtype,
                   const std::vector<int64_t>& shape,
                   absl::string_view shared_name);
Output ReadVariableOp(const Scope& scope, const Output& resource,
                      DataType dtype);
Operation AssignVariableOp(const Scope& scope, const Output& resource,
                           const Output& value);
Operation AssignAddVariableOp(const Scope& scope, const Output& resource,
                              const Output& value);
// Seeded as TensorFlow seeds them: the same (seed, seed2) gives
// TensorFlow's numbers.
Output RandomUniform(const Scope& scope, const Output& shape, DataType dtype,
                     int64_t seed, int64_t seed2);
Output TruncatedNormal(const Scope& scope, const Output& shape, DataType dtype,
                       int64_t seed, int64_t seed2);
Operation ResourceApplyGradientDescent(const Scope& scope, const Output& var,
                                       const Output& alpha,
                                       const Output& delta,
                                       bool use_locking = false);
Operation ResourceApplyMomentum(const Scope& scope, const Output& var,
                                const Output& accum, const Output& lr,
                                const Output& grad, const Output& momentum,
                                bool use_locking = false,
                                bool use_nesterov = false);
Operation ResourceApplyAdam(const Scope& scope, const Output& var,
                            const Output& m, const Output& v,
                            const Output& beta1_power,
                            const Output& beta2_power, const Output& lr,
                            const Output& beta1, const Output& beta2,
                            const Output& epsilon, const Output& grad,
                            bool use_locking = false);
// TensorFlow's checkpoint ops: `tensor_names` and `shape_and_slices` are
// string vectors (slices empty), one per tensor.
Operation SaveV2(const Scope& scope, const Output& prefix,
                 const Output& tensor_names, const Output& shape_and_slices,
                 absl::Span<const Output> tensors);
std::vector<Output> RestoreV2(const Scope& scope, const Output& prefix,
                              const Output& tensor_names,
                              const Output& shape_and_slices,
                              const std::vector<DataType>& dtypes);

// ---------------------------------------------------------------------------
// More math, array and nn ops (forward ops with gradients, and the ops their
// gradients are written with).
Output Sin(const Scope& scope, const Output& x);
Output Cos(const Scope& scope, const Output& x);
Output Tan(const Scope& scope, const Output& x);
Output Asin(const Scope& scope, const Output& x);
Output Acos(const Scope& scope, const Output& x);
Output Atan(const Scope& scope, const Output& x);
Output Sinh(const Scope& scope, const Output& x);
Output Cosh(const Scope& scope, const Output& x);
Output Erf(const Scope& scope, const Output& x);
Output Erfc(const Scope& scope, const Output& x);
Output Expm1(const Scope& scope, const Output& x);
Output Inv(const Scope& scope, const Output& x);
Output Softsign(const Scope& scope, const Output& features);
Output SoftsignGrad(const Scope& scope, const Output& gradients,
                    const Output& features);
// atan(y / x) with the quadrant of (x, y); TensorFlow's input order (y, x).
Output Atan2(const Scope& scope, const Output& y, const Output& x);
Output Xlogy(const Scope& scope, const Output& x, const Output& y);
Output Xdivy(const Scope& scope, const Output& x, const Output& y);
Output Xlog1py(const Scope& scope, const Output& x, const Output& y);
Output DivNoNan(const Scope& scope, const Output& x, const Output& y);
Output MulNoNan(const Scope& scope, const Output& x, const Output& y);
// t clipped to [clip_value_min, clip_value_max] (all three of one dtype;
// the bounds broadcast to t).
Output ClipByValue(const Scope& scope, const Output& t,
                   const Output& clip_value_min, const Output& clip_value_max);
// Reductions as Sum.
Output Prod(const Scope& scope, const Output& input, const Output& axis,
            bool keep_dims = false);
Output EuclideanNorm(const Scope& scope, const Output& input,
                     const Output& axis, bool keep_dims = false);

struct ScanAttrs {
  bool exclusive = false;
  bool reverse = false;
};
// Cumulative sum and product along `axis` (an int32 or int64 scalar, Tidx).
Output Cumsum(const Scope& scope, const Output& x, const Output& axis,
              const ScanAttrs& attrs = {});
Output Cumprod(const Scope& scope, const Output& x, const Output& axis,
               const ScanAttrs& attrs = {});
// At least one input, all of one dtype.
Output Einsum(const Scope& scope, const std::vector<Output>& inputs,
              absl::string_view equation);

struct TopKOutputs {
  Output values;
  Output indices;
};
// The k largest entries of each last-dim row of `input`; `k` an int32 scalar.
TopKOutputs TopKV2(const Scope& scope, const Output& input, const Output& k,
                   bool sorted = true);

// Depthwise convolution with Conv2D's attrs (use_cudnn_on_gpu is not
// written: the op has no such attr). `input_sizes`, `filter_sizes` int32.
Output DepthwiseConv2dNative(const Scope& scope, const Output& input,
                             const Output& filter, const Conv2DAttrs& attrs);
Output DepthwiseConv2dNativeBackpropInput(const Scope& scope,
                                          const Output& input_sizes,
                                          const Output& filter,
                                          const Output& out_backprop,
                                          const Conv2DAttrs& attrs);
Output DepthwiseConv2dNativeBackpropFilter(const Scope& scope,
                                           const Output& input,
                                           const Output& filter_sizes,
                                           const Output& out_backprop,
                                           const Conv2DAttrs& attrs);

// `mode` is "REFLECT" or "SYMMETRIC"; paddings as Pad's.
Output MirrorPad(const Scope& scope, const Output& input,
                 const Output& paddings, absl::string_view mode);
Output MirrorPadGrad(const Scope& scope, const Output& input,
                     const Output& paddings, absl::string_view mode);
// Pad with `constant_values` (a scalar of input's dtype).
Output PadV2(const Scope& scope, const Output& input, const Output& paddings,
             const Output& constant_values);

// Sorted segment reductions: `segment_ids` int32 or int64, sorted.
Output SegmentSum(const Scope& scope, const Output& data,
                  const Output& segment_ids);
Output SegmentMean(const Scope& scope, const Output& data,
                   const Output& segment_ids);
// As UnsortedSegmentSum.
Output UnsortedSegmentMax(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments);
Output UnsortedSegmentMin(const Scope& scope, const Output& data,
                          const Output& segment_ids,
                          const Output& num_segments);
Output UnsortedSegmentProd(const Scope& scope, const Output& data,
                           const Output& segment_ids,
                           const Output& num_segments);

// `indices` int32 or int64 (Tindices); ScatterNd's `shape` shares its type.
Output GatherNd(const Scope& scope, const Output& params,
                const Output& indices);
Output ScatterNd(const Scope& scope, const Output& indices,
                 const Output& updates, const Output& shape);
Output TensorScatterAdd(const Scope& scope, const Output& tensor,
                        const Output& indices, const Output& updates);
Output TensorScatterUpdate(const Scope& scope, const Output& tensor,
                           const Output& indices, const Output& updates);
// `axis` an int32 or int64 vector (Tidx).
Output ReverseV2(const Scope& scope, const Output& tensor, const Output& axis);

struct UniqueOutputs {
  Output y;
  Output idx;
};
// The distinct elements of the vector `x` in order of first appearance, and
// for each element of x the index of its value in y (int32).
UniqueOutputs Unique(const Scope& scope, const Output& x);

// Second derivatives' helpers: (y, dy) as TanhGrad.
Output ReciprocalGrad(const Scope& scope, const Output& y, const Output& dy);
Output InvGrad(const Scope& scope, const Output& y, const Output& dy);

struct LrnAttrs {
  int64_t depth_radius = 5;
  float bias = 1.0f;
  float alpha = 1.0f;
  float beta = 0.5f;
};
// Local response normalization (float, half, bfloat16) and its gradient.
Output LRN(const Scope& scope, const Output& input, const LrnAttrs& attrs = {});
Output LRNGrad(const Scope& scope, const Output& input_grads,
               const Output& input_image, const Output& output_image,
               const LrnAttrs& attrs = {});
// MaxPool with `ksize` and `strides` as int32 vector inputs; attrs.ksize
// and attrs.strides are not used.
Output MaxPoolV2(const Scope& scope, const Output& input, const Output& ksize,
                 const Output& strides, const PoolAttrs& attrs);
Output MaxPoolGradV2(const Scope& scope, const Output& orig_input,
                     const Output& orig_output, const Output& grad,
                     const Output& ksize, const Output& strides,
                     const PoolAttrs& attrs);
// `num_partitions` pieces of `data` by `partitions` (int32, a prefix of
// data's shape); empty on failure.
std::vector<Output> DynamicPartition(const Scope& scope, const Output& data,
                                     const Output& partitions,
                                     int64_t num_partitions);

// The gradients of FusedBatchNorm (all float, no U attr) and
// FusedBatchNormV2 (scale float; reserve spaces attr U): as
// FusedBatchNormGradV3 without reserve_space_3. attrs.exponential_avg_factor
// is not written.
FusedBatchNormGradV3Outputs FusedBatchNormGrad(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormAttrs& attrs = {});
FusedBatchNormGradV3Outputs FusedBatchNormGradV2(
    const Scope& scope, const Output& y_backprop, const Output& x,
    const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormAttrs& attrs = {});

// TF1 control-flow primitives (control_flow.h builds whole loops and conds
// from them). Switch forwards `data` to output_true when `pred` (a bool
// scalar) is true, else to output_false; the other output is dead. Merge
// forwards whichever of its inputs is alive; value_index (int32) says which.
struct SwitchOutputs {
  Output output_false;
  Output output_true;
};
SwitchOutputs Switch(const Scope& scope, const Output& data,
                     const Output& pred);
struct MergeOutputs {
  Output output;
  Output value_index;
};
// At least one input, all of one dtype.
MergeOutputs Merge(const Scope& scope, const std::vector<Output>& inputs);

// ---------------------------------------------------------------------------
// Resource variables: sparse reads and updates.

// Rows `indices` (int32 or int64) of the variable behind `resource`.
Output ResourceGather(const Scope& scope, const Output& resource,
                      const Output& indices, DataType dtype);
// var[indices] -= updates (ResourceScatterSub), += (ResourceScatterAdd).
Operation ResourceScatterSub(const Scope& scope, const Output& resource,
                             const Output& indices, const Output& updates);
Operation ResourceScatterAdd(const Scope& scope, const Output& resource,
                             const Output& indices, const Output& updates);
Operation ResourceApplyAdagrad(const Scope& scope, const Output& var,
                               const Output& accum, const Output& lr,
                               const Output& grad, bool use_locking = false);
// Sparse forms: `grad` holds one row per entry of `indices`.
Operation ResourceSparseApplyAdagrad(const Scope& scope, const Output& var,
                                     const Output& accum, const Output& lr,
                                     const Output& grad, const Output& indices,
                                     bool use_locking = false);
Operation ResourceSparseApplyMomentum(const Scope& scope, const Output& var,
                                      const Output& accum, const Output& lr,
                                      const Output& grad,
                                      const Output& indices,
                                      const Output& momentum,
                                      bool use_locking = false,
                                      bool use_nesterov = false);

// ---------------------------------------------------------------------------
// Reference variables (tf.compat.v1 with use_resource=False): the variable
// node's output is a ref edge (dtype MakeRefType(T)); ops that take it
// update the variable in place and forward the ref.

// `shared_name` empty: the node's own name, as TensorFlow keys it.
Output VariableV2(const Scope& scope, DataType dtype,
                  const std::vector<int64_t>& shape,
                  absl::string_view shared_name = "");
// `ref` must be a ref Output; value of its base type.
Output Assign(const Scope& scope, const Output& ref, const Output& value,
              bool validate_shape = true, bool use_locking = true);
Output AssignAdd(const Scope& scope, const Output& ref, const Output& value,
                 bool use_locking = false);
Output AssignSub(const Scope& scope, const Output& ref, const Output& value,
                 bool use_locking = false);
// A bool scalar: whether the variable holds a value yet.
Output IsVariableInitialized(const Scope& scope, const Output& ref);
// ref[indices] -= updates.
Output ScatterSub(const Scope& scope, const Output& ref, const Output& indices,
                  const Output& updates, bool use_locking = false);
// Optimizer updates of ref variables; each returns the updated ref.
Output ApplyGradientDescent(const Scope& scope, const Output& var,
                            const Output& alpha, const Output& delta,
                            bool use_locking = false);
Output ApplyMomentum(const Scope& scope, const Output& var,
                     const Output& accum, const Output& lr, const Output& grad,
                     const Output& momentum, bool use_locking = false,
                     bool use_nesterov = false);
Output ApplyAdam(const Scope& scope, const Output& var, const Output& m,
                 const Output& v, const Output& beta1_power,
                 const Output& beta2_power, const Output& lr,
                 const Output& beta1, const Output& beta2,
                 const Output& epsilon, const Output& grad,
                 bool use_locking = false);
Output ApplyAdagrad(const Scope& scope, const Output& var, const Output& accum,
                    const Output& lr, const Output& grad,
                    bool use_locking = false);
Output SparseApplyAdagrad(const Scope& scope, const Output& var,
                          const Output& accum, const Output& lr,
                          const Output& grad, const Output& indices,
                          bool use_locking = false);
Output SparseApplyMomentum(const Scope& scope, const Output& var,
                           const Output& accum, const Output& lr,
                           const Output& grad, const Output& indices,
                           const Output& momentum, bool use_locking = false,
                           bool use_nesterov = false);

// ---------------------------------------------------------------------------
// Collectives: TensorFlow's V2 ops, as tf.raw_ops writes them (every attr,
// no ordering tokens). `group_size`, `group_key` and `instance_key` are
// int32 scalars; one op per member device, each with the same three values
// (a different instance key per collective of a step).
//
// merge_op "Add", "Mul", "Min" or "Max"; final_op "Id", or "Div" (divide by
// the group size: the mean of "Add").
Output CollectiveReduceV2(const Scope& scope, const Output& input,
                          const Output& group_size, const Output& group_key,
                          const Output& instance_key,
                          absl::string_view merge_op = "Add",
                          absl::string_view final_op = "Id");
// Member r gets rows [r*k, (r+1)*k) of the reduction, k = dim 0 / group size.
Output CollectiveReduceScatterV2(const Scope& scope, const Output& input,
                                 const Output& group_size,
                                 const Output& group_key,
                                 const Output& instance_key,
                                 absl::string_view merge_op = "Add",
                                 absl::string_view final_op = "Id");
// The members' inputs concatenated along dim 0, in rank order.
Output CollectiveGatherV2(const Scope& scope, const Output& input,
                          const Output& group_size, const Output& group_key,
                          const Output& instance_key);
// Dim 0 cut into one block per member; member r gets block r of each.
Output CollectiveAllToAllV2(const Scope& scope, const Output& input,
                            const Output& group_size, const Output& group_key,
                            const Output& instance_key);
// The source's side of a broadcast (returns `input`) and the receivers'
// (a tensor of `dtype` and `shape`, int32 or int64).
Output CollectiveBcastSendV2(const Scope& scope, const Output& input,
                             const Output& group_size, const Output& group_key,
                             const Output& instance_key);
Output CollectiveBcastRecvV2(const Scope& scope, DataType dtype,
                             const Output& group_size, const Output& group_key,
                             const Output& instance_key, const Output& shape);

}  // namespace dfx::ops

#endif  // DFX_GRAPH_BUILDER_OPS_H_

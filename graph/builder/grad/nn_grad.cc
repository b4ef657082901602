// Gradients of activations, softmax and cross-entropy losses, BiasAdd,
// convolution, pooling and batch normalization, after TensorFlow's
// cc/gradients/nn_grad.cc and python/ops/nn_grad.py.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/grad/grad_util.h"
#include "graph/builder/ops.h"

namespace dfx {
namespace grad {
namespace {

// ---------------------------------------------------------------------------
// Activations, through their *Grad kernels.

DFX_GRAD_FN(ReluGrad) {
  dx->push_back(ops::ReluGrad(scope, dy[0], op.input(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(Relu6Grad) {
  dx->push_back(ops::Relu6Grad(scope, dy[0], op.input(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(EluGrad) {
  dx->push_back(ops::EluGrad(scope, dy[0], op.output(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(SeluGrad) {
  dx->push_back(ops::SeluGrad(scope, dy[0], op.output(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(SoftplusGrad) {
  dx->push_back(ops::SoftplusGrad(scope, dy[0], op.input(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(LeakyReluGrad) {
  float alpha = 0.2f;
  DFX_RETURN_IF_ERROR(Attr(op, "alpha", &alpha));
  dx->push_back(ops::LeakyReluGrad(scope, dy[0], op.input(0), alpha));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Softmax and losses.

Output LastAxis(const Scope& scope) { return ops::Const(scope, -1); }

DFX_GRAD_FN(SoftmaxGrad) {
  // (dy - sum(dy * y, -1, keep_dims)) * y
  const Output& y = op.output(0);
  const Output sum = ops::Sum(scope, ops::Mul(scope, dy[0], y), LastAxis(scope),
                              /*keep_dims=*/true);
  dx->push_back(ops::Mul(scope, ops::Sub(scope, dy[0], sum), y));
  return absl::OkStatus();
}

DFX_GRAD_FN(LogSoftmaxGrad) {
  // dy - sum(dy, -1, keep_dims) * exp(y)
  const Output sum =
      ops::Sum(scope, dy[0], LastAxis(scope), /*keep_dims=*/true);
  dx->push_back(ops::Sub(scope, dy[0],
                         ops::Mul(scope, sum, ops::Exp(scope, op.output(0)))));
  return absl::OkStatus();
}

// The gradient of a cross-entropy op with respect to its logits: the op's
// backprop output scaled by the loss's gradient per row, plus, where a
// gradient reached the backprop output too, that output's own derivative
// (the softmax Jacobian applied to it).
Output CrossEntropyLogitsGrad(const Scope& scope, const GradOp& op,
                              absl::Span<const Output> dy) {
  const Output& logits = op.input(0);
  Output grad;
  if (dy[0].valid()) {
    grad = ops::Mul(scope, ops::ExpandDims(scope, dy[0], LastAxis(scope)),
                    op.output(1));
  }
  if (dy[1].valid()) {
    const Output softmax = ops::Softmax(scope, logits);
    const Output& gg = dy[1];
    // gg - sum(gg * softmax, -1) per row, times softmax.
    const Output dot = ops::Squeeze(
        scope,
        ops::BatchMatMulV2(
            scope, ops::ExpandDims(scope, gg, ops::Const(scope, 1)),
            ops::ExpandDims(scope, softmax, ops::Const(scope, 2))),
        {1});
    const Output second = ops::Mul(scope, ops::Sub(scope, gg, dot), softmax);
    grad = grad.valid() ? ops::AddV2(scope, grad, second) : second;
  }
  return grad;
}

DFX_GRAD_FN(SoftmaxCrossEntropyWithLogitsGrad) {
  const Output logits_grad = CrossEntropyLogitsGrad(scope, op, dy);
  // d loss / d labels = -log_softmax(logits), per row scaled by dy[0].
  Output labels_grad;
  if (dy[0].valid()) {
    labels_grad =
        ops::Mul(scope, ops::ExpandDims(scope, dy[0], LastAxis(scope)),
                 ops::Neg(scope, ops::LogSoftmax(scope, op.input(0))));
  }
  // backprop = softmax(logits) - labels: its gradient reaches the labels
  // negated (TensorFlow's Python gradient leaves this term out).
  if (dy[1].valid()) {
    const Output minus = ops::Neg(scope, dy[1]);
    labels_grad =
        labels_grad.valid() ? ops::AddV2(scope, labels_grad, minus) : minus;
  }
  // Logits and labels broadcast against each other: each gradient is summed
  // back to its input's shape.
  ReduceBroadcastGradients(scope, op.input(0), op.input(1), logits_grad,
                           labels_grad, dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(SparseSoftmaxCrossEntropyWithLogitsGrad) {
  dx->push_back(CrossEntropyLogitsGrad(scope, op, dy));
  dx->push_back(NoGradient());  // integer labels
  return absl::OkStatus();
}

DFX_GRAD_FN(L2LossGrad) {
  dx->push_back(ops::Mul(scope, op.input(0), dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(BiasAddGrad) {
  std::string data_format;
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &data_format));
  dx->push_back(dy[0]);
  dx->push_back(ops::BiasAddGrad(scope, dy[0], data_format));
  return absl::OkStatus();
}

// BiasAddV1 has no data_format: always NHWC (bias on the last dim).
DFX_GRAD_FN(BiasAddV1Grad) {
  dx->push_back(dy[0]);
  dx->push_back(ops::BiasAddGrad(scope, dy[0], "NHWC"));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Convolution and pooling.

absl::Status ReadConv2DAttrs(const GradOp& op, ops::Conv2DAttrs* attrs) {
  DFX_RETURN_IF_ERROR(Attr(op, "strides", &attrs->strides));
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &attrs->padding));
  DFX_RETURN_IF_ERROR(Attr(op, "explicit_paddings", &attrs->explicit_paddings));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs->data_format));
  DFX_RETURN_IF_ERROR(Attr(op, "dilations", &attrs->dilations));
  DFX_RETURN_IF_ERROR(Attr(op, "use_cudnn_on_gpu", &attrs->use_cudnn_on_gpu));
  return absl::OkStatus();
}

DFX_GRAD_FN(Conv2DGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadConv2DAttrs(op, &attrs));
  const Output& input = op.input(0);
  const Output& filter = op.input(1);
  dx->push_back(ops::Conv2DBackpropInput(scope, ops::Shape(scope, input),
                                         filter, dy[0], attrs));
  dx->push_back(ops::Conv2DBackpropFilter(
      scope, input, ops::Shape(scope, filter), dy[0], attrs));
  return absl::OkStatus();
}

absl::Status ReadPoolAttrs(const GradOp& op, bool explicit_paddings,
                           ops::PoolAttrs* attrs) {
  DFX_RETURN_IF_ERROR(Attr(op, "ksize", &attrs->ksize));
  DFX_RETURN_IF_ERROR(Attr(op, "strides", &attrs->strides));
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &attrs->padding));
  if (explicit_paddings) {
    DFX_RETURN_IF_ERROR(
        Attr(op, "explicit_paddings", &attrs->explicit_paddings));
  }
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs->data_format));
  return absl::OkStatus();
}

DFX_GRAD_FN(MaxPoolGrad) {
  ops::PoolAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadPoolAttrs(op, /*explicit_paddings=*/true, &attrs));
  dx->push_back(
      ops::MaxPoolGrad(scope, op.input(0), op.output(0), dy[0], attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(AvgPoolGrad) {
  ops::PoolAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadPoolAttrs(op, /*explicit_paddings=*/false, &attrs));
  dx->push_back(
      ops::AvgPoolGrad(scope, ops::Shape(scope, op.input(0)), dy[0], attrs));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Batch normalization. Only y's gradient is followed (TensorFlow ignores the
// gradients of the batch statistics too); mean and variance get none.

// FusedBatchNorm, V2 and V3: the same computation through each version's
// gradient op (V3's takes reserve_space_3 too).
DFX_GRAD_FN(FusedBatchNormGrad) {
  const bool v3 = op.op() == "FusedBatchNormV3";
  auto grad_op = [&](const Output& grad_y, const Output& x,
                     const Output& scale, const Output& rs1,
                     const Output& rs2, const ops::FusedBatchNormAttrs& a) {
    if (v3) {
      return ops::FusedBatchNormGradV3(scope, grad_y, x, scale, rs1, rs2,
                                       op.output(5), a);
    }
    if (op.op() == "FusedBatchNormV2") {
      return ops::FusedBatchNormGradV2(scope, grad_y, x, scale, rs1, rs2, a);
    }
    return ops::FusedBatchNormGrad(scope, grad_y, x, scale, rs1, rs2, a);
  };
  ops::FusedBatchNormAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "epsilon", &attrs.epsilon));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs.data_format));
  DFX_RETURN_IF_ERROR(Attr(op, "is_training", &attrs.is_training));
  Output x = op.input(0);
  const Output& scale = op.input(1);
  Output grad_y = GradOrZeros(scope, op, dy, 0);
  ops::FusedBatchNormGradV3Outputs g;
  if (attrs.is_training) {
    g = grad_op(grad_y, x, scale, op.output(3), op.output(4), attrs);
    dx->push_back(g.x_backprop);
  } else {
    // With population statistics, as TensorFlow does it: NCHW goes through
    // NHWC, the layout its inference-mode gradient kernels serve.
    const bool nchw = attrs.data_format == "NCHW";
    if (nchw) {
      const Output to_nhwc = ops::Const(scope, {0, 2, 3, 1});
      x = ops::Transpose(scope, x, to_nhwc);
      grad_y = ops::Transpose(scope, grad_y, to_nhwc);
      attrs.data_format = "NHWC";
    } else if (attrs.data_format != "NHWC") {
      return absl::UnimplementedError(absl::StrCat(
          "FusedBatchNormV3 gradient: data_format ", attrs.data_format));
    }
    g = grad_op(grad_y, x, scale, op.input(3), op.input(4), attrs);
    dx->push_back(nchw ? ops::Transpose(scope, g.x_backprop,
                                        ops::Const(scope, {0, 3, 1, 2}))
                       : g.x_backprop);
  }
  dx->push_back(g.scale_backprop);
  dx->push_back(g.offset_backprop);
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}


// ---------------------------------------------------------------------------
// More convolutions, top-k, and gradients of gradient ops.

DFX_GRAD_FN(DepthwiseConv2dNativeGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "strides", &attrs.strides));
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &attrs.padding));
  DFX_RETURN_IF_ERROR(Attr(op, "explicit_paddings", &attrs.explicit_paddings));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs.data_format));
  DFX_RETURN_IF_ERROR(Attr(op, "dilations", &attrs.dilations));
  const Output& input = op.input(0);
  const Output& filter = op.input(1);
  dx->push_back(ops::DepthwiseConv2dNativeBackpropInput(
      scope, ops::Shape(scope, input), filter, dy[0], attrs));
  dx->push_back(ops::DepthwiseConv2dNativeBackpropFilter(
      scope, input, ops::Shape(scope, filter), dy[0], attrs));
  return absl::OkStatus();
}

absl::Status ReadDepthwiseAttrs(const GradOp& op, ops::Conv2DAttrs* attrs) {
  DFX_RETURN_IF_ERROR(Attr(op, "strides", &attrs->strides));
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &attrs->padding));
  DFX_RETURN_IF_ERROR(Attr(op, "explicit_paddings", &attrs->explicit_paddings));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs->data_format));
  DFX_RETURN_IF_ERROR(Attr(op, "dilations", &attrs->dilations));
  return absl::OkStatus();
}

// The depthwise backprops are linear in their two tensor inputs, as
// Conv2D's.
DFX_GRAD_FN(DepthwiseConv2dNativeBackpropInputGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadDepthwiseAttrs(op, &attrs));
  const Output& filter = op.input(1);
  dx->push_back(NoGradient());
  dx->push_back(ops::DepthwiseConv2dNativeBackpropFilter(
      scope, dy[0], ops::Shape(scope, filter), op.input(2), attrs));
  dx->push_back(ops::DepthwiseConv2dNative(scope, dy[0], filter, attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(DepthwiseConv2dNativeBackpropFilterGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadDepthwiseAttrs(op, &attrs));
  const Output& input = op.input(0);
  dx->push_back(ops::DepthwiseConv2dNativeBackpropInput(
      scope, ops::Shape(scope, input), dy[0], op.input(2), attrs));
  dx->push_back(NoGradient());
  dx->push_back(ops::DepthwiseConv2dNative(scope, input, dy[0], attrs));
  return absl::OkStatus();
}

// Conv2DBackpropInput is linear in the filter and in out_backprop: its
// gradients are a filter gradient and a forward convolution.
DFX_GRAD_FN(Conv2DBackpropInputGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadConv2DAttrs(op, &attrs));
  const Output& filter = op.input(1);
  const Output& out_backprop = op.input(2);
  dx->push_back(NoGradient());
  dx->push_back(ops::Conv2DBackpropFilter(
      scope, dy[0], ops::Shape(scope, filter), out_backprop, attrs));
  dx->push_back(ops::Conv2D(scope, dy[0], filter, attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(Conv2DBackpropFilterGrad) {
  ops::Conv2DAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadConv2DAttrs(op, &attrs));
  const Output& input = op.input(0);
  const Output& out_backprop = op.input(2);
  dx->push_back(ops::Conv2DBackpropInput(scope, ops::Shape(scope, input),
                                         dy[0], out_backprop, attrs));
  dx->push_back(NoGradient());
  dx->push_back(ops::Conv2D(scope, input, dy[0], attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(TopKV2Grad) {
  // dy scattered to the positions the indices name, row by row: each row's
  // indices offset by row * (last dim of the input), flattened.
  const Output& input = op.input(0);
  const Output indices = ToInt32(scope, op.output(1));
  const Output in_shape = ops::Shape(scope, input);
  const Output ind_shape = ops::Shape(scope, indices);
  const Output last = ops::Const(scope, -1);
  const Output zero = ops::Const(scope, 0);
  const Output k = ops::GatherV2(
      scope, ind_shape, ops::Sub(scope, ops::Size(scope, ind_shape), ops::Const(scope, 1)),
      zero);
  const Output ind_2d = ops::Reshape(scope, indices, ops::Pack(scope, {last, k}));
  const Output in_last = ops::GatherV2(
      scope, in_shape, ops::Sub(scope, ops::Size(scope, in_shape), ops::Const(scope, 1)),
      zero);
  const Output rows = ops::GatherV2(scope, ops::Shape(scope, ind_2d), zero, zero);
  const Output offsets = ops::ExpandDims(
      scope,
      ops::Range(scope, zero, ops::Mul(scope, rows, in_last), in_last), last);
  const Output flat = ops::Reshape(scope, ops::AddV2(scope, ind_2d, offsets),
                                   ops::Const(scope, {-1, 1}));
  const Output total = ops::Reshape(scope, ops::Size(scope, input),
                                    ops::Const(scope, {1}));
  const Output scattered = ops::ScatterNd(
      scope, flat, ops::Reshape(scope, dy[0], ops::Const(scope, {-1})), total);
  dx->push_back(ops::Reshape(scope, scattered, in_shape));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(SoftsignGrad) {
  dx->push_back(ops::SoftsignGrad(scope, dy[0], op.input(0)));
  return absl::OkStatus();
}

// ReluGrad, Relu6Grad, LeakyReluGrad are linear in their gradient input,
// with a zero derivative in the features almost everywhere.
DFX_GRAD_FN(ReluGradGrad) {
  const Output& x = op.input(1);
  dx->push_back(ops::ReluGrad(scope, dy[0], x));
  dx->push_back(ops::ZerosLike(scope, x));
  return absl::OkStatus();
}

DFX_GRAD_FN(Relu6GradGrad) {
  const Output& x = op.input(1);
  dx->push_back(ops::Relu6Grad(scope, dy[0], x));
  dx->push_back(ops::ZerosLike(scope, x));
  return absl::OkStatus();
}

DFX_GRAD_FN(LeakyReluGradGrad) {
  float alpha = 0.2f;
  DFX_RETURN_IF_ERROR(Attr(op, "alpha", &alpha));
  const Output& x = op.input(1);
  dx->push_back(ops::LeakyReluGrad(scope, dy[0], x, alpha));
  dx->push_back(ops::ZerosLike(scope, x));
  return absl::OkStatus();
}

// BiasAddGrad sums over every axis but the channel one: its gradient is dy
// broadcast back along them.
DFX_GRAD_FN(BiasAddGradGrad) {
  std::string data_format;
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &data_format));
  const Output& input = op.input(0);
  const Output shape = ops::Shape(scope, input);
  Output shaped = dy[0];
  if (data_format == "NCHW") {
    // [1, C, 1, ...] for an input of rank >= 2.
    const Output rest = ops::Sub(scope, ops::Rank(scope, input), ops::Const(scope, 2));
    const Output ones = ops::Fill(
        scope, ops::Reshape(scope, rest, ops::Const(scope, {1})), ops::Const(scope, 1));
    shaped = ops::Reshape(
        scope, dy[0],
        ops::ConcatV2(scope, {ops::Const(scope, {1, -1}), ones}, ops::Const(scope, 0)));
  }
  dx->push_back(ops::BroadcastTo(scope, shaped, shape));
  return absl::OkStatus();
}

// EluGrad and SeluGrad: (gradients, outputs) -> gradients * f'(outputs).
// TensorFlow's: the gradients' gradient through the same op; the outputs'
// where negative (where f' depends on them), grad * gradients.
DFX_GRAD_FN(EluGradGrad) {
  const Output& g = op.input(0);
  const Output& y = op.input(1);
  const Output zero = ScalarOfType(scope, y.dtype(), 0.0);
  dx->push_back(op.op() == "EluGrad" ? ops::EluGrad(scope, dy[0], y)
                                     : ops::SeluGrad(scope, dy[0], y));
  dx->push_back(ops::SelectV2(scope, ops::Less(scope, y, zero),
                              ops::Mul(scope, dy[0], g),
                              ops::ZerosLike(scope, y)));
  return absl::OkStatus();
}

DFX_GRAD_FN(SoftplusGradGrad) {
  // z = g * sigmoid(x): dz/dg = SoftplusGrad, dz/dx = grad * g *
  // sigmoid'(x) = grad * g / (exp(-x) + 2 + exp(x)).
  const Output& g = op.input(0);
  const Output& x = op.input(1);
  dx->push_back(ops::SoftplusGrad(scope, dy[0], x));
  const Output denom = ops::AddV2(
      scope,
      ops::AddV2(scope, ops::Exp(scope, ops::Neg(scope, x)),
                 ScalarOfType(scope, x.dtype(), 2.0)),
      ops::Exp(scope, x));
  dx->push_back(ops::RealDiv(scope, ops::Mul(scope, dy[0], g), denom));
  return absl::OkStatus();
}

DFX_GRAD_FN(LRNGradFn) {
  ops::LrnAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "depth_radius", &attrs.depth_radius));
  DFX_RETURN_IF_ERROR(Attr(op, "bias", &attrs.bias));
  DFX_RETURN_IF_ERROR(Attr(op, "alpha", &attrs.alpha));
  DFX_RETURN_IF_ERROR(Attr(op, "beta", &attrs.beta));
  dx->push_back(
      ops::LRNGrad(scope, dy[0], op.input(0), op.output(0), attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(MaxPoolV2Grad) {
  ops::PoolAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &attrs.padding));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs.data_format));
  dx->push_back(ops::MaxPoolGradV2(scope, op.input(0), op.output(0), dy[0],
                                   op.input(1), op.input(2), attrs));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// A MaxPoolGradGrad / MaxPoolGradGradV2 (`op_name`) or MaxPoolGrad node
// over orig_input, orig_output, `grad` with `op`'s window attrs (and its
// ksize and strides inputs 3 and 4 for the V2 forms). No builder wrapper
// for the GradGrad ops: the node is written here.
Output MaxPoolSecondOrder(const Scope& scope, const GradOp& op,
                          absl::string_view op_name, const Output& grad,
                          bool v2) {
  NodeDef node;
  node.set_name(scope.GetUniqueNameForOp(op_name));
  node.set_op(std::string(op_name));
  node.add_input(op.input(0).ToString());
  node.add_input(op.input(1).ToString());
  node.add_input(grad.ToString());
  if (v2) {
    node.add_input(op.input(3).ToString());
    node.add_input(op.input(4).ToString());
  }
  auto& attrs = *node.mutable_attr();
  for (const char* name : {"ksize", "strides", "padding", "data_format"}) {
    auto it = op.node().attr().find(name);
    if (it != op.node().attr().end()) attrs[name] = it->second;
  }
  attrs["T"].set_type(op.input(0).dtype());
  const std::string name = node.name();
  if (!scope.AddNode(std::move(node)).ok()) return Output();
  return Output(name, 0, op.input(0).dtype());
}

// MaxPoolGrad(orig_input, orig_output, grad) (and V2): TensorFlow's
// _MaxPoolGradGrad: zeros for the original input and output (the argmax is
// piecewise constant in them), MaxPoolGradGrad for grad.
absl::Status MaxPoolGradSecondOrder(const Scope& scope, const GradOp& op,
                                    absl::Span<const Output> dy,
                                    std::vector<Output>* dx, bool v2) {
  std::string padding;
  DFX_RETURN_IF_ERROR(Attr(op, "padding", &padding));
  if (padding == "EXPLICIT") {
    return absl::UnimplementedError(
        "the gradient of a MaxPoolGrad with EXPLICIT padding is not built "
        "(MaxPoolGradGrad takes SAME or VALID)");
  }
  dx->push_back(ops::ZerosLike(scope, op.input(0)));
  dx->push_back(ops::ZerosLike(scope, op.input(1)));
  dx->push_back(MaxPoolSecondOrder(
      scope, op, v2 ? "MaxPoolGradGradV2" : "MaxPoolGradGrad", dy[0], v2));
  if (v2) {
    dx->push_back(NoGradient());
    dx->push_back(NoGradient());
  }
  return scope.status();
}

DFX_GRAD_FN(MaxPoolGradGradFn) {
  return MaxPoolGradSecondOrder(scope, op, dy, dx, /*v2=*/false);
}
DFX_GRAD_FN(MaxPoolGradV2GradFn) {
  return MaxPoolGradSecondOrder(scope, op, dy, dx, /*v2=*/true);
}

// MaxPoolGradGrad(orig_input, orig_output, grad) (and V2): zeros for the
// original input and output, MaxPoolGrad (V2) of the incoming gradient.
DFX_GRAD_FN(MaxPoolGradGradGradFn) {
  const bool v2 = op.op() == "MaxPoolGradGradV2";
  dx->push_back(ops::ZerosLike(scope, op.input(0)));
  dx->push_back(ops::ZerosLike(scope, op.input(1)));
  dx->push_back(MaxPoolSecondOrder(
      scope, op, v2 ? "MaxPoolGradV2" : "MaxPoolGrad", dy[0], v2));
  if (v2) {
    dx->push_back(NoGradient());
    dx->push_back(NoGradient());
  }
  return scope.status();
}

DFX_GRAD_FN(AvgPoolGradGrad) {
  ops::PoolAttrs attrs;
  DFX_RETURN_IF_ERROR(ReadPoolAttrs(op, /*explicit_paddings=*/false, &attrs));
  dx->push_back(NoGradient());
  dx->push_back(ops::AvgPool(scope, dy[0], attrs));
  return absl::OkStatus();
}

}  // namespace
}  // namespace grad

absl::Status RegisterNnGradients(GradientRegistry* registry) {
  using namespace grad;  // NOLINT: the gradient functions of this file
  struct Entry {
    const char* op;
    GradFunc fn;
  };
  const Entry entries[] = {
      {"Relu", ReluGrad},
      {"Relu6", Relu6Grad},
      {"Elu", EluGrad},
      {"Selu", SeluGrad},
      {"Softplus", SoftplusGrad},
      {"LeakyRelu", LeakyReluGrad},
      {"Softmax", SoftmaxGrad},
      {"LogSoftmax", LogSoftmaxGrad},
      {"SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyWithLogitsGrad},
      {"SparseSoftmaxCrossEntropyWithLogits",
       SparseSoftmaxCrossEntropyWithLogitsGrad},
      {"L2Loss", L2LossGrad},
      {"BiasAdd", BiasAddGrad},
      {"BiasAddV1", BiasAddV1Grad},
      {"Conv2D", Conv2DGrad},
      {"MaxPool", MaxPoolGrad},
      {"AvgPool", AvgPoolGrad},
      {"FusedBatchNormV3", FusedBatchNormGrad},
      {"FusedBatchNormV2", FusedBatchNormGrad},
      {"FusedBatchNorm", FusedBatchNormGrad},
      {"DepthwiseConv2dNativeBackpropInput",
       DepthwiseConv2dNativeBackpropInputGrad},
      {"DepthwiseConv2dNativeBackpropFilter",
       DepthwiseConv2dNativeBackpropFilterGrad},
      {"DepthwiseConv2dNative", DepthwiseConv2dNativeGrad},
      {"Conv2DBackpropInput", Conv2DBackpropInputGrad},
      {"Conv2DBackpropFilter", Conv2DBackpropFilterGrad},
      {"TopKV2", TopKV2Grad},
      {"Softsign", SoftsignGrad},
      {"ReluGrad", ReluGradGrad},
      {"Relu6Grad", Relu6GradGrad},
      {"LeakyReluGrad", LeakyReluGradGrad},
      {"BiasAddGrad", BiasAddGradGrad},
      {"AvgPoolGrad", AvgPoolGradGrad},
      {"EluGrad", EluGradGrad},
      {"SeluGrad", EluGradGrad},
      {"SoftplusGrad", SoftplusGradGrad},
      {"LRN", LRNGradFn},
      {"MaxPoolV2", MaxPoolV2Grad},
      {"MaxPoolGrad", MaxPoolGradGradFn},
      {"MaxPoolGradV2", MaxPoolGradV2GradFn},
      {"MaxPoolGradGrad", MaxPoolGradGradGradFn},
      {"MaxPoolGradGradV2", MaxPoolGradGradGradFn},
  };
  for (const Entry& e : entries) {
    DFX_RETURN_IF_ERROR(registry->Register(e.op, e.fn));
  }
  return absl::OkStatus();
}

}  // namespace dfx

// Gradients of activations, softmax and cross-entropy losses, BiasAdd,
// convolution, pooling and batch normalization, after TensorFlow's
// cc/gradients/nn_grad.cc and python/ops/nn_grad.py.
#include <string>

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

DFX_GRAD_FN(FusedBatchNormV3Grad) {
  ops::FusedBatchNormAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "epsilon", &attrs.epsilon));
  DFX_RETURN_IF_ERROR(Attr(op, "data_format", &attrs.data_format));
  DFX_RETURN_IF_ERROR(Attr(op, "is_training", &attrs.is_training));
  Output x = op.input(0);
  const Output& scale = op.input(1);
  Output grad_y = GradOrZeros(scope, op, dy, 0);
  ops::FusedBatchNormGradV3Outputs g;
  if (attrs.is_training) {
    g = ops::FusedBatchNormGradV3(scope, grad_y, x, scale, op.output(3),
                                  op.output(4), op.output(5), attrs);
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
    g = ops::FusedBatchNormGradV3(scope, grad_y, x, scale, op.input(3),
                                  op.input(4), op.output(5), attrs);
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
      {"FusedBatchNormV3", FusedBatchNormV3Grad},
  };
  for (const Entry& e : entries) {
    DFX_RETURN_IF_ERROR(registry->Register(e.op, e.fn));
  }
  return absl::OkStatus();
}

}  // namespace dfx

// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter and the depthwise
// convolutions with their gradients: argument checks as TensorFlow's CPU
// kernels make them, then one ConvRunner pass. Like TensorFlow's CPU kernels
// these take NHWC only; NCHW fails as it does there.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_backend.h"
#include "kernels/conv/conv_util.h"

namespace dfx::conv_internal {
namespace {

// Which of the convolution ops a kernel computes.
enum class ConvOp {
  kConv2D,
  kConv2DBackpropInput,
  kConv2DBackpropFilter,
  kDepthwise,
  kDepthwiseBackpropInput,
  kDepthwiseBackpropFilter,
};

bool IsDepthwise(ConvOp op) {
  return op == ConvOp::kDepthwise || op == ConvOp::kDepthwiseBackpropInput ||
         op == ConvOp::kDepthwiseBackpropFilter;
}

// Reads a shape given as a 1-D int32 tensor (input_sizes, filter_sizes).
absl::Status ShapeFromSizes(const Tensor& sizes, absl::string_view label,
                            absl::string_view what,
                            std::vector<int64_t>* dims) {
  if (sizes.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": ", what, " input must be 1-dim, not ",
                     sizes.dims()));
  }
  dims->clear();
  for (int32_t v : sizes.span<int32_t>()) dims->push_back(v);
  return absl::OkStatus();
}

class ConvKernel : public OpKernel {
 public:
  ConvKernel(OpKernelConstruction* ctx, ConvOp op) : OpKernel(ctx), op_(op) {
    ctx->SetStatus(ReadConvAttrs(*ctx, &attrs_));
    if (!ctx->status().ok()) return;
    const bool dilated = attrs_.dilation_rows != 1 || attrs_.dilation_cols != 1;
    if (IsDepthwise(op)) {
      if (attrs_.stride_rows != attrs_.stride_cols) {
        ctx->SetStatus(absl::InvalidArgumentError(
            "Current implementation only supports equal length strides in "
            "the row and column dimensions."));
      } else if (dilated) {
        ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
            "Current kernel implementation does not support dilations, "
            "received [1 ",
            attrs_.dilation_rows, " ", attrs_.dilation_cols, " 1]")));
      }
    } else if (op != ConvOp::kConv2D && dilated) {
      // TensorFlow's CPU gradient kernels have no dilated path.
      ctx->SetStatus(absl::InvalidArgumentError(
          "Current CPU implementations do not yet support dilation rates "
          "larger than 1."));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    switch (op_) {
      case ConvOp::kConv2D:
      case ConvOp::kDepthwise:
        ComputeForward(ctx);
        break;
      case ConvOp::kConv2DBackpropInput:
      case ConvOp::kDepthwiseBackpropInput:
        ComputeBackpropInput(ctx);
        break;
      case ConvOp::kConv2DBackpropFilter:
      case ConvOp::kDepthwiseBackpropFilter:
        ComputeBackpropFilter(ctx);
        break;
    }
  }

 private:
  int ChannelDim() const { return attrs_.nchw ? 1 : 3; }
  int RowDim() const { return attrs_.nchw ? 2 : 1; }
  int ColDim() const { return attrs_.nchw ? 3 : 2; }

  // The label TensorFlow's gradient kernels put before their messages.
  const char* Label() const {
    switch (op_) {
      case ConvOp::kConv2DBackpropInput:
        return "Conv2DCustomBackpropInput";
      case ConvOp::kConv2DBackpropFilter:
        return "Conv2DCustomBackpropFilter";
      case ConvOp::kDepthwiseBackpropInput:
        return "DepthwiseConv2DBackpropInput";
      case ConvOp::kDepthwiseBackpropFilter:
        return "DepthwiseConv2DBackpropFilter";
      default:
        return type_string().c_str();
    }
  }

  // The error for NCHW, which TensorFlow's CPU kernels do not implement.
  absl::Status NchwError() const {
    switch (op_) {
      case ConvOp::kConv2D:
        return absl::UnimplementedError(
            "The Conv2D op currently only supports the NHWC tensor format on "
            "the CPU. The op was given the format: NCHW");
      case ConvOp::kDepthwise:
        return absl::UnimplementedError(
            "Depthwise convolution on CPU is only supported for NHWC format");
      case ConvOp::kConv2DBackpropInput:
        return absl::InvalidArgumentError(
            "Conv2DCustomBackpropInputOp only supports NHWC.");
      case ConvOp::kConv2DBackpropFilter:
        return absl::InvalidArgumentError(
            "Conv2DCustomBackpropFilterOp only supports NHWC.");
      default:
        return absl::UnimplementedError(
            "Depthwise convolution on CPU is only supported for NHWC format");
    }
  }

  // Fills the input and filter parts of `geom` from an activation shape
  // (input or its gradient) and a filter shape, checking them.
  absl::Status InputAndFilter(const TensorShape& input,
                              const TensorShape& filter,
                              ConvGeom* geom) const {
    DFX_RETURN_IF_ERROR(
        ConvInputAndFilter(attrs_, input, filter, IsDepthwise(op_), geom));
    if (!IsDepthwise(op_) && geom->groups > 1 && op_ != ConvOp::kConv2D) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Gradients for grouped convolutions are not supported on CPU. "
          "Computed input depth ",
          geom->in_depth, " doesn't match filter input depth ",
          filter.dim_size(2)));
    }
    return ComputeConvOutput(attrs_, geom);
  }

  // Checks TensorFlow's CPU kernels make only when there is something to
  // compute.
  absl::Status CheckComputable(const ConvGeom& geom) const {
    if (attrs_.nchw) return NchwError();
    if (geom.out_depth % geom.groups != 0 || geom.out_depth < geom.groups) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output depth must be evenly divisible by number of groups: ",
          geom.out_depth, " vs ", geom.groups));
    }
    return absl::OkStatus();
  }

  // For the gradient ops: out_backprop must match the geometry.
  absl::Status CheckOutBackprop(const Tensor& out_backprop,
                                const ConvGeom& geom) const {
    if (out_backprop.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "out_backprop must be 4-dimensional", out_backprop.shape().DebugString()));
    }
    if (out_backprop.dim_size(0) != geom.batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          Label(),
          ": input and out_backprop must have the same batch size. Input "
          "batch: ",
          geom.batch, ", outbackprop batch: ", out_backprop.dim_size(0),
          ", batch_dim: 0"));
    }
    if (out_backprop.dim_size(ChannelDim()) != geom.out_depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          Label(), ": filter and out_backprop must have the same out_depth"));
    }
    const int64_t actual[2] = {out_backprop.dim_size(RowDim()),
                               out_backprop.dim_size(ColDim())};
    const int64_t computed[2] = {geom.out_rows, geom.out_cols};
    const int64_t input[2] = {geom.in_rows, geom.in_cols};
    const int64_t filter[2] = {geom.filter_rows, geom.filter_cols};
    const int64_t stride[2] = {geom.stride_rows, geom.stride_cols};
    const int64_t dilation[2] = {geom.dilation_rows, geom.dilation_cols};
    for (int i = 0; i < 2; ++i) {
      if (actual[i] != computed[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            Label(), ": Size of out_backprop doesn't match computed: actual = ",
            actual[i], ", computed = ", computed[i], " spatial_dim: ", i + 1,
            " input: ", input[i], " filter: ", filter[i], " output: ",
            actual[i], " stride: ", stride[i], " dilation: ", dilation[i]));
      }
    }
    return absl::OkStatus();
  }

  void ComputeForward(OpKernelContext* ctx) {
    Tensor input = ctx->input(0);
    Tensor filter = ctx->input(1);
    ConvGeom geom;
    DFX_OP_REQUIRES_OK(ctx, InputAndFilter(input.shape(), filter.shape(), &geom));
    std::vector<int64_t> dims(4);
    dims[0] = geom.batch;
    dims[RowDim()] = geom.out_rows;
    dims[ColDim()] = geom.out_cols;
    dims[ChannelDim()] = geom.out_depth;
    auto shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    DFX_OP_REQUIRES_OK(ctx, CheckComputable(geom));
    DFX_OP_REQUIRES_OK(ctx, runner_.Run(ctx, ConvPass::kForward, geom, &input,
                                        &filter, output));
  }

  void ComputeBackpropInput(OpKernelContext* ctx) {
    const Tensor& sizes = ctx->input(0);
    Tensor filter = ctx->input(1);
    Tensor out_backprop = ctx->input(2);
    std::vector<int64_t> dims;
    DFX_OP_REQUIRES_OK(ctx,
                       ShapeFromSizes(sizes, type_string(), "input_sizes", &dims));
    if (op_ == ConvOp::kConv2DBackpropInput && dims.size() == 2 &&
        out_backprop.dims() == 4 && filter.dims() == 4) {
      // Spatial sizes only: batch from out_backprop, depth from the filter.
      const int64_t h = dims[0], w = dims[1];
      dims = {out_backprop.dim_size(0), 0, 0, 0};
      dims[RowDim()] = h;
      dims[ColDim()] = w;
      dims[ChannelDim()] = filter.dim_size(2);
    }
    DFX_OP_REQUIRES(
        ctx, dims.size() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            type_string(), " requires input_sizes to contain 4 values",
            op_ == ConvOp::kConv2DBackpropInput ? " or 2 values" : "",
            ", but got: ", dims.size())));
    auto input_shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, input_shape.status());
    ConvGeom geom;
    DFX_OP_REQUIRES_OK(ctx, InputAndFilter(*input_shape, filter.shape(), &geom));
    DFX_OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, geom));
    DFX_OP_REQUIRES_OK(ctx, CheckComputable(geom));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *input_shape, &output));
    DFX_OP_REQUIRES_OK(ctx, runner_.Run(ctx, ConvPass::kBackwardData, geom,
                                        output, &filter, &out_backprop));
  }

  void ComputeBackpropFilter(OpKernelContext* ctx) {
    Tensor input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    Tensor out_backprop = ctx->input(2);
    std::vector<int64_t> dims;
    DFX_OP_REQUIRES_OK(
        ctx, ShapeFromSizes(sizes, type_string(), "filter_sizes", &dims));
    DFX_OP_REQUIRES(
        ctx, dims.size() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            type_string(), " requires filter_sizes to contain 4 values, but "
                           "got: ",
            dims.size())));
    auto filter_shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, filter_shape.status());
    ConvGeom geom;
    DFX_OP_REQUIRES_OK(ctx, InputAndFilter(input.shape(), *filter_shape, &geom));
    DFX_OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, geom));
    DFX_OP_REQUIRES_OK(ctx, CheckComputable(geom));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *filter_shape, &output));
    DFX_OP_REQUIRES_OK(ctx, runner_.Run(ctx, ConvPass::kBackwardFilter, geom,
                                        &input, output, &out_backprop));
  }

  const ConvOp op_;
  ConvAttrs attrs_;
  ConvRunner runner_;
};

template <ConvOp kOp>
class ConvOpKernel : public ConvKernel {
 public:
  explicit ConvOpKernel(OpKernelConstruction* ctx) : ConvKernel(ctx, kOp) {}
};

}  // namespace

void RegisterConvolutionKernels(KernelRegistry* registry) {
  const DataTypeVector floats = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  const DataTypeVector with_int32 = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16,
                                     DT_INT32};
  RegisterKernel<ConvOpKernel<ConvOp::kConv2D>>(
      registry, KernelDefBuilder("Conv2D").TypeConstraint("T", with_int32));
  RegisterKernel<ConvOpKernel<ConvOp::kConv2DBackpropInput>>(
      registry,
      KernelDefBuilder("Conv2DBackpropInput").TypeConstraint("T", with_int32));
  RegisterKernel<ConvOpKernel<ConvOp::kConv2DBackpropFilter>>(
      registry,
      KernelDefBuilder("Conv2DBackpropFilter").TypeConstraint("T", floats));
  RegisterKernel<ConvOpKernel<ConvOp::kDepthwise>>(
      registry,
      KernelDefBuilder("DepthwiseConv2dNative").TypeConstraint("T", floats));
  RegisterKernel<ConvOpKernel<ConvOp::kDepthwiseBackpropInput>>(
      registry, KernelDefBuilder("DepthwiseConv2dNativeBackpropInput")
                    .TypeConstraint("T", floats));
  RegisterKernel<ConvOpKernel<ConvOp::kDepthwiseBackpropFilter>>(
      registry, KernelDefBuilder("DepthwiseConv2dNativeBackpropFilter")
                    .TypeConstraint("T", floats));
}

}  // namespace dfx::conv_internal

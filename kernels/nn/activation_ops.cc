// BiasAdd, Relu, Relu6, Softmax and LogSoftmax on CPU, as Eigen expressions.
#include "kernels/nn/nn_util.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {
namespace {

using Index = Eigen::DenseIndex;

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
    if (data_format == "NCHW") {
      nchw_ = true;
    } else if (data_format != "NHWC") {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("invalid data_format '", data_format,
                       "': expected 'NHWC' or 'NCHW'")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, value.dims() >= 2,
        NodeInvalidArgument(*ctx, absl::StrCat("Input tensor must be at "
                                               "least 2D: ",
                                               value.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, bias.dims() == 1,
        NodeInvalidArgument(*ctx, absl::StrCat("Biases must be 1D: ",
                                               bias.shape().DebugString())));
    const int channel_dim = nchw_ ? 1 : value.dims() - 1;
    const int64_t channels = value.dim_size(channel_dim);
    DFX_OP_REQUIRES(
        ctx, bias.dim_size(0) == channels,
        NodeInvalidArgument(
            *ctx,
            absl::StrCat("Must provide as many biases as the channel "
                         "dimension of the input tensor: ",
                         bias.shape().DebugString(), " vs. ",
                         value.shape().DebugString(), " (data_format ",
                         nchw_ ? "NCHW" : "NHWC", ")")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    const int64_t total = value.NumElements();
    if (total == 0) return;
    const auto b = vec<T>(bias);
    if (nchw_) {
      // [batch, channels, spatial]: the bias varies along the middle dim.
      const int64_t batch = value.dim_size(0);
      const int64_t spatial = total / (batch * channels);
      const Eigen::DSizes<Index, 3> dims(batch, channels, spatial);
      Assign(*ctx, total, shaped<T, 3>(*out, dims),
             shaped<T, 3>(value, dims) +
                 b.reshape(Eigen::DSizes<Index, 3>(1, channels, 1))
                     .broadcast(Eigen::DSizes<Index, 3>(batch, 1, spatial)));
    } else {
      const int64_t rows = total / channels;
      const Eigen::DSizes<Index, 2> dims(rows, channels);
      Assign(*ctx, total, shaped<T, 2>(*out, dims),
             shaped<T, 2>(value, dims) +
                 b.reshape(Eigen::DSizes<Index, 2>(1, channels))
                     .broadcast(Eigen::DSizes<Index, 2>(rows, 1)));
    }
  }

 private:
  bool nchw_ = false;
};

template <typename T>
class ReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Assign(*ctx, in.NumElements(), flat<T>(*out),
           flat<T>(in).cwiseMax(static_cast<T>(0)));
  }
};

template <typename T>
class Relu6Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Assign(*ctx, in.NumElements(), flat<T>(*out),
           flat<T>(in)
               .cwiseMax(static_cast<T>(0))
               .cwiseMin(static_cast<T>(6)));
  }
};

// Softmax (or LogSoftmax) along the last dimension. Each row is shifted by
// its maximum before exp, so large logits do not overflow.
template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, logits.dims() >= 1,
        NodeInvalidArgument(*ctx, absl::StrCat("logits must have >= 1 "
                                               "dimension, got ",
                                               logits.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const int64_t total = logits.NumElements();
    if (total == 0) return;
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    const int64_t rows = total / classes;
    Tensor row_stat;  // per row: the max, then the sum of exps
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                               TensorShape({rows}), &row_stat));

    const Eigen::DSizes<Index, 2> dims(rows, classes);
    const Eigen::DSizes<Index, 2> rows_by_one(rows, 1);
    const Eigen::DSizes<Index, 2> one_by_classes(1, classes);
    const Eigen::array<Index, 1> along_class = {1};
    const auto x = shaped<T, 2>(logits, dims);
    auto y = shaped<T, 2>(*out, dims);
    auto stat = flat<T>(row_stat);

    Assign(*ctx, total, stat, x.maximum(along_class));
    Assign(*ctx, total, y,
           x - stat.reshape(rows_by_one).broadcast(one_by_classes));
    if constexpr (kLog) {
      Assign(*ctx, total, stat, y.exp().sum(along_class).log());
      Assign(*ctx, total, y,
             y - stat.reshape(rows_by_one).broadcast(one_by_classes));
    } else {
      Assign(*ctx, total, y, y.exp());
      Assign(*ctx, total, stat, y.sum(along_class));
      Assign(*ctx, total, y,
             y / stat.reshape(rows_by_one).broadcast(one_by_classes));
    }
  }
};

template <typename T>
void RegisterNumeric(KernelRegistry* registry) {
  RegisterKernel<BiasAddOp<T>>(
      registry, KernelDefBuilder("BiasAdd").TypeConstraint<T>("T"));
  RegisterKernel<ReluOp<T>>(registry,
                            KernelDefBuilder("Relu").TypeConstraint<T>("T"));
  RegisterKernel<Relu6Op<T>>(registry,
                             KernelDefBuilder("Relu6").TypeConstraint<T>("T"));
}

template <typename T>
void RegisterFloating(KernelRegistry* registry) {
  RegisterKernel<SoftmaxOp<T, false>>(
      registry, KernelDefBuilder("Softmax").TypeConstraint<T>("T"));
  RegisterKernel<SoftmaxOp<T, true>>(
      registry, KernelDefBuilder("LogSoftmax").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterActivationKernels(KernelRegistry* registry) {
  RegisterNumeric<float>(registry);
  RegisterNumeric<double>(registry);
  RegisterNumeric<int32_t>(registry);
  RegisterNumeric<int64_t>(registry);
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
}

}  // namespace dfx::nn_internal

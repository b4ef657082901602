// BiasAdd, BiasAddV1 and the activations (Relu, Relu6, Elu, Selu, Softplus,
// Softsign, LeakyRelu, Softmax, LogSoftmax) on CPU, as Eigen expressions.
//
// The element-wise activations use TensorFlow's formulas in T itself (Eigen
// evaluates half and bfloat16 functions through float one element at a time),
// so their roundings match TensorFlow's. Softmax and LogSoftmax reduce along
// rows, so half and bfloat16 run through float.
#include "kernels/nn/nn_util.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {
namespace {

using Eigen::bfloat16;
using Eigen::half;
using Index = Eigen::DenseIndex;

// BiasAdd (data_format NHWC or NCHW) and BiasAddV1 (always NHWC).
template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const AttrValue* format = FindNodeAttr(ctx->def(), "data_format");
    if (format == nullptr) return;  // BiasAddV1
    if (format->s() == "NCHW") {
      nchw_ = true;
    } else if (format->s() != "NHWC") {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid data format: '", format->s(),
                       "': expected 'NHWC' or 'NCHW'")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    DFX_OP_REQUIRES(ctx, value.dims() >= 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input tensor must be at least 2D: ",
                                     value.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, bias.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Biases must be 1D: ", bias.shape().DebugString())));
    const int channel_dim = nchw_ ? 1 : value.dims() - 1;
    const int64_t channels = value.dim_size(channel_dim);
    // TensorFlow says "last dimension" whatever the data format.
    DFX_OP_REQUIRES(
        ctx, bias.dim_size(0) == channels,
        absl::InvalidArgumentError(absl::StrCat(
            "Must provide as many biases as the last dimension of the input "
            "tensor: ",
            bias.shape().DebugString(), " vs. ",
            value.shape().DebugString())));
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

// y = F::Apply<T>(x) element-wise, same shape. F::Apply returns an Eigen
// expression over its argument (a TensorMap that outlives the evaluation).
template <typename T, typename F>
class UnaryActivationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    Assign(*ctx, in.NumElements(), flat<T>(*out),
           F::template Apply<T>(flat<T>(in)));
  }
};

// max(x, 0); NaN stays NaN, as in TensorFlow.
struct ReluFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    return x.template cwiseMax<Eigen::PropagateNaN>(static_cast<T>(0));
  }
};

// min(max(x, 0), 6); NaN stays NaN.
struct Relu6Fn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    return x.template cwiseMax<Eigen::PropagateNaN>(static_cast<T>(0))
        .template cwiseMin<Eigen::PropagateNaN>(static_cast<T>(6));
  }
};

// x < 0 ? exp(x) - 1 : x (TensorFlow's formula: exp - 1, not expm1).
struct EluFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    return (x < static_cast<T>(0))
        .select(x.exp() - x.constant(static_cast<T>(1)), x);
  }
};

// scale * (x < 0 ? alpha * (exp(x) - 1) : x), with SELU's fixed constants.
struct SeluFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    const T scale = static_cast<T>(1.0507009873554804934193349852946);
    const T scale_alpha = static_cast<T>(1.7580993408473768599402175208123);
    return (x < static_cast<T>(0))
        .select(x.constant(scale_alpha) *
                    (x.exp() - x.constant(static_cast<T>(1))),
                x * scale);
  }
};

// log(1 + exp(x)) without overflow: x itself above -threshold, exp(x) below
// threshold (threshold = log(epsilon) + 2, TensorFlow's choice, which keeps
// both approximations within epsilon of the true value).
struct SoftplusFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    const T threshold = static_cast<T>(
        Eigen::numext::log(Eigen::NumTraits<T>::epsilon()) + static_cast<T>(2));
    return (x > x.constant(-threshold))
        .select(x, (x < x.constant(threshold))
                       .select(x.exp(), x.exp().log1p()));
  }
};

// x / (|x| + 1).
struct SoftsignFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    return x / (x.abs() + x.constant(static_cast<T>(1)));
  }
};

// x > 0 ? x : alpha * x (alpha may be above 1 or negative, so no max).
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0.2f;
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const auto x = flat<T>(in);
    Assign(*ctx, in.NumElements(), flat<T>(*out),
           (x > static_cast<T>(0)).select(x, x * alpha_));
  }

 private:
  T alpha_;
};

// Softmax (or LogSoftmax) of `rows` rows of `classes` values, in A (float or
// double). Each row is shifted by its maximum before exp, so large logits do
// not overflow. `row_stat` is scratch for `rows` values.
template <typename A, bool kLog>
void SoftmaxRows(const OpKernelContext& ctx, const A* logits, A* out,
                 A* row_stat, int64_t rows, int64_t classes) {
  using ConstMatrix = typename EigenTypes<A, 2>::ConstTensor;
  using Matrix = typename EigenTypes<A, 2>::Tensor;
  const int64_t total = rows * classes;
  const Eigen::DSizes<Index, 2> rows_by_one(rows, 1);
  const Eigen::DSizes<Index, 2> one_by_classes(1, classes);
  const Eigen::array<Index, 1> along_class = {1};
  const ConstMatrix x(logits, rows, classes);
  Matrix y(out, rows, classes);
  typename EigenTypes<A>::Flat stat(row_stat, rows);

  Assign(ctx, total, stat, x.maximum(along_class));
  Assign(ctx, total, y,
         x - stat.reshape(rows_by_one).broadcast(one_by_classes));
  if constexpr (kLog) {
    Assign(ctx, total, stat, y.exp().sum(along_class).log());
    Assign(ctx, total, y,
           y - stat.reshape(rows_by_one).broadcast(one_by_classes));
  } else {
    Assign(ctx, total, y, FlushedExp(y));
    Assign(ctx, total, stat, y.sum(along_class));
    Assign(ctx, total, y,
           y / stat.reshape(rows_by_one).broadcast(one_by_classes));
  }
}

// Softmax (or LogSoftmax) along the last dimension.
template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& logits = ctx->input(0);
    DFX_OP_REQUIRES(ctx, logits.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "logits must have >= 1 dimension, got ",
                        logits.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const int64_t total = logits.NumElements();
    if (total == 0) return;
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    const int64_t rows = total / classes;
    Tensor row_stat;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                               TensorShape({rows}), &row_stat));
    if constexpr (std::is_same_v<A, T>) {
      SoftmaxRows<A, kLog>(*ctx, logits.data<T>(), out->data<T>(),
                           row_stat.data<A>(), rows, classes);
    } else {
      Tensor in_a, out_a;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                                 logits.shape(), &in_a));
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                                 logits.shape(), &out_a));
      Assign(*ctx, total, flat<A>(in_a), flat<T>(logits).template cast<A>());
      SoftmaxRows<A, kLog>(*ctx, in_a.data<A>(), out_a.data<A>(),
                           row_stat.data<A>(), rows, classes);
      Assign(*ctx, total, flat<T>(*out), flat<A>(out_a).template cast<T>());
    }
  }
};

template <typename T>
void RegisterNumeric(KernelRegistry* registry) {
  RegisterKernel<BiasAddOp<T>>(
      registry, KernelDefBuilder("BiasAdd").TypeConstraint<T>("T"));
  RegisterKernel<BiasAddOp<T>>(
      registry, KernelDefBuilder("BiasAddV1").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, ReluFn>>(
      registry, KernelDefBuilder("Relu").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, Relu6Fn>>(
      registry, KernelDefBuilder("Relu6").TypeConstraint<T>("T"));
}

template <typename T>
void RegisterFloating(KernelRegistry* registry) {
  RegisterKernel<UnaryActivationOp<T, EluFn>>(
      registry, KernelDefBuilder("Elu").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, SeluFn>>(
      registry, KernelDefBuilder("Selu").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, SoftplusFn>>(
      registry, KernelDefBuilder("Softplus").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, SoftsignFn>>(
      registry, KernelDefBuilder("Softsign").TypeConstraint<T>("T"));
  RegisterKernel<LeakyReluOp<T>>(
      registry, KernelDefBuilder("LeakyRelu").TypeConstraint<T>("T"));
  RegisterKernel<SoftmaxOp<T, false>>(
      registry, KernelDefBuilder("Softmax").TypeConstraint<T>("T"));
  RegisterKernel<SoftmaxOp<T, true>>(
      registry, KernelDefBuilder("LogSoftmax").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterActivationKernels(KernelRegistry* registry) {
  RegisterNumeric<float>(registry);
  RegisterNumeric<double>(registry);
  RegisterNumeric<half>(registry);
  RegisterNumeric<bfloat16>(registry);
  RegisterNumeric<int32_t>(registry);
  RegisterNumeric<int64_t>(registry);
  RegisterNumeric<uint8_t>(registry);
  RegisterNumeric<int8_t>(registry);
  RegisterNumeric<int16_t>(registry);
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
  RegisterFloating<half>(registry);
  RegisterFloating<bfloat16>(registry);
}

}  // namespace dfx::nn_internal

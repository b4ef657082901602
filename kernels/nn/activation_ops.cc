// BiasAdd, BiasAddV1 and the element-wise activations (Relu, Relu6, Elu,
// Selu, Softplus, Softsign, LeakyRelu) on CPU. Softmax and LogSoftmax are in
// softmax_ops.cc.
//
// Relu, Relu6 and Softsign are Eigen expressions in T. The activations with
// a select (Elu, Selu, Softplus, LeakyRelu) use TensorFlow's formulas on
// packets (packet_map.h), since Eigen 3.4 runs a Tensor select one element
// at a time; half and bfloat16 compute them in float, rounding to T after
// each step where TensorFlow computes in T.
#include "kernels/nn/nn_util.h"
#include "kernels/nn/bias_add_shape.h"
#include "kernels/nn/packet_map.h"

#include <complex>
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
    ctx->SetStatus(ParseBiasAddFormat(ctx->def(), &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    DFX_OP_REQUIRES_OK(
        ctx, CheckBiasAddShapes(value.shape(), bias.shape(), nchw_));
    const int channel_dim = nchw_ ? 1 : value.dims() - 1;
    const int64_t channels = value.dim_size(channel_dim);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {0}, 0, value.shape(), &out));
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
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
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

// An activation computed with packet selects (packet_map.h): y = F(x)
// element-wise, F constructed for T.
template <typename T, typename F>
class PacketActivationOp : public OpKernel {
 public:
  explicit PacketActivationOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), f_(F::template For<T>(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    MapUnary<T>(*ctx, f_, in.data<T>(), out->data<T>(), in.NumElements(),
                F::kCycles);
  }

 private:
  const F f_;
};

// x < 0 ? exp(x) - 1 : x (TensorFlow's formula: exp - 1, not expm1).
struct EluFn {
  static constexpr double kCycles = 20;
  template <typename T>
  static EluFn For(OpKernelConstruction*) {
    return {};
  }
  template <typename T, typename P>
  P Packet(const P& x) const {
    const P em1 =
        RoundTo<T>(ei::psub(RoundTo<T>(ei::pexp(x)), SplatT<T, P>(1.0)));
    return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), em1, x);
  }
};

// scale * (x < 0 ? alpha * (exp(x) - 1) : x), with SELU's fixed constants.
struct SeluFn {
  static constexpr double kCycles = 22;
  template <typename T>
  static SeluFn For(OpKernelConstruction*) {
    return {};
  }
  template <typename T, typename P>
  P Packet(const P& x) const {
    const P scale = SplatT<T, P>(1.0507009873554804934193349852946);
    const P scale_alpha = SplatT<T, P>(1.7580993408473768599402175208123);
    const P em1 =
        RoundTo<T>(ei::psub(RoundTo<T>(ei::pexp(x)), SplatT<T, P>(1.0)));
    return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)),
                       RoundTo<T>(ei::pmul(scale_alpha, em1)),
                       RoundTo<T>(ei::pmul(x, scale)));
  }
};

// log(1 + exp(x)) without overflow: x itself above -threshold, exp(x) below
// threshold (threshold = log(epsilon of T) + 2, TensorFlow's choice, which
// keeps both approximations within epsilon of the true value). Eigen has no
// packet log1p for double, which therefore runs one element at a time.
struct SoftplusFn {
  static constexpr double kCycles = 40;
  double threshold = 0;
  template <typename C>
  static constexpr bool kVector = ei::packet_traits<C>::HasLog1p;

  template <typename T>
  static SoftplusFn For(OpKernelConstruction*) {
    return {static_cast<double>(static_cast<T>(
        Eigen::numext::log(Eigen::NumTraits<T>::epsilon()) +
        static_cast<T>(2)))};
  }
  template <typename T, typename P>
  P Packet(const P& x) const {
    const P e = RoundTo<T>(ei::pexp(x));
    return ei::pselect(
        ei::pcmp_lt(Splat<P>(-threshold), x), x,
        ei::pselect(ei::pcmp_lt(x, Splat<P>(threshold)), e,
                    RoundTo<T>(ei::plog1p(e))));
  }
  template <typename C>
  C Scalar(C x) const {
    const C t = static_cast<C>(threshold);
    if (x > -t) return x;
    const C e = std::exp(x);
    return x < t ? e : std::log1p(e);
  }
};

// x > 0 ? x : alpha * x (alpha may be above 1 or negative, so no max).
struct LeakyReluFn {
  static constexpr double kCycles = 3;
  double alpha = 0.2;  // rounded to T, as TensorFlow multiplies by a T
  template <typename T>
  static LeakyReluFn For(OpKernelConstruction* ctx) {
    float alpha = 0.2f;
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha));
    return {static_cast<double>(static_cast<T>(alpha))};
  }
  template <typename T, typename P>
  P Packet(const P& x) const {
    return ei::pselect(ei::pcmp_lt(ei::pzero(x), x), x,
                       RoundTo<T>(ei::pmul(x, Splat<P>(alpha))));
  }
};

// x / (|x| + 1).
struct SoftsignFn {
  template <typename T, typename X>
  static auto Apply(const X& x) {
    return x / (x.abs() + x.constant(static_cast<T>(1)));
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
  RegisterKernel<PacketActivationOp<T, EluFn>>(
      registry, KernelDefBuilder("Elu").TypeConstraint<T>("T"));
  RegisterKernel<PacketActivationOp<T, SeluFn>>(
      registry, KernelDefBuilder("Selu").TypeConstraint<T>("T"));
  RegisterKernel<PacketActivationOp<T, SoftplusFn>>(
      registry, KernelDefBuilder("Softplus").TypeConstraint<T>("T"));
  RegisterKernel<UnaryActivationOp<T, SoftsignFn>>(
      registry, KernelDefBuilder("Softsign").TypeConstraint<T>("T"));
  RegisterKernel<PacketActivationOp<T, LeakyReluFn>>(
      registry, KernelDefBuilder("LeakyRelu").TypeConstraint<T>("T"));
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
  RegisterNumeric<uint16_t>(registry);
  RegisterNumeric<uint32_t>(registry);
  RegisterNumeric<uint64_t>(registry);
  // BiasAdd of complex values (TensorFlow's CPU kernels serve them too).
  for (const char* op : {"BiasAdd", "BiasAddV1"}) {
    RegisterKernel<BiasAddOp<std::complex<float>>>(
        registry,
        KernelDefBuilder(op).TypeConstraint<std::complex<float>>("T"));
    RegisterKernel<BiasAddOp<std::complex<double>>>(
        registry,
        KernelDefBuilder(op).TypeConstraint<std::complex<double>>("T"));
  }
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
  RegisterFloating<half>(registry);
  RegisterFloating<bfloat16>(registry);
}

}  // namespace dfx::nn_internal

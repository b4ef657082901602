// The gradients of the activations (ReluGrad, Relu6Grad, EluGrad, SeluGrad,
// SoftplusGrad, SoftsignGrad, LeakyReluGrad) and of BiasAdd (BiasAddGrad) on
// CPU. The element-wise ones are TensorFlow's formulas: those with a select
// or a mask on packets (packet_map.h; half and bfloat16 in float, rounded to
// T after each step as TensorFlow computes in T), SoftplusGrad and
// SoftsignGrad as Eigen expressions in T.
// BiasAddGrad sums half and bfloat16 in float.
#include "kernels/nn/nn_util.h"
#include "kernels/nn/packet_map.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {

absl::Status CheckSameShape(const OpKernel& kernel, const TensorShape& a,
                            const TensorShape& b) {
  if (a == b) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Inputs to operation ", kernel.name(), " of type ", kernel.type_string(),
      " must have the same size and shape.  Input 0: ", a.DebugString(),
      " != input 1: ", b.DebugString()));
}

namespace {

using Eigen::bfloat16;
using Eigen::half;
using Index = Eigen::DenseIndex;

// backprops = F::Apply<T>(gradients, x) element-wise, where x is the
// activation's input or output (input 1, named by the op). F::Apply returns
// an Eigen expression over its arguments.
template <typename T, typename F>
class BinaryGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& a = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckSameShape(*this, g.shape(), a.shape()));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, g.shape(), &out));
    if (g.NumElements() == 0) return;
    Assign(*ctx, g.NumElements(), flat<T>(*out),
           F::template Apply<T>(flat<T>(g), flat<T>(a)));
  }
};

// backprops = F(gradients, x) element-wise on packets (packet_map.h), F
// constructed for T; x is the activation's input or output (input 1).
template <typename T, typename F>
class PacketGradOp : public OpKernel {
 public:
  explicit PacketGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), f_(F::template For<T>(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& a = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckSameShape(*this, g.shape(), a.shape()));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, g.shape(), &out));
    if (g.NumElements() == 0) return;
    MapBinary<T>(*ctx, f_, g.data<T>(), a.data<T>(), out->data<T>(),
                 g.NumElements(), F::kCycles);
  }

 private:
  const F f_;
};

// Functors without attributes.
template <typename Self>
struct NoAttrs {
  template <typename T>
  static Self For(OpKernelConstruction*) {
    return {};
  }
};

// g where x > 0, else 0 (a product, so a NaN gradient stays NaN). x may be
// Relu's input or output: both give the same mask.
// Integer types run the scalar form.
struct ReluGradFn : NoAttrs<ReluGradFn> {
  static constexpr double kCycles = 2;
  template <typename C>
  static constexpr bool kVector = std::is_floating_point_v<C>;
  template <typename C>
  C Scalar(C g, C x) const {
    return static_cast<C>(g * static_cast<C>(x > C(0)));
  }
  template <typename T, typename P>
  P Packet(const P& g, const P& x) const {
    return ei::pmul(g, MaskToOne(ei::pcmp_lt(ei::pzero(x), x)));
  }
};

// g where 0 < x < 6, else 0.
struct Relu6GradFn : NoAttrs<Relu6GradFn> {
  static constexpr double kCycles = 3;
  template <typename C>
  static constexpr bool kVector = std::is_floating_point_v<C>;
  template <typename C>
  C Scalar(C g, C x) const {
    return static_cast<C>(g * static_cast<C>(x > C(0) && x < C(6)));
  }
  template <typename T, typename P>
  P Packet(const P& g, const P& x) const {
    const P inside = ei::pand(ei::pcmp_lt(ei::pzero(x), x),
                              ei::pcmp_lt(x, Splat<P>(6.0)));
    return ei::pmul(g, MaskToOne(inside));
  }
};

// From Elu's output y: y < 0 ? g * (y + 1) : g.
struct EluGradFn : NoAttrs<EluGradFn> {
  static constexpr double kCycles = 3;
  template <typename T, typename P>
  P Packet(const P& g, const P& y) const {
    const P yp1 = RoundTo<T>(ei::padd(y, SplatT<T, P>(1.0)));
    return ei::pselect(ei::pcmp_lt(y, ei::pzero(y)),
                       RoundTo<T>(ei::pmul(yp1, g)), g);
  }
};

// From Selu's output y: y < 0 ? g * (y + scale * alpha) : g * scale.
struct SeluGradFn : NoAttrs<SeluGradFn> {
  static constexpr double kCycles = 3;
  template <typename T, typename P>
  P Packet(const P& g, const P& y) const {
    const P scale = SplatT<T, P>(1.0507009873554804934193349852946);
    const P scale_alpha = SplatT<T, P>(1.7580993408473768599402175208123);
    const P ysa = RoundTo<T>(ei::padd(y, scale_alpha));
    return ei::pselect(ei::pcmp_lt(y, ei::pzero(y)),
                       RoundTo<T>(ei::pmul(g, ysa)),
                       RoundTo<T>(ei::pmul(g, scale)));
  }
};

// x > 0 ? g : g * alpha.
struct LeakyReluGradFn {
  static constexpr double kCycles = 3;
  double alpha = 0.2;
  template <typename T>
  static LeakyReluGradFn For(OpKernelConstruction* ctx) {
    float alpha = 0.2f;
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha));
    return {static_cast<double>(static_cast<T>(alpha))};
  }
  template <typename T, typename P>
  P Packet(const P& g, const P& x) const {
    return ei::pselect(ei::pcmp_lt(ei::pzero(x), x), g,
                       RoundTo<T>(ei::pmul(g, Splat<P>(alpha))));
  }
};

// g * sigmoid(x), as g / (exp(-x) + 1).
struct SoftplusGradFn {
  template <typename T, typename G, typename X>
  static auto Apply(const G& g, const X& x) {
    return g / ((-x).exp() + x.constant(static_cast<T>(1)));
  }
};

// g / (|x| + 1)^2.
struct SoftsignGradFn {
  template <typename T, typename G, typename X>
  static auto Apply(const G& g, const X& x) {
    return g / (x.abs() + x.constant(static_cast<T>(1))).square();
  }
};

// The sum of out_backprop over every dim but the channel dim (the last in
// NHWC, dim 1 in NCHW), in AccumType<T>.
template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format = "NHWC";
    ctx->SetStatus(ctx->GetAttr("data_format", &format));
    if (format == "NCHW") {
      nchw_ = true;
    } else if (format != "NHWC") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Invalid data format: '", format, "': expected 'NHWC' or 'NCHW'")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& grad = ctx->input(0);
    DFX_OP_REQUIRES(ctx, grad.dims() >= 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input tensor must be at least 2D: ",
                                     grad.shape().DebugString())));
    const int channel_dim = nchw_ ? 1 : grad.dims() - 1;
    const int64_t channels = grad.dim_size(channel_dim);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({channels}), &out));
    if (channels == 0) return;
    const int64_t total = grad.NumElements();
    auto result = flat<T>(*out);
    if (total == 0) {
      result.setZero();
      return;
    }
    Tensor sums;  // per channel, in A
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                               TensorShape({channels}), &sums));
    if (nchw_) {
      // [batch, channels, spatial]: sum each contiguous spatial row, then
      // the rows of each channel over the batch.
      const int64_t batch = grad.dim_size(0);
      const int64_t spatial = total / (batch * channels);
      Tensor row_sums;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                  TensorShape({batch, channels}), &row_sums));
      const Eigen::array<Index, 1> inner = {1};
      const Eigen::array<Index, 1> outer = {0};
      Assign(*ctx, total, flat<A>(row_sums),
             shaped<T, 2>(grad, Eigen::DSizes<Index, 2>(batch * channels,
                                                        spatial))
                 .template cast<A>()
                 .sum(inner));
      Assign(*ctx, batch * channels, flat<A>(sums),
             matrix<A>(row_sums).sum(outer));
    } else {
      SumRows(*ctx, grad.data<T>(), total / channels, channels,
              sums.data<A>());
    }
    result = flat<A>(sums).template cast<T>();
  }

 private:
  // sums[c] = the sum over r of x[r * channels + c]. Blocks of rows are
  // summed on the intra-op pool, then the block sums added up in order.
  static void SumRows(const OpKernelContext& ctx, const T* x, int64_t rows,
                      int64_t channels, AccumType<T>* sums) {
    using A = AccumType<T>;
    using ConstMatrix = typename EigenTypes<T, 2>::ConstTensor;
    using Vec = typename EigenTypes<A>::Flat;
    const Eigen::array<Index, 1> along_rows = {0};
    const int64_t total = rows * channels;
    const int64_t blocks =
        std::min<int64_t>(rows, std::max<int64_t>(1, total / (16 * 1024)));
    if (blocks == 1) {
      Vec(sums, channels) =
          ConstMatrix(x, rows, channels).template cast<A>().sum(along_rows);
      return;
    }
    std::vector<A> partial(blocks * channels);
    const int64_t block_rows = (rows + blocks - 1) / blocks;
    const Eigen::TensorOpCost cost(
        static_cast<double>(block_rows * channels * sizeof(T)),
        static_cast<double>(channels * sizeof(A)),
        static_cast<double>(block_rows * channels));
    ParallelForBlocks(*ctx.device(), blocks, cost,
                      [&](int64_t first, int64_t last) {
                        for (int64_t b = first; b < last; ++b) {
                          const int64_t r0 = std::min(rows, b * block_rows);
                          const int64_t r1 = std::min(rows, r0 + block_rows);
                          Vec(partial.data() + b * channels, channels) =
                              ConstMatrix(x + r0 * channels, r1 - r0, channels)
                                  .template cast<A>()
                                  .sum(along_rows);
                        }
                      });
    Vec out(sums, channels);
    out.setZero();
    for (int64_t b = 0; b < blocks; ++b) {
      out += typename EigenTypes<A>::ConstFlat(partial.data() + b * channels,
                                               channels);
    }
  }

  bool nchw_ = false;
};

template <typename T>
void RegisterNumeric(KernelRegistry* registry) {
  RegisterKernel<PacketGradOp<T, ReluGradFn>>(
      registry, KernelDefBuilder("ReluGrad").TypeConstraint<T>("T"));
  RegisterKernel<PacketGradOp<T, Relu6GradFn>>(
      registry, KernelDefBuilder("Relu6Grad").TypeConstraint<T>("T"));
  RegisterKernel<BiasAddGradOp<T>>(
      registry, KernelDefBuilder("BiasAddGrad").TypeConstraint<T>("T"));
}

template <typename T>
void RegisterFloating(KernelRegistry* registry) {
  RegisterKernel<PacketGradOp<T, EluGradFn>>(
      registry, KernelDefBuilder("EluGrad").TypeConstraint<T>("T"));
  RegisterKernel<PacketGradOp<T, SeluGradFn>>(
      registry, KernelDefBuilder("SeluGrad").TypeConstraint<T>("T"));
  RegisterKernel<BinaryGradOp<T, SoftplusGradFn>>(
      registry, KernelDefBuilder("SoftplusGrad").TypeConstraint<T>("T"));
  RegisterKernel<BinaryGradOp<T, SoftsignGradFn>>(
      registry, KernelDefBuilder("SoftsignGrad").TypeConstraint<T>("T"));
  RegisterKernel<PacketGradOp<T, LeakyReluGradFn>>(
      registry, KernelDefBuilder("LeakyReluGrad").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterActivationGradKernels(KernelRegistry* registry) {
  RegisterKernel<BiasAddGradOp<std::complex<float>>>(
      registry,
      KernelDefBuilder("BiasAddGrad").TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<BiasAddGradOp<std::complex<double>>>(
      registry, KernelDefBuilder("BiasAddGrad")
                    .TypeConstraint<std::complex<double>>("T"));
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
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
  RegisterFloating<half>(registry);
  RegisterFloating<bfloat16>(registry);
}

}  // namespace dfx::nn_internal

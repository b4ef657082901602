// FusedBatchNorm (V1, V2, V3) and FusedBatchNormGrad (V1, V2, V3) on CPU,
// as TensorFlow's CPU kernels compute them, for x in NHWC, NCHW, NDHWC or
// NCDHW (T float, half or bfloat16; U float). Per-channel sums accumulate in
// double; element-wise math runs in float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_util.h"

#include "kernels/conv/batch_norm_checks.h"

namespace dfx::conv_internal {
namespace {

// Calls fn(i, c) for every element i of channel c, in parallel. Elements of
// one call range share no output.
template <typename Fn>
void ForEachElement(const Device& device, const BnLayout& l, double cost,
                    Fn fn) {
  if (l.inner == 1) {
    ParallelForCost(device, l.outer, cost * static_cast<double>(l.channels),
                    [&](int64_t first, int64_t last) {
                      for (int64_t o = first; o < last; ++o) {
                        const int64_t base = o * l.channels;
                        for (int64_t c = 0; c < l.channels; ++c) {
                          fn(base + c, c);
                        }
                      }
                    });
  } else {
    ParallelForCost(device, l.outer * l.channels,
                    cost * static_cast<double>(l.inner),
                    [&](int64_t first, int64_t last) {
                      for (int64_t run = first; run < last; ++run) {
                        const int64_t c = run % l.channels;
                        const int64_t base = run * l.inner;
                        for (int64_t s = 0; s < l.inner; ++s) fn(base + s, c);
                      }
                    });
  }
}

// Per-channel sums of fn(i, c) -> {a, b} over all elements, in double.
template <typename Fn>
void ChannelSums(const Device& device, const BnLayout& l, Fn fn,
                 std::vector<double>* sum_a, std::vector<double>* sum_b) {
  const int64_t channels = l.channels;
  sum_a->assign(static_cast<size_t>(channels), 0.0);
  sum_b->assign(static_cast<size_t>(channels), 0.0);
  if (l.inner == 1) {
    // Blocks of rows, each with its own partial sums, added up in block
    // order.
    const int64_t blocks = std::min<int64_t>(
        l.outer, static_cast<int64_t>(IntraOpThreads(device)) * 4);
    if (blocks == 0) return;
    std::vector<double> partial(static_cast<size_t>(blocks * channels * 2),
                                0.0);
    const int64_t rows_per_block = (l.outer + blocks - 1) / blocks;
    ParallelForCost(
        device, blocks,
        4.0 * static_cast<double>(rows_per_block * channels),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            double* pa = partial.data() + b * channels * 2;
            double* pb = pa + channels;
            const int64_t r1 = std::min(l.outer, (b + 1) * rows_per_block);
            for (int64_t o = b * rows_per_block; o < r1; ++o) {
              const int64_t base = o * channels;
              for (int64_t c = 0; c < channels; ++c) {
                const auto v = fn(base + c, c);
                pa[c] += v.first;
                pb[c] += v.second;
              }
            }
          }
        });
    for (int64_t b = 0; b < blocks; ++b) {
      const double* pa = partial.data() + b * channels * 2;
      for (int64_t c = 0; c < channels; ++c) {
        (*sum_a)[c] += pa[c];
        (*sum_b)[c] += pa[channels + c];
      }
    }
    return;
  }
  const int64_t runs = l.outer * channels;
  std::vector<double> partial(static_cast<size_t>(runs * 2), 0.0);
  ParallelForCost(device, runs, 4.0 * static_cast<double>(l.inner),
                  [&](int64_t first, int64_t last) {
                    for (int64_t run = first; run < last; ++run) {
                      const int64_t c = run % channels;
                      const int64_t base = run * l.inner;
                      double a = 0, b = 0;
                      for (int64_t s = 0; s < l.inner; ++s) {
                        const auto v = fn(base + s, c);
                        a += v.first;
                        b += v.second;
                      }
                      partial[2 * run] = a;
                      partial[2 * run + 1] = b;
                    }
                  });
  for (int64_t run = 0; run < runs; ++run) {
    (*sum_a)[run % channels] += partial[2 * run];
    (*sum_b)[run % channels] += partial[2 * run + 1];
  }
}

// FusedBatchNorm, V2 and V3 (kV3: a sixth, scalar output).
template <typename T, bool kV3>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    ctx->SetStatus(ReadBnFormat(*ctx, &channel_first_));
    if (FindNodeAttr(ctx->def(), "exponential_avg_factor") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("exponential_avg_factor", &exponential_avg_factor_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& est_mean = ctx->input(3);
    const Tensor& est_var = ctx->input(4);
    BnLayout l;
    DFX_OP_REQUIRES_OK(
        ctx, CheckBatchNormInputs(*ctx, channel_first_, is_training_,
                                  exponential_avg_factor_, &l));
    Tensor* y = nullptr;
    Tensor* stats[4] = {nullptr, nullptr, nullptr, nullptr};
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int i = 0; i < 4; ++i) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i + 1, scale.shape(), &stats[i]));
    }
    if constexpr (kV3) {
      // TensorFlow's CPU kernel has no use for the third reserve space and
      // outputs one zero.
      Tensor* reserve = nullptr;
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(5, TensorShape({1}), &reserve));
      reserve->data<float>()[0] = 0.0f;
    }
    float* out_mean = stats[0]->data<float>();
    float* out_var = stats[1]->data<float>();
    float* saved_mean = stats[2]->data<float>();
    float* saved_var = stats[3]->data<float>();
    const int64_t channels = l.channels;
    if (x.NumElements() == 0) {
      // As TensorFlow: the statistics of nothing are NaN.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (int64_t c = 0; c < channels; ++c) {
        out_mean[c] = out_var[c] = saved_mean[c] = saved_var[c] = nan;
      }
      return;
    }
    const T* xs = x.data<T>();
    T* ys = y->data<T>();
    const Device& device = *ctx->device();
    std::vector<float> mean(static_cast<size_t>(channels));
    std::vector<float> var(static_cast<size_t>(channels));
    if (is_training_) {
      std::vector<double> sum, unused;
      ChannelSums(
          device, l,
          [xs](int64_t i, int64_t) {
            return std::pair<double, double>(static_cast<float>(xs[i]), 0.0);
          },
          &sum, &unused);
      const double n = static_cast<double>(l.count());
      for (int64_t c = 0; c < channels; ++c) {
        mean[c] = static_cast<float>(sum[c] / n);
      }
      std::vector<double> sq;
      const float* m = mean.data();
      ChannelSums(
          device, l,
          [xs, m](int64_t i, int64_t c) {
            const double d = static_cast<double>(static_cast<float>(xs[i])) -
                             static_cast<double>(m[c]);
            return std::pair<double, double>(d * d, 0.0);
          },
          &sq, &unused);
      for (int64_t c = 0; c < channels; ++c) {
        var[c] = static_cast<float>(sq[c] / n);
      }
      // Bessel's correction for the running variance.
      const float adjust =
          static_cast<float>(n) / static_cast<float>(n > 1 ? n - 1 : 1);
      const float f = exponential_avg_factor_;
      const float* old_mean = est_mean.data<float>();
      const float* old_var = est_var.data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        saved_mean[c] = mean[c];
        saved_var[c] = var[c];
        if (f == 1.0f) {
          out_mean[c] = mean[c];
          out_var[c] = var[c] * adjust;
        } else {
          out_mean[c] = (1.0f - f) * old_mean[c] + f * mean[c];
          out_var[c] = (1.0f - f) * old_var[c] + (f * adjust) * var[c];
        }
      }
    } else {
      const float* em = est_mean.data<float>();
      const float* ev = est_var.data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        mean[c] = em[c];
        var[c] = ev[c];
        out_mean[c] = saved_mean[c] = em[c];
        out_var[c] = saved_var[c] = ev[c];
      }
    }
    std::vector<float> factor(static_cast<size_t>(channels));
    const float* sc = scale.data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      factor[c] = sc[c] / std::sqrt(var[c] + epsilon_);
    }
    const float* m = mean.data();
    const float* fa = factor.data();
    const float* off = offset.data<float>();
    ForEachElement(device, l, 4.0, [=](int64_t i, int64_t c) {
      ys[i] = static_cast<T>((static_cast<float>(xs[i]) - m[c]) * fa[c] +
                             off[c]);
    });
  }

 private:
  float epsilon_ = 1e-4f;
  float exponential_avg_factor_ = 1.0f;
  bool is_training_ = true;
  bool channel_first_ = false;
};

// FusedBatchNormGrad, V2 and V3 (V3 has a sixth input, unused on CPU).
template <typename T>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    ctx->SetStatus(ReadBnFormat(*ctx, &channel_first_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& mean_in = ctx->input(3);
    const Tensor& var_in = ctx->input(4);
    BnLayout l;
    DFX_OP_REQUIRES_OK(ctx, CheckBatchNormGradInputs(*ctx, channel_first_, &l));
    Tensor* dx = nullptr;
    Tensor* dscale = nullptr;
    Tensor* doffset = nullptr;
    Tensor* placeholder = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, scale.shape(), &dscale));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, scale.shape(), &doffset));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(3, TensorShape({0}), &placeholder));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(4, TensorShape({0}), &placeholder));
    const int64_t channels = l.channels;
    float* scale_grad = dscale->data<float>();
    float* offset_grad = doffset->data<float>();
    if (x.NumElements() == 0) {
      for (int64_t c = 0; c < channels; ++c) scale_grad[c] = offset_grad[c] = 0;
      return;
    }
    DFX_OP_REQUIRES(
        ctx, is_training_ || !channel_first_,
        absl::InvalidArgumentError(
            "The implementation of FusedBatchNormGrad with is_training=False "
            "only support NHWC tensor format for now."));
    const T* dys = dy.data<T>();
    const T* xs = x.data<T>();
    T* dxs = dx->data<T>();
    const float* mean = mean_in.data<float>();
    const float* sc = scale.data<float>();
    const Device& device = *ctx->device();
    std::vector<float> rstd(static_cast<size_t>(channels));
    const float* var = var_in.data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      rstd[c] = 1.0f / std::sqrt(var[c] + epsilon_);
    }
    // sum(dy) and sum(dy * (x - mean)) per channel.
    std::vector<double> sum_dy, sum_dy_xc;
    ChannelSums(
        device, l,
        [dys, xs, mean](int64_t i, int64_t c) {
          const double g = static_cast<float>(dys[i]);
          const double xc = static_cast<double>(static_cast<float>(xs[i])) -
                            static_cast<double>(mean[c]);
          return std::pair<double, double>(g, g * xc);
        },
        &sum_dy, &sum_dy_xc);
    for (int64_t c = 0; c < channels; ++c) {
      offset_grad[c] = static_cast<float>(sum_dy[c]);
      scale_grad[c] = static_cast<float>(sum_dy_xc[c] * rstd[c]);
    }
    const float* r = rstd.data();
    if (!is_training_) {
      // The statistics are constants: dx = dy * scale * rsqrt(var + eps).
      ForEachElement(device, l, 2.0, [=](int64_t i, int64_t c) {
        dxs[i] = static_cast<T>(static_cast<float>(dys[i]) * (sc[c] * r[c]));
      });
      return;
    }
    // dx = scale * rstd * (dy - mean(dy) - (x - mean) * rstd^2 *
    //                      mean(dy * (x - mean)))
    const double n = static_cast<double>(l.count());
    std::vector<float> dy_mean(static_cast<size_t>(channels));
    std::vector<float> coef1(static_cast<size_t>(channels));
    std::vector<float> coef2(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      dy_mean[c] = static_cast<float>(sum_dy[c] / n);
      coef1[c] = sc[c] * rstd[c];
      coef2[c] = rstd[c] * rstd[c] * static_cast<float>(sum_dy_xc[c] / n);
    }
    const float* dm = dy_mean.data();
    const float* c1 = coef1.data();
    const float* c2 = coef2.data();
    ForEachElement(device, l, 6.0, [=](int64_t i, int64_t c) {
      const float xc = static_cast<float>(xs[i]) - mean[c];
      dxs[i] = static_cast<T>(
          c1[c] * ((static_cast<float>(dys[i]) - dm[c]) - xc * c2[c]));
    });
  }

 private:
  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  bool channel_first_ = false;
};

template <typename T>
void RegisterMixed(KernelRegistry* registry) {
  RegisterKernel<FusedBatchNormOp<T, false>>(
      registry, KernelDefBuilder("FusedBatchNormV2")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<float>("U"));
  RegisterKernel<FusedBatchNormOp<T, true>>(
      registry, KernelDefBuilder("FusedBatchNormV3")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<float>("U"));
  RegisterKernel<FusedBatchNormGradOp<T>>(
      registry, KernelDefBuilder("FusedBatchNormGradV2")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<float>("U"));
  RegisterKernel<FusedBatchNormGradOp<T>>(
      registry, KernelDefBuilder("FusedBatchNormGradV3")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<float>("U"));
}

}  // namespace

void RegisterBatchNormKernels(KernelRegistry* registry) {
  RegisterKernel<FusedBatchNormOp<float, false>>(
      registry, KernelDefBuilder("FusedBatchNorm").TypeConstraint<float>("T"));
  RegisterKernel<FusedBatchNormGradOp<float>>(
      registry,
      KernelDefBuilder("FusedBatchNormGrad").TypeConstraint<float>("T"));
  RegisterMixed<float>(registry);
  RegisterMixed<Eigen::half>(registry);
  RegisterMixed<Eigen::bfloat16>(registry);
}

}  // namespace dfx::conv_internal

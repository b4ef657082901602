// ParameterizedTruncatedNormal: samples of N(mean, stddev) truncated to
// [minval, maxval], with parameters per batch (the output's first dim) or
// shared, drawn as TensorFlow 2.21's CPU kernel draws them
// (parameterized_truncated_normal_op.cc): per batch, rejection from the
// normal distribution when the bounds hold at least 1.3 standard deviations
// of one side, from a uniform proposal when the normalized interval is
// narrow, from an exponential proposal otherwise; arithmetic in the element
// type, the Philox stream reserved and read as there.
//
// TensorFlow splits the batches over its intra-op pool by a cost model and
// gives each shard its own stretch of the stream; dfx draws every batch in
// one pass over one stream, which is TensorFlow's order whenever it runs a
// single shard (small outputs: under about 20,000 cost units, e.g. up to
// 100 samples with shared parameters) and so gives its numbers there.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/nn/nn2_kernels.h"
#include "kernels/random/philox.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"

namespace dfx::nn2_internal {
namespace {

using random::GuardedPhilox;
using random::NormalDist;
using random::Philox;
using random::UniformDist;

constexpr int kMaxIterations = 1000;
// Shared parameters: TensorFlow regroups the samples into batches of this
// many.
constexpr int32_t kDesiredBatchSize = 100;

// One group of values from `Dist` (4 for float and half, 2 for double).
template <typename Dist>
struct Group {
  typename Dist::Type v[Dist::kGroupSize];
  static constexpr int kSize = Dist::kGroupSize;
  void Draw(Philox* gen) { Dist()(gen, v); }
};

// The samples [first, limit) of one batch, sample i at out[i * stride].
// Returns an error status when a sampler gives up, as TensorFlow's does.
template <typename T>
absl::Status SampleBatch(T mean, T stddev, T minval, T maxval, Philox* gen,
                         int64_t first, int64_t limit, T* out,
                         int64_t stride = 1) {
  using Eigen::numext::exp;
  using Eigen::numext::isfinite;
  using Eigen::numext::isinf;
  using Eigen::numext::log;
  using Eigen::numext::sqrt;
  if (!(stddev > T(0) && minval < maxval &&
        (isfinite(minval) || isfinite(maxval)))) {
    return absl::InvalidArgumentError("Invalid parameters");
  }
  // A one-sided bound becomes the lower one; or both are made positive.
  if ((isinf(minval) && minval < T(0)) || maxval < mean) {
    std::swap(minval, maxval);
    stddev = -stddev;
  }
  const T norm_min = (minval - mean) / stddev;
  const T norm_max = (maxval - mean) / stddev;
  const T sqrt_factor = sqrt((norm_min * norm_min) + T(4));
  const T cutoff = T(2) *
                   exp(T(0.5) + (norm_min * (norm_min - sqrt_factor)) / T(4)) /
                   (norm_min + sqrt_factor);
  const T diff = norm_max - norm_min;
  const T inside = T(1.3);
  int64_t sample = first;
  int iterations = 0;
  if ((norm_min < -inside && norm_max >= T(0.)) ||
      (norm_max > inside && norm_min <= T(0.))) {
    // Normal samples, those outside the bounds rejected.
    Group<NormalDist<T>> randn;
    while (sample < limit) {
      randn.Draw(gen);
      for (int i = 0; i < randn.kSize; ++i) {
        if (randn.v[i] >= norm_min && randn.v[i] <= norm_max) {
          out[stride * sample++] = randn.v[i] * stddev + mean;
          if (sample >= limit) break;
          iterations = 0;
        } else if (++iterations > kMaxIterations) {
          return absl::InternalError(
              "TruncatedNormal randn rejection sampler failed to accept a "
              "sample.");
        }
      }
    }
  } else if (diff < cutoff) {
    // Uniform proposals on [norm_min, norm_max].
    const T plus_factor = norm_min < T(0) ? T(0) : norm_min * norm_min;
    Group<UniformDist<T>> rand, u;
    T z[4];
    T g[4];
    while (sample < limit) {
      rand.Draw(gen);
      for (int i = 0; i < rand.kSize; ++i) z[i] = rand.v[i] * diff + norm_min;
      for (int i = 0; i < rand.kSize; ++i) {
        g[i] = (plus_factor - z[i] * z[i]) / T(2.0);
      }
      u.Draw(gen);
      for (int i = 0; i < rand.kSize; ++i) {
        const bool accept = u.v[i] <= exp(g[i]);
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            return absl::InternalError(
                "TruncatedNormal uniform rejection sampler failed to  accept "
                "a sample.");
          }
          out[stride * sample++] = z[i] * stddev + mean;
          if (sample >= limit) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  } else {
    // Exponential proposals offset by norm_min, accepted below norm_max.
    const T alpha = (norm_min + sqrt((norm_min * norm_min) + T(4))) / T(2);
    Group<UniformDist<T>> rand;
    while (sample < limit) {
      rand.Draw(gen);
      for (int i = 0; i < rand.kSize;) {
        const T z = -log(rand.v[i]) / alpha + norm_min;
        ++i;
        const T x = norm_min < alpha ? alpha - z : norm_min - alpha;
        const T g = exp(-x * x / T(2.0));
        const T u = rand.v[i];
        ++i;
        const bool accept = u <= g && z < norm_max;
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            return absl::InternalError(
                "TruncatedNormal exponential distribution rejection sampler "
                "failed to accept a sample.");
          }
          out[stride * sample++] = z * stddev + mean;
          if (sample >= limit) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  }
  return absl::OkStatus();
}

template <typename T>
class ParameterizedTruncatedNormalOp : public OpKernel {
 public:
  explicit ParameterizedTruncatedNormalOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input shape should be a vector, got shape: ",
                        shape_t.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape_t.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Shape tensor must not be empty, got ",
                        shape_t.DebugString())));
    absl::StatusOr<TensorShape> shape = random::ShapeFromTensor(shape_t);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    // TensorFlow counts batches and samples in int32.
    int32_t num_batches = static_cast<int32_t>(shape->dim_size(0));
    int32_t samples_per_batch = 1;
    for (int i = 1; i < shape->dims(); ++i) {
      samples_per_batch = static_cast<int32_t>(
          static_cast<uint32_t>(samples_per_batch) *
          static_cast<uint32_t>(shape->dim_size(i)));
    }
    const int64_t num_elements = shape->num_elements();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));

    const char* const names[] = {"means", "stddevs", "minvals", "maxvals"};
    const Tensor* params[4];
    for (int i = 0; i < 4; ++i) {
      params[i] = &ctx->input(i + 1);
      DFX_OP_REQUIRES(ctx, params[i]->dims() <= 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input ", names[i],
                          " should be a scalar or vector, got shape: ",
                          params[i]->shape().DebugString())));
    }
    auto length_one = [](const Tensor* t) {
      return t->dims() == 0 || t->dim_size(0) == 1;
    };
    if (length_one(params[0]) && length_one(params[1]) &&
        params[2]->dims() == 0 && params[3]->dims() == 0) {
      // Shared parameters: regrouped into batches of 100.
      num_batches = static_cast<int32_t>(
          (num_elements + kDesiredBatchSize - 1) / kDesiredBatchSize);
      samples_per_batch = kDesiredBatchSize;
    } else {
      for (int i = 0; i < 4; ++i) {
        DFX_OP_REQUIRES(
            ctx,
            params[i]->dims() == 0 || params[i]->dim_size(0) == 1 ||
                params[i]->dim_size(0) == num_batches,
            absl::InvalidArgumentError(absl::StrCat(
                "Input ", names[i],
                " should have length 1 or shape[0], got shape: ",
                params[i]->shape().DebugString())));
      }
    }
    // TensorFlow's reservation, computed in int32 as there.
    const int32_t blocks = static_cast<int32_t>(
        static_cast<uint32_t>(num_batches) * 2u *
        static_cast<uint32_t>(kMaxIterations) *
        static_cast<uint32_t>(samples_per_batch + 3) / 4u);
    Philox gen = generator_.Reserve(
        static_cast<uint64_t>(static_cast<int64_t>(blocks)));
    const T* p[4];
    for (int i = 0; i < 4; ++i) p[i] = params[i]->data<T>();
    auto param = [&](int i, int64_t b) {
      return p[i][params[i]->NumElements() == 1 ? 0 : b];
    };
    T* o = out->data<T>();
    for (int64_t b = 0; b < num_batches; ++b) {
      const int64_t first = b * samples_per_batch;
      const int64_t limit =
          std::min<int64_t>((b + 1) * samples_per_batch, num_elements);
      DFX_OP_REQUIRES_OK(
          ctx, SampleBatch<T>(param(0, b), param(1, b), param(2, b),
                              param(3, b), &gen, first, limit, o));
    }
  }

 private:
  GuardedPhilox generator_;
};

}  // namespace

void RegisterParameterizedTruncatedNormalKernels(KernelRegistry* registry) {
  RegisterKernel<ParameterizedTruncatedNormalOp<Eigen::half>>(
      registry, KernelDefBuilder("ParameterizedTruncatedNormal")
                    .TypeConstraint<Eigen::half>("dtype"));
  RegisterKernel<ParameterizedTruncatedNormalOp<float>>(
      registry, KernelDefBuilder("ParameterizedTruncatedNormal")
                    .TypeConstraint<float>("dtype"));
  RegisterKernel<ParameterizedTruncatedNormalOp<double>>(
      registry, KernelDefBuilder("ParameterizedTruncatedNormal")
                    .TypeConstraint<double>("dtype"));
}

}  // namespace dfx::nn2_internal

namespace dfx::random {

absl::Status SampleTruncatedNormalBatch(Eigen::half mean, Eigen::half stddev,
                                        Eigen::half minval, Eigen::half maxval,
                                        Philox* gen, int64_t first,
                                        int64_t limit, int64_t stride,
                                        Eigen::half* out) {
  return nn2_internal::SampleBatch(mean, stddev, minval, maxval, gen, first,
                                   limit, out, stride);
}

absl::Status SampleTruncatedNormalBatch(float mean, float stddev, float minval,
                                        float maxval, Philox* gen,
                                        int64_t first, int64_t limit,
                                        int64_t stride, float* out) {
  return nn2_internal::SampleBatch(mean, stddev, minval, maxval, gen, first,
                                   limit, out, stride);
}

absl::Status SampleTruncatedNormalBatch(double mean, double stddev,
                                        double minval, double maxval,
                                        Philox* gen, int64_t first,
                                        int64_t limit, int64_t stride,
                                        double* out) {
  return nn2_internal::SampleBatch(mean, stddev, minval, maxval, gen, first,
                                   limit, out, stride);
}

}  // namespace dfx::random

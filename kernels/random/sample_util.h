// TensorFlow's samplers of the distributions with a parameter per output
// group (RandomGamma, RandomPoissonV2 and their stateless forms): each
// output value reads its own stretch of the Philox stream, 256 blocks per
// output after the start, so any split over threads gives TensorFlow's
// values.
#ifndef DFX_KERNELS_RANDOM_SAMPLE_UTIL_H_
#define DFX_KERNELS_RANDOM_SAMPLE_UTIL_H_

#include <cmath>
#include <cstdint>

#include "kernels/eigen_util.h"
#include "kernels/random/philox.h"
#include "kernels/random/random_util.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx::random {

// Doubles from one distribution two per block, handed out last first, as
// TensorFlow's samplers take them.
template <class Dist>
class DoublePairs {
 public:
  double Next(Philox* gen) {
    if (left_ == 0) {
      Dist()(gen, values_);
      left_ = 2;
    }
    return values_[--left_];
  }

 private:
  double values_[2];
  int left_ = 0;
};

// Gamma(alpha, 1), draw for draw as TensorFlow: alpha == 1 is
// -log1p(-u); otherwise Marsaglia and Tsang's rejection on (normal,
// uniform) pairs, and for alpha < 1 the sample of alpha + 1 times
// u^(1 / alpha).
inline double SampleGamma(double alpha, Philox* gen) {
  DoublePairs<UniformDist<double>> uniform;
  if (alpha == 1.0) return -std::log1p(-uniform.Next(gen));
  DoublePairs<NormalDist<double>> normal;
  const bool below_one = alpha < 1;
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  for (;;) {
    const double x = normal.Next(gen);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform.Next(gen);
    if (u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      double result = d * v;
      if (below_one) result *= std::pow(uniform.Next(gen), 1 / alpha);
      return result;
    }
  }
}

// Poisson(rate), draw for draw as TensorFlow: Knuth's product of uniforms
// below rate 10, Hormann's transformed rejection from there; a count above
// `highest` (the output type's largest value) is drawn again.
inline double SamplePoisson(double rate, double highest, Philox* gen) {
  DoublePairs<UniformDist<double>> uniform;
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1;
    double x = 0;
    for (;;) {
      prod = prod * uniform.Next(gen);
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  for (;;) {
    const double u = uniform.Next(gen) - 0.5;
    const double v = uniform.Next(gen);
    const double u_shifted = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s =
        std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// Fills `out` ([samples] + params' shape, of U) with sample(params[j],
// gen) at [i, j], from the stream that starts at `base`: outputs are
// numbered parameter-major (k = j * samples + i) and output k's generator
// skips 256 * k blocks. REQUIRES: out->NumElements() == samples *
// params.NumElements() > 0.
template <typename P, typename U, typename Sample>
void FillPerParameter(const Device& device, const Tensor& params,
                      const Philox& base, int64_t samples, int cost,
                      Sample sample, Tensor* out) {
  const int64_t num_params = params.NumElements();
  const P* p = params.data<P>();
  U* o = out->data<U>();
  ParallelFor(device, out->NumElements(),
              Eigen::TensorOpCost(0, sizeof(U), cost),
              [&](int64_t first, int64_t last) {
                for (int64_t k = first; k < last; ++k) {
                  const int64_t j = k / samples;
                  Philox gen = base;
                  gen.Skip(kReservedBlocksPerOutput * static_cast<uint64_t>(k));
                  o[(k % samples) * num_params + j] = static_cast<U>(
                      sample(static_cast<double>(p[j]), &gen));
                }
              });
}

// RandomGamma and RandomPoisson(V2): `shape` samples for each value of the
// parameter tensor (input 1), drawn by sample(param, gen) from `generator`;
// output 0 is `shape` + the parameter's shape.
template <typename P, typename U, typename Sample>
void SamplePerParameter(OpKernelContext* ctx, GuardedPhilox* generator,
                        int cost, Sample sample) {
  const Tensor& params = ctx->input(1);
  absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
  DFX_OP_REQUIRES_OK(ctx, shape.status());
  const int64_t samples = shape->num_elements();
  for (int64_t d : params.shape().dim_sizes()) {
    DFX_OP_REQUIRES_OK(ctx, shape->AddDim(d));
  }
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
  if (out->NumElements() == 0) return;
  FillPerParameter<P, U>(*ctx->device(), params,
                         generator->ReserveForOutputs(out->NumElements()),
                         samples, cost, sample, out);
}

// The largest value of U, as a double (the Poisson samplers' bound).
template <typename U>
double HighestOf() {
  return static_cast<double>(Eigen::NumTraits<U>::highest());
}

}  // namespace dfx::random

#endif  // DFX_KERNELS_RANDOM_SAMPLE_UTIL_H_

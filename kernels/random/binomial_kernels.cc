// StatefulRandomBinomial and StatelessRandomBinomial, drawn as TensorFlow
// 2.21's CPU kernels draw them (random_binomial_op.cc): `shape` ends with
// the broadcast shape of counts and probs (the batch); output k (batch
// k / samples, sample k % samples) reads its own stretch of the Philox
// stream: 256 blocks per output for Hormann's BTRS rejection sampler
// (count * p >= 10), 42 for binomial inversion (a sum of geometric
// variables) below that. p > 0.5 samples count - X(q) with q = 1 - p.
// Uniform doubles are taken two per block, the second first.
// StatelessParameterizedTruncatedNormal shares the layout of the output
// (kernels/random/parameterized_truncated_normal_op.cc draws its batches).
//
// count * p and q are computed in the parameter type, as there.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/broadcast.h"
#include "kernels/eigen_util.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"
#include "kernels/random/sample_util.h"

namespace dfx::random {
namespace {

using UniformDoubles = DoublePairs<UniformDist<double>>;

// Number of geometric(prob) trials that fit in `count`.
double BinomialInversion(double count, double prob, Philox* gen) {
  UniformDoubles uniform;
  double geom_sum = 0;
  int num_geom = 0;
  const double log_q = std::log1p(-prob);
  for (;;) {
    const double u = uniform.Next(gen);
    geom_sum += std::ceil(std::log(u) / log_q);
    if (geom_sum > count) break;
    ++num_geom;
  }
  return num_geom;
}

// log(k!) - (Stirling's approximation of it), tabled below 10.
double StirlingTail(double k) {
  static constexpr double kTail[] = {
      0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
      0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
      0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
      0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Hormann's transformed rejection (BTRS), with TensorFlow's bound (its
// acceptance test compares log(v * alpha / ...) with the log bound).
double Btrs(double count, double prob, Philox* gen) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  UniformDoubles uniform;
  for (;;) {
    double u = uniform.Next(gen);
    double v = uniform.Next(gen);
    u = u - 0.5;
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upper =
        (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
        (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
        (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
        StirlingTail(m) + StirlingTail(count - m) - StirlingTail(k) -
        StirlingTail(count - k);
    if (v <= upper) return k;
  }
}

// One sample of output k with parameters (count, prob) of type T.
template <typename T>
double SampleBinomial(T count, T prob, const Philox& base, int64_t k) {
  const double dcount = static_cast<double>(count);
  if (dcount <= 0.0 || prob <= T(0.0)) return 0.0;
  if (prob >= T(1.0)) return dcount;
  const bool low = prob <= T(0.5);
  if (!low && !(prob > T(0.5))) return std::nan("");
  const T p = low ? prob : T(1) - prob;
  const double dp = static_cast<double>(p);
  Philox gen = base;
  double x;
  if (count * p >= T(10)) {
    gen.Skip(256 * static_cast<uint64_t>(k));
    x = Btrs(dcount, dp, &gen);
  } else {
    gen.Skip(42 * static_cast<uint64_t>(k));
    x = BinomialInversion(dcount, dp, &gen);
  }
  return low ? x : dcount - x;
}

// The checked layout of an output [samples..., batch...] whose batch
// shape is the broadcast shape of the parameters.
struct BatchLayout {
  TensorShape shape;
  int64_t samples_per_batch = 1;
  int64_t num_batches = 1;
  // Per parameter, per batch: the parameter's element the batch reads.
  std::vector<std::vector<int64_t>> index;
};

// TensorFlow's checks of the shape tensor and the parameters (which must
// broadcast; else InvalidArgument `incompatible` followed by their shapes
// joined by " vs. ").
absl::StatusOr<BatchLayout> MakeLayout(const Tensor& shape_t,
                                       std::vector<const Tensor*> params,
                                       absl::string_view incompatible) {
  std::vector<TensorShape> shapes;
  std::string listed;
  for (const Tensor* p : params) {
    shapes.push_back(p->shape());
    absl::StrAppend(&listed, listed.empty() ? "" : " vs. ",
                    p->shape().DebugString());
  }
  absl::StatusOr<Broadcast> bcast = Broadcast::Make(shapes);
  if (!bcast.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(incompatible, listed));
  }
  if (shape_t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input shape should be a vector, got shape: ",
                     shape_t.shape().DebugString()));
  }
  BatchLayout layout;
  DFX_ASSIGN_OR_RETURN(layout.shape, ShapeFromTensor(shape_t));
  const TensorShape& batch = bcast->output_shape();
  const int sample_dims = layout.shape.dims() - batch.dims();
  bool ends_with = sample_dims >= 0;
  for (int i = 0; ends_with && i < batch.dims(); ++i) {
    ends_with = layout.shape.dim_size(sample_dims + i) == batch.dim_size(i);
  }
  if (!ends_with) {
    return absl::InvalidArgumentError(
        "Shape passed in must end with broadcasted shape.");
  }
  for (int i = 0; i < layout.shape.dims(); ++i) {
    (i < sample_dims ? layout.samples_per_batch : layout.num_batches) *=
        layout.shape.dim_size(i);
  }
  layout.index.assign(params.size(),
                      std::vector<int64_t>(layout.num_batches));
  bcast->ForEachRun(0, layout.num_batches,
                    [&](int64_t out, int64_t length, const int64_t* in,
                        const int64_t* step) {
                      for (size_t p = 0; p < params.size(); ++p) {
                        for (int64_t j = 0; j < length; ++j) {
                          layout.index[p][out + j] = in[p] + j * step[p];
                        }
                      }
                    });
  return layout;
}

template <typename T>
void FillBinomialFor(const Device& device, const BatchLayout& layout,
                     const Tensor& counts, const Tensor& probs,
                     const Philox& gen, Tensor* out) {
  const T* c = counts.data<T>();
  const T* p = probs.data<T>();
  const int64_t spb = layout.samples_per_batch;
  const int64_t nb = layout.num_batches;
  const DataType dtype = out->dtype();
  void* o = out->raw_data();
  ParallelFor(device, spb * nb, Eigen::TensorOpCost(0, 8, 500),
              [&](int64_t first, int64_t last) {
                for (int64_t k = first; k < last; ++k) {
                  const int64_t b = k / spb;
                  const double x = SampleBinomial<T>(
                      c[layout.index[0][b]], p[layout.index[1][b]], gen,
                      k);
                  const int64_t at = (k % spb) * nb + b;
                  switch (dtype) {
                    case DT_HALF:
                      static_cast<Eigen::half*>(o)[at] =
                          static_cast<Eigen::half>(x);
                      break;
                    case DT_FLOAT:
                      static_cast<float*>(o)[at] = static_cast<float>(x);
                      break;
                    case DT_DOUBLE:
                      static_cast<double*>(o)[at] = x;
                      break;
                    case DT_INT32:
                      static_cast<int32_t*>(o)[at] = static_cast<int32_t>(x);
                      break;
                    default:
                      static_cast<int64_t*>(o)[at] = static_cast<int64_t>(x);
                      break;
                  }
                }
              });
}

void FillBinomial(const Device& device, const BatchLayout& layout,
                  const Tensor& counts, const Tensor& probs, const Philox& gen,
                  Tensor* out) {
  switch (counts.dtype()) {
    case DT_HALF:
      FillBinomialFor<Eigen::half>(device, layout, counts, probs, gen, out);
      break;
    case DT_FLOAT:
      FillBinomialFor<float>(device, layout, counts, probs, gen, out);
      break;
    default:
      FillBinomialFor<double>(device, layout, counts, probs, gen, out);
      break;
  }
}

constexpr absl::string_view kIncompatible =
    "counts and probs must have compatible batch dimensions: ";

// (resource, algorithm, shape, counts, probs).
class StatefulRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& alg = ctx->input(1);
    const Tensor& counts = ctx->input(3);
    const Tensor& probs = ctx->input(4);
    absl::StatusOr<BatchLayout> layout =
        MakeLayout(ctx->input(2), {&counts, &probs}, kIncompatible);
    DFX_OP_REQUIRES_OK(ctx, layout.status());
    DFX_OP_REQUIRES(ctx, alg.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("algorithm must be of shape [], not ",
                                     alg.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, layout->shape, &out));
    // TensorFlow's reservation: 200 uniforms per sample rounded up to a
    // group of four, per batch, in blocks; the state moves 256 times that.
    const int64_t reserved =
        layout->num_batches * 2 * 100 * (layout->samples_per_batch + 3) / 4;
    absl::StatusOr<Philox> gen =
        AdvanceStateVariable(ctx, alg.data<int64_t>()[0],
                             static_cast<uint64_t>(reserved),
                             /*philox_only=*/true);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    FillBinomial(*ctx->device(), *layout, counts, probs, *gen, out);
  }
};

// (shape, seed, counts, probs).
class StatelessRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    const Tensor& counts = ctx->input(2);
    const Tensor& probs = ctx->input(3);
    DFX_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("seed must have shape [2], not ",
                                     seed.shape().DebugString())));
    absl::StatusOr<BatchLayout> layout =
        MakeLayout(ctx->input(0), {&counts, &probs}, kIncompatible);
    DFX_OP_REQUIRES_OK(ctx, layout.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, layout->shape, &out));
    if (out->NumElements() == 0) return;
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    FillBinomial(*ctx->device(), *layout, counts, probs, *gen, out);
  }
};

// StatelessParameterizedTruncatedNormal: (shape, seed, means, stddevs,
// minvals, maxvals). TensorFlow splits the outputs over its pool, each
// shard starting 2000 words per output into the stream; dfx draws the
// batches in order from the start, TensorFlow's numbers whenever it runs
// one shard (small outputs: a few dozen values).
class StatelessTruncatedNormalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    DFX_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("seed must have shape [2], not ",
                                     seed.shape().DebugString())));
    std::vector<const Tensor*> params;
    for (int i = 2; i < 6; ++i) params.push_back(&ctx->input(i));
    absl::StatusOr<BatchLayout> layout = MakeLayout(
        ctx->input(0), params,
        "means, stddevs, minvals, maxvals must have compatible batch "
        "dimensions: ");
    DFX_OP_REQUIRES_OK(ctx, layout.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, layout->shape, &out));
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    switch (out->dtype()) {
      case DT_HALF:
        DFX_OP_REQUIRES_OK(ctx, Fill<Eigen::half>(*layout, params, *gen, out));
        break;
      case DT_FLOAT:
        DFX_OP_REQUIRES_OK(ctx, Fill<float>(*layout, params, *gen, out));
        break;
      default:
        DFX_OP_REQUIRES_OK(ctx, Fill<double>(*layout, params, *gen, out));
        break;
    }
  }

 private:
  template <typename T>
  static absl::Status Fill(const BatchLayout& layout,
                           const std::vector<const Tensor*>& params,
                           Philox gen, Tensor* out) {
    const int64_t nb = layout.num_batches;
    T* o = out->data<T>();
    for (int64_t b = 0; b < nb && layout.samples_per_batch > 0; ++b) {
      auto param = [&](int i) {
        return params[i]->data<T>()[layout.index[i][b]];
      };
      DFX_RETURN_IF_ERROR(SampleTruncatedNormalBatch(
          param(0), param(1), param(2), param(3), &gen, 0,
          layout.samples_per_batch, nb, o + b));
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBinomialKernels(KernelRegistry* registry) {
  const DataTypeVector params = {DT_HALF, DT_FLOAT, DT_DOUBLE};
  const DataTypeVector outputs = {DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT32,
                                  DT_INT64};
  RegisterKernel<StatefulRandomBinomialOp>(
      registry, KernelDefBuilder("StatefulRandomBinomial")
                    .TypeConstraint("T", params)
                    .TypeConstraint("dtype", outputs));
  RegisterKernel<StatelessRandomBinomialOp>(
      registry, KernelDefBuilder("StatelessRandomBinomial")
                    .TypeConstraint("T", params)
                    .TypeConstraint("dtype", outputs));
  RegisterKernel<StatelessTruncatedNormalOp>(
      registry, KernelDefBuilder("StatelessParameterizedTruncatedNormal")
                    .TypeConstraint("dtype", params));
}

}  // namespace dfx::random

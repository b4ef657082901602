// The stateful random kernels: RandomUniform, RandomStandardNormal,
// TruncatedNormal, RandomUniformInt, RandomShuffle, Multinomial,
// RandomGamma and RandomPoissonV2. Each
// kernel seeds a generator from its (seed, seed2) attrs when it is built and
// keeps it: every Compute reserves the part of the stream it uses, so the
// next step of the same graph draws new numbers, exactly as TensorFlow does.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/kernels.h"
#include "kernels/random/random_util.h"
#include "kernels/random/sample_util.h"

namespace dfx::random {
namespace {

const DataTypeVector& FloatTypes() {
  static const DataTypeVector* types =
      new DataTypeVector{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return *types;
}

// A kernel that owns a generator seeded from its attrs.
class StatefulRandomKernel : public OpKernel {
 public:
  explicit StatefulRandomKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(*ctx));
  }

 protected:
  GuardedPhilox generator_;
};

// RandomUniform, RandomStandardNormal and TruncatedNormal.
template <FloatDist kDist>
class RandomFloatOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    FillFloat(*ctx->device(), kDist,
              generator_.ReserveForOutputs(out->NumElements()), out);
  }
};

// Reads the scalar of an int32 or int64 tensor as int64.
int64_t ScalarAsInt64(const Tensor& t) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

// Checks minval and maxval of the uniform-int ops: scalars, and (for a
// non-empty output) lo < hi.
absl::Status CheckIntBounds(const Tensor& minval, const Tensor& maxval) {
  if (minval.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "minval must be 0-D, got shape ", minval.shape().DebugString()));
  }
  if (maxval.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "maxval must be 0-D, got shape ", maxval.shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::Status CheckLessThan(int64_t lo, int64_t hi) {
  if (lo < hi) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Need minval < maxval, got ", lo, " >= ", hi));
}

class RandomUniformIntOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckIntBounds(minval, maxval));
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    // An empty output neither checks the bounds nor advances the generator.
    if (out->NumElements() == 0) return;
    const int64_t lo = ScalarAsInt64(minval);
    const int64_t hi = ScalarAsInt64(maxval);
    DFX_OP_REQUIRES_OK(ctx, CheckLessThan(lo, hi));
    FillUniformInt(*ctx->device(),
                   generator_.ReserveForOutputs(out->NumElements()), lo, hi,
                   out);
  }
};

// Shuffles along dim 0 (ShuffleRows): one kernel for every dtype.
class RandomShuffleOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
      ctx->set_output(0, input);
      return;
    }
    Philox gen = generator_.ReserveWords(input.dim_size(0) - 1);
    DFX_OP_REQUIRES_OK(ctx, ShuffleRows(ctx, input, gen));
  }
};

class MultinomialOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t num_samples = 0;
    absl::StatusOr<Tensor*> out = PrepareMultinomialOutput(ctx, &num_samples);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if (*out == nullptr) return;
    // TensorFlow reserves for ceil4(num_samples) doubles (two words each)
    // per row, 256 blocks per reserved value.
    const int64_t batch = ctx->input(0).dim_size(0);
    const int64_t reserved = batch * ((num_samples + 3) / 4 * 4) * 2;
    SampleMultinomial(*ctx->device(), ctx->input(0), num_samples,
                      generator_.ReserveForOutputs(reserved), *out);
  }
};

template <typename T>
class RandomGammaOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    SamplePerParameter<T, T>(ctx, &generator_, 600, SampleGamma);
  }
};

template <typename R, typename U>
class RandomPoissonOp : public StatefulRandomKernel {
 public:
  using StatefulRandomKernel::StatefulRandomKernel;

  void Compute(OpKernelContext* ctx) override {
    SamplePerParameter<R, U>(ctx, &generator_, 400,
                             [](double rate, Philox* gen) {
                               return SamplePoisson(rate, HighestOf<U>(), gen);
                             });
  }
};

template <typename... Ts>
void RegisterRandomGamma(KernelRegistry* registry) {
  (RegisterKernel<RandomGammaOp<Ts>>(
       registry, KernelDefBuilder("RandomGamma")
                     .TypeConstraint<Ts>("T")
                     .TypeConstraint("S", {DT_INT32, DT_INT64})),
   ...);
}

// RandomPoissonV2 for rate type R and output types Us.
template <typename R, typename... Us>
void RegisterRandomPoisson(KernelRegistry* registry) {
  (RegisterKernel<RandomPoissonOp<R, Us>>(
       registry, KernelDefBuilder("RandomPoissonV2")
                     .TypeConstraint("R", {DataTypeToEnum<R>::value})
                     .TypeConstraint("dtype", {DataTypeToEnum<Us>::value})
                     .TypeConstraint("S", {DT_INT32, DT_INT64})),
   ...);
}

template <typename... Rs>
void RegisterRandomPoissonForRate(KernelRegistry* registry) {
  (RegisterRandomPoisson<Rs, Eigen::half, float, double, int32_t, int64_t>(
       registry),
   ...);
}

}  // namespace

void RegisterStatefulRandomKernels(KernelRegistry* registry) {
  const DataTypeVector shape_types = {DT_INT32, DT_INT64};
  RegisterKernel<RandomFloatOp<FloatDist::kUniform>>(
      registry, KernelDefBuilder("RandomUniform")
                    .TypeConstraint("dtype", FloatTypes())
                    .TypeConstraint("T", shape_types));
  RegisterKernel<RandomFloatOp<FloatDist::kNormal>>(
      registry, KernelDefBuilder("RandomStandardNormal")
                    .TypeConstraint("dtype", FloatTypes())
                    .TypeConstraint("T", shape_types));
  RegisterKernel<RandomFloatOp<FloatDist::kTruncatedNormal>>(
      registry, KernelDefBuilder("TruncatedNormal")
                    .TypeConstraint("dtype", FloatTypes())
                    .TypeConstraint("T", shape_types));
  RegisterKernel<RandomUniformIntOp>(
      registry, KernelDefBuilder("RandomUniformInt")
                    .TypeConstraint("Tout", {DT_INT32, DT_INT64})
                    .TypeConstraint("T", shape_types));
  RegisterKernel<RandomShuffleOp>(
      registry,
      KernelDefBuilder("RandomShuffle")
          .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16,
                                DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
                                DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL,
                                DT_COMPLEX64, DT_COMPLEX128, DT_STRING}));
  RegisterKernel<MultinomialOp>(
      registry, KernelDefBuilder("Multinomial")
                    .TypeConstraint("T", FloatTypes())
                    .TypeConstraint("output_dtype", {DT_INT32, DT_INT64}));
  RegisterRandomGamma<Eigen::half, float, double>(registry);
  RegisterRandomPoissonForRate<Eigen::half, float, double, int32_t,
                               int64_t>(registry);
}

}  // namespace dfx::random

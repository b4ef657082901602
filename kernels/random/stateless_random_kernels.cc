// The stateless random kernels: the V1 ops (a seed tensor of shape [2]), the
// V2 ops (key, counter and algorithm inputs), StatelessMultinomial, the
// stateless gamma (V2, V3) and Poisson samplers, and the ops that turn a
// seed into a key, counter and algorithm. The same inputs
// always give the same output; nothing is kept between calls.
#include <cstdint>

#include "absl/strings/str_cat.h"
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

// What a V1 stateless op fills, once its generator and output exist.
enum class Fill { kUniform, kNormal, kTruncatedNormal, kUniformInt, kFullInt };

void FillOutput(OpKernelContext* ctx, Fill fill, const Philox& gen,
                int first_bound_input, Tensor* out) {
  const Device& device = *ctx->device();
  switch (fill) {
    case Fill::kUniform:
      FillFloat(device, FloatDist::kUniform, gen, out);
      break;
    case Fill::kNormal:
      FillFloat(device, FloatDist::kNormal, gen, out);
      break;
    case Fill::kTruncatedNormal:
      FillFloat(device, FloatDist::kTruncatedNormal, gen, out);
      break;
    case Fill::kUniformInt: {
      int64_t lo = 0;
      int64_t hi = 0;
      DFX_OP_REQUIRES_OK(
          ctx, ReadIntBounds(ctx->input(first_bound_input),
                             ctx->input(first_bound_input + 1), &lo, &hi));
      FillUniformInt(device, gen, lo, hi, out);
      break;
    }
    case Fill::kFullInt:
      FillFullInt(device, gen, out);
      break;
  }
}

// StatelessRandomUniform, -Normal, TruncatedNormal, -UniformInt and
// -UniformFullInt: inputs shape, seed (, minval, maxval).
template <Fill kFill>
class StatelessOp : public OpKernel {
 public:
  explicit StatelessOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& seed = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "seed must have shape [2], not ", seed.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    FillOutput(ctx, kFill, *gen, 2, out);
  }
};

// The V2 forms: inputs shape, key, counter, alg (, minval, maxval).
template <Fill kFill>
class StatelessV2Op : public OpKernel {
 public:
  explicit StatelessV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<KeyCounterAlg> kca = KeyCounterAlgFromInputs(*ctx);
    DFX_OP_REQUIRES_OK(ctx, kca.status());
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    if constexpr (kFill == Fill::kUniformInt) {
      // TensorFlow checks the bounds before the algorithm.
      int64_t lo = 0;
      int64_t hi = 0;
      DFX_OP_REQUIRES_OK(ctx,
                         ReadIntBounds(ctx->input(4), ctx->input(5), &lo, &hi));
    }
    DFX_OP_REQUIRES(ctx, kca->alg == kAlgPhilox, UnsupportedAlg(kca->alg));
    FillOutput(ctx, kFill, kca->gen, 4, out);
  }
};

class StatelessMultinomialOp : public OpKernel {
 public:
  explicit StatelessMultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(ctx->input(2));
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    int64_t num_samples = 0;
    absl::StatusOr<Tensor*> out = PrepareMultinomialOutput(ctx, &num_samples);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if (*out == nullptr) return;
    SampleMultinomial(*ctx->device(), ctx->input(0), num_samples, *gen, *out);
  }
};

// StatelessRandomGetKeyCounter (kWithAlg false) and
// StatelessRandomGetKeyCounterAlg: seed [2] -> key [1], counter [2] (, alg).
template <bool kWithAlg>
class GetKeyCounterOp : public OpKernel {
 public:
  explicit GetKeyCounterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "seed must have shape [2], not ", seed.shape().DebugString())));
    Tensor* key = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    Tensor* counter = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({2}), &counter));
    Tensor* alg = nullptr;
    if constexpr (kWithAlg) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({}), &alg));
    }
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    key->data<uint64_t>()[0] = gen->key64();
    counter->data<uint64_t>()[0] = gen->counter_lo64();
    counter->data<uint64_t>()[1] = gen->counter_hi64();
    if constexpr (kWithAlg) alg->data<int32_t>()[0] = kAlgPhilox;
  }
};

// The algorithm a CPU runs for "auto select": Philox.
class GetAlgOp : public OpKernel {
 public:
  explicit GetAlgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor* alg = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &alg));
    alg->data<int32_t>()[0] = kAlgPhilox;
  }
};

// The stateless gamma and Poisson ops: output `shape`, which must end with
// the parameter's shape (tf.random.stateless_gamma broadcasts it there),
// samples of each parameter as the stateful ops draw them, from `gen`.
absl::Status CheckEndsWith(const TensorShape& shape, const Tensor& params) {
  const int offset = shape.dims() - params.dims();
  bool ends = offset >= 0;
  for (int i = 0; ends && i < params.dims(); ++i) {
    ends = shape.dim_size(offset + i) == params.dim_size(i);
  }
  return ends ? absl::OkStatus()
              : absl::InvalidArgumentError(
                    "Shape passed in must end with broadcasted shape.");
}

template <typename P, typename U, typename Sample>
void FillStatelessPerParameter(OpKernelContext* ctx, const TensorShape& shape,
                               const Tensor& params, const Philox& gen,
                               int cost, Sample sample) {
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  if (out->NumElements() == 0) return;
  DFX_OP_REQUIRES_OK(ctx, CheckEndsWith(shape, params));
  FillPerParameter<P, U>(*ctx->device(), params, gen,
                         out->NumElements() / params.NumElements(), cost,
                         sample, out);
}

// StatelessRandomGammaV2 (shape, seed, alpha) and StatelessRandomPoisson
// (shape, seed, lam).
template <typename P, typename U, bool kPoisson>
class StatelessPerParameterOp : public OpKernel {
 public:
  explicit StatelessPerParameterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& seed = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "seed must have shape [2], not ", seed.shape().DebugString())));
    if (shape->num_elements() == 0) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      return;
    }
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    if constexpr (kPoisson) {
      FillStatelessPerParameter<P, U>(
          ctx, *shape, ctx->input(2), *gen, 400,
          [](double rate, Philox* g) {
            return SamplePoisson(rate, HighestOf<U>(), g);
          });
    } else {
      FillStatelessPerParameter<P, U>(ctx, *shape, ctx->input(2), *gen, 600,
                                      SampleGamma);
    }
  }
};

// StatelessRandomGammaV3: shape, key, counter, alg, alpha; the shape is
// checked against alpha's before anything is allocated, as TensorFlow does.
template <typename T>
class StatelessGammaV3Op : public OpKernel {
 public:
  explicit StatelessGammaV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<KeyCounterAlg> kca = KeyCounterAlgFromInputs(*ctx);
    DFX_OP_REQUIRES_OK(ctx, kca.status());
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& alpha = ctx->input(4);
    DFX_OP_REQUIRES_OK(ctx, CheckEndsWith(*shape, alpha));
    if (shape->num_elements() == 0) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      return;
    }
    DFX_OP_REQUIRES(ctx, kca->alg == kAlgPhilox, UnsupportedAlg(kca->alg));
    FillStatelessPerParameter<T, T>(ctx, *shape, alpha, kca->gen, 600,
                                    SampleGamma);
  }
};

template <typename... Ts>
void RegisterStatelessGamma(KernelRegistry* registry) {
  (RegisterKernel<StatelessPerParameterOp<Ts, Ts, false>>(
       registry, KernelDefBuilder("StatelessRandomGammaV2")
                     .TypeConstraint("dtype", {DataTypeToEnum<Ts>::value})),
   ...);
  (RegisterKernel<StatelessGammaV3Op<Ts>>(
       registry, KernelDefBuilder("StatelessRandomGammaV3")
                     .TypeConstraint("dtype", {DataTypeToEnum<Ts>::value})),
   ...);
}

template <typename R, typename... Us>
void RegisterStatelessPoisson(KernelRegistry* registry) {
  (RegisterKernel<StatelessPerParameterOp<R, Us, true>>(
       registry, KernelDefBuilder("StatelessRandomPoisson")
                     .TypeConstraint("Rtype", {DataTypeToEnum<R>::value})
                     .TypeConstraint("dtype", {DataTypeToEnum<Us>::value})),
   ...);
}

template <typename... Rs>
void RegisterStatelessPoissonForRate(KernelRegistry* registry) {
  (RegisterStatelessPoisson<Rs, Eigen::half, float, double, int32_t,
                            int64_t>(registry),
   ...);
}

}  // namespace

void RegisterStatelessRandomKernels(KernelRegistry* registry) {
  const DataTypeVector int_types = {DT_INT32, DT_INT64};
  const DataTypeVector full_int_types = {DT_INT32, DT_INT64, DT_UINT32,
                                         DT_UINT64};
  RegisterKernel<StatelessOp<Fill::kUniform>>(
      registry, KernelDefBuilder("StatelessRandomUniform")
                    .TypeConstraint("dtype", FloatTypes()));
  RegisterKernel<StatelessOp<Fill::kNormal>>(
      registry, KernelDefBuilder("StatelessRandomNormal")
                    .TypeConstraint("dtype", FloatTypes()));
  RegisterKernel<StatelessOp<Fill::kTruncatedNormal>>(
      registry, KernelDefBuilder("StatelessTruncatedNormal")
                    .TypeConstraint("dtype", FloatTypes()));
  RegisterKernel<StatelessOp<Fill::kUniformInt>>(
      registry, KernelDefBuilder("StatelessRandomUniformInt")
                    .TypeConstraint("dtype", int_types));
  // Every Tseed the op allows gets a kernel; uint32/uint64 seeds fail at
  // run time with TensorFlow's "Invalid seed type".
  RegisterKernel<StatelessOp<Fill::kFullInt>>(
      registry, KernelDefBuilder("StatelessRandomUniformFullInt")
                    .TypeConstraint("dtype", full_int_types));

  RegisterKernel<StatelessV2Op<Fill::kUniform>>(
      registry, KernelDefBuilder("StatelessRandomUniformV2")
                    .TypeConstraint("dtype", FloatTypes()));
  RegisterKernel<StatelessV2Op<Fill::kNormal>>(
      registry, KernelDefBuilder("StatelessRandomNormalV2")
                    .TypeConstraint("dtype", FloatTypes()));
  RegisterKernel<StatelessV2Op<Fill::kTruncatedNormal>>(
      registry, KernelDefBuilder("StatelessTruncatedNormalV2")
                    .TypeConstraint("dtype", FloatTypes()));
  // As in TensorFlow, only int32 and int64 have a CPU kernel although the
  // op allows uint32 and uint64.
  RegisterKernel<StatelessV2Op<Fill::kUniformInt>>(
      registry, KernelDefBuilder("StatelessRandomUniformIntV2")
                    .TypeConstraint("dtype", int_types));
  RegisterKernel<StatelessV2Op<Fill::kFullInt>>(
      registry, KernelDefBuilder("StatelessRandomUniformFullIntV2")
                    .TypeConstraint("dtype", full_int_types));

  RegisterKernel<StatelessMultinomialOp>(
      registry, KernelDefBuilder("StatelessMultinomial")
                    .TypeConstraint("T", FloatTypes())
                    .TypeConstraint("output_dtype", int_types));
  RegisterKernel<GetKeyCounterOp<false>>(
      registry, KernelDefBuilder("StatelessRandomGetKeyCounter"));
  RegisterKernel<GetKeyCounterOp<true>>(
      registry, KernelDefBuilder("StatelessRandomGetKeyCounterAlg"));
  RegisterKernel<GetAlgOp>(registry, KernelDefBuilder("StatelessRandomGetAlg"));
  RegisterStatelessGamma<Eigen::half, float, double>(registry);
  RegisterStatelessPoissonForRate<Eigen::half, float, double, int32_t,
                                  int64_t>(registry);
}

}  // namespace dfx::random

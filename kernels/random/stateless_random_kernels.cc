// The stateless random kernels: the V1 ops (a seed tensor of shape [2]), the
// V2 ops (key, counter and algorithm inputs), StatelessMultinomial, and the
// ops that turn a seed into a key, counter and algorithm. The same inputs
// always give the same output; nothing is kept between calls.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"
#include "kernels/random/random_util.h"

namespace dfx::random {
namespace {

const DataTypeVector& FloatTypes() {
  static const DataTypeVector* types =
      new DataTypeVector{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return *types;
}

int64_t ScalarAsInt64(const Tensor& t) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

// minval and maxval: scalars with lo < hi (checked only for a non-empty
// output, as TensorFlow does).
absl::Status ReadIntBounds(const Tensor& minval, const Tensor& maxval,
                           int64_t* lo, int64_t* hi) {
  if (minval.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "minval must be 0-D, got shape ", minval.shape().DebugString()));
  }
  if (maxval.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "maxval must be 0-D, got shape ", maxval.shape().DebugString()));
  }
  *lo = ScalarAsInt64(minval);
  *hi = ScalarAsInt64(maxval);
  if (*lo >= *hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("Need minval < maxval, got ", *lo, " >= ", *hi));
  }
  return absl::OkStatus();
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
}

}  // namespace dfx::random

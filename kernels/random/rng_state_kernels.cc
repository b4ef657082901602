// The tf.random.Generator ops on a resource variable holding the RNG state
// (StatefulUniform, StatefulUniformFullInt, StatefulUniformInt,
// StatefulStandardNormalV2, StatefulTruncatedNormal, RngSkip,
// RngReadAndSkip), RandomPoisson (v1) and NonDeterministicInts.
//
// The state is TensorFlow's: an int64 vector whose first three words are the
// Philox counter (low, high) and key. An op reads the generator, advances the
// variable by 256 blocks per output value under the variable's lock, and
// fills its output from the generator it read after releasing the lock, so
// every value equals TensorFlow's for the same state.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"
#include "kernels/random/sample_util.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::random {
namespace {

// TensorFlow's RNG_ALG_* ids of the generator ops (int64 here).
constexpr int64_t kPhilox = 1;
constexpr int64_t kThreeFry = 2;
constexpr int64_t kAutoSelect = 3;
// Counter (2 words) and key (1 word).
constexpr int64_t kPhiloxStateSize = 3;

absl::Status CheckAlg(int64_t alg, bool philox_only) {
  if (alg == kPhilox || (alg == kAutoSelect && !philox_only)) {
    return absl::OkStatus();
  }
  if (alg == kThreeFry && !philox_only) {
    return absl::UnimplementedError(
        "Non-XLA devices don't support the ThreeFry algorithm.");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Unsupported algorithm id: ", alg));
}

// The scalar at input `index`, of dtype T. TensorFlow's GetScalar messages.
template <typename T>
absl::StatusOr<T> ScalarInput(const OpKernelContext& ctx, int index) {
  const Tensor& t = ctx.input(index);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", index, " (0-based) must have shape [], not ",
                     t.shape().DebugString()));
  }
  return t.data<T>()[0];
}

// Locks the state variable (input 0), checks it and runs fn(state words,
// whether its buffer was shared) on it, un-shared first so readers keep
// their value.
template <typename Fn>
absl::Status UpdateState(OpKernelContext* ctx, int64_t alg, bool philox_only,
                         Fn fn) {
  // A missing variable is NotFound, as TensorFlow's LookupResource says.
  DFX_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVariable(ctx, 0));
  absl::MutexLock lock(var->mu());
  Tensor* state = var->tensor();
  if (!var->is_initialized() || state->dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype of RNG state variable must be int64, not ",
        DataTypeString(var->is_initialized() ? state->dtype() : var->dtype())));
  }
  if (state->dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RNG state must have one and only one dimension, not ",
        state->dims()));
  }
  DFX_RETURN_IF_ERROR(CheckAlg(alg, philox_only));
  if (state->NumElements() < kPhiloxStateSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        philox_only ? "For Philox algorithm" : "For the Philox algorithm",
        ", the size of state must be at least ", kPhiloxStateSize, "; got ",
        state->NumElements()));
  }
  const bool shared = state->BufferRefCount() != 0 && !state->BufferUnshared();
  DFX_RETURN_IF_ERROR(EnsureUnshared(ctx, state));
  fn(state->data<int64_t>(), shared);
  return absl::OkStatus();
}

Philox PhiloxFromState(const int64_t* s) {
  return Philox::FromKeyCounter(static_cast<uint64_t>(s[2]),
                                static_cast<uint64_t>(s[0]),
                                static_cast<uint64_t>(s[1]));
}

// Skips `outputs` * 256 blocks (modulo 2^64, as TensorFlow multiplies in
// int64) and writes the counter back.
void SkipState(Philox gen, uint64_t outputs, int64_t* s) {
  gen.Skip(outputs * kReservedBlocksPerOutput);
  s[0] = static_cast<int64_t>(gen.counter_lo64());
  s[1] = static_cast<int64_t>(gen.counter_hi64());
}

// StatefulUniform, StatefulStandardNormalV2, StatefulTruncatedNormal,
// StatefulUniformFullInt: (resource, algorithm, shape); StatefulUniformInt:
// (resource, algorithm, shape, minval, maxval), its bounds checked before
// the shape, even for an empty output, as TensorFlow does.
enum class GeneratorDist {
  kUniform,
  kNormal,
  kTruncatedNormal,
  kFullInt,
  kUniformInt
};

template <GeneratorDist kDist>
class GeneratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> alg = ScalarInput<int64_t>(*ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, alg.status());
    int64_t lo = 0;
    int64_t hi = 0;
    if constexpr (kDist == GeneratorDist::kUniformInt) {
      DFX_OP_REQUIRES_OK(
          ctx, ReadIntBounds(ctx->input(3), ctx->input(4), &lo, &hi));
    }
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(2));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    absl::StatusOr<Philox> gen = AdvanceStateVariable(
        ctx, *alg, static_cast<uint64_t>(out->NumElements()));
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    switch (kDist) {
      case GeneratorDist::kUniform:
        FillFloat(*ctx->device(), FloatDist::kUniform, *gen, out);
        break;
      case GeneratorDist::kNormal:
        FillFloat(*ctx->device(), FloatDist::kNormal, *gen, out);
        break;
      case GeneratorDist::kTruncatedNormal:
        FillFloat(*ctx->device(), FloatDist::kTruncatedNormal, *gen, out);
        break;
      case GeneratorDist::kFullInt:
        FillFullInt(*ctx->device(), *gen, out);
        break;
      case GeneratorDist::kUniformInt:
        FillUniformInt(*ctx->device(), *gen, lo, hi, out);
        break;
    }
  }
};

// RngSkip (int64 algorithm and delta) advances the state by 256 * delta
// blocks; RngReadAndSkip (int32 alg, uint64 delta) returns the state's
// first three words before it does the same.
template <bool kRead>
class RngSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    using Alg = std::conditional_t<kRead, int32_t, int64_t>;
    using Delta = std::conditional_t<kRead, uint64_t, int64_t>;
    absl::StatusOr<Alg> alg = ScalarInput<Alg>(*ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, alg.status());
    absl::StatusOr<Delta> delta = ScalarInput<Delta>(*ctx, 2);
    DFX_OP_REQUIRES_OK(ctx, delta.status());
    Tensor* out = nullptr;
    if constexpr (kRead) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  0, TensorShape({kPhiloxStateSize}), &out));
    }
    absl::StatusOr<Philox> gen =
        AdvanceStateVariable(ctx, *alg, static_cast<uint64_t>(*delta));
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    if constexpr (kRead) {
      int64_t* o = out->data<int64_t>();
      o[0] = static_cast<int64_t>(gen->counter_lo64());
      o[1] = static_cast<int64_t>(gen->counter_hi64());
      o[2] = static_cast<int64_t>(gen->key64());
    }
  }
};

// NonDeterministicInts: values from the operating system's entropy source,
// 64 bits each truncated to the dtype.
class NonDeterministicIntsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = ShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    std::random_device device;
    auto next = [&device] {
      return (uint64_t{device()} << 32) | uint64_t{device()};
    };
    const int64_t n = out->NumElements();
    switch (out->dtype()) {
      case DT_INT32:
      case DT_UINT32: {
        uint32_t* o = static_cast<uint32_t*>(out->raw_data());
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint32_t>(next());
        break;
      }
      default: {
        uint64_t* o = static_cast<uint64_t*>(out->raw_data());
        for (int64_t i = 0; i < n; ++i) o[i] = next();
        break;
      }
    }
  }
};

// RandomPoisson (v1): RandomPoissonV2 with the rate's dtype for the output,
// on the same stream.
template <typename T>
class RandomPoissonV1Op : public OpKernel {
 public:
  explicit RandomPoissonV1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    SamplePerParameter<T, T>(ctx, &generator_, 400,
                             [](double rate, Philox* gen) {
                               return SamplePoisson(rate, HighestOf<T>(), gen);
                             });
  }

 private:
  GuardedPhilox generator_;
};

template <typename... Ts>
void RegisterRandomPoissonV1(KernelRegistry* registry) {
  (RegisterKernel<RandomPoissonV1Op<Ts>>(
       registry, KernelDefBuilder("RandomPoisson")
                     .TypeConstraint<Ts>("dtype")
                     .TypeConstraint("S", {DT_INT32, DT_INT64})),
   ...);
}

}  // namespace

absl::StatusOr<Philox> AdvanceStateVariable(OpKernelContext* ctx, int64_t alg,
                                            uint64_t outputs,
                                            bool philox_only) {
  Philox gen;
  DFX_RETURN_IF_ERROR(
      UpdateState(ctx, alg, philox_only, [&](int64_t* s, bool shared) {
        gen = PhiloxFromState(s);
        // TensorFlow's StatefulRandomBinomial writes the new counter through
        // a pointer taken before it un-shares the state, so when the
        // variable's buffer is shared (just assigned, say) the variable
        // keeps its old counter: the next call draws the same numbers.
        if (!(philox_only && shared)) SkipState(gen, outputs, s);
      }));
  return gen;
}

}  // namespace dfx::random

namespace dfx {

void RegisterRng2Kernels(KernelRegistry* registry) {
  using namespace random;  // NOLINT: the kernels above
  const DataTypeVector floats = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  const DataTypeVector shapes = {DT_INT32, DT_INT64};
  RegisterKernel<GeneratorOp<GeneratorDist::kUniform>>(
      registry, KernelDefBuilder("StatefulUniform")
                    .TypeConstraint("dtype", floats)
                    .TypeConstraint("shape_dtype", shapes));
  RegisterKernel<GeneratorOp<GeneratorDist::kNormal>>(
      registry, KernelDefBuilder("StatefulStandardNormalV2")
                    .TypeConstraint("dtype", floats)
                    .TypeConstraint("shape_dtype", shapes));
  RegisterKernel<GeneratorOp<GeneratorDist::kTruncatedNormal>>(
      registry, KernelDefBuilder("StatefulTruncatedNormal")
                    .TypeConstraint("dtype", floats)
                    .TypeConstraint("shape_dtype", shapes));
  RegisterKernel<GeneratorOp<GeneratorDist::kFullInt>>(
      registry, KernelDefBuilder("StatefulUniformFullInt")
                    .TypeConstraint("dtype",
                                    {DT_INT32, DT_INT64, DT_UINT32, DT_UINT64})
                    .TypeConstraint("shape_dtype", shapes));
  RegisterKernel<GeneratorOp<GeneratorDist::kUniformInt>>(
      registry, KernelDefBuilder("StatefulUniformInt")
                    .TypeConstraint("dtype", {DT_INT32, DT_INT64})
                    .TypeConstraint("shape_dtype", shapes));
  RegisterKernel<RngSkipOp<false>>(registry, KernelDefBuilder("RngSkip"));
  RegisterKernel<RngSkipOp<true>>(registry, KernelDefBuilder("RngReadAndSkip"));
  RegisterKernel<NonDeterministicIntsOp>(
      registry,
      KernelDefBuilder("NonDeterministicInts")
          .TypeConstraint("dtype", {DT_INT32, DT_INT64, DT_UINT32, DT_UINT64})
          .TypeConstraint("shape_dtype", shapes));
  RegisterRandomPoissonV1<Eigen::half, float, double>(registry);
  RegisterBinomialKernels(registry);
  RegisterCandidateSamplerKernels(registry);
  RegisterSampleDistortedBoundingBoxKernels(registry);
  RegisterShuffleKernels(registry);
}

}  // namespace dfx

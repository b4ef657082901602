#include "kernels/random/random_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/eigen_util.h"

namespace dfx::random {
namespace {

// ParallelFor hands out arbitrary ranges of values; a range fills the groups
// that start inside it (the last may run past its end), so every group is
// filled exactly once, by one thread, from its own part of the stream.
template <class Dist>
void ParallelFill(const Device& device, const Philox& gen, const Dist& dist,
                  typename Dist::Type* data, int64_t size) {
  using T = typename Dist::Type;
  constexpr int64_t kG = Dist::kGroupSize;
  // Per value: the store, Philox's ~10 cycles per word and the conversion.
  const Eigen::TensorOpCost cost(0, sizeof(T), 10 + Dist::kCost);
  ParallelFor(device, size, cost, [&](int64_t first, int64_t last) {
    FillGroups(gen, dist, (first + kG - 1) / kG, (last + kG - 1) / kG, size,
               data);
  });
}

template <typename T>
void FillFloatTyped(const Device& device, FloatDist dist, const Philox& gen,
                    Tensor* out) {
  T* data = out->data<T>();
  const int64_t n = out->NumElements();
  switch (dist) {
    case FloatDist::kUniform:
      ParallelFill(device, gen, UniformDist<T>(), data, n);
      break;
    case FloatDist::kNormal:
      ParallelFill(device, gen, NormalDist<T>(), data, n);
      break;
    case FloatDist::kTruncatedNormal:
      ParallelFill(device, gen, TruncatedNormalDist<T>(), data, n);
      break;
  }
}

template <typename T, typename Out>
void SampleMultinomialTyped(const Device& device, const Tensor& logits,
                            int64_t num_samples, const Philox& gen,
                            Tensor* out) {
  const int64_t batch = logits.dim_size(0);
  const int64_t classes = logits.dim_size(1);
  const T* in = logits.data<T>();
  Out* samples = out->data<Out>();
  const Eigen::TensorOpCost cost(
      static_cast<double>(classes * sizeof(T)),
      static_cast<double>(num_samples * sizeof(Out)),
      50.0 * (static_cast<double>(num_samples) *
                  std::log2(static_cast<double>(classes)) +
              static_cast<double>(classes)));
  ParallelFor(device, batch, cost, [&](int64_t first, int64_t last) {
    std::vector<double> cdf(classes);
    for (int64_t b = first; b < last; ++b) {
      const T* row = in + b * classes;
      // The largest finite logit, for numerical stability; the lowest value
      // of T when there is none, as in TensorFlow.
      T max = Eigen::NumTraits<T>::lowest();
      for (int64_t j = 0; j < classes; ++j) {
        if (Eigen::numext::isfinite(row[j]) && max < row[j]) max = row[j];
      }
      const double max_logit = static_cast<double>(max);
      // Unnormalized running sums; a non-finite logit adds nothing.
      // (TensorFlow takes exp through Eigen's vectorized path, which may
      // differ from std::exp in the last bit; a sample changes only if it
      // falls exactly between the two sums, a chance of about 2^-52.)
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const double e = std::exp(static_cast<double>(row[j]) - max_logit);
        if (Eigen::numext::isfinite(row[j])) total += e;
        cdf[j] = total;
      }
      Philox row_gen = gen;
      PhiloxWords words(&row_gen);
      words.Skip(2 * static_cast<uint64_t>(num_samples) *
                 static_cast<uint64_t>(b));
      Out* row_out = samples + b * num_samples;
      for (int64_t s = 0; s < num_samples; ++s) {
        const uint32_t x0 = words();
        const uint32_t x1 = words();
        const double to_find = Uint64ToDouble(x0, x1) * total;
        row_out[s] = static_cast<Out>(
            std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
      }
    }
  });
}

template <typename T>
void SampleMultinomialOut(const Device& device, const Tensor& logits,
                          int64_t num_samples, const Philox& gen, Tensor* out) {
  if (out->dtype() == DT_INT32) {
    SampleMultinomialTyped<T, int32_t>(device, logits, num_samples, gen, out);
  } else {
    DFX_CHECK(out->dtype() == DT_INT64);
    SampleMultinomialTyped<T, int64_t>(device, logits, num_samples, gen, out);
  }
}

}  // namespace

absl::StatusOr<TensorShape> ShapeFromTensor(const Tensor& shape) {
  if (shape.dims() != 1 ||
      (shape.dtype() != DT_INT32 && shape.dtype() != DT_INT64)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of {int32,int64}, got shape ",
                     shape.shape().DebugString()));
  }
  std::vector<int64_t> dims(shape.NumElements());
  for (int64_t i = 0; i < shape.NumElements(); ++i) {
    dims[i] = shape.dtype() == DT_INT32 ? shape.data<int32_t>()[i]
                                        : shape.data<int64_t>()[i];
    if (dims[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", dims[i], " must be >= 0"));
    }
  }
  return TensorShape::Build(dims);
}

absl::StatusOr<Philox> PhiloxFromSeedTensor(const Tensor& seed) {
  if (seed.dims() != 1 || seed.dim_size(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seed must have shape [2], not ", seed.shape().DebugString()));
  }
  uint64_t s0;
  uint64_t s1;
  if (seed.dtype() == DT_INT32) {
    // Sign-extended, as TensorFlow's int32 -> uint64 conversion does.
    s0 = static_cast<uint64_t>(int64_t{seed.data<int32_t>()[0]});
    s1 = static_cast<uint64_t>(int64_t{seed.data<int32_t>()[1]});
  } else if (seed.dtype() == DT_INT64) {
    s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid seed type: ", DataTypeString(seed.dtype())));
  }
  // The seeds are the counter of one Philox call under a fixed key; its
  // output is the new key (low words) and counter high half.
  const PhiloxBlock mix = Philox(PhiloxBlock{static_cast<uint32_t>(s0),
                                             static_cast<uint32_t>(s0 >> 32),
                                             static_cast<uint32_t>(s1),
                                             static_cast<uint32_t>(s1 >> 32)},
                                 PhiloxKey{0x3ec8f720u, 0x02461e29u})
                              .Next();
  return Philox(PhiloxBlock{0, 0, mix[2], mix[3]}, PhiloxKey{mix[0], mix[1]});
}

absl::StatusOr<KeyCounterAlg> KeyCounterAlgFromInputs(
    const OpKernelContext& ctx) {
  const Tensor& key = ctx.input(1);
  const Tensor& counter = ctx.input(2);
  const Tensor& alg_t = ctx.input(3);
  if (alg_t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("input 3 (0-based) must have shape [], not ",
                     alg_t.shape().DebugString()));
  }
  KeyCounterAlg out;
  out.alg = alg_t.data<int32_t>()[0];
  if (out.alg == kAlgAutoSelect) out.alg = kAlgPhilox;
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("key must have shape [1], not ", key.shape().DebugString(),
                     ". (Note that batched keys are not supported yet.)"));
  }
  // TensorFlow 2.21 checks the counter length against the algorithm id
  // itself (so Philox accepts 1 word); dfx keeps that check for the same
  // errors, and below refuses a 1-word Philox counter, which TensorFlow
  // reads past the end of.
  if (counter.dims() != 1 || counter.dim_size(0) < out.alg) {
    return absl::InvalidArgumentError(
        absl::StrCat("counter must be a vector with length at least ", out.alg,
                     "; got shape: ", counter.shape().DebugString(),
                     ". (Note that batched counters are not supported yet.)"));
  }
  if (out.alg == kAlgPhilox) {
    if (counter.dim_size(0) < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "counter must be a vector with length at least 2 for the Philox "
          "algorithm; got shape: ",
          counter.shape().DebugString()));
    }
    const uint64_t* c = counter.data<uint64_t>();
    out.gen = Philox::FromKeyCounter(key.data<uint64_t>()[0], c[0], c[1]);
  }
  return out;
}

absl::Status UnsupportedAlg(int alg) {
  return absl::InvalidArgumentError(
      absl::StrCat("Unsupported algorithm id: ", alg));
}

absl::Status GuardedPhilox::Init(const OpKernelConstruction& ctx) {
  int64_t seed = 0;
  int64_t seed2 = 0;
  absl::Status s = ctx.GetAttr("seed", &seed);
  if (s.ok()) s = ctx.GetAttr("seed2", &seed2);
  if (!s.ok()) return s;
  if (seed == 0 && seed2 == 0) {
    seed = static_cast<int64_t>(NewIncarnation());
    seed2 = static_cast<int64_t>(NewIncarnation());
  }
  absl::MutexLock lock(&mu_);
  gen_ = Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  return absl::OkStatus();
}

Philox GuardedPhilox::Reserve(uint64_t blocks) {
  absl::MutexLock lock(&mu_);
  Philox now = gen_;
  gen_.Skip(blocks);
  return now;
}

void FillFloat(const Device& device, FloatDist dist, const Philox& gen,
               Tensor* out) {
  switch (out->dtype()) {
    case DT_FLOAT:
      FillFloatTyped<float>(device, dist, gen, out);
      break;
    case DT_DOUBLE:
      FillFloatTyped<double>(device, dist, gen, out);
      break;
    case DT_HALF:
      FillFloatTyped<Eigen::half>(device, dist, gen, out);
      break;
    case DT_BFLOAT16:
      FillFloatTyped<Eigen::bfloat16>(device, dist, gen, out);
      break;
    default:
      DFX_CHECK(false);
      break;
  }
}

void FillUniformInt(const Device& device, const Philox& gen, int64_t lo,
                    int64_t hi, Tensor* out) {
  if (out->dtype() == DT_INT32) {
    ParallelFill(device, gen,
                 UniformIntDist<int32_t>(static_cast<int32_t>(lo),
                                         static_cast<int32_t>(hi)),
                 out->data<int32_t>(), out->NumElements());
  } else {
    DFX_CHECK(out->dtype() == DT_INT64);
    ParallelFill(device, gen, UniformIntDist<int64_t>(lo, hi),
                 out->data<int64_t>(), out->NumElements());
  }
}

void FillFullInt(const Device& device, const Philox& gen, Tensor* out) {
  const int64_t n = out->NumElements();
  switch (out->dtype()) {
    case DT_INT32:
      ParallelFill(device, gen, FullIntDist<int32_t>(), out->data<int32_t>(),
                   n);
      break;
    case DT_UINT32:
      ParallelFill(device, gen, FullIntDist<uint32_t>(), out->data<uint32_t>(),
                   n);
      break;
    case DT_INT64:
      ParallelFill(device, gen, FullIntDist<int64_t>(), out->data<int64_t>(),
                   n);
      break;
    case DT_UINT64:
      ParallelFill(device, gen, FullIntDist<uint64_t>(), out->data<uint64_t>(),
                   n);
      break;
    default:
      DFX_CHECK(false);
      break;
  }
}

absl::StatusOr<Tensor*> PrepareMultinomialOutput(OpKernelContext* ctx,
                                                 int64_t* num_samples) {
  const Tensor& logits = ctx->input(0);
  const Tensor& num_samples_t = ctx->input(1);
  if (logits.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "logits should be a matrix, got shape ", logits.shape().DebugString()));
  }
  if (num_samples_t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_samples should be a scalar, got shape ",
                     num_samples_t.shape().DebugString()));
  }
  *num_samples = num_samples_t.data<int32_t>()[0];
  if (*num_samples < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_samples should be non-negative, got ", *num_samples));
  }
  for (int i = 0; i < 2; ++i) {
    if (logits.dim_size(i) > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat("logits.shape = ", logits.shape().DebugString(),
                       " too large for int"));
    }
  }
  if (logits.dim_size(1) == 0) {
    return absl::InvalidArgumentError("num_classes should be positive, got 0");
  }
  Tensor* out = nullptr;
  absl::Status s = ctx->allocate_output(
      0, TensorShape({logits.dim_size(0), *num_samples}), &out);
  if (!s.ok()) return s;
  return out->NumElements() == 0 ? nullptr : out;
}

void SampleMultinomial(const Device& device, const Tensor& logits,
                       int64_t num_samples, const Philox& gen, Tensor* out) {
  switch (logits.dtype()) {
    case DT_FLOAT:
      SampleMultinomialOut<float>(device, logits, num_samples, gen, out);
      break;
    case DT_DOUBLE:
      SampleMultinomialOut<double>(device, logits, num_samples, gen, out);
      break;
    case DT_HALF:
      SampleMultinomialOut<Eigen::half>(device, logits, num_samples, gen, out);
      break;
    case DT_BFLOAT16:
      SampleMultinomialOut<Eigen::bfloat16>(device, logits, num_samples, gen,
                                            out);
      break;
    default:
      DFX_CHECK(false);
      break;
  }
}

absl::Status ShuffleRows(OpKernelContext* ctx, const Tensor& input,
                         Philox gen) {
  const int64_t size = input.dim_size(0);
  PhiloxWords words(&gen);
  std::vector<int64_t> perm(size);
  std::iota(perm.begin(), perm.end(), int64_t{0});
  for (int64_t i = 0; i + 1 < size; ++i) {
    const uint32_t n = static_cast<uint32_t>(size - i);
    std::swap(perm[i], perm[i + words() % n]);
  }
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &out));
  const int64_t row = input.NumElements() / size;
  if (input.dtype() == DT_STRING) {
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < size; ++i) {
      std::copy(in + perm[i] * row, in + (perm[i] + 1) * row, o + i * row);
    }
    return absl::OkStatus();
  }
  const int64_t row_bytes = row * DataTypeSize(input.dtype());
  const char* in = static_cast<const char*>(input.raw_data());
  char* o = static_cast<char*>(out->raw_data());
  ParallelFor(*ctx->device(), size,
              Eigen::TensorOpCost(static_cast<double>(row_bytes),
                                  static_cast<double>(row_bytes), 0),
              [&](int64_t first, int64_t last) {
                for (int64_t i = first; i < last; ++i) {
                  std::memcpy(o + i * row_bytes, in + perm[i] * row_bytes,
                              row_bytes);
                }
              });
  return absl::OkStatus();
}

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
  auto scalar = [](const Tensor& t) -> int64_t {
    return t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
  };
  *lo = scalar(minval);
  *hi = scalar(maxval);
  if (*lo >= *hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("Need minval < maxval, got ", *lo, " >= ", *hi));
  }
  return absl::OkStatus();
}

}  // namespace dfx::random

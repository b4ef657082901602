// StatelessShuffle (RandomShuffle's permutation from a key, counter and
// algorithm) and RandomIndexShuffle (TensorFlow's random_index_shuffle: a
// Simon-style Feistel cipher on the smallest even block of at least 16 bits
// that holds max_index, applied again while the result exceeds max_index,
// so each seed permutes [0, max_index]). TensorFlow does not check
// `rounds` and reads past its round keys when it is odd or below 4; dfx
// refuses those.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"

namespace dfx::random {
namespace {

// (value, key, counter, alg): value with its rows permuted.
class StatelessShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<KeyCounterAlg> kca = KeyCounterAlgFromInputs(*ctx);
    DFX_OP_REQUIRES_OK(ctx, kca.status());
    DFX_OP_REQUIRES(ctx, kca->alg == kAlgPhilox, UnsupportedAlg(kca->alg));
    const Tensor& input = ctx->input(0);
    if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
      ctx->set_output(0, input);
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, ShuffleRows(ctx, input, kca->gen));
  }
};

// The cipher on words of `bits` bits (a block is two words).
class IndexCipher {
 public:
  IndexCipher(const std::array<uint32_t, 3>& key, int rounds, int bits)
      : bits_(bits), mask_((uint64_t{1} << bits) - 1) {
    const uint64_t c = 0xfffffffcull & mask_;
    uint64_t z = 0x7369f885192c0ef5ull & mask_;
    keys_ = {key[0] & mask_, key[1] & mask_, key[2] & mask_};
    for (int i = 3; i < rounds; ++i) {
      keys_.push_back(c ^ (z & 1) ^ keys_[i - 3] ^ Rotr(keys_[i - 1], 3) ^
                      Rotr(keys_[i - 1], 4));
      z >>= 1;
    }
  }

  uint64_t Encrypt(uint64_t value) const {
    uint64_t left = (value >> bits_) & mask_;
    uint64_t right = value & mask_;
    // Two rounds per pair of keys. REQUIRES: an even number of keys.
    for (size_t i = 0; i + 1 < keys_.size(); i += 2) {
      left ^= F(right);
      left ^= keys_[i];
      right ^= F(left);
      right ^= keys_[i + 1];
    }
    return (left << bits_) | right;
  }

 private:
  uint64_t Rotl(uint64_t x, int r) const {
    return ((x << r) | (x >> (bits_ - r))) & mask_;
  }
  uint64_t Rotr(uint64_t x, int r) const {
    return ((x >> r) | (x << (bits_ - r))) & mask_;
  }
  uint64_t F(uint64_t x) const {
    return (Rotl(x, 1) & Rotl(x, 8)) ^ Rotl(x, 2);
  }

  const int bits_;
  const uint64_t mask_;
  std::vector<uint64_t> keys_;
};

}  // namespace

uint64_t IndexShuffle(uint64_t index, const std::array<uint32_t, 3>& key,
                      uint64_t max_index, int rounds) {
  if (max_index == 0) return 0;
  int block = static_cast<int>(std::ceil(std::log2(max_index)));
  block = std::max(block + block % 2, 16);
  if (block > 64) block = 64;
  const IndexCipher cipher(key, rounds, block / 2);
  uint64_t x = index;
  do {
    x = cipher.Encrypt(x);
  } while (x > max_index);
  return x;
}

namespace {

uint64_t UintAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT32:
      return static_cast<uint64_t>(t.data<int32_t>()[i]);
    case DT_UINT32:
      return t.data<uint32_t>()[i];
    case DT_INT64:
      return static_cast<uint64_t>(t.data<int64_t>()[i]);
    default:
      return t.data<uint64_t>()[i];
  }
}

// (index, seed [3] or [n, 3], max_index) -> the permuted index, elementwise.
class RandomIndexShuffleOp : public OpKernel {
 public:
  explicit RandomIndexShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t rounds = 4;
    ctx->SetStatus(ctx->GetAttr("rounds", &rounds));
    rounds_ = static_cast<int>(rounds);
    if (ctx->status().ok() && (rounds_ < 4 || rounds_ % 2 != 0)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "The number of rounds must be even and >= 4 but got: ", rounds_)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(0);
    const Tensor& seed = ctx->input(1);
    const Tensor& max_index = ctx->input(2);
    const bool all_scalar =
        index.dims() == 0 && seed.dims() == 1 && max_index.dims() == 0;
    const int64_t n = std::max({index.NumElements(), max_index.NumElements(),
                                seed.NumElements() / 3});
    DFX_OP_REQUIRES(
        ctx, index.dims() == 0 || (index.dims() == 1 && index.dim_size(0) == n),
        absl::InvalidArgumentError("Index bust be a scalar or vector."));
    DFX_OP_REQUIRES(
        ctx,
        (seed.dims() == 1 && seed.dim_size(0) == 3) ||
            (seed.dims() == 2 && seed.dim_size(0) == n &&
             seed.dim_size(1) == 3),
        absl::InvalidArgumentError(absl::StrCat(
            "Seed must be a vector of size [3] or a matrix of size [", n,
            ", 3] but got ", seed.shape().DebugString(), ".")));
    DFX_OP_REQUIRES(ctx,
                    max_index.dims() == 0 ||
                        (max_index.dims() == 1 && max_index.dim_size(0) == n),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Maxval must be a scalar or a vector of the same size "
                        "as index but got ",
                        max_index.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, all_scalar ? index.shape() : TensorShape({n}), &out));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t idx = UintAt(index, index.dims() ? i : 0);
      const uint64_t max = UintAt(max_index, max_index.dims() ? i : 0);
      const int64_t row = seed.dims() == 1 ? 0 : i;
      const std::array<uint32_t, 3> key = {
          static_cast<uint32_t>(UintAt(seed, 3 * row)),
          static_cast<uint32_t>(UintAt(seed, 3 * row + 1)),
          static_cast<uint32_t>(UintAt(seed, 3 * row + 2))};
      const uint64_t v = IndexShuffle(idx, key, max, rounds_);
      if (out->dtype() == DT_INT32 || out->dtype() == DT_UINT32) {
        out->data<uint32_t>()[i] = static_cast<uint32_t>(v);
      } else {
        out->data<uint64_t>()[i] = v;
      }
    }
  }

 private:
  int rounds_ = 4;
};

}  // namespace

void RegisterShuffleKernels(KernelRegistry* registry) {
  RegisterKernel<StatelessShuffleOp>(
      registry,
      KernelDefBuilder("StatelessShuffle")
          .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8,
                                DT_INT16, DT_INT8, DT_STRING, DT_COMPLEX64,
                                DT_INT64, DT_BOOL, DT_BFLOAT16, DT_UINT16,
                                DT_COMPLEX128, DT_HALF, DT_UINT32,
                                DT_UINT64}));
  RegisterKernel<RandomIndexShuffleOp>(
      registry, KernelDefBuilder("RandomIndexShuffle")
                    .TypeConstraint("dtype", {DT_INT32, DT_UINT32, DT_INT64,
                                              DT_UINT64}));
}

}  // namespace dfx::random

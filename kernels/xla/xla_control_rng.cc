// XlaRngBitGenerator: XLA's RngBitGenerator with the Philox algorithm, the
// one TensorFlow 2.21's CPU runs (algorithm 1, and 3, "auto select", which
// picks it). The initial state is [key, counter low, counter high] (or
// [key, counter low], the key then being the counter's high half); each
// Philox4x32-10 block of the 128-bit counter gives four 32-bit words, in order.
// uint32 outputs take one word each, uint8 ones the low byte of one word each,
// uint64 ones two words (low first). The output key is the state with the
// counter advanced by the blocks used. Results equal TensorFlow's bit for bit.
#include <array>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/int_elements.h"
#include "kernels/kernels.h"

namespace dfx::xla2 {
namespace {

using Block = std::array<uint32_t, 4>;

Block Philox(Block ctr, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * ctr[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ k0,
           static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ k1,
           static_cast<uint32_t>(p0)};
  }
  return ctr;
}

class XlaRngBitGeneratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& algorithm = ctx->input(0);
    DFX_OP_REQUIRES(ctx, algorithm.NumElements() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("algorithm must be a scalar, got shape ",
                                     algorithm.shape().DebugString())));
    const int32_t alg = algorithm.data<int32_t>()[0];
    // TensorFlow 2.21 fails these: ThreeFry (2) in XLA's expander, others
    // as an unknown algorithm.
    DFX_OP_REQUIRES(ctx, alg != 2,
                    absl::InternalError("the ThreeFry algorithm (2) does not "
                                        "run on the CPU in TensorFlow 2.21"));
    DFX_OP_REQUIRES(ctx, alg == 1 || alg == 3,
                    absl::UnknownError(absl::StrCat("unknown algorithm ", alg,
                                                    " (1 and 3 are Philox)")));
    const Tensor& state = ctx->input(1);
    DFX_OP_REQUIRES(ctx, state.dims() == 1 && state.dim_size(0) >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "initial_state must be a vector of 2 or 3 values, "
                        "got shape ",
                        state.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, state.dim_size(0) <= 3,
        absl::InternalError(absl::StrCat(
            "Philox takes a state of 2 or 3 values, got ", state.dim_size(0))));
    const Tensor& shape_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("shape must be a vector, got shape ",
                                     shape_t.shape().DebugString())));
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      dims.push_back(IntAt(shape_t, i));
      DFX_OP_REQUIRES(ctx, dims.back() >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "shape has a negative dimension ", dims.back())));
    }
    const DataType dtype = output_type(1);
    DFX_OP_REQUIRES(
        ctx, dtype == DT_UINT8 || dtype == DT_UINT32 || dtype == DT_UINT64,
        absl::InvalidArgumentError(absl::StrCat(
            "TensorFlow's CPU generates no ", DataTypeString(dtype),
            " bits (uint8, uint32 and uint64 only)")));
    absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *shape, &out));
    const uint64_t* s = state.data<uint64_t>();
    const uint64_t key = s[0];
    uint64_t lo = s[1];
    // A state of two values takes the key as the counter's high half, as
    // TensorFlow does.
    uint64_t hi = state.dim_size(0) == 3 ? s[2] : key;
    const int64_t n = out->NumElements();
    const int64_t words = dtype == DT_UINT64 ? 2 * n : n;
    Block block{};
    for (int64_t w = 0; w < words; ++w) {
      if (w % 4 == 0) {
        block = Philox(
            {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
             static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)},
            static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32));
        if (++lo == 0) ++hi;
      }
      const uint32_t word = block[w % 4];
      if (dtype == DT_UINT8) {
        out->data<uint8_t>()[w] = static_cast<uint8_t>(word);
      } else if (dtype == DT_UINT32) {
        out->data<uint32_t>()[w] = word;
      } else if (w % 2 == 0) {
        out->data<uint64_t>()[w / 2] = word;
      } else {
        out->data<uint64_t>()[w / 2] |= uint64_t{word} << 32;
      }
    }
    Tensor* key_out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, state.shape(), &key_out));
    uint64_t* k = key_out->data<uint64_t>();
    k[0] = key;
    k[1] = lo;
    if (state.dim_size(0) == 3) k[2] = hi;
  }
};

}  // namespace

void RegisterXla2RngKernels(KernelRegistry* registry) {
  RegisterKernel<XlaRngBitGeneratorOp>(registry,
                                       KernelDefBuilder("XlaRngBitGenerator"));
}

}  // namespace dfx::xla2

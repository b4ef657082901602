// FractionalMaxPool and FractionalAvgPool (Graham's fractional max-pooling
// over rows and columns of NHWC tensors) and their gradients, as TensorFlow
// 2.21's CPU kernels compute them (fractional_max_pool_op.cc,
// fractional_avg_pool_op.cc, fractional_pool_common.cc). The pooling
// sequences come from a Philox generator seeded by (seed, seed2) afresh on
// every run, drawn exactly as TensorFlow draws them: a Fisher-Yates shuffle
// of the region sizes on 32-bit words (its own portable shuffle, not the
// standard library's), or for pseudo_random one uniform double, so that
// seeded (deterministic) runs give TensorFlow's sequences and outputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/nn/nn2_kernels.h"
#include "kernels/random/philox.h"
#include "runtime/device.h"

namespace dfx::nn2_internal {
namespace {

using random::Philox;
using random::PhiloxWords;

// TensorFlow's GuardedPhiloxRandom, local to one run: hands out stretches of
// the stream in 32-bit words, rounded up to whole blocks.
class LocalPhilox {
 public:
  LocalPhilox(int64_t seed, int64_t seed2)
      : gen_(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)) {}
  Philox ReserveWords(int64_t words) {
    Philox now = gen_;
    gen_.Skip(static_cast<uint64_t>((words + 3) / 4));
    return now;
  }

 private:
  Philox gen_;
};

// The sizes of the `out` pooling regions over `in` positions, each k or
// k + 1 (k = in / out): random order for pooling, a random offset for
// pseudo-random pooling. Returns the cumulative sequence, out + 1 values
// from 0 to in.
std::vector<int64_t> PoolingSequence(int in, int out, LocalPhilox* generator,
                                     bool pseudo_random) {
  std::vector<int64_t> diff(out, 0);
  if (pseudo_random) {
    const double alpha = static_cast<double>(in) / out;
    const int k = in / out;
    const double u_max1 = (k + 2) / alpha - 1;
    const double u_max2 = (in + 1 - k) / alpha - (out - 1);
    const double max_u = std::min(u_max1, u_max2);
    Philox gen = generator->ReserveWords(2);
    PhiloxWords words(&gen);
    const uint32_t x0 = words();
    const uint32_t x1 = words();
    const double u = random::Uint64ToDouble(x0, x1) * max_u;
    std::vector<int64_t> cum(out + 1, 0);
    cum[0] = 1;
    cum[out] = in + 1;
    for (int i = 1; i < out; ++i) {
      cum[i] = static_cast<int>(std::ceil(alpha * (i + u)));
    }
    for (int i = 0; i < out; ++i) diff[i] = cum[i + 1] - cum[i];
  } else {
    const int k = in / out;
    std::fill(diff.begin(), diff.end(), k);
    for (int i = 0; i < in % out; ++i) diff[i] += 1;
    Philox gen = generator->ReserveWords(out);
    PhiloxWords words(&gen);
    for (int i = 0; i + 1 < out; ++i) {
      const uint32_t n = static_cast<uint32_t>(out - i);
      std::swap(diff[i], diff[i + words() % n]);
    }
  }
  std::vector<int64_t> cum(out + 1, 0);
  for (int i = 1; i <= out; ++i) cum[i] = cum[i - 1] + diff[i - 1];
  return cum;
}

// The rows (or columns) [*start, *end] of region `i` of a sequence: the
// next region's first position is shared when overlapping; the end is
// clamped to the last position.
void Region(const int64_t* seq, int64_t i, bool overlapping, int64_t max,
            int64_t* start, int64_t* end) {
  *start = seq[i];
  *end = std::min(overlapping ? seq[i + 1] : seq[i + 1] - 1, max);
}

template <typename T, bool kMax>
class FractionalPoolOp : public OpKernel {
 public:
  explicit FractionalPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError("tensor_in must be 4-dimensional"));
    int in_size[4];
    int out_size[4];
    for (int i = 0; i < 4; ++i) {
      in_size[i] = static_cast<int>(input.dim_size(i));
      DFX_OP_REQUIRES(
          ctx, in_size[i] >= ratio_[i],
          absl::InvalidArgumentError(absl::StrCat(
              "Pooling ratio is higher than input dimension size for "
              "dimension ",
              i, ". Input dim size: ", in_size[i],
              " pooling ratio: ", ratio_[i])));
      out_size[i] = static_cast<int>(std::floor(in_size[i] / ratio_[i]));
    }
    int64_t seed = seed_, seed2 = seed2_;
    if (!deterministic_) {
      // TensorFlow's unseeded generator: fresh random seeds every run.
      seed = static_cast<int64_t>(NewIncarnation());
      seed2 = static_cast<int64_t>(NewIncarnation());
    }
    LocalPhilox generator(seed, seed2);
    const std::vector<int64_t> rows =
        PoolingSequence(in_size[1], out_size[1], &generator, pseudo_random_);
    const std::vector<int64_t> cols =
        PoolingSequence(in_size[2], out_size[2], &generator, pseudo_random_);
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0,
                                  TensorShape({out_size[0], out_size[1],
                                               out_size[2], out_size[3]}),
                                  &output));
    Tensor* row_seq = nullptr;
    Tensor* col_seq = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 1, TensorShape({static_cast<int64_t>(rows.size())}), &row_seq));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 2, TensorShape({static_cast<int64_t>(cols.size())}), &col_seq));
    std::copy(rows.begin(), rows.end(), row_seq->data<int64_t>());
    std::copy(cols.begin(), cols.end(), col_seq->data<int64_t>());

    const int64_t depth = in_size[3];
    const T* in = input.data<T>();
    T* out = output->data<T>();
    const int64_t out_pixels =
        int64_t{out_size[0]} * out_size[1] * out_size[2];
    std::fill(out, out + out_pixels * depth,
              kMax ? Eigen::NumTraits<T>::lowest() : T(0));
    std::vector<T> count(kMax ? 0 : out_pixels, T(0));
    for (int64_t b = 0; b < in_size[0]; ++b) {
      for (int64_t hs = 0; hs + 1 < static_cast<int64_t>(rows.size()); ++hs) {
        int64_t h0, h1;
        Region(rows.data(), hs, overlapping_, in_size[1] - 1, &h0, &h1);
        for (int64_t ws = 0; ws + 1 < static_cast<int64_t>(cols.size());
             ++ws) {
          int64_t w0, w1;
          Region(cols.data(), ws, overlapping_, in_size[2] - 1, &w0, &w1);
          const int64_t o = (b * out_size[1] + hs) * out_size[2] + ws;
          T* dst = out + o * depth;
          for (int64_t h = h0; h <= h1; ++h) {
            for (int64_t w = w0; w <= w1; ++w) {
              const T* src = in + ((b * in_size[1] + h) * in_size[2] + w) * depth;
              for (int64_t d = 0; d < depth; ++d) {
                if constexpr (kMax) {
                  if (dst[d] < src[d]) dst[d] = src[d];
                } else {
                  dst[d] += src[d];
                }
              }
              if constexpr (!kMax) count[o] += T(1);
            }
          }
        }
      }
    }
    if constexpr (!kMax) {
      for (int64_t o = 0; o < out_pixels; ++o) {
        for (int64_t d = 0; d < depth; ++d) out[o * depth + d] /= count[o];
      }
    }
  }

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    const AttrValue* ratio = FindNodeAttr(ctx.def(), "pooling_ratio");
    if (ratio == nullptr || !ratio->has_list()) {
      return absl::InvalidArgumentError("missing attr pooling_ratio");
    }
    ratio_.assign(ratio->list().f().begin(), ratio->list().f().end());
    DFX_RETURN_IF_ERROR(ctx.GetAttr("pseudo_random", &pseudo_random_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("overlapping", &overlapping_));
    if (ratio_.size() != 4) {
      return absl::InvalidArgumentError(
          "pooling_ratio field must specify 4 dimensions");
    }
    for (float r : ratio_) {
      if (!(r >= 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("pooling_ratio cannot be smaller than 1, got: ", r));
      }
    }
    if (!(ratio_[0] == 1 && ratio_[3] == 1)) {
      return absl::UnimplementedError(absl::StrCat(
          kMax ? "Fractional max pooling" : "Fractional average pooling",
          " is not yet supported on the batch nor channel dimension."));
    }
    DFX_RETURN_IF_ERROR(ctx.GetAttr("deterministic", &deterministic_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("seed", &seed_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("seed2", &seed2_));
    if (deterministic_) {
      // Unseeded but deterministic: seeds drawn once, for this kernel.
      if (seed_ == 0 && seed2_ == 0) {
        seed_ = static_cast<int64_t>(NewIncarnation());
        seed2_ = static_cast<int64_t>(NewIncarnation());
      }
    } else if (seed_ != 0 || seed2_ != 0) {
      return absl::InvalidArgumentError(
          "Both seed and seed2 should be 0 if deterministic is false.");
    }
    return absl::OkStatus();
  }

  std::vector<float> ratio_;
  bool pseudo_random_ = false;
  bool overlapping_ = false;
  bool deterministic_ = false;
  int64_t seed_ = 0;
  int64_t seed2_ = 0;
};

// Checks a pooling sequence input of a gradient: a vector whose values
// index rows (columns) of the original input. TensorFlow reads out of
// bounds for negative values or too long a sequence; dfx refuses them.
absl::Status CheckSequence(const Tensor& seq, const char* what,
                           int64_t regions) {
  if (seq.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a vector, got shape ", seq.shape().DebugString()));
  }
  if (seq.NumElements() < regions + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must have at least ", regions + 1, " elements, but got ",
        seq.NumElements()));
  }
  for (int64_t v : seq.span<int64_t>()) {
    if (v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " values must not be negative, got ", seq.DebugString()));
    }
  }
  return absl::OkStatus();
}

template <typename T>
class FractionalMaxPoolGradOp : public OpKernel {
 public:
  explicit FractionalMaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& orig_in = ctx->input(0);
    const Tensor& orig_out = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    const Tensor& row_seq = ctx->input(3);
    const Tensor& col_seq = ctx->input(4);
    DFX_OP_REQUIRES(ctx, orig_in.dims() == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "orig_input should be a tensor of rank 4, got ",
                        orig_in.DebugString())));
    DFX_OP_REQUIRES(ctx, orig_in.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "orig_input must not be empty, got ",
                        orig_in.DebugString())));
    DFX_OP_REQUIRES(ctx, orig_out.dims() == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "orig_output should be a tensor of rank 4, got ",
                        orig_out.DebugString())));
    DFX_OP_REQUIRES(ctx, orig_out.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "orig_output must not be empty, got ",
                        orig_out.DebugString())));
    DFX_OP_REQUIRES(
        ctx,
        row_seq.NumElements() * col_seq.NumElements() <= orig_in.NumElements(),
        absl::InvalidArgumentError(absl::StrCat(
            "Pooling region has more elements than the input tensor. "
            "row_pooling_sequence: ",
            row_seq.DebugString(), "col_pooling_sequence: ",
            col_seq.DebugString(), "orig_input: ", orig_in.DebugString())));
    int64_t in_size[4], out_size[4];
    for (int i = 0; i < 4; ++i) {
      in_size[i] = orig_in.dim_size(i);
      out_size[i] = orig_out.dim_size(i);
    }
    // dfx's own bounds (TensorFlow reads and writes outside its buffers
    // otherwise).
    const int64_t row_regions =
        std::min<int64_t>(std::max<int64_t>(row_seq.NumElements() - 1, 0),
                          out_size[1]);
    const int64_t col_regions =
        std::min<int64_t>(std::max<int64_t>(col_seq.NumElements() - 1, 0),
                          out_size[2]);
    DFX_OP_REQUIRES_OK(ctx, CheckSequence(row_seq, "row_pooling_sequence",
                                          row_regions));
    DFX_OP_REQUIRES_OK(ctx, CheckSequence(col_seq, "col_pooling_sequence",
                                          col_regions));
    DFX_OP_REQUIRES(
        ctx,
        out_size[0] >= in_size[0] && out_size[3] == in_size[3] &&
            out_backprop.NumElements() <= orig_out.NumElements(),
        absl::InvalidArgumentError(absl::StrCat(
            "orig_output ", orig_out.shape().DebugString(),
            " and out_backprop ", out_backprop.shape().DebugString(),
            " do not fit orig_input ", orig_in.shape().DebugString())));

    // The maxima again, each with the first input position that holds it.
    const int64_t depth = in_size[3];
    const int64_t n_out = orig_out.NumElements();
    std::vector<T> maxima(n_out, Eigen::NumTraits<T>::lowest());
    std::vector<int64_t> arg_max(n_out, -1);
    const T* in = orig_in.data<T>();
    const int64_t* rows = row_seq.data<int64_t>();
    const int64_t* cols = col_seq.data<int64_t>();
    for (int64_t b = 0; b < in_size[0]; ++b) {
      for (int64_t hs = 0; hs < row_regions; ++hs) {
        int64_t h0, h1;
        Region(rows, hs, overlapping_, in_size[1] - 1, &h0, &h1);
        for (int64_t ws = 0; ws < col_regions; ++ws) {
          int64_t w0, w1;
          Region(cols, ws, overlapping_, in_size[2] - 1, &w0, &w1);
          const int64_t o = (b * out_size[1] + hs) * out_size[2] + ws;
          for (int64_t h = h0; h <= h1; ++h) {
            for (int64_t w = w0; w <= w1; ++w) {
              const int64_t i = (b * in_size[1] + h) * in_size[2] + w;
              for (int64_t d = 0; d < depth; ++d) {
                T& m = maxima[o * depth + d];
                int64_t& a = arg_max[o * depth + d];
                if (m < in[i * depth + d] || a == -1) {
                  m = in[i * depth + d];
                  a = i * depth + d;
                }
              }
            }
          }
        }
      }
    }
    const T* want = orig_out.data<T>();
    for (int64_t k = 0; k < n_out; ++k) {
      DFX_OP_REQUIRES(ctx, maxima[k] == want[k],
                      absl::InvalidArgumentError(
                          "tensor_out_dup is not the same as tensor_out"));
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, orig_in.shape(), &output));
    T* grad = output->data<T>();
    std::fill(grad, grad + output->NumElements(), T(0));
    const T* bp = out_backprop.data<T>();
    const int64_t n_in = orig_in.NumElements();
    for (int64_t k = 0; k < out_backprop.NumElements(); ++k) {
      const int64_t i = arg_max[k];
      DFX_OP_REQUIRES(ctx, i >= 0 && i < n_in,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid input backprop index: ", i, ", ", n_in)));
      grad[i] += bp[k];
    }
  }

 private:
  bool overlapping_ = false;
};

template <typename T>
class FractionalAvgPoolGradOp : public OpKernel {
 public:
  explicit FractionalAvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& out_backprop = ctx->input(1);
    const Tensor& row_seq = ctx->input(2);
    const Tensor& col_seq = ctx->input(3);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1 && shape_t.NumElements() == 4,
                    absl::InvalidArgumentError(
                        "original input tensor shape must be1-dimensional and "
                        "4 elements"));
    DFX_OP_REQUIRES(ctx, out_backprop.dims() == 4,
                    absl::InvalidArgumentError(
                        "out_backprop must be 4-dimensional"));
    int64_t out_size[4];
    for (int i = 0; i < 4; ++i) out_size[i] = out_backprop.dim_size(i);
    for (const auto& [what, seq, regions] :
         {std::tuple{"row_seq_tensor", &row_seq, out_size[1]},
          std::tuple{"col_seq_tensor", &col_seq, out_size[2]}}) {
      DFX_OP_REQUIRES(
          ctx, seq->NumElements() > regions,
          absl::InvalidArgumentError(absl::StrCat(
              "Given out_backprop shape ", out_backprop.shape().DebugString(),
              ", ", what, " must have at least ", regions + 1,
              " elements, but got ", seq->NumElements())));
    }
    for (const auto& [what, seq] :
         {std::pair{"Row", &row_seq}, std::pair{"Column", &col_seq}}) {
      for (int64_t v : seq->template span<int64_t>()) {
        DFX_OP_REQUIRES(ctx, v >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            what,
                            " sequence tensor values must not be negative, "
                            "got ",
                            seq->SummarizeValue(3))));
      }
    }
    absl::StatusOr<TensorShape> in_shape =
        TensorShape::Build(shape_t.span<int64_t>());
    DFX_OP_REQUIRES_OK(ctx, in_shape.status());
    int64_t in_size[4];
    for (int i = 0; i < 4; ++i) in_size[i] = in_shape->dim_size(i);
    // dfx's own bounds (TensorFlow writes outside its buffer otherwise).
    DFX_OP_REQUIRES(
        ctx, in_size[0] >= out_size[0] && in_size[3] >= out_size[3],
        absl::InvalidArgumentError(absl::StrCat(
            "out_backprop ", out_backprop.shape().DebugString(),
            " does not fit the original input shape ",
            in_shape->DebugString())));
    // Sums in double, each value split evenly over its region, then cast.
    std::vector<double> sums(in_shape->num_elements(), 0.0);
    const T* bp = out_backprop.data<T>();
    const int64_t* rows = row_seq.data<int64_t>();
    const int64_t* cols = col_seq.data<int64_t>();
    for (int64_t b = 0; b < out_size[0]; ++b) {
      for (int64_t r = 0; r < out_size[1]; ++r) {
        int64_t r0, r1;
        Region(rows, r, overlapping_, in_size[1] - 1, &r0, &r1);
        for (int64_t c = 0; c < out_size[2]; ++c) {
          int64_t c0, c1;
          Region(cols, c, overlapping_, in_size[2] - 1, &c0, &c1);
          const int64_t cells = (r1 - r0 + 1) * (c1 - c0 + 1);
          const int64_t o = (b * out_size[1] + r) * out_size[2] + c;
          for (int64_t ir = r0; ir <= r1; ++ir) {
            for (int64_t ic = c0; ic <= c1; ++ic) {
              const int64_t i = (b * in_size[1] + ir) * in_size[2] + ic;
              for (int64_t d = 0; d < out_size[3]; ++d) {
                sums[i * in_size[3] + d] +=
                    static_cast<double>(bp[o * out_size[3] + d]) /
                    static_cast<double>(cells);
              }
            }
          }
        }
      }
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *in_shape, &output));
    T* out = output->data<T>();
    for (size_t i = 0; i < sums.size(); ++i) out[i] = static_cast<T>(sums[i]);
  }

 private:
  bool overlapping_ = false;
};

template <typename T>
void RegisterFor(KernelRegistry* registry) {
  RegisterKernel<FractionalPoolOp<T, true>>(
      registry, KernelDefBuilder("FractionalMaxPool").TypeConstraint<T>("T"));
  RegisterKernel<FractionalPoolOp<T, false>>(
      registry, KernelDefBuilder("FractionalAvgPool").TypeConstraint<T>("T"));
  RegisterKernel<FractionalMaxPoolGradOp<T>>(
      registry,
      KernelDefBuilder("FractionalMaxPoolGrad").TypeConstraint<T>("T"));
  RegisterKernel<FractionalAvgPoolGradOp<T>>(
      registry,
      KernelDefBuilder("FractionalAvgPoolGrad").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterFractionalPoolKernels(KernelRegistry* registry) {
  RegisterFor<float>(registry);
  RegisterFor<double>(registry);
  RegisterFor<int32_t>(registry);
  RegisterFor<int64_t>(registry);
}

}  // namespace dfx::nn2_internal

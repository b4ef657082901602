// Fake quantization for quantization-aware training, as TensorFlow 2.21's
// CPU kernels compute it: FakeQuantWithMinMaxArgs/Vars/VarsPerChannel and
// their gradients (float), QuantizeAndDequantize (v1), V2/V3/V4 and V4Grad
// (float, double). The arithmetic is TensorFlow's, step by step and in the same
// precision, so that results equal its bitwise.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"
#include "kernels/math/misc_kernels.h"

namespace dfx {
namespace {

// ---------------------------------------------------------------------------
// FakeQuant*

// The range [nudged_min, nudged_max] that holds the quantized levels with
// real zero exactly on one of them (so zero padding stays exact), and the
// step between levels.
struct Nudged {
  float min;
  float max;
  float scale;
  // quant_min - zero_point: added to a level counted from nudged_min, it
  // gives the level counted from zero (a small integer, exact in float).
  float level_offset;
};

Nudged Nudge(float min, float max, int quant_min, int quant_max) {
  const float quant_min_float = static_cast<float>(quant_min);
  const float quant_max_float = static_cast<float>(quant_max);
  Nudged n;
  n.scale = (max - min) / (quant_max_float - quant_min_float);
  const float zero_point_from_min = quant_min_float - min / n.scale;
  // 16-bit levels need a 16-bit zero point; the float comparisons also send
  // NaN to std::round, as TensorFlow's do.
  uint16_t zero_point;
  if (zero_point_from_min < quant_min_float) {
    zero_point = static_cast<uint16_t>(quant_min);
  } else if (zero_point_from_min > quant_max_float) {
    zero_point = static_cast<uint16_t>(quant_max);
  } else {
    zero_point = static_cast<uint16_t>(std::round(zero_point_from_min));
  }
  n.min = (quant_min_float - zero_point) * n.scale;
  n.max = (quant_max_float - zero_point) * n.scale;
  n.level_offset = quant_min_float - zero_point;
  return n;
}

// num_bits and narrow_range, read and checked as TensorFlow does.
struct QuantRange {
  int quant_min = 0;
  int quant_max = 255;
};

QuantRange ReadQuantRange(OpKernelConstruction* ctx) {
  QuantRange q;
  int64_t num_bits = 8;
  bool narrow_range = false;
  absl::Status s = ctx->GetAttr("num_bits", &num_bits);
  if (s.ok()) s = ctx->GetAttr("narrow_range", &narrow_range);
  if (s.ok() && (num_bits < 2 || num_bits > 16)) {
    s = absl::InvalidArgumentError(
        "num_bits must be between 2 and 16, inclusive");
  }
  ctx->SetStatus(s);
  if (!s.ok()) return q;
  q.quant_min = narrow_range ? 1 : 0;
  q.quant_max = (1 << num_bits) - 1;
  return q;
}

// The elementwise cost of one fake-quantized value, for ParallelFor.
const Eigen::TensorOpCost kElementCost(sizeof(float), sizeof(float), 8);

// Quantizes in[i] for i in [first, last) with one range. FakeQuantWithMinMaxArgs
// multiplies by the reciprocal of the scale, the Vars forms divide by it;
// both are kept, as they round differently.
void FakeQuantRange(const float* in, float* out, int64_t first, int64_t last,
                    const Nudged& n, bool multiply_by_inverse) {
  const float inv_scale = 1.0f / n.scale;
  for (int64_t i = first; i < last; ++i) {
    const float clamped = std::max(std::min(in[i], n.max), n.min);
    const float shifted = clamped - n.min;
    const float scaled =
        multiply_by_inverse ? shifted * inv_scale : shifted / n.scale;
    // (level - zero point) * scale, not level * scale + nudged_min: the
    // latter cancels and rounds differently, TensorFlow 2.21 computes this.
    out[i] = (std::floor(scaled + 0.5f) + n.level_offset) * n.scale;
  }
}

class FakeQuantWithMinMaxArgsOp : public OpKernel {
 public:
  explicit FakeQuantWithMinMaxArgsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    float min = 0;
    float max = 0;
    ctx->SetStatus(ctx->GetAttr("min", &min));
    ctx->SetStatus(ctx->GetAttr("max", &max));
    if (!ctx->status().ok()) return;
    if (!(min < max)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "min has to be smaller than max, was: ", min, " >= ", max)));
      return;
    }
    const QuantRange q = ReadQuantRange(ctx);
    nudged_ = Nudge(min, max, q.quant_min, q.quant_max);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const float* in = input.data<float>();
    float* o = out->data<float>();
    ParallelFor(*ctx->device(), input.NumElements(), kElementCost,
                [&](int64_t first, int64_t last) {
                  FakeQuantRange(in, o, first, last, nudged_, true);
                });
  }

 private:
  Nudged nudged_{};
};

class FakeQuantWithMinMaxArgsGradientOp : public OpKernel {
 public:
  explicit FakeQuantWithMinMaxArgsGradientOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    float min = 0;
    float max = 0;
    ctx->SetStatus(ctx->GetAttr("min", &min));
    ctx->SetStatus(ctx->GetAttr("max", &max));
    if (!ctx->status().ok()) return;
    if (!(min < max)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "min has to be smaller than max, was: ", min, " >= ", max)));
      return;
    }
    const QuantRange q = ReadQuantRange(ctx);
    nudged_ = Nudge(min, max, q.quant_min, q.quant_max);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradient = ctx->input(0);
    const Tensor& input = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.shape() == gradient.shape(),
                    absl::InvalidArgumentError(
                        "gradient and input must be the same size"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const float* g = gradient.data<float>();
    const float* in = input.data<float>();
    float* o = out->data<float>();
    const Nudged n = nudged_;
    ParallelFor(*ctx->device(), input.NumElements(), kElementCost,
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    // A product with 0 or 1, so NaN and inf gradients
                    // propagate as TensorFlow's do.
                    o[i] = g[i] * ((in[i] >= n.min && in[i] <= n.max) ? 1.0f
                                                                      : 0.0f);
                  }
                });
  }

 private:
  Nudged nudged_{};
};

// The per-tensor (scalar min and max) and per-channel (min and max of the
// size of the last dim) forms, with their gradients.
class FakeQuantVarsOp : public OpKernel {
 public:
  FakeQuantVarsOp(OpKernelConstruction* ctx, bool per_channel, bool gradient)
      : OpKernel(ctx), per_channel_(per_channel), gradient_(gradient) {
    range_ = ReadQuantRange(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    const int data = gradient_ ? 1 : 0;
    const Tensor& input = ctx->input(data);
    const Tensor& min = ctx->input(data + 1);
    const Tensor& max = ctx->input(data + 2);
    const Tensor* grad = gradient_ ? &ctx->input(0) : nullptr;
    if (gradient_) {
      DFX_OP_REQUIRES(ctx, input.shape() == grad->shape(),
                      absl::InvalidArgumentError(
                          "gradient and input must be the same size"));
    }
    const int range_rank = per_channel_ ? 1 : 0;
    for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{
                                      "min", &min},
                                  {"max", &max}}) {
      DFX_OP_REQUIRES(
          ctx, t->dims() == range_rank,
          absl::InvalidArgumentError(absl::StrCat(
              "`", name, "` must be rank ", range_rank, " but is rank ",
              t->dims())));
    }
    int64_t depth = 1;
    if (per_channel_) {
      DFX_OP_REQUIRES(ctx, input.dims() >= 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "`inputs` must be at least rank 1 but is rank ",
                          input.dims())));
      depth = input.dim_size(input.dims() - 1);
      DFX_OP_REQUIRES(ctx, min.dim_size(0) == depth,
                      absl::InvalidArgumentError(
                          absl::StrCat("min has incorrect size, expected ",
                                       depth, " was ", min.dim_size(0))));
      DFX_OP_REQUIRES(ctx, max.dim_size(0) == depth,
                      absl::InvalidArgumentError(
                          absl::StrCat("max has incorrect size, expected ",
                                       depth, " was ", max.dim_size(0))));
    }
    std::vector<Nudged> nudged(depth);
    for (int64_t c = 0; c < depth; ++c) {
      nudged[c] = Nudge(min.data<float>()[c], max.data<float>()[c],
                        range_.quant_min, range_.quant_max);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t total = input.NumElements();
    const float* in = input.data<float>();
    float* o = out->data<float>();
    if (!gradient_) {
      if (!per_channel_) {
        ParallelFor(*ctx->device(), total, kElementCost,
                    [&](int64_t first, int64_t last) {
                      FakeQuantRange(in, o, first, last, nudged[0], false);
                    });
        return;
      }
      ParallelFor(*ctx->device(), total, kElementCost,
                  [&](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      FakeQuantRange(in, o, i, i + 1, nudged[i % depth],
                                     false);
                    }
                  });
      return;
    }
    const TensorShape range_shape =
        per_channel_ ? TensorShape({depth}) : TensorShape({});
    Tensor* min_backprop = nullptr;
    Tensor* max_backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, range_shape, &min_backprop));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, range_shape, &max_backprop));
    const float* g = grad->data<float>();
    float* dmin = min_backprop->data<float>();
    float* dmax = max_backprop->data<float>();
    std::fill(dmin, dmin + depth, 0.0f);
    std::fill(dmax, dmax + depth, 0.0f);
    // The input gradient passes inside the range; the sums below and above
    // it go to min and max. Sequential sums: the order of a float sum shows
    // in its last bits, and these are small per-step reductions.
    for (int64_t i = 0; i < total; ++i) {
      const Nudged& n = nudged[i % depth];
      const float x = in[i];
      o[i] = g[i] * ((x >= n.min && x <= n.max) ? 1.0f : 0.0f);
      dmin[i % depth] += g[i] * (x < n.min ? 1.0f : 0.0f);
      dmax[i % depth] += g[i] * (x > n.max ? 1.0f : 0.0f);
    }
  }

 private:
  QuantRange range_;
  const bool per_channel_;
  const bool gradient_;
};

template <bool kPerChannel, bool kGradient>
class FakeQuantVarsKernel : public FakeQuantVarsOp {
 public:
  explicit FakeQuantVarsKernel(OpKernelConstruction* ctx)
      : FakeQuantVarsOp(ctx, kPerChannel, kGradient) {}
};

// ---------------------------------------------------------------------------
// QuantizeAndDequantize*

enum class RoundMode { kHalfToEven, kHalfUp };

// The scale into the quantized range [min_quantized, max_quantized] that
// keeps 0 at 0, chosen from whichever side of the range limits it most; the
// other side of the range moves to where the scale puts it.
template <typename T>
struct QdqRange {
  T min;
  T max;
  T scale;
  T inverse_scale;
};

template <typename T>
QdqRange<T> ComputeQdqRange(bool signed_input, int num_bits, bool narrow_range,
                            T min_range, T max_range) {
  const int64_t half = int64_t{1} << (num_bits - 1);
  const int64_t min_quantized =
      signed_input ? (narrow_range ? -half + 1 : -half) : 0;
  const int64_t max_quantized =
      signed_input ? half - 1 : (int64_t{1} << num_bits) - 1;
  const T min_q = static_cast<T>(min_quantized);
  const T max_q = static_cast<T>(max_quantized);
  const T scale_from_min_side = (min_q * min_range > 0)
                                    ? min_q / min_range
                                    : std::numeric_limits<T>::max();
  const T scale_from_max_side = (max_q * max_range > 0)
                                    ? max_q / max_range
                                    : std::numeric_limits<T>::max();
  QdqRange<T> r{min_range, max_range, 0, 0};
  if (scale_from_min_side < scale_from_max_side) {
    r.scale = scale_from_min_side;
    r.inverse_scale = min_range / min_q;
    r.max = max_q * r.inverse_scale;
  } else {
    r.scale = scale_from_max_side;
    r.inverse_scale = max_range / max_q;
    r.min = min_q * r.inverse_scale;
  }
  return r;
}

template <typename T>
T RoundQ(T x, RoundMode mode) {
  // HALF_UP is floor(x + 0.5) computed in T, as TensorFlow's functor does
  // (it differs from round-half-up of the exact x where x + 0.5 rounds).
  return mode == RoundMode::kHalfToEven ? std::nearbyint(x)
                                        : std::floor(x + T(0.5));
}

// Quantizes `count` values that are `stride` apart, from `in` to `out`.
template <typename T>
void QdqValues(const T* in, T* out, int64_t count, int64_t stride,
               const QdqRange<T>& r, bool clamp, RoundMode mode) {
  for (int64_t k = 0; k < count; ++k) {
    T x = in[k * stride];
    if (clamp) x = std::max(std::min(x, r.max), r.min);
    out[k * stride] = RoundQ(x * r.scale, mode) * r.inverse_scale;
  }
}

// Input viewed as [outer, depth, inner] around `axis` (depth 1 for -1).
struct AxisView {
  int64_t outer = 1;
  int64_t depth = 1;
  int64_t inner = 1;
};

AxisView ViewAround(const TensorShape& shape, int axis) {
  AxisView v;
  if (axis == -1) {
    v.inner = shape.num_elements();
    return v;
  }
  for (int d = 0; d < axis; ++d) v.outer *= shape.dim_size(d);
  v.depth = shape.dim_size(axis);
  for (int d = axis + 1; d < shape.dims(); ++d) v.inner *= shape.dim_size(d);
  return v;
}

template <typename T>
std::string Str(T v) {
  return absl::StrCat(static_cast<double>(v));
}

// How a given range is checked. TensorFlow 2.21's V2/V4 kernel requires a
// vector min for an axis and then scalars in every case, so a given range
// with an axis always fails there; V3 checks sizes per axis.
enum class RangeCheck { kV2, kV3 };

// The shared body of V2, V3 and V4 once num_bits is known: checks the given
// range (or finds it) and writes output 0.
// `given_min` and `given_max`, when set, are the range (QuantizeAndDequantize
// v1's attrs) instead of inputs 1 and 2.
template <typename T>
void QuantizeAndDequantize(OpKernelContext* ctx, int axis, bool signed_input,
                           int num_bits, bool range_given, bool narrow_range,
                           RoundMode mode, RangeCheck check,
                           const Tensor* given_min = nullptr,
                           const Tensor* given_max = nullptr) {
  const Tensor& input = ctx->input(0);
  const AxisView v = ViewAround(input.shape(), axis);
  std::vector<T> min_range(v.depth);
  std::vector<T> max_range(v.depth);
  const T* in = input.data<T>();
  if (range_given) {
    const Tensor& min_t = given_min != nullptr ? *given_min : ctx->input(1);
    const Tensor& max_t = given_max != nullptr ? *given_max : ctx->input(2);
    if (check == RangeCheck::kV2) {
      DFX_OP_REQUIRES(ctx, axis == -1 || min_t.dims() == 1,
                      absl::InvalidArgumentError(
                          "Shape must be rank 1 for input_min_tensor when the "
                          "axis is specified"));
      DFX_OP_REQUIRES(
          ctx, min_t.dims() == 0,
          absl::InvalidArgumentError("input_min must be a scalar."));
      DFX_OP_REQUIRES(
          ctx, max_t.dims() == 0,
          absl::InvalidArgumentError("input_max must be a scalar."));
    }
    if (axis == -1) {
      // V3: TensorFlow reads a scalar without checking; dfx checks.
      DFX_OP_REQUIRES(
          ctx, min_t.dims() == 0 && max_t.dims() == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "input_min and input_max must be scalars when axis is -1, got "
              "shapes ",
              min_t.shape().DebugString(), " and ",
              max_t.shape().DebugString())));
      const T min_val = min_t.data<T>()[0];
      const T max_val = max_t.data<T>()[0];
      DFX_OP_REQUIRES(ctx, min_val <= max_val,
                      absl::InvalidArgumentError(
                          absl::StrCat("Invalid range: input_min ",
                                       Str(min_val), " > input_max ",
                                       Str(max_val))));
    } else {
      for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{
                                        "input_min_tensor", &min_t},
                                    {"input_max_tensor", &max_t}}) {
        DFX_OP_REQUIRES(
            ctx, t->dims() == 1 && t->dim_size(0) == v.depth,
            absl::InvalidArgumentError(absl::StrCat(
                name, " has incorrect size, was ",
                t->dims() == 1 ? t->dim_size(0) : int64_t{-1}, " expected ",
                v.depth, " to match dim ", axis, " of the input ",
                t->shape().DebugString())));
      }
    }
    std::copy(min_t.data<T>(), min_t.data<T>() + v.depth, min_range.begin());
    std::copy(max_t.data<T>(), max_t.data<T>() + v.depth, max_range.begin());
  } else {
    // The range of the data itself, per channel; an empty channel keeps
    // Eigen's empty reductions (+max for min, lowest for max).
    std::fill(min_range.begin(), min_range.end(),
              std::numeric_limits<T>::max());
    std::fill(max_range.begin(), max_range.end(),
              std::numeric_limits<T>::lowest());
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t c = 0; c < v.depth; ++c) {
        const T* p = in + (o * v.depth + c) * v.inner;
        for (int64_t k = 0; k < v.inner; ++k) {
          min_range[c] = std::min(min_range[c], p[k]);
          max_range[c] = std::max(max_range[c], p[k]);
        }
      }
    }
  }
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  T* o = out->data<T>();
  std::vector<QdqRange<T>> ranges(v.depth);
  for (int64_t c = 0; c < v.depth; ++c) {
    ranges[c] = ComputeQdqRange<T>(signed_input, num_bits, narrow_range,
                                   min_range[c], max_range[c]);
  }
  // Only a given range clamps: the data's own range needs none.
  ParallelFor(*ctx->device(), v.outer * v.depth,
              Eigen::TensorOpCost(v.inner * sizeof(T), v.inner * sizeof(T),
                                  v.inner * 6),
              [&](int64_t first, int64_t last) {
                for (int64_t row = first; row < last; ++row) {
                  const int64_t offset = row * v.inner;
                  QdqValues(in + offset, o + offset, v.inner, 1,
                            ranges[row % v.depth], range_given, mode);
                }
              });
}

// Reads axis and checks it against the input as V2/V4 do.
absl::Status CheckAxisV2(int axis, const Tensor& input) {
  if (axis < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Axis must be at least -1. Found ", axis));
  }
  if (axis != -1 && axis >= input.dims()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape must be at least rank ", axis + 1,
                     " but is rank ", input.dims()));
  }
  return absl::OkStatus();
}

// QuantizeAndDequantizeV2 and V4 (the same kernel in TensorFlow).
template <typename T>
class QuantizeAndDequantizeV2Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t axis = -1;
    int64_t num_bits = 8;
    std::string round_mode;
    ctx->SetStatus(ctx->GetAttr("signed_input", &signed_input_));
    ctx->SetStatus(ctx->GetAttr("axis", &axis));
    ctx->SetStatus(ctx->GetAttr("num_bits", &num_bits));
    ctx->SetStatus(ctx->GetAttr("range_given", &range_given_));
    ctx->SetStatus(ctx->GetAttr("round_mode", &round_mode));
    ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range_));
    if (!ctx->status().ok()) return;
    if (num_bits <= 0 || num_bits >= (signed_input_ ? 62 : 63)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("num_bits is out of range: ", num_bits,
                       " with signed_input_ ", signed_input_ ? 1 : 0)));
      return;
    }
    if (round_mode != "HALF_UP" && round_mode != "HALF_TO_EVEN") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', is '",
          round_mode, "'")));
      return;
    }
    num_bits_ = static_cast<int>(num_bits);
    axis_ = static_cast<int>(std::clamp<int64_t>(axis, -2, 1 << 20));
    round_mode_ =
        round_mode == "HALF_UP" ? RoundMode::kHalfUp : RoundMode::kHalfToEven;
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, CheckAxisV2(axis_, ctx->input(0)));
    QuantizeAndDequantize<T>(ctx, axis_, signed_input_, num_bits_,
                             range_given_, narrow_range_, round_mode_,
                             RangeCheck::kV2);
  }

 private:
  bool signed_input_ = true;
  bool range_given_ = false;
  bool narrow_range_ = false;
  int num_bits_ = 8;
  int axis_ = -1;
  RoundMode round_mode_ = RoundMode::kHalfToEven;
};

template <typename T>
class QuantizeAndDequantizeV3Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV3Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t axis = -1;
    ctx->SetStatus(ctx->GetAttr("signed_input", &signed_input_));
    ctx->SetStatus(ctx->GetAttr("range_given", &range_given_));
    ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range_));
    ctx->SetStatus(ctx->GetAttr("axis", &axis));
    axis_ = static_cast<int>(std::clamp<int64_t>(axis, -(1 << 20), 1 << 20));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, -input.dims() <= axis_ && axis_ < input.dims(),
        absl::InvalidArgumentError(absl::StrCat(
            "Axis requested is larger than input dimensions. Axis: ", axis_,
            " Input Dimensions: ", input.dims())));
    // TensorFlow indexes dims with any other negative axis out of bounds;
    // dfx refuses it.
    DFX_OP_REQUIRES(ctx, axis_ >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Axis must be at least -1. Found ", axis_)));
    const Tensor& num_bits_t = ctx->input(3);
    DFX_OP_REQUIRES(ctx, num_bits_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid shape. The `num_bits` tensor should be a "
                        "scalar. Got dimensions: ",
                        num_bits_t.dims())));
    const int num_bits = num_bits_t.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, num_bits > 0 && num_bits < (signed_input_ ? 62 : 63),
        absl::InvalidArgumentError(absl::StrCat(
            "num_bits is out of range: ", num_bits, " with `signed_input_` ",
            signed_input_ ? 1 : 0)));
    QuantizeAndDequantize<T>(ctx, axis_, signed_input_, num_bits,
                             range_given_, narrow_range_,
                             RoundMode::kHalfToEven, RangeCheck::kV3);
  }

 private:
  bool signed_input_ = true;
  bool range_given_ = true;
  bool narrow_range_ = false;
  int axis_ = -1;
};

// The straight-through gradient: passes where min <= input <= max (per
// channel along axis), zero for min and max.
template <typename T>
class QuantizeAndDequantizeV4GradOp : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV4GradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t axis = -1;
    ctx->SetStatus(ctx->GetAttr("axis", &axis));
    axis_ = static_cast<int>(std::clamp<int64_t>(axis, -2, 1 << 20));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradient = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const Tensor& min_t = ctx->input(2);
    const Tensor& max_t = ctx->input(3);
    DFX_OP_REQUIRES(ctx, axis_ >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Axis must be at least -1. Found ", axis_)));
    DFX_OP_REQUIRES(
        ctx, axis_ == -1 || axis_ < input.dims(),
        absl::InvalidArgumentError(absl::StrCat(
            "Axis should be -1 or 0 or a positive value less than ",
            input.dims(), "but given axis value was ", axis_)));
    DFX_OP_REQUIRES(ctx, input.shape() == gradient.shape(),
                    absl::InvalidArgumentError(
                        "gradient and input must be the same size"));
    const AxisView v = ViewAround(input.shape(), axis_);
    const std::pair<const char*, const Tensor*> ranges[] = {{"min", &min_t},
                                                            {"max", &max_t}};
    for (const auto& [name, t] : ranges) {
      DFX_OP_REQUIRES(
          ctx, t->dims() == 0 || t->dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Input ", name, " tensor must have dimension 0 or 1. Received ",
              t->dims(), ".")));
    }
    for (const auto& [name, t] : ranges) {
      if (axis_ == -1) {
        DFX_OP_REQUIRES(ctx, t->dims() == 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "input_", name,
                            " must be a scalar if axis is unspecified")));
        continue;
      }
      DFX_OP_REQUIRES(ctx, t->dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Shape must be rank 1 for input_", name,
                          "_tensor when the axis is specified")));
      DFX_OP_REQUIRES(ctx, t->dim_size(0) == v.depth,
                      absl::InvalidArgumentError(absl::StrCat(
                          name, " has incorrect size, expected ", v.depth,
                          " was ", t->dim_size(0))));
    }
    Tensor* backprop = nullptr;
    Tensor* min_backprop = nullptr;
    Tensor* max_backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &backprop));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, min_t.shape(), &min_backprop));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, max_t.shape(), &max_backprop));
    std::fill(min_backprop->data<T>(),
              min_backprop->data<T>() + min_backprop->NumElements(), T(0));
    std::fill(max_backprop->data<T>(),
              max_backprop->data<T>() + max_backprop->NumElements(), T(0));
    const T* g = gradient.data<T>();
    const T* in = input.data<T>();
    const T* lo = min_t.data<T>();
    const T* hi = max_t.data<T>();
    T* o = backprop->data<T>();
    ParallelFor(*ctx->device(), v.outer * v.depth,
                Eigen::TensorOpCost(2 * v.inner * sizeof(T),
                                    v.inner * sizeof(T), v.inner * 3),
                [&](int64_t first, int64_t last) {
                  for (int64_t row = first; row < last; ++row) {
                    const T min_val = lo[row % v.depth];
                    const T max_val = hi[row % v.depth];
                    const int64_t offset = row * v.inner;
                    for (int64_t k = offset; k < offset + v.inner; ++k) {
                      o[k] = g[k] * ((in[k] >= min_val && in[k] <= max_val)
                                         ? T(1)
                                         : T(0));
                    }
                  }
                });
  }

 private:
  int axis_ = -1;
};

// QuantizeAndDequantize (v1, deprecated at GraphDef version 22): V2 with
// the range in float attrs (cast to T), no axis, half to even.
template <typename T>
class QuantizeAndDequantizeV1Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV1Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t num_bits = 8;
    ctx->SetStatus(ctx->GetAttr("signed_input", &signed_input_));
    ctx->SetStatus(ctx->GetAttr("num_bits", &num_bits));
    ctx->SetStatus(ctx->GetAttr("range_given", &range_given_));
    ctx->SetStatus(ctx->GetAttr("input_min", &input_min_));
    ctx->SetStatus(ctx->GetAttr("input_max", &input_max_));
    if (!ctx->status().ok()) return;
    if (num_bits <= 0 || num_bits >= (signed_input_ ? 62 : 63)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("num_bits is out of range: ", num_bits,
                       " with signed_input_ ", signed_input_ ? 1 : 0)));
      return;
    }
    if (range_given_ && !(input_min_ <= input_max_)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid range: input_min ", input_min_,
                       " > input_max ", input_max_)));
      return;
    }
    num_bits_ = static_cast<int>(num_bits);
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor min_t(DataTypeToEnum<T>::value, TensorShape());
    Tensor max_t(DataTypeToEnum<T>::value, TensorShape());
    min_t.data<T>()[0] = static_cast<T>(input_min_);
    max_t.data<T>()[0] = static_cast<T>(input_max_);
    QuantizeAndDequantize<T>(ctx, -1, signed_input_, num_bits_, range_given_,
                             /*narrow_range=*/false, RoundMode::kHalfToEven,
                             RangeCheck::kV3, &min_t, &max_t);
  }

 private:
  bool signed_input_ = true;
  bool range_given_ = false;
  int num_bits_ = 8;
  float input_min_ = 0;
  float input_max_ = 0;
};

template <typename T>
void RegisterQdq(KernelRegistry* registry) {
  RegisterKernel<QuantizeAndDequantizeV1Op<T>>(
      registry,
      KernelDefBuilder("QuantizeAndDequantize").TypeConstraint<T>("T"));
  RegisterKernel<QuantizeAndDequantizeV2Op<T>>(
      registry,
      KernelDefBuilder("QuantizeAndDequantizeV2").TypeConstraint<T>("T"));
  RegisterKernel<QuantizeAndDequantizeV2Op<T>>(
      registry,
      KernelDefBuilder("QuantizeAndDequantizeV4").TypeConstraint<T>("T"));
  RegisterKernel<QuantizeAndDequantizeV3Op<T>>(
      registry,
      KernelDefBuilder("QuantizeAndDequantizeV3").TypeConstraint<T>("T"));
  RegisterKernel<QuantizeAndDequantizeV4GradOp<T>>(
      registry,
      KernelDefBuilder("QuantizeAndDequantizeV4Grad").TypeConstraint<T>("T"));
}

}  // namespace

namespace misc_internal {

void RegisterQuantizationKernels(KernelRegistry* registry) {
  RegisterKernel<FakeQuantWithMinMaxArgsOp>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxArgs"));
  RegisterKernel<FakeQuantWithMinMaxArgsGradientOp>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxArgsGradient"));
  RegisterKernel<FakeQuantVarsKernel<false, false>>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxVars"));
  RegisterKernel<FakeQuantVarsKernel<false, true>>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxVarsGradient"));
  RegisterKernel<FakeQuantVarsKernel<true, false>>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxVarsPerChannel"));
  RegisterKernel<FakeQuantVarsKernel<true, true>>(
      registry, KernelDefBuilder("FakeQuantWithMinMaxVarsPerChannelGradient"));
  // TensorFlow's CPU kernels: float and double only.
  RegisterQdq<float>(registry);
  RegisterQdq<double>(registry);
}

}  // namespace misc_internal

void RegisterMiscKernels(KernelRegistry* registry) {
  misc_internal::RegisterQuantizationKernels(registry);
  misc_internal::RegisterBesselKernels(registry);
  misc_internal::RegisterMiscScanKernels(registry);
  misc_internal::RegisterLuTridiagonalKernels(registry);
  misc_internal::RegisterTridiagonalSolveKernels(registry);
  misc_internal::RegisterMatrixSquareRootKernels(registry);
  misc_internal::RegisterCtcKernels(registry);
  misc_internal::RegisterCtcLossKernels(registry);
  misc_internal::RegisterStringFormatKernels(registry);
  misc_internal::RegisterPrintV2Kernels(registry);
  misc_internal::RegisterSegmentV2Kernels(registry);
}

}  // namespace dfx

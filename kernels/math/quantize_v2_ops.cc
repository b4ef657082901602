// QuantizeV2 and Dequantize: float to qint8/quint8/qint16/quint16/qint32 and
// back in TensorFlow's three modes (MIN_COMBINED, MIN_FIRST, SCALED), per
// tensor or per channel along `axis`, with TensorFlow 2.21's CPU kernels'
// arithmetic step by step in the same precision (quantize_op.cc,
// dequantize_op.cc, quantization_utils.h), so that the results equal its
// bitwise: float math where it computes in float, doubles where it does, and
// x86's float-to-int32 conversion (NaN and out-of-range give INT32_MIN)
// where its Eigen casts do one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/nn/nn2_kernels.h"
#include "runtime/quantized_types.h"

namespace dfx::nn2_internal {
namespace {

enum class Mode { kMinCombined, kMinFirst, kScaled };

absl::Status ParseMode(const std::string& s, Mode* mode) {
  if (s == "MIN_COMBINED") {
    *mode = Mode::kMinCombined;
  } else if (s == "MIN_FIRST") {
    *mode = Mode::kMinFirst;
  } else if (s == "SCALED") {
    *mode = Mode::kScaled;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Mode string must be 'MIN_COMBINED', 'MIN_FIRST', or 'SCALED', is '",
        s, "'"));
  }
  return absl::OkStatus();
}

// The conversion x86 makes (cvttss2si): toward zero, and INT32_MIN for NaN
// and for values out of int32's range.
int32_t TruncateToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(v);
}

// Q's integer range as TensorFlow's numeric_limits give it.
template <typename Q>
struct QLimits {
  using Storage = typename Q::StorageType;
  static constexpr int64_t kLowest = std::numeric_limits<Storage>::min();
  static constexpr int64_t kHighest = std::numeric_limits<Storage>::max();
  static constexpr bool kSigned = kLowest < 0;
  static constexpr int kBits = 8 * sizeof(Storage);
};

// A float already rounded (or clamped) to Q's range, stored as Q: through
// int32, keeping the low bits, as Eigen's casts do.
template <typename Q>
Q StoreQuantized(float v) {
  return Q{static_cast<typename Q::StorageType>(TruncateToInt32(v))};
}

// A value rounded by MIN_COMBINED or SCALED (half away from zero when
// `away`), stored as Q as TensorFlow's Eigen casts store it; they differ
// only for NaN (seen in TensorFlow 2.21's CPU kernels): the lowest value
// for qint8 and qint16 rounded half away from zero, 0 otherwise.
template <typename Q>
Q StoreRounded(float v, bool away) {
  using L = QLimits<Q>;
  if (std::isnan(v)) {
    const bool lowest = away && L::kSigned && L::kBits < 32;
    return Q{static_cast<typename Q::StorageType>(lowest ? L::kLowest : 0)};
  }
  return StoreQuantized<Q>(v);
}

// The range QuantizeV2 widens [min, max] to: it holds zero and is at least
// ensure_minimum_range times the larger magnitude (or 1) wide.
void WidenRange(float input_min, float input_max, float ensure_minimum_range,
                float* min_range, float* max_range) {
  *min_range = std::min(0.0f, input_min);
  const float epsilon =
      std::max(1.0f, std::max(std::fabs(input_min), std::fabs(input_max))) *
      ensure_minimum_range;
  *max_range = std::max(0.0f, std::max(input_max, *min_range + epsilon));
}

// One slice of a QuantizeV2 (the whole tensor, or one index of `axis`):
// `count` runs of `run` elements, `stride` apart.
struct Slice {
  int64_t count;
  int64_t run;
  int64_t stride;
  int64_t offset;
};

template <typename F>
void ForEachInSlice(const Slice& s, F&& f) {
  for (int64_t i = 0; i < s.count; ++i) {
    const int64_t base = s.offset + i * s.stride;
    for (int64_t k = base; k < base + s.run; ++k) f(k);
  }
}

class QuantizeV2Base : public OpKernel {
 public:
  explicit QuantizeV2Base(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

 protected:
  Mode mode_ = Mode::kMinCombined;
  bool half_to_even_ = false;
  bool narrow_range_ = false;
  int64_t axis_ = -1;
  float ensure_minimum_range_ = 0.01f;

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    std::string mode, round_mode;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("mode", &mode));
    DFX_RETURN_IF_ERROR(ParseMode(mode, &mode_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("round_mode", &round_mode));
    if (round_mode == "HALF_TO_EVEN") {
      if (mode_ != Mode::kScaled) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but "
            "mode is '",
            mode, "'."));
      }
      half_to_even_ = true;
    } else if (round_mode != "HALF_AWAY_FROM_ZERO") {
      return absl::InvalidArgumentError(absl::StrCat(
          "Round mode string must be 'HALF_AWAY_FROM_ZERO' or "
          "'HALF_TO_EVEN', is '",
          round_mode, "'"));
    }
    DFX_RETURN_IF_ERROR(ctx.GetAttr("narrow_range", &narrow_range_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("axis", &axis_));
    return ctx.GetAttr("ensure_minimum_range", &ensure_minimum_range_);
  }
};

template <typename Q>
class QuantizeV2Op : public QuantizeV2Base {
  using L = QLimits<Q>;

 public:
  using QuantizeV2Base::QuantizeV2Base;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& min_t = ctx->input(1);
    const Tensor& max_t = ctx->input(2);
    int64_t num_slices = 1;
    if (axis_ > -1) {
      DFX_OP_REQUIRES(
          ctx, input.dims() > axis_,
          absl::InvalidArgumentError(absl::StrCat(
              "Axis is on a zero-based index, so its value must always be "
              "less than number of input's dims, but given axis value was ",
              axis_, " and input's dims was ", input.dims())));
      num_slices = input.dim_size(static_cast<int>(axis_));
      for (const auto& [name, t] :
           {std::pair{"min_range", &min_t}, std::pair{"max_range", &max_t}}) {
        DFX_OP_REQUIRES(
            ctx, t->dims() == 1,
            absl::InvalidArgumentError(absl::StrCat(
                "If axis is specified, ", name,
                " must be a 1-D tensor whose size matches the axis dimension "
                "of the input and output tensors, but ",
                name, " dims are ", t->dims())));
        DFX_OP_REQUIRES(
            ctx, t->dim_size(0) == num_slices,
            absl::InvalidArgumentError(absl::StrCat(
                "If axis is specified, ", name,
                " must be a 1-D tensor whose size matches the axis dimension "
                "of the input and output tensors, but ",
                name, " is a 1-D tensor of size ", t->dim_size(0),
                " and input's axis dimension is of size ", num_slices)));
      }
    } else {
      for (const auto& [name, t] :
           {std::pair{"min_range", &min_t}, std::pair{"max_range", &max_t}}) {
        DFX_OP_REQUIRES(
            ctx, t->NumElements() == 1,
            absl::InvalidArgumentError(absl::StrCat(
                "If axis is not specified, ", name,
                " must contain a single float element, but it contains ",
                t->NumElements(), " elements")));
      }
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const float* in = input.data<float>();
    Q* out = output->data<Q>();
    Tensor* out_min = nullptr;
    Tensor* out_max = nullptr;
    if (num_slices == 1) {
      // One range for the whole tensor (also when `axis` has size 1): the
      // range outputs are scalars then, as TensorFlow allocates them.
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &out_min));
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &out_max));
      const float lo = min_t.data<float>()[0];
      const float hi = max_t.data<float>()[0];
      DFX_OP_REQUIRES(ctx, !(hi < lo),
                      absl::InvalidArgumentError(
                          "input_max_range must be larger than "
                          "input_min_range."));
      const Slice all{1, input.NumElements(), 0, 0};
      if (mode_ == Mode::kMinFirst) {
        QuantizeMinFirst(in, lo, hi, all, out, out_min->data<float>(),
                         out_max->data<float>());
      } else {
        QuantizeSlice(in, lo, hi, all, out, out_min->data<float>(),
                      out_max->data<float>());
      }
      return;
    }
    DFX_OP_REQUIRES(ctx, mode_ != Mode::kMinFirst,
                    absl::UnimplementedError(
                        "MIN_FIRST mode is not implemented for Quantize with "
                        "axis != -1."));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, min_t.shape(), &out_min));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, max_t.shape(), &out_max));
    int64_t pre = 1, post = 1;
    for (int i = 0; i < axis_; ++i) pre *= input.dim_size(i);
    for (int i = static_cast<int>(axis_) + 1; i < input.dims(); ++i) {
      post *= input.dim_size(i);
    }
    const float* mins = min_t.data<float>();
    const float* maxs = max_t.data<float>();
    for (int64_t i = 0; i < num_slices; ++i) {
      DFX_OP_REQUIRES(ctx, !(maxs[i] < mins[i]),
                      absl::InvalidArgumentError(
                          "input_max_range must be larger than "
                          "input_min_range."));
      QuantizeSlice(in, mins[i], maxs[i], Slice{pre, post, num_slices * post,
                                                i * post},
                    out, out_min->data<float>() + i,
                    out_max->data<float>() + i);
    }
  }

 private:
  // MIN_FIRST (quantization_utils.h's FloatToQuantizedStruct and
  // QUANTIZE_WITH_EIGEN): levels counted from round(min * scale).
  void QuantizeMinFirst(const float* in, float input_min, float input_max,
                        const Slice& s, Q* out, float* out_min,
                        float* out_max) const {
    float min_range, max_range;
    WidenRange(input_min, input_max, ensure_minimum_range_, &min_range,
               &max_range);
    const double steps = std::ldexp(1.0, L::kBits);
    const float range_scale =
        max_range == min_range
            ? 0.0f
            : static_cast<float>((steps - 1.0) /
                                 static_cast<double>(max_range - min_range));
    const float range_min_scaled = std::round(min_range * range_scale);
    const float lowest = static_cast<float>(L::kLowest);
    const float offset = range_min_scaled - lowest;
    const float lower = std::max(lowest, -2.147483648e+09f);
    const float upper =
        std::min(static_cast<float>(L::kHighest), +2.147483520e+09f);
    ForEachInSlice(s, [&](int64_t k) {
      float v = std::round(in[k] * range_scale) - offset;
      v = std::min(std::max(v, lower), upper);
      out[k] = StoreQuantized<Q>(v);
    });
    *out_min = min_range;
    *out_max = max_range;
  }

  // MIN_COMBINED and SCALED for one slice (quantize_op.cc's QuantizeSlice).
  void QuantizeSlice(const float* in, float input_min, float input_max,
                     const Slice& s, Q* out, float* out_min,
                     float* out_max) const {
    float min_range, max_range;
    WidenRange(input_min, input_max, ensure_minimum_range_, &min_range,
               &max_range);
    if (mode_ == Mode::kMinCombined) {
      const float scale_factor = static_cast<float>(
          (static_cast<double>(L::kHighest) - static_cast<double>(L::kLowest)) /
          static_cast<double>(max_range - min_range));
      if (L::kSigned) {
        const float half_range = static_cast<float>(
            (static_cast<double>(L::kHighest) -
             static_cast<double>(L::kLowest) + 1) /
            2.0f);
        ForEachInSlice(s, [&](int64_t k) {
          const float c = std::max(std::min(in[k], max_range), min_range);
          out[k] = StoreRounded<Q>(
              std::round((c - min_range) * scale_factor - half_range),
              /*away=*/true);
        });
      } else {
        ForEachInSlice(s, [&](int64_t k) {
          const float c = std::max(std::min(in[k], max_range), min_range);
          out[k] = StoreRounded<Q>((c - min_range) * scale_factor + 0.5f,
                                   /*away=*/false);
        });
      }
    } else {
      const int64_t min_output = L::kLowest + (narrow_range_ ? 1 : 0);
      const float min_output_f = static_cast<float>(min_output);
      const float max_output_f = static_cast<float>(L::kHighest);
      const float from_min = min_output_f * min_range > 0
                                 ? min_output_f / min_range
                                 : std::numeric_limits<float>::max();
      const float from_max = max_output_f * max_range > 0
                                 ? max_output_f / max_range
                                 : std::numeric_limits<float>::max();
      const float scale_factor = std::min(from_min, from_max);
      min_range = min_output_f / scale_factor;
      max_range = max_output_f / scale_factor;
      ForEachInSlice(s, [&](int64_t k) {
        const float v =
            std::max(std::min(in[k], max_range), min_range) * scale_factor;
        out[k] = half_to_even_ ? StoreRounded<Q>(std::nearbyint(v), false)
                               : StoreRounded<Q>(std::round(v), true);
      });
    }
    *out_min = min_range;
    *out_max = max_range;
  }
};

template <typename Q, typename Out>
class DequantizeOp : public OpKernel {
  using L = QLimits<Q>;

 public:
  explicit DequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    ctx->SetStatus(ctx->GetAttr("mode", &mode));
    if (!ctx->status().ok()) return;
    if (std::is_same_v<Out, Eigen::bfloat16> && mode != "MIN_COMBINED") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "When output type is bfloat16, Mode string must be "
          "'MIN_COMBINED', is '",
          mode, "'")));
      return;
    }
    ctx->SetStatus(ParseMode(mode, &mode_));
    ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range_));
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& min_t = ctx->input(1);
    const Tensor& max_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, axis_ < input.dims(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Axis must be less than input dimension(",
                        input.dims(), "), got ", axis_)));
    // TensorFlow indexes dims with any other negative axis (its shape
    // function refuses them); dfx refuses them here too.
    DFX_OP_REQUIRES(ctx, axis_ >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "axis should be at least -1, got ", axis_)));
    const int64_t num_slices =
        axis_ > -1 ? input.dim_size(static_cast<int>(axis_)) : 1;
    for (const auto& [name, t] : {std::pair{"input_min_tensor", &min_t},
                                  std::pair{"input_max_tensor", &max_t}}) {
      DFX_OP_REQUIRES(ctx, t->NumElements() == num_slices,
                      absl::InvalidArgumentError(absl::StrCat(
                          name,
                          " must have as many elements as input on the "
                          "dequantization axis (",
                          axis_, "), got ", t->NumElements(), ", expected ",
                          num_slices)));
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const Q* in = input.data<Q>();
    Out* out = output->data<Out>();
    if (num_slices == 1) {
      const Slice all{1, input.NumElements(), 0, 0};
      const float lo = min_t.data<float>()[0];
      const float hi = max_t.data<float>()[0];
      if (mode_ == Mode::kMinFirst) {
        DequantizeMinFirst(in, lo, hi, all, out);
      } else {
        DequantizeSlice(in, lo, hi, all, /*whole_tensor=*/true, out);
      }
      return;
    }
    DFX_OP_REQUIRES(ctx, mode_ != Mode::kMinFirst,
                    absl::UnimplementedError(
                        "MIN_FIRST mode is not implemented for Dequantize "
                        "with axis != -1."));
    int64_t pre = 1, post = 1;
    for (int i = 0; i < axis_; ++i) pre *= input.dim_size(i);
    for (int i = static_cast<int>(axis_) + 1; i < input.dims(); ++i) {
      post *= input.dim_size(i);
    }
    for (int64_t i = 0; i < num_slices; ++i) {
      DequantizeSlice(in, min_t.data<float>()[i], max_t.data<float>()[i],
                      Slice{pre, post, num_slices * post, i * post},
                      /*whole_tensor=*/false, out);
    }
  }

 private:
  static Out Convert(float v) { return static_cast<Out>(v); }

  // quantization_utils.h's QuantizedToFloatStruct and DEQUANTIZE_WITH_EIGEN.
  void DequantizeMinFirst(const Q* in, float min_range, float max_range,
                          const Slice& s, Out* out) const {
    const double steps = std::ldexp(1.0, L::kBits);
    const float range_scale = static_cast<float>(
        static_cast<double>(max_range - min_range) / (steps - 1.0));
    const float range_min_rounded =
        max_range == min_range
            ? min_range
            : std::round(min_range / range_scale) * range_scale;
    const float base =
        range_min_rounded - static_cast<float>(L::kLowest) * range_scale;
    ForEachInSlice(s, [&](int64_t k) {
      out[k] = Convert(base + static_cast<float>(in[k].value) * range_scale);
    });
  }

  // MIN_COMBINED and SCALED. TensorFlow's whole-tensor SCALED path casts
  // through int (a qint32 value that rounds to 2^31 as a float comes back
  // as INT32_MIN); its per-slice path does not.
  void DequantizeSlice(const Q* in, float min_range, float max_range,
                       const Slice& s, bool whole_tensor, Out* out) const {
    const float lowest = static_cast<float>(L::kLowest);
    const float highest = static_cast<float>(L::kHighest);
    if (mode_ == Mode::kMinCombined) {
      const float half_range =
          L::kSigned ? (highest - lowest + 1.0f) / 2.0f : 0.0f;
      const float scale_factor = (max_range - min_range) / (highest - lowest);
      ForEachInSlice(s, [&](int64_t k) {
        out[k] = Convert((static_cast<float>(in[k].value) + half_range) *
                             scale_factor +
                         min_range);
      });
      return;
    }
    const float min_output =
        static_cast<float>(L::kLowest + (narrow_range_ ? 1 : 0));
    const float scale_factor =
        L::kLowest == 0 ? max_range / highest
                        : std::max(min_range / min_output, max_range / highest);
    ForEachInSlice(s, [&](int64_t k) {
      float v = static_cast<float>(in[k].value);
      if (whole_tensor) v = static_cast<float>(TruncateToInt32(v));
      out[k] = Convert(v * scale_factor);
    });
  }

  Mode mode_ = Mode::kMinCombined;
  bool narrow_range_ = false;
  int64_t axis_ = -1;
};

template <typename Q>
void RegisterFor(KernelRegistry* registry) {
  RegisterKernel<QuantizeV2Op<Q>>(
      registry, KernelDefBuilder("QuantizeV2").template TypeConstraint<Q>("T"));
  RegisterKernel<DequantizeOp<Q, float>>(
      registry, KernelDefBuilder("Dequantize")
                    .template TypeConstraint<Q>("T")
                    .template TypeConstraint<float>("dtype"));
  RegisterKernel<DequantizeOp<Q, Eigen::bfloat16>>(
      registry, KernelDefBuilder("Dequantize")
                    .template TypeConstraint<Q>("T")
                    .template TypeConstraint<Eigen::bfloat16>("dtype"));
}

}  // namespace

void RegisterQuantizeV2Kernels(KernelRegistry* registry) {
  RegisterFor<qint8>(registry);
  RegisterFor<quint8>(registry);
  RegisterFor<qint16>(registry);
  RegisterFor<quint16>(registry);
  RegisterFor<qint32>(registry);
}

}  // namespace dfx::nn2_internal

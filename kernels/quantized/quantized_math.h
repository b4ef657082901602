// The arithmetic of TensorFlow's eight-bit inference kernels
// (quantization_utils.h in TensorFlow 2.21), in the same precision step by
// step so that dfx's integers equal TensorFlow's: the scalar conversions
// between floats and quantized levels (computed in double), the
// tensor-wide ones (computed in float, as TensorFlow's Eigen expressions
// are), the fixed-point qint32 -> quint8 requantization, and the output
// ranges of products and sums. Used by the kernels of kernels/quantized/.
#ifndef DFX_KERNELS_QUANTIZED_QUANTIZED_MATH_H_
#define DFX_KERNELS_QUANTIZED_QUANTIZED_MATH_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/quantized_types.h"

namespace dfx::quantized {

// Q's integer range.
template <typename Q>
struct Levels {
  using Storage = typename Q::StorageType;
  static constexpr int64_t kLowest = std::numeric_limits<Storage>::min();
  static constexpr int64_t kHighest = std::numeric_limits<Storage>::max();
  static constexpr int kBits = 8 * sizeof(Storage);
  static constexpr int64_t kSteps = int64_t{1} << kBits;
};

// x86's double -> int64 conversion (cvttsd2si): toward zero, INT64_MIN for
// NaN and for values out of range (C++ leaves those undefined).
inline int64_t TruncToInt64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

// The low 32 bits of v as a signed int32 (two's complement wrap).
inline int32_t Wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// FloatToQuantizedUnclamped: the level of `input` in [range_min, range_max],
// not clamped to Q (the lowest level when the range is empty).
template <typename Q>
int64_t FloatToLevelUnclamped(float input, float range_min, float range_max) {
  using L = Levels<Q>;
  if (range_min == range_max) return L::kLowest;
  const double steps = static_cast<double>(L::kSteps);
  const double range_adjust = steps / (steps - 1.0);
  const double range =
      static_cast<double>(range_max - range_min) * range_adjust;
  const double range_scale = steps / range;
  const int64_t quantized =
      TruncToInt64(std::round(static_cast<double>(input) * range_scale) -
                   std::round(static_cast<double>(range_min) * range_scale));
  return static_cast<int64_t>(static_cast<uint64_t>(quantized) +
                              static_cast<uint64_t>(L::kLowest));
}

// FloatToQuantized: as above, clamped to Q's levels.
template <typename Q>
Q FloatToLevel(float input, float range_min, float range_max) {
  using L = Levels<Q>;
  int64_t q = FloatToLevelUnclamped<Q>(input, range_min, range_max);
  q = std::min(std::max(q, L::kLowest), L::kHighest);
  return Q{static_cast<int32_t>(q)};
}

// QuantizedToFloat: the real number level `input` of Q stands for. The
// rounded minimum is computed in float, as TensorFlow does for agreement
// with its tensor-wide form, and the level is read as a float first.
template <typename Q>
float LevelToFloat(int64_t input, float range_min, float range_max) {
  using L = Levels<Q>;
  if (range_min == range_max) return range_min;
  const double steps = static_cast<double>(L::kSteps);
  const double range_adjust = steps / (steps - 1.0);
  const double range =
      static_cast<double>(range_max - range_min) * range_adjust;
  const double range_scale = range / steps;
  // TensorFlow converts the level through float (Eigen's quantized types
  // convert only to float), which rounds a qint32 level to 24 bits.
  const double offset_input = static_cast<double>(static_cast<float>(input)) -
                              static_cast<double>(L::kLowest);
  const float scale_f = static_cast<float>(range_scale);
  const float min_rounded = std::round(range_min / scale_f) * scale_f;
  return static_cast<float>(static_cast<double>(min_rounded) +
                            offset_input * range_scale);
}

// RequantizeInNewRange for one value.
template <typename In, typename Out>
Out RequantizeLevel(int64_t input, float min_input, float max_input,
                    float min_new, float max_new) {
  return FloatToLevel<Out>(LevelToFloat<In>(input, min_input, max_input),
                           min_new, max_new);
}

// QuantizedToFloatStruct with DEQUANTIZE_WITH_EIGEN: float arithmetic.
template <typename Q>
class TensorDequantizer {
 public:
  TensorDequantizer(float range_min, float range_max) {
    using L = Levels<Q>;
    scale_ = static_cast<float>(static_cast<double>(range_max - range_min) /
                                (static_cast<double>(L::kSteps) - 1.0));
    const float min_rounded = range_max == range_min
                                  ? range_min
                                  : std::round(range_min / scale_) * scale_;
    base_ = min_rounded - static_cast<float>(L::kLowest) * scale_;
  }
  float operator()(int64_t level) const {
    return base_ + static_cast<float>(level) * scale_;
  }

 private:
  float scale_ = 0;
  float base_ = 0;
};

// FloatToQuantizedStruct with QUANTIZE_WITH_EIGEN: float arithmetic,
// rounding half away from zero, clamped to Q (and to what converts back to
// int32).
template <typename Q>
class TensorQuantizer {
 public:
  TensorQuantizer(float range_min, float range_max) {
    using L = Levels<Q>;
    scale_ =
        range_max == range_min
            ? 0.0f
            : static_cast<float>((static_cast<double>(L::kSteps) - 1.0) /
                                 static_cast<double>(range_max - range_min));
    const float min_scaled = std::round(range_min * scale_);
    offset_ = min_scaled - static_cast<float>(L::kLowest);
    lower_ = std::max(static_cast<float>(L::kLowest), -2.147483648e+09f);
    upper_ = std::min(static_cast<float>(L::kHighest), +2.147483520e+09f);
  }
  Q operator()(float v) const {
    float q = std::round(v * scale_) - offset_;
    // NaN stays NaN through Eigen's max/min; it is stored as the lowest
    // level here (x86's conversion gives INT32_MIN).
    if (std::isnan(q)) return Q{static_cast<int32_t>(Levels<Q>::kLowest)};
    q = std::min(std::max(q, lower_), upper_);
    return Q{static_cast<int32_t>(q)};
  }

 private:
  float scale_ = 0;
  float offset_ = 0;
  float lower_ = 0;
  float upper_ = 0;
};

// RequantizeManyInNewRangeUsingEigen for any In -> Out but qint32 ->
// quint8: dequantize and quantize again, in float.
template <typename In, typename Out>
void RequantizeTensor(const In* in, int64_t n, float min_input, float max_input,
                      float min_output, float max_output, Out* out) {
  const TensorDequantizer<In> q2f(min_input, max_input);
  const TensorQuantizer<Out> f2q(min_output, max_output);
  for (int64_t i = 0; i < n; ++i) out[i] = f2q(q2f(in[i].value));
}

// The qint32 -> quint8 specialization: 16-bit fixed point, on each level
// rounded to float first (TensorFlow's Eigen cast of qint32 to int64 goes
// through float).
void RequantizeTensor(const qint32* in, int64_t n, float min_input,
                      float max_input, float min_output, float max_output,
                      quint8* out);

// QuantizationRangeForMultiplication: the range of a product of levels of
// A and B stored as C.
template <typename A, typename B, typename C>
void ProductRange(float min_a, float max_a, float min_b, float max_b,
                  float* min_c, float* max_c) {
  const float a_level =
      (max_a - min_a) /
      static_cast<float>(Levels<A>::kHighest - Levels<A>::kLowest);
  const float b_level =
      (max_b - min_b) /
      static_cast<float>(Levels<B>::kHighest - Levels<B>::kLowest);
  const float c_level = a_level * b_level;
  *min_c = c_level * static_cast<float>(Levels<C>::kLowest);
  *max_c = c_level * static_cast<float>(Levels<C>::kHighest);
}

// GetOutputMinAndMaxForQuantizedAdd: symmetric, 2^17 times the largest
// magnitude of either range.
inline void BiasAddRange(float input_min, float input_max, float bias_min,
                         float bias_max, float* output_min, float* output_max) {
  *output_max =
      std::max(input_max, std::max(-input_min, std::max(bias_max, -bias_min))) *
      static_cast<float>(1 << 17);
  *output_min = -*output_max;
}

}  // namespace dfx::quantized

#endif  // DFX_KERNELS_QUANTIZED_QUANTIZED_MATH_H_

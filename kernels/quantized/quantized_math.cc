#include "kernels/quantized/quantized_math.h"

namespace dfx::quantized {

// TensorFlow's RequantizeManyInNewRangeUsingEigen<qint32, quint8>: the
// constants in double and float as it computes them, then 16-bit fixed
// point per element (int64 products wrap, as two's complement does).
void RequantizeTensor(const qint32* in, int64_t n, float min_input,
                      float max_input, float min_output, float max_output,
                      quint8* out) {
  constexpr int kShift = 16;
  const float input_range = max_input - min_input;
  const float output_range = max_output - min_output;
  const float recip_output_range =
      output_range == 0.0f
          ? 0.0f
          : static_cast<float>(255.0 / static_cast<double>(output_range));
  const float input_rezero =
      static_cast<float>(static_cast<double>(min_input + max_input) / 2.0);
  const int64_t range_scale_fp =
      output_range == 0.0f ? 0
                           : TruncToInt64(255.0 * (1 << kShift) *
                                          static_cast<double>(input_range) /
                                          static_cast<double>(output_range));
  const int64_t input_offset_fp = TruncToInt64(static_cast<double>(
      input_rezero * recip_output_range * static_cast<float>(1 << kShift)));
  const int64_t output_offset_fp =
      output_range == 0.0f
          ? 0
          : TruncToInt64((1 << kShift) *
                         (static_cast<double>(min_output) * 255.0) /
                         static_cast<double>(output_range));
  const int64_t rounding_delta = int64_t{1} << (kShift - 1);
  const uint64_t add = static_cast<uint64_t>(input_offset_fp) -
                       static_cast<uint64_t>(output_offset_fp) +
                       static_cast<uint64_t>(rounding_delta);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t level = static_cast<int64_t>(static_cast<float>(in[i].value));
    const int64_t product = static_cast<int64_t>(
        static_cast<uint64_t>(level) * static_cast<uint64_t>(range_scale_fp));
    const int64_t fp_value =
        static_cast<int64_t>(static_cast<uint64_t>(product >> 32) + add);
    int64_t q = fp_value >> kShift;
    q = std::min<int64_t>(std::max<int64_t>(q, 0), 255);
    out[i] = quint8{static_cast<int32_t>(q)};
  }
}

}  // namespace dfx::quantized

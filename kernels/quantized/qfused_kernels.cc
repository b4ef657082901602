// The qfused family's kernels: TensorFlow's fused quantized convolutions
// (QuantizedConv2D with bias, Relu, Sum and Requantize fused,
// QuantizedConv2DPerChannel, QuantizedDepthwiseConv2D*) and matrix
// products (QuantizedMatMulWithBias*), for the types TensorFlow 2.21's CPU
// kernels serve. TensorFlow runs these ops through oneDNN v3 (its graph
// pass rewrites them to _Mkl* ops); dfx follows oneDNN's arithmetic step by
// step: the int32 sum of level products, then in float the product with
// src_scale * wei_scale[channel], the bias (in real units: a qint32 bias is
// divided by TensorFlow's scale first), the summand, Relu, the product with
// 1 / dst_scale, and rounding half to even with saturation. So a "qint32"
// output is the sum in units of src_scale * wei_scale, not the plain sum,
// whenever a bias is fused or the filter ranges differ per channel. The
// scales are TensorFlow's: max(|min|, |max|) / 255 (quint8) or / 127
// (qint8) for inputs and filters, the matmul input's (max - min) / 255
// (TensorFlow's rewrite does not carry input_quant_mode to oneDNN's kernel,
// which therefore always works in MIN_FIRST mode), and the output ranges
// of qint32 results are MklQuantizationRangeForMultiplication's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op_kernel.h"
#include "runtime/quantized_types.h"

namespace dfx {
namespace {

// oneDNN's float -> integer store: round half to even, saturate to
// [lo, hi] (for int32 the highest float below 2^31). NaN becomes the upper
// bound of an unsigned type (oneDNN clamps only from above there, and x86's
// minps answers its second operand for NaN) and the lower bound of a
// signed one (clamped from below first).
int64_t RoundSaturate(float v, int64_t lo, int64_t hi) {
  const float flo = static_cast<float>(lo);
  const float fhi =
      hi > (int64_t{1} << 24) ? 2147483520.0f : static_cast<float>(hi);
  if (std::isnan(v)) return lo == 0 ? hi : lo;
  v = std::min(std::max(v, flo), fhi);
  return static_cast<int64_t>(std::nearbyint(v));
}

// MklFloatForOneQuantizedLevel: the range over the symmetric level count
// (254 for qint8, 255 for quint8).
float FloatPerLevel(DataType t, float min, float max) {
  const float levels = t == DT_QINT8 ? 254.0f : 255.0f;
  return (max - min) / levels;
}

// MklQuantizationRangeForMultiplication<T1, qint8, qint32>.
void ProductRange(DataType input_type, float min_a, float max_a, float min_b,
                  float max_b, float* min_c, float* max_c) {
  const float c = FloatPerLevel(input_type, min_a, max_a) *
                  FloatPerLevel(DT_QINT8, min_b, max_b);
  *min_c = c * -2147483648.0f;
  *max_c = c * 2147483648.0f;
}

float AbsMax(float a, float b) { return std::max(std::abs(a), std::abs(b)); }

// Level i of an 8-bit tensor of type t.
int32_t Level8(const Tensor& t, int64_t i) {
  return t.dtype() == DT_QINT8 ? t.data<qint8>()[i].value
                               : t.data<quint8>()[i].value;
}

// Stores f (already in output units) at index i of `out`.
void Store(Tensor* out, int64_t i, float f) {
  switch (out->dtype()) {
    case DT_QINT32:
      out->data<qint32>()[i] = qint32(
          static_cast<int32_t>(RoundSaturate(f, -2147483648LL, 2147483647LL)));
      break;
    case DT_QUINT8:
      out->data<quint8>()[i] = quint8(RoundSaturate(f, 0, 255));
      break;
    case DT_QINT8:
      out->data<qint8>()[i] = qint8(RoundSaturate(f, -128, 127));
      break;
    default:
      out->data<float>()[i] = f;
  }
}

absl::Status ScalarInput(const OpKernelContext& ctx, int i, const char* name,
                         float* v) {
  const Tensor& t = ctx.input(i);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("`", name, "` must be rank 0 but is rank ", t.dims()));
  }
  *v = t.data<float>()[0];
  return absl::OkStatus();
}

// The fusions of one convolution op, and where its inputs are.
struct ConvFusion {
  bool bias = false;
  bool relu = false;
  bool requantize = false;
  int summand = 0;  // 0 none, 1 float (qint32 out), 2 8-bit with a range
  bool depthwise = false;
};

// Every fused convolution: NHWC input levels (quint8, or qint8 where
// TensorFlow registers it) with an HWIO qint8 filter (HW, input channels,
// multiplier for the depthwise ops), SAME or VALID, strides and dilations;
// `fusion` says which inputs follow and what is applied to the sums.
class QfusedConvOp : public OpKernel {
 public:
  QfusedConvOp(OpKernelConstruction* ctx, ConvFusion fusion)
      : OpKernel(ctx), fusion_(fusion) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Run(ctx));
  }

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations_));
    if (strides_.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window strides field must specify 4 dimensions");
    }
    if (dilations_.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window dilations field must specify 4 dimensions");
    }
    if (strides_[0] != 1 || strides_[3] != 1) {
      return absl::UnimplementedError(
          "Current implementation does not yet support strides in the batch "
          "and depth dimensions.");
    }
    if (dilations_[0] != 1 || dilations_[3] != 1) {
      return absl::UnimplementedError(
          "Current implementation does not yet support dilations in the batch "
          "and depth dimensions.");
    }
    for (int i = 1; i <= 2; ++i) {
      if (strides_[i] <= 0 || dilations_[i] <= 0) {
        return absl::InvalidArgumentError(
            "Sliding window strides and dilations must be positive");
      }
    }
    std::string padding;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
    same_ = padding == "SAME";  // the OpDef allows SAME and VALID only
    return absl::OkStatus();
  }

  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 4-dimensional: ", input.shape().DebugString()));
    }
    if (filter.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filter must be 4-dimensional: ", filter.shape().DebugString()));
    }
    const int b = fusion_.bias ? 1 : 0;
    float min_input = 0, max_input = 0;
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 2 + b, "min_input", &min_input));
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 3 + b, "max_input", &max_input));
    const Tensor& min_filter = ctx->input(4 + b);
    const Tensor& max_filter = ctx->input(5 + b);
    if (min_filter.NumElements() == 0 || max_filter.NumElements() == 0 ||
        min_filter.shape() != max_filter.shape() || min_filter.dims() > 1) {
      return absl::InvalidArgumentError(
          "`min_ and max_filter` must have same shape and contain at least "
          "one element.");
    }
    float min_freezed = 0, max_freezed = 0;
    if (fusion_.requantize) {
      DFX_RETURN_IF_ERROR(
          ScalarInput(*ctx, 6 + b, "min_freezed_output", &min_freezed));
      DFX_RETURN_IF_ERROR(
          ScalarInput(*ctx, 7 + b, "max_freezed_output", &max_freezed));
    }

    const int64_t batch = input.dim_size(0), rows = input.dim_size(1),
                  cols = input.dim_size(2), in_depth = input.dim_size(3);
    const int64_t f_rows = filter.dim_size(0), f_cols = filter.dim_size(1);
    if (filter.dim_size(2) != in_depth) {
      return absl::InvalidArgumentError(
          absl::StrCat("input and filter must have the same depth: ", in_depth,
                       " vs ", filter.dim_size(2)));
    }
    const int64_t multiplier = filter.dim_size(3);
    const int64_t out_depth =
        fusion_.depthwise ? in_depth * multiplier : filter.dim_size(3);
    int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
    DFX_RETURN_IF_ERROR(OutputSize(rows, f_rows, strides_[1], dilations_[1],
                                   &out_rows, &pad_top));
    DFX_RETURN_IF_ERROR(OutputSize(cols, f_cols, strides_[2], dilations_[2],
                                   &out_cols, &pad_left));
    const TensorShape out_shape({batch, out_rows, out_cols, out_depth});
    const int64_t channels = min_filter.NumElements();
    if (channels != 1 && channels != out_depth) {
      return absl::InvalidArgumentError(
          absl::StrCat("the filter ranges hold ", channels, " values for ",
                       out_depth, " output channels"));
    }

    // Bias (converted to real units) and the summand.
    std::vector<float> bias(out_depth, 0.0f);
    const float input_range = AbsMax(min_input, max_input);
    const bool u8_input = input.dtype() == DT_QUINT8;
    auto filter_range = [&](int64_t c) {
      const int64_t k = channels == 1 ? 0 : c;
      return AbsMax(min_filter.data<float>()[k], max_filter.data<float>()[k]);
    };
    if (fusion_.bias) {
      const Tensor& t = ctx->input(2);
      if (t.dims() != 1 || t.NumElements() != out_depth) {
        return absl::InvalidArgumentError(
            absl::StrCat("bias must be a vector of ", out_depth,
                         " values: ", t.shape().DebugString()));
      }
      const float limit = u8_input ? 255.0f * 127.0f : 127.0f * 127.0f;
      for (int64_t c = 0; c < out_depth; ++c) {
        if (t.dtype() == DT_FLOAT) {
          bias[c] = t.data<float>()[c];
        } else {
          const float scale = limit / (input_range * filter_range(c));
          bias[c] = static_cast<float>(t.data<qint32>()[c].value) / scale;
        }
      }
    }
    const int s = 8 + b;  // summand index when requantized
    const Tensor* summand = nullptr;
    float sum_scale = 1.0f;
    if (fusion_.summand != 0) {
      summand = &ctx->input(fusion_.summand == 1 ? 6 + b : s);
      if (summand->shape() != out_shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Summand cannot be forwarded in the current fusion: ", "its shape ",
            summand->shape().DebugString(), " is not the output's ",
            out_shape.DebugString()));
      }
      if (fusion_.summand == 2) {
        float min_s = 0, max_s = 0;
        DFX_RETURN_IF_ERROR(
            ScalarInput(*ctx, s + 1, "min_freezed_summand", &min_s));
        DFX_RETURN_IF_ERROR(
            ScalarInput(*ctx, s + 2, "max_freezed_summand", &max_s));
        const float range = AbsMax(min_s, max_s);
        sum_scale =
            summand->dtype() == DT_QUINT8 ? range / 255.0f : range / 127.0f;
      }
    }

    // Scales: src * wei[c] before the bias, 1 / dst after the post-ops.
    const float src_scale = input_range / (u8_input ? 255.0f : 127.0f);
    std::vector<float> scale(out_depth);
    for (int64_t c = 0; c < out_depth; ++c) {
      const float wei = static_cast<float>(filter_range(c) / 127.0);
      scale[c] = src_scale * wei;
    }
    float dst_scale = 1.0f;
    if (fusion_.requantize) {
      const float limit = output_type(0) == DT_QUINT8 ? 255.0f : 127.0f;
      dst_scale = AbsMax(min_freezed, max_freezed) / limit;
    } else {
      float min_min = min_filter.data<float>()[0];
      float max_max = max_filter.data<float>()[0];
      for (int64_t k = 0; k < channels; ++k) {
        min_min = std::min(min_min, min_filter.data<float>()[k]);
        max_max = std::max(max_max, max_filter.data<float>()[k]);
      }
      dst_scale =
          static_cast<float>(AbsMax(min_min, max_max) / 127.0) * src_scale;
    }
    const float inv_dst = 1.0f / dst_scale;

    // TensorFlow's kernel gives an output without elements the input's
    // shape.
    Tensor* output = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(
        0, out_shape.num_elements() == 0 ? input.shape() : out_shape, &output));
    const qint8* wv = filter.data<qint8>();  // every kernel's Tfilter
    const bool signed_sum =
        fusion_.summand == 2 && summand->dtype() == DT_QINT8;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t oy = 0; oy < out_rows; ++oy) {
        for (int64_t ox = 0; ox < out_cols; ++ox) {
          for (int64_t oc = 0; oc < out_depth; ++oc) {
            const int64_t ic_first = fusion_.depthwise ? oc / multiplier : 0;
            const int64_t ic_end = fusion_.depthwise ? ic_first + 1 : in_depth;
            int64_t acc = 0;
            for (int64_t fy = 0; fy < f_rows; ++fy) {
              const int64_t y = oy * strides_[1] - pad_top + fy * dilations_[1];
              if (y < 0 || y >= rows) continue;
              for (int64_t fx = 0; fx < f_cols; ++fx) {
                const int64_t x =
                    ox * strides_[2] - pad_left + fx * dilations_[2];
                if (x < 0 || x >= cols) continue;
                const int64_t in_base = ((n * rows + y) * cols + x) * in_depth;
                const int64_t f_base = (fy * f_cols + fx) * in_depth;
                for (int64_t ic = ic_first; ic < ic_end; ++ic) {
                  const int64_t fi =
                      fusion_.depthwise
                          ? (f_base + ic) * multiplier + oc % multiplier
                          : (f_base + ic) * out_depth + oc;
                  acc += static_cast<int64_t>(Level8(input, in_base + ic)) *
                         wv[fi].value;
                }
              }
            }
            const int64_t o =
                ((n * out_rows + oy) * out_cols + ox) * out_depth + oc;
            float f = static_cast<float>(static_cast<int32_t>(acc)) * scale[oc];
            if (fusion_.bias) f += bias[oc];
            if (fusion_.summand == 1) {
              f += summand->data<float>()[o];
            } else if (fusion_.summand == 2) {
              const float prev = static_cast<float>(Level8(*summand, o));
              f = std::fma(prev, sum_scale, f);
            }
            if (fusion_.relu) f = std::max(f, 0.0f);
            if (signed_sum) {
              // TensorFlow hands oneDNN the qint8 summand's buffer as the
              // output: the result saturates as an int8 would.
              output->data<quint8>()[o] =
                  quint8(RoundSaturate(f * inv_dst, 0, 127));
            } else {
              Store(output, o, f * inv_dst);
            }
          }
        }
      }
    }

    // Output ranges.
    Tensor* out_min = nullptr;
    Tensor* out_max = nullptr;
    const TensorShape range_shape = fusion_.requantize || min_filter.dims() == 0
                                        ? TensorShape()
                                        : TensorShape({channels});
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, range_shape, &out_min));
    DFX_RETURN_IF_ERROR(ctx->allocate_output(2, range_shape, &out_max));
    if (fusion_.requantize) {
      out_min->data<float>()[0] = min_freezed;
      out_max->data<float>()[0] = max_freezed;
    } else {
      for (int64_t k = 0; k < channels; ++k) {
        ProductRange(input.dtype(), min_input, max_input,
                     min_filter.data<float>()[k], max_filter.data<float>()[k],
                     &out_min->data<float>()[k], &out_max->data<float>()[k]);
      }
    }
    return absl::OkStatus();
  }

  // TensorFlow's GetWindowedOutputSize with dilation.
  absl::Status OutputSize(int64_t in, int64_t window, int64_t stride,
                          int64_t dilation, int64_t* out,
                          int64_t* pad_before) const {
    const int64_t effective = (window - 1) * dilation + 1;
    if (same_) {
      *out = (in + stride - 1) / stride;
      *pad_before =
          std::max<int64_t>(0, (*out - 1) * stride + effective - in) / 2;
    } else {
      *out = (in - effective + stride) / stride;
      *pad_before = 0;
    }
    if (*out < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Computed output size would be negative: ", *out,
          " [input_size: ", in, ", effective_filter_size: ", effective,
          ", stride: ", stride, "]"));
    }
    return absl::OkStatus();
  }

  const ConvFusion fusion_;
  std::vector<int32_t> strides_;
  std::vector<int32_t> dilations_;
  bool same_ = false;
};

// QuantizedMatMulWithBias*: a [m, k] quint8 times b [k, n] qint8 as
// stored (oneDNN's kernel reads neither transpose attr), plus bias, in
// MIN_FIRST mode: a float bias is compensated by the columns of b times
// 255 * min_a / (max_a - min_a), a qint32 bias divided by TensorFlow's
// 255 * 127 / ((max_a - min_a) * max(|min_b|, |max_b|)). In SCALED mode
// (QuantizedMatMulWithBiasAndDequantize alone) the input scale is
// max(|min_a|, |max_a|) / 255, a float bias is added as it is and a qint32
// one divided by 255 * 127 / (max_a * max(|min_b|, |max_b|)).
class QfusedMatMulOp : public OpKernel {
 public:
  QfusedMatMulOp(OpKernelConstruction* ctx, bool relu)
      : OpKernel(ctx), relu_(relu) {
    std::string mode;
    ctx->SetStatus(ctx->GetAttr("input_quant_mode", &mode));
    // Only QuantizedMatMulWithBiasAndDequantize keeps its mode through
    // TensorFlow's rewrite; the others run as MIN_FIRST.
    scaled_ = mode == "SCALED" && output_type(0) == DT_FLOAT;
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Run(ctx));
  }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& a = ctx->input(0);
    const Tensor& w = ctx->input(1);
    const Tensor& bias_t = ctx->input(2);
    float min_a = 0, max_a = 0, min_b = 0, max_b = 0;
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 3, "min_a", &min_a));
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 4, "max_a", &max_a));
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 5, "min_b", &min_b));
    DFX_RETURN_IF_ERROR(ScalarInput(*ctx, 6, "max_b", &max_b));
    const DataType out_type = output_type(0);
    const bool freezed = out_type != DT_QINT32;
    float min_freezed = 0, max_freezed = 0;
    if (freezed) {
      DFX_RETURN_IF_ERROR(
          ScalarInput(*ctx, 7, "min_freezed_output", &min_freezed));
      DFX_RETURN_IF_ERROR(
          ScalarInput(*ctx, 8, "max_freezed_output", &max_freezed));
    }
    if (a.dims() != 2 || w.dims() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("a and b must be matrices: ", a.shape().DebugString(),
                       " and ", w.shape().DebugString()));
    }
    const int64_t m = a.dim_size(0), k = a.dim_size(1), n = w.dim_size(1);
    if (w.dim_size(0) != k || bias_t.dims() != 1 || bias_t.dim_size(0) != n) {
      // oneDNN cannot make the inner product: TensorFlow answers Aborted.
      return absl::AbortedError(absl::StrCat(
          "Operation received an exception: could not create a primitive "
          "descriptor for the inner product of ",
          a.shape().DebugString(), " and ", w.shape().DebugString(),
          " with bias ", bias_t.shape().DebugString()));
    }
    const float src_scale = static_cast<float>(
        (scaled_ ? AbsMax(min_a, max_a) : max_a - min_a) / 255.0);
    const float wei_scale = static_cast<float>(AbsMax(min_b, max_b) / 127.0);
    float dst_scale = 1.0f;
    if (out_type == DT_QUINT8) {
      dst_scale = static_cast<float>(AbsMax(min_freezed, max_freezed) / 255.0);
    } else if (out_type == DT_QINT8) {
      dst_scale = static_cast<float>(AbsMax(min_freezed, max_freezed) / 127.0);
    } else if (out_type == DT_QINT32) {
      dst_scale = src_scale * wei_scale;
    }
    const float inv_dst = 1.0f / dst_scale;
    const float scale = src_scale * wei_scale;

    std::vector<float> bias(n);
    const float qa_amin = 255 * min_a / (max_a - min_a);
    const float out_scale = static_cast<float>(
        (255.0 * 127.0) /
        ((scaled_ ? max_a : max_a - min_a) * AbsMax(max_b, min_b)));
    for (int64_t j = 0; j < n; ++j) {
      if (scaled_ && bias_t.dtype() == DT_FLOAT) {
        bias[j] = bias_t.data<float>()[j];
      } else if (scaled_) {
        // oneDNN's reorder multiplies by the inverse of its dst scale.
        bias[j] = static_cast<float>(bias_t.data<qint32>()[j].value) *
                  (1.0f / out_scale);
      } else if (bias_t.dtype() == DT_QINT32) {
        bias[j] =
            static_cast<float>(bias_t.data<qint32>()[j].value) / out_scale;
      } else {
        int32_t x = 0;
        for (int64_t i = 0; i < k; ++i) x += w.data<qint8>()[i * n + j].value;
        bias[j] = bias_t.data<float>()[j] + static_cast<float>(x) * qa_amin;
      }
    }

    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m, n}), &out));
    const quint8* av = a.data<quint8>();
    const qint8* wv = w.data<qint8>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc +=
              static_cast<int64_t>(av[i * k + p].value) * wv[p * n + j].value;
        }
        float f = static_cast<float>(static_cast<int32_t>(acc)) * scale;
        f += bias[j];
        if (relu_) f = std::max(f, 0.0f);
        Store(out, i * n + j, out_type == DT_FLOAT ? f : f * inv_dst);
      }
    }
    if (out_type == DT_FLOAT) return absl::OkStatus();
    Tensor* out_min = nullptr;
    Tensor* out_max = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape(), &out_min));
    DFX_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape(), &out_max));
    if (freezed) {
      out_min->data<float>()[0] = min_freezed;
      out_max->data<float>()[0] = max_freezed;
    } else {
      ProductRange(DT_QUINT8, min_a, max_a, min_b, max_b,
                   out_min->data<float>(), out_max->data<float>());
    }
    return absl::OkStatus();
  }

  const bool relu_;
  bool scaled_ = false;
};

// Registers `op` for every type combination in `combos`: each a list of
// (attr, type) pairs.
using Combo = std::vector<std::pair<const char*, DataType>>;

void RegisterConv(KernelRegistry* registry, const char* op, ConvFusion fusion,
                  const std::vector<Combo>& combos) {
  for (const Combo& combo : combos) {
    KernelDefBuilder builder(op);
    for (const auto& [attr, type] : combo) {
      builder.TypeConstraint(attr, DataTypeVector{type});
    }
    registry->Register(builder, [fusion](OpKernelConstruction* c) {
      return std::unique_ptr<OpKernel>(new QfusedConvOp(c, fusion));
    });
  }
}

}  // namespace

void RegisterQfusedKernels(KernelRegistry* registry) {
  const DataType u8 = DT_QUINT8, s8 = DT_QINT8, s32 = DT_QINT32, f32 = DT_FLOAT;
  // TensorFlow 2.21's CPU kernels: (Tinput, Tfilter, [Tbias], [Tsummand],
  // out_type) as its registrations list them.
  auto in_out = [](std::vector<DataType> inputs, DataType out) {
    std::vector<Combo> combos;
    for (DataType in : inputs) {
      combos.push_back(
          {{"Tinput", in}, {"Tfilter", DT_QINT8}, {"out_type", out}});
    }
    return combos;
  };
  auto with_bias = [](std::vector<Combo> combos) {
    std::vector<Combo> out;
    for (const Combo& c : combos) {
      for (DataType b : {DT_FLOAT, DT_QINT32}) {
        Combo with = c;
        with.emplace_back("Tbias", b);
        out.push_back(with);
      }
    }
    return out;
  };
  auto with_summand = [](std::vector<Combo> combos, DataType s) {
    for (Combo& c : combos) c.emplace_back("Tsummand", s);
    return combos;
  };
  RegisterConv(registry, "QuantizedConv2DWithBias", {.bias = true},
               in_out({u8, s8}, s32));
  RegisterConv(registry, "QuantizedConv2DWithBiasAndRelu",
               {.bias = true, .relu = true}, in_out({u8, s8}, s32));
  RegisterConv(registry, "QuantizedConv2DWithBiasAndRequantize",
               {.bias = true, .requantize = true},
               with_bias(in_out({u8, s8}, s8)));
  RegisterConv(registry, "QuantizedConv2DWithBiasAndReluAndRequantize",
               {.bias = true, .relu = true, .requantize = true},
               with_bias(in_out({u8, s8}, u8)));
  RegisterConv(registry, "QuantizedConv2DWithBiasSumAndRelu",
               {.bias = true, .relu = true, .summand = 1}, in_out({u8}, s32));
  RegisterConv(registry, "QuantizedConv2DWithBiasSumAndReluAndRequantize",
               {.bias = true, .relu = true, .requantize = true, .summand = 2},
               with_summand(with_bias(in_out({u8}, u8)), u8));
  RegisterConv(registry, "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
               {.bias = true, .relu = true, .requantize = true, .summand = 2},
               with_summand(with_bias(in_out({u8}, u8)), s8));
  RegisterConv(registry, "QuantizedConv2DAndRelu", {.relu = true},
               in_out({u8}, s32));
  RegisterConv(registry, "QuantizedConv2DAndRequantize", {.requantize = true},
               in_out({u8}, s8));
  RegisterConv(registry, "QuantizedConv2DAndReluAndRequantize",
               {.relu = true, .requantize = true}, in_out({u8}, u8));
  RegisterConv(registry, "QuantizedConv2DPerChannel", {}, in_out({u8}, s32));
  RegisterConv(registry, "QuantizedDepthwiseConv2D", {.depthwise = true},
               in_out({u8}, s32));
  RegisterConv(registry, "QuantizedDepthwiseConv2DWithBias",
               {.bias = true, .depthwise = true}, in_out({u8}, s32));
  RegisterConv(registry, "QuantizedDepthwiseConv2DWithBiasAndRelu",
               {.bias = true, .relu = true, .depthwise = true},
               in_out({u8}, s32));
  RegisterConv(
      registry, "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize",
      {.bias = true, .relu = true, .requantize = true, .depthwise = true},
      with_bias(in_out({u8}, u8)));

  struct MatMul {
    const char* op;
    bool relu;
    bool typed_bias;
    DataType out;
  };
  for (const MatMul& mm : std::vector<MatMul>{
           {"QuantizedMatMulWithBias", false, true, s32},
           {"QuantizedMatMulWithBiasAndRelu", true, false, s32},
           {"QuantizedMatMulWithBiasAndReluAndRequantize", true, true, u8},
           {"QuantizedMatMulWithBiasAndRequantize", false, true, u8},
           {"QuantizedMatMulWithBiasAndDequantize", false, true, f32}}) {
    for (DataType b : {f32, s32}) {
      if (!mm.typed_bias && b != f32) continue;
      KernelDefBuilder builder(mm.op);
      builder.TypeConstraint("T1", DataTypeVector{u8})
          .TypeConstraint("T2", DataTypeVector{s8})
          .TypeConstraint("Toutput", DataTypeVector{mm.out});
      if (mm.typed_bias) builder.TypeConstraint("Tbias", DataTypeVector{b});
      const bool relu = mm.relu;
      registry->Register(builder, [relu](OpKernelConstruction* c) {
        return std::unique_ptr<OpKernel>(new QfusedMatMulOp(c, relu));
      });
    }
  }
}

}  // namespace dfx

// The quantized family's products and pools: QuantizedMatMul (quint8 x
// quint8 -> qint32), QuantizedConv2D (quint8 x quint8 -> qint32; TensorFlow
// 2.21 also registers a qint8 filter, whose kernel returns no output
// unless oneDNN replaces it, so dfx leaves it out), QuantizedMaxPool and
// QuantizedAvgPool (quint8, qint8), with TensorFlow 2.21's integer results:
// sums of (level - level of zero) products, wrapping in 32 bits as gemmlowp and
// TensorFlow's reference gemm do, and the padding of a convolution read as
// TensorFlow's im2col buffer holds it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/quantized/quantized_kernels.h"
#include "kernels/quantized/quantized_math.h"
#include "runtime/op_kernel.h"
#include "runtime/quantized_types.h"

namespace dfx::quantized {
namespace {

float Scalar(const Tensor& t) { return t.data<float>()[0]; }

enum class Padding { kSame, kValid };

absl::Status ParsePadding(const std::string& s, Padding* p) {
  if (s == "SAME") {
    *p = Padding::kSame;
  } else if (s == "VALID") {
    *p = Padding::kValid;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown padding type: ", s));
  }
  return absl::OkStatus();
}

// GetWindowedOutputSize for dilation 1: the output size and the padding
// before the first window.
absl::Status WindowedSize(int64_t in, int64_t window, int64_t stride,
                          Padding padding, int64_t* out, int64_t* pad_before) {
  if (stride <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (padding == Padding::kValid) {
    *out = (in - window + stride) / stride;
    *pad_before = 0;
  } else {
    *out = (in + stride - 1) / stride;
    *pad_before = std::max<int64_t>(0, ((*out - 1) * stride + window - in) / 2);
  }
  if (*out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Computed output size would be negative: ", *out, " [input_size: ", in,
        ", effective_filter_size: ", window, ", stride: ", stride, "]"));
  }
  return absl::OkStatus();
}

class QuantizedMatMulOp : public OpKernel {
 public:
  explicit QuantizedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    // TensorFlow wants min_a to be a scalar and the others to hold one
    // element.
    static constexpr const char* kNames[] = {"min_a", "max_a", "min_b",
                                             "max_b"};
    for (int i = 2; i <= 5; ++i) {
      const Tensor& t = ctx->input(i);
      DFX_OP_REQUIRES(
          ctx, i == 2 ? t.dims() == 0 : t.NumElements() == 1,
          absl::InvalidArgumentError(absl::StrCat(kNames[i - 2],
                                                  " must be a scalar, but "
                                                  "got shape",
                                                  t.shape().DebugString())));
    }
    const float min_a = Scalar(ctx->input(2));
    const float max_a = Scalar(ctx->input(3));
    const float min_b = Scalar(ctx->input(4));
    const float max_b = Scalar(ctx->input(5));
    DFX_OP_REQUIRES(
        ctx, max_a > min_a,
        absl::InvalidArgumentError("max_a must be larger than min_a."));
    DFX_OP_REQUIRES(
        ctx, max_b > min_b,
        absl::InvalidArgumentError("max_b must be larger than min_b."));
    const int64_t offset_a =
        Wrap32(FloatToLevelUnclamped<quint8>(0.0f, min_a, max_a));
    const int64_t offset_b =
        Wrap32(FloatToLevelUnclamped<quint8>(0.0f, min_b, max_b));
    DFX_OP_REQUIRES(ctx, a.dims() == 2,
                    absl::InvalidArgumentError("In[0] is not a matrix"));
    DFX_OP_REQUIRES(ctx, b.dims() == 2,
                    absl::InvalidArgumentError("In[1] is not a matrix"));
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    DFX_OP_REQUIRES(
        ctx, k == b.dim_size(transpose_b_ ? 1 : 0),
        absl::InvalidArgumentError(absl::StrCat(
            "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
            ", In[1]: ", b.shape().DebugString())));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    Tensor* c = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    const quint8* ad = a.data<quint8>();
    const quint8* bd = b.data<quint8>();
    qint32* cd = c->data<qint32>();
    const int64_t lda = a.dim_size(1);
    const int64_t ldb = b.dim_size(1);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t total = 0;
        for (int64_t l = 0; l < k; ++l) {
          const int64_t av = ad[transpose_a_ ? l * lda + i : i * lda + l].value;
          const int64_t bv = bd[transpose_b_ ? j * ldb + l : l * ldb + j].value;
          total += (av - offset_a) * (bv - offset_b);
        }
        cd[i * n + j] = qint32{Wrap32(total)};
      }
    }
    float min_c, max_c;
    ProductRange<quint8, quint8, qint32>(min_a, max_a, min_b, max_b, &min_c,
                                         &max_c);
    SetRange(ctx, 1, min_c, max_c);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

template <typename TFilter>
class QuantizedConv2DOp : public OpKernel {
 public:
  explicit QuantizedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional",
                                                input.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, filter.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "filter must be 4-dimensional: ", filter.shape().DebugString())));
    static constexpr const char* kNames[] = {"min_input", "max_input",
                                             "min_filter", "max_filter"};
    for (int i = 2; i <= 5; ++i) {
      DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(i), kNames[i - 2]));
    }
    const float min_input = Scalar(ctx->input(2));
    const float max_input = Scalar(ctx->input(3));
    const float min_filter = Scalar(ctx->input(4));
    const float max_filter = Scalar(ctx->input(5));
    const int64_t offset_input =
        Wrap32(FloatToLevelUnclamped<quint8>(0.0f, min_input, max_input));
    const int64_t offset_filter =
        Wrap32(FloatToLevelUnclamped<TFilter>(0.0f, min_filter, max_filter));
    const int64_t in_depth = input.dim_size(3);
    DFX_OP_REQUIRES(ctx, in_depth == filter.dim_size(2),
                    absl::InvalidArgumentError(absl::StrCat(
                        "input and filter must have the same depth: ", in_depth,
                        " vs ", filter.dim_size(2))));
    const int64_t batch = input.dim_size(0);
    const int64_t in_rows = input.dim_size(1);
    const int64_t in_cols = input.dim_size(2);
    const int64_t f_rows = filter.dim_size(0);
    const int64_t f_cols = filter.dim_size(1);
    const int64_t out_depth = filter.dim_size(3);
    int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
    DFX_OP_REQUIRES_OK(ctx, WindowedSize(in_rows, f_rows, stride_, padding_,
                                         &out_rows, &pad_top));
    DFX_OP_REQUIRES_OK(ctx, WindowedSize(in_cols, f_cols, stride_, padding_,
                                         &out_cols, &pad_left));
    // TensorFlow refuses an empty input or filter, and aborts (a failed
    // CHECK) on an empty output: both are InvalidArgument here.
    DFX_OP_REQUIRES(ctx, input.NumElements() > 0 && filter.NumElements() > 0,
                    absl::InvalidArgumentError(
                        "Invalid input: Shapes dimension cannot be 0."));
    DFX_OP_REQUIRES(ctx, out_rows > 0 && out_cols > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "QuantizedConv2D: the output would be empty (",
                        out_rows, "x", out_cols, ")")));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({batch, out_rows, out_cols, out_depth}), &output));
    // TensorFlow's im2col buffer holds the input's level of zero where a
    // window leaves the image (as an eight-bit level, so a zero above the
    // range wraps); when zero is below the range its reference path reads
    // those places as contributing nothing.
    const int64_t pad_diff =
        offset_input < 0
            ? 0
            : static_cast<int64_t>(static_cast<uint8_t>(offset_input)) -
                  offset_input;
    const quint8* in = input.data<quint8>();
    const TFilter* f = filter.data<TFilter>();
    qint32* out = output->data<qint32>();
    std::vector<int64_t> fvals(filter.NumElements());
    for (int64_t i = 0; i < filter.NumElements(); ++i) {
      fvals[i] = static_cast<int64_t>(f[i].value) - offset_filter;
    }
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t oy = 0; oy < out_rows; ++oy) {
        for (int64_t ox = 0; ox < out_cols; ++ox) {
          const int64_t y0 = oy * stride_ - pad_top;
          const int64_t x0 = ox * stride_ - pad_left;
          qint32* dst = out + ((n * out_rows + oy) * out_cols + ox) * out_depth;
          for (int64_t oc = 0; oc < out_depth; ++oc) {
            int64_t total = 0;
            for (int64_t fy = 0; fy < f_rows; ++fy) {
              const int64_t y = y0 + fy;
              for (int64_t fx = 0; fx < f_cols; ++fx) {
                const int64_t x = x0 + fx;
                const bool inside =
                    y >= 0 && y < in_rows && x >= 0 && x < in_cols;
                const int64_t* fw =
                    fvals.data() + ((fy * f_cols + fx) * in_depth) * out_depth +
                    oc;
                if (!inside) {
                  for (int64_t ic = 0; ic < in_depth; ++ic) {
                    total += pad_diff * fw[ic * out_depth];
                  }
                  continue;
                }
                const quint8* src =
                    in + ((n * in_rows + y) * in_cols + x) * in_depth;
                for (int64_t ic = 0; ic < in_depth; ++ic) {
                  total +=
                      (static_cast<int64_t>(src[ic].value) - offset_input) *
                      fw[ic * out_depth];
                }
              }
            }
            dst[oc] = qint32{Wrap32(total)};
          }
        }
      }
    }
    float min_out, max_out;
    ProductRange<quint8, TFilter, qint32>(min_input, max_input, min_filter,
                                          max_filter, &min_out, &max_out);
    SetRange(ctx, 1, min_out, max_out);
  }

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    std::vector<int64_t> strides, dilations;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
    if (strides.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window strides field must specify 4 dimensions");
    }
    if (strides[1] != strides[2]) {
      return absl::InvalidArgumentError(
          "Current implementation only supports equal length strides in the "
          "row and column dimensions.");
    }
    if (strides[0] != 1 || strides[3] != 1) {
      return absl::InvalidArgumentError(
          "Current implementation does not yet support strides in the batch "
          "and depth dimensions.");
    }
    stride_ = strides[1];
    DFX_RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations));
    if (dilations.size() != 4) {
      return absl::InvalidArgumentError(
          "Dilations field must specify 4 dimensions");
    }
    if (dilations[1] != 1 || dilations[2] != 1) {
      return absl::InvalidArgumentError(
          "Current implementation only supports dilated rate as 1 in the row "
          "and column dimensions.");
    }
    if (dilations[0] != 1 || dilations[3] != 1) {
      return absl::InvalidArgumentError(
          "Current implementation does not yet support dilations in the "
          "batch and depth dimensions.");
    }
    std::string padding;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
    return ParsePadding(padding, &padding_);
  }

  int64_t stride_ = 1;
  Padding padding_ = Padding::kValid;
};

// QuantizedMaxPool and QuantizedAvgPool: windows over rows and columns of
// NHWC levels, ignoring padding (QuantizedMaxPool also over depth alone);
// the average is the int32 sum divided by the count, truncated, as
// TensorFlow's own kernel computes it. (With oneDNN's graph rewrites on,
// TensorFlow's CPU wheel runs oneDNN's pooling instead, which rounds the
// average half to even; dfx follows TensorFlow's kernels, as the nn2
// family does.)
template <typename T, bool kMax>
class QuantizedPoolOp : public OpKernel {
 public:
  explicit QuantizedPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError("tensor_in must be 4-dimensional"));
    for (int i = 1; i <= 2; ++i) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(i).NumElements() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              i == 1 ? "min_input" : "max_input", " must be a scalar")));
    }
    const int64_t batch = input.dim_size(0);
    const int64_t rows = input.dim_size(1);
    const int64_t cols = input.dim_size(2);
    const int64_t depth = input.dim_size(3);
    if (depth_window_ > 1) {
      DepthPool(ctx, input);
      return;
    }
    int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
    DFX_OP_REQUIRES_OK(ctx, WindowedSize(rows, ksize_[1], strides_[1], padding_,
                                         &out_rows, &pad_top));
    DFX_OP_REQUIRES_OK(ctx, WindowedSize(cols, ksize_[2], strides_[2], padding_,
                                         &out_cols, &pad_left));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, out_rows, out_cols, depth}), &output));
    const T* in = input.data<T>();
    T* out = output->data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t oy = 0; oy < out_rows; ++oy) {
        const int64_t y_begin =
            std::max<int64_t>(0, oy * strides_[1] - pad_top);
        const int64_t y_end =
            std::min<int64_t>(rows, oy * strides_[1] - pad_top + ksize_[1]);
        for (int64_t ox = 0; ox < out_cols; ++ox) {
          const int64_t x_begin =
              std::max<int64_t>(0, ox * strides_[2] - pad_left);
          const int64_t x_end =
              std::min<int64_t>(cols, ox * strides_[2] - pad_left + ksize_[2]);
          for (int64_t c = 0; c < depth; ++c) {
            int64_t best = quantized::Levels<T>::kLowest;
            int64_t sum = 0;
            int64_t count = 0;
            for (int64_t y = y_begin; y < y_end; ++y) {
              for (int64_t x = x_begin; x < x_end; ++x) {
                const int64_t v =
                    in[((n * rows + y) * cols + x) * depth + c].value;
                best = std::max(best, v);
                sum += v;
                ++count;
              }
            }
            int64_t result = best;
            if (!kMax) result = count == 0 ? 0 : sum / count;
            out[((n * out_rows + oy) * out_cols + ox) * depth + c] = T{result};
          }
        }
      }
    }
    SetRange(ctx, 1, Scalar(ctx->input(1)), Scalar(ctx->input(2)));
  }

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    DFX_RETURN_IF_ERROR(ctx.GetAttr("ksize", &ksize_));
    if (ksize_.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window ksize field must specify 4 dimensions");
    }
    DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides_));
    if (strides_.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window strides field must specify 4 dimensions");
    }
    std::string padding;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
    DFX_RETURN_IF_ERROR(ParsePadding(padding, &padding_));
    if (ksize_[0] != 1 || strides_[0] != 1) {
      return absl::UnimplementedError(
          "Pooling is not yet supported on the batch dimension.");
    }
    if (ksize_[3] != 1 || strides_[3] != 1) {
      if (!kMax) {
        return absl::UnimplementedError(
            "Non-spatial pooling is not yet supported. Volunteers? :)");
      }
      // TensorFlow's MaxPoolingOp pools over depth alone.
      if (ksize_[1] != 1 || ksize_[2] != 1 || strides_[1] != 1 ||
          strides_[2] != 1) {
        return absl::UnimplementedError(
            "MaxPooling supports exactly one of pooling across depth or "
            "pooling across width/height.");
      }
      if (ksize_[3] != strides_[3]) {
        return absl::UnimplementedError(
            "Depthwise max pooling requires the depth window to equal the "
            "depth stride.");
      }
      depth_window_ = ksize_[3];
    }
    for (int i = 1; i <= 2; ++i) {
      if (ksize_[i] <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Sliding window ksize for dimension ", i,
                         " was zero or negative: ", ksize_[i]));
      }
    }
    return absl::OkStatus();
  }

  // QuantizedMaxPool over depth: the maximum of each run of depth_window_
  // channels.
  void DepthPool(OpKernelContext* ctx, const Tensor& input) {
    const int64_t depth = input.dim_size(3);
    DFX_OP_REQUIRES(
        ctx, depth % depth_window_ == 0,
        absl::UnimplementedError(
            "Depthwise max pooling requires the depth window to evenly "
            "divide the input depth."));
    const int64_t out_depth = depth / depth_window_;
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(0,
                             TensorShape({input.dim_size(0), input.dim_size(1),
                                          input.dim_size(2), out_depth}),
                             &output));
    const T* in = input.data<T>();
    T* out = output->data<T>();
    for (int64_t i = 0; i < output->NumElements(); ++i) {
      int64_t best = quantized::Levels<T>::kLowest;
      for (int64_t k = 0; k < depth_window_; ++k) {
        best = std::max<int64_t>(best, in[i * depth_window_ + k].value);
      }
      out[i] = T{best};
    }
    SetRange(ctx, 1, Scalar(ctx->input(1)), Scalar(ctx->input(2)));
  }

  std::vector<int64_t> ksize_;
  std::vector<int64_t> strides_;
  Padding padding_ = Padding::kValid;
  int64_t depth_window_ = 1;
};

template <typename T>
void RegisterPools(KernelRegistry* registry) {
  RegisterKernel<QuantizedPoolOp<T, true>>(
      registry,
      KernelDefBuilder("QuantizedMaxPool").template TypeConstraint<T>("T"));
  RegisterKernel<QuantizedPoolOp<T, false>>(
      registry,
      KernelDefBuilder("QuantizedAvgPool").template TypeConstraint<T>("T"));
}

}  // namespace

void RegisterQuantizedConvKernels(KernelRegistry* registry) {
  RegisterKernel<QuantizedMatMulOp>(registry,
                                    KernelDefBuilder("QuantizedMatMul")
                                        .TypeConstraint<quint8>("T1")
                                        .TypeConstraint<quint8>("T2")
                                        .TypeConstraint<qint32>("Toutput"));
  RegisterKernel<QuantizedConv2DOp<quint8>>(
      registry, KernelDefBuilder("QuantizedConv2D")
                    .TypeConstraint<quint8>("Tinput")
                    .TypeConstraint<quint8>("Tfilter")
                    .TypeConstraint<qint32>("out_type"));
  RegisterPools<quint8>(registry);
  RegisterPools<qint8>(registry);
}

}  // namespace dfx::quantized

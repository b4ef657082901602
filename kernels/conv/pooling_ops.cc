// MaxPool, MaxPoolV2, AvgPool and their gradients (MaxPoolGrad,
// MaxPoolGradV2, MaxPoolGradGrad, MaxPoolGradGradV2, AvgPoolGrad) on NHWC
// tensors, as TensorFlow's CPU kernels
// compute them: max pooling ignores padding, average pooling divides by the
// number of elements of the window inside the input, and a max-pooling
// gradient goes to the first maximum of its window in row-major order.
// Loops run over output (or input) pixels on the intra-op pool with the
// channels innermost, where NHWC keeps them contiguous.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_util.h"
#include "kernels/conv/pool_util.h"

namespace dfx::conv_internal {
namespace {

// Accumulation type: float for the 16-bit floats, else T.
template <typename T>
struct AccType {
  using type = T;
};
template <>
struct AccType<Eigen::half> {
  using type = float;
};
template <>
struct AccType<Eigen::bfloat16> {
  using type = float;
};

// ---------------------------------------------------------------------------
// Forward pooling.

template <typename T, bool kMax>
void SpatialPool(const Device& device, const PoolGeom& g, const T* in, T* out) {
  using Acc = typename AccType<T>::type;
  const int64_t depth = g.depth;
  const double cost =
      static_cast<double>(g.window_rows * g.window_cols * depth) + 1;
  ParallelForCost(
      device, g.batch * g.out_rows * g.out_cols, cost,
      [&](int64_t first, int64_t last) {
        std::vector<Acc> acc(static_cast<size_t>(depth));
        for (int64_t p = first; p < last; ++p) {
          const int64_t ow = p % g.out_cols;
          const int64_t oh = (p / g.out_cols) % g.out_rows;
          const int64_t n = p / (g.out_cols * g.out_rows);
          int64_t h0, h1, w0, w1;
          g.RowWindow(oh, &h0, &h1);
          g.ColWindow(ow, &w0, &w1);
          std::fill(acc.begin(), acc.end(),
                    kMax ? static_cast<Acc>(Eigen::NumTraits<T>::lowest())
                         : Acc(0));
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const T* x = in + ((n * g.in_rows + h) * g.in_cols + w) * depth;
              if constexpr (kMax) {
                for (int64_t c = 0; c < depth; ++c) {
                  const Acc v = static_cast<Acc>(x[c]);
                  acc[c] = acc[c] < v ? v : acc[c];
                }
              } else {
                for (int64_t c = 0; c < depth; ++c) {
                  acc[c] += static_cast<Acc>(x[c]);
                }
              }
            }
          }
          T* y = out + p * depth;
          if constexpr (kMax) {
            for (int64_t c = 0; c < depth; ++c) y[c] = static_cast<T>(acc[c]);
          } else {
            const int64_t count = std::max<int64_t>(1, (h1 - h0) * (w1 - w0));
            const Acc scale = Acc(1) / static_cast<Acc>(count);
            for (int64_t c = 0; c < depth; ++c) {
              y[c] = static_cast<T>(acc[c] * scale);
            }
          }
        }
      });
}

template <typename T>
void DepthMaxPool(const Device& device, const PoolGeom& g, const T* in,
                  T* out) {
  const int64_t k = g.depth_window;
  const int64_t n = g.batch * g.in_rows * g.in_cols * g.out_depth;
  ParallelForCost(device, n, static_cast<double>(k),
                  [&](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      const T* x = in + i * k;
                      T m = x[0];
                      for (int64_t j = 1; j < k; ++j) {
                        if (m < x[j]) m = x[j];
                      }
                      out[i] = m;
                    }
                  });
}

// MaxPool, MaxPoolV2 (kV2: ksize and strides are inputs 1 and 2) and AvgPool.
template <typename T, bool kMax, bool kV2>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadPoolAttrs(
        *ctx, kMax ? "MaxPoolingOp" : "AvgPoolingOp", !kV2, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PoolAttrs attrs = attrs_;
    if constexpr (kV2) {
      DFX_OP_REQUIRES_OK(
          ctx, WindowFromInputs(ctx->input(1), ctx->input(2), &attrs));
    }
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(input.shape(), attrs, kMax, &g));
    auto shape = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    if (g.depth_window > 1) {
      DepthMaxPool<T>(*ctx->device(), g, input.data<T>(), output->data<T>());
    } else {
      SpatialPool<T, kMax>(*ctx->device(), g, input.data<T>(),
                           output->data<T>());
    }
  }

 private:
  PoolAttrs attrs_;
};

// ---------------------------------------------------------------------------
// Gradients. Both are computed per input pixel (gathering from the output
// windows that cover it, in increasing output order, so the sums are added
// in the order TensorFlow's scatter adds them) so that threads never write
// the same element.

// The output rows [*begin, *end) whose windows cover input row `ih`.
void CoveringOutputs(int64_t i, int64_t pad, int64_t window, int64_t stride,
                     int64_t out_size, int64_t* begin, int64_t* end) {
  const int64_t t = i + pad;  // position in the padded input
  // Output o covers t when o * stride <= t < o * stride + window.
  const int64_t lo = t - window + 1;
  *begin = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  *end = std::min(out_size, t / stride + 1);
  if (*begin > *end) *begin = *end;
}

template <typename T>
void AvgPoolBackward(const Device& device, const PoolGeom& g, const T* dy,
                     T* dx) {
  const int64_t depth = g.depth;
  const double cost = static_cast<double>(
      depth * ((g.window_rows + g.stride_rows - 1) / g.stride_rows) *
      ((g.window_cols + g.stride_cols - 1) / g.stride_cols)) + 1;
  ParallelForCost(
      device, g.batch * g.in_rows * g.in_cols, cost,
      [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
          const int64_t iw = p % g.in_cols;
          const int64_t ih = (p / g.in_cols) % g.in_rows;
          const int64_t n = p / (g.in_cols * g.in_rows);
          T* out = dx + p * depth;
          for (int64_t c = 0; c < depth; ++c) out[c] = T(0);
          int64_t oh0, oh1, ow0, ow1;
          CoveringOutputs(ih, g.pad_top, g.window_rows, g.stride_rows,
                          g.out_rows, &oh0, &oh1);
          CoveringOutputs(iw, g.pad_left, g.window_cols, g.stride_cols,
                          g.out_cols, &ow0, &ow1);
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            int64_t h0, h1;
            g.RowWindow(oh, &h0, &h1);
            for (int64_t ow = ow0; ow < ow1; ++ow) {
              int64_t w0, w1;
              g.ColWindow(ow, &w0, &w1);
              const T coeff(1.0 / static_cast<double>((h1 - h0) * (w1 - w0)));
              const T* grad =
                  dy + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
              for (int64_t c = 0; c < depth; ++c) out[c] += grad[c] * coeff;
            }
          }
        }
      });
}

// The position (row * in_cols + col) of each window's first maximum, per
// output element and channel.
template <typename T>
void MaxPoolArgmax(const Device& device, const PoolGeom& g, const T* in,
                   int32_t* argmax) {
  const int64_t depth = g.depth;
  const double cost1 =
      static_cast<double>(g.window_rows * g.window_cols * depth) + 1;
  ParallelForCost(
      device, g.batch * g.out_rows * g.out_cols, cost1,
      [&](int64_t first, int64_t last) {
        std::vector<T> best(static_cast<size_t>(depth));
        for (int64_t p = first; p < last; ++p) {
          const int64_t ow = p % g.out_cols;
          const int64_t oh = (p / g.out_cols) % g.out_rows;
          const int64_t n = p / (g.out_cols * g.out_rows);
          int64_t h0, h1, w0, w1;
          g.RowWindow(oh, &h0, &h1);
          g.ColWindow(ow, &w0, &w1);
          int32_t* arg = argmax + p * depth;
          std::fill(arg, arg + depth, -1);
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const T* x = in + ((n * g.in_rows + h) * g.in_cols + w) * depth;
              const int32_t pos = static_cast<int32_t>(h * g.in_cols + w);
              for (int64_t c = 0; c < depth; ++c) {
                if (arg[c] < 0 || best[c] < x[c]) {
                  best[c] = x[c];
                  arg[c] = pos;
                }
              }
            }
          }
        }
      });
}

template <typename T>
void MaxPoolBackward(const Device& device, const PoolGeom& g, const T* in,
                     const T* dy, int32_t* argmax, T* dx) {
  const int64_t depth = g.depth;
  // Pass 1: the position (row * in_cols + col) of each window's first
  // maximum, per output element.
  MaxPoolArgmax(device, g, in, argmax);
  // Pass 2: each input element sums the gradients of the windows whose
  // maximum it is.
  const double cost2 = static_cast<double>(
      depth * ((g.window_rows + g.stride_rows - 1) / g.stride_rows) *
      ((g.window_cols + g.stride_cols - 1) / g.stride_cols)) + 1;
  ParallelForCost(
      device, g.batch * g.in_rows * g.in_cols, cost2,
      [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
          const int64_t iw = p % g.in_cols;
          const int64_t ih = (p / g.in_cols) % g.in_rows;
          const int64_t n = p / (g.in_cols * g.in_rows);
          const int32_t pos = static_cast<int32_t>(ih * g.in_cols + iw);
          T* out = dx + p * depth;
          for (int64_t c = 0; c < depth; ++c) out[c] = T(0);
          int64_t oh0, oh1, ow0, ow1;
          CoveringOutputs(ih, g.pad_top, g.window_rows, g.stride_rows,
                          g.out_rows, &oh0, &oh1);
          CoveringOutputs(iw, g.pad_left, g.window_cols, g.stride_cols,
                          g.out_cols, &ow0, &ow1);
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            for (int64_t ow = ow0; ow < ow1; ++ow) {
              const int64_t q = (n * g.out_rows + oh) * g.out_cols + ow;
              const int32_t* arg = argmax + q * depth;
              const T* grad = dy + q * depth;
              for (int64_t c = 0; c < depth; ++c) {
                if (arg[c] == pos) out[c] += grad[c];
              }
            }
          }
        }
      });
}

// MaxPoolGrad and MaxPoolGradV2 (kV2: ksize and strides are inputs 3, 4).
template <typename T, bool kV2>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadPoolAttrs(*ctx, "MaxPoolingGradOp", !kV2, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& out = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    DFX_OP_REQUIRES(ctx, in.dims() == 4,
                    absl::InvalidArgumentError("tensor_in must be 4-dimensional"));
    DFX_OP_REQUIRES(
        ctx, out.dims() == 4,
        absl::InvalidArgumentError("tensor_out must be 4-dimensional"));
    DFX_OP_REQUIRES(
        ctx, grad.dims() == 4,
        absl::InvalidArgumentError("out_backprop must be 4-dimensional"));
    PoolAttrs attrs = attrs_;
    if constexpr (kV2) {
      DFX_OP_REQUIRES_OK(
          ctx, WindowFromInputs(ctx->input(3), ctx->input(4), &attrs));
    }
    DFX_OP_REQUIRES(ctx, attrs.ksize[3] == 1 && attrs.strides[3] == 1,
                    absl::UnimplementedError(
                        "MaxPoolingGrad is not yet supported on the depth "
                        "dimension."));
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(in.shape(), attrs, false, &g));
    auto expected_or = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, expected_or.status());
    const TensorShape& expected = *expected_or;
    DFX_OP_REQUIRES(
        ctx, out.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected orig_output shape to be ", expected.DebugString(),
            ", but got ", out.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, grad.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected grad shape to be ", expected.DebugString(),
            ", but got ", grad.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &output));
    if (output->NumElements() == 0) return;
    Tensor argmax;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_INT32, expected, &argmax));
    MaxPoolBackward<T>(*ctx->device(), g, in.data<T>(), grad.data<T>(),
                       argmax.data<int32_t>(), output->data<T>());
  }

 private:
  PoolAttrs attrs_;
};

// MaxPoolGradGrad and MaxPoolGradGradV2 (kV2: ksize and strides are inputs
// 3, 4): the gradient of MaxPoolGrad with respect to its `grad` input. Each
// output element (of orig_output's shape) is the element of `grad` (of
// orig_input's shape) at its window's first maximum in orig_input.
template <typename T, bool kV2>
class MaxPoolGradGradOp : public OpKernel {
 public:
  explicit MaxPoolGradGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadPoolAttrs(*ctx, "MaxPoolingGradGradOp", !kV2, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& out = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, in.dims() == 4,
        absl::InvalidArgumentError("orig_input must be 4-dimensional"));
    DFX_OP_REQUIRES(
        ctx, out.dims() == 4,
        absl::InvalidArgumentError("orig_output must be 4-dimensional"));
    DFX_OP_REQUIRES(ctx, grad.shape() == in.shape(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "grad must have orig_input's shape ",
                        in.shape().DebugString(), ", got ",
                        grad.shape().DebugString())));
    PoolAttrs attrs = attrs_;
    if constexpr (kV2) {
      DFX_OP_REQUIRES_OK(
          ctx, WindowFromInputs(ctx->input(3), ctx->input(4), &attrs));
    }
    DFX_OP_REQUIRES(ctx, attrs.ksize[3] == 1 && attrs.strides[3] == 1,
                    absl::UnimplementedError(
                        "MaxPoolingGradGrad is not yet supported on the depth "
                        "dimension."));
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(in.shape(), attrs, false, &g));
    auto expected_or = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, expected_or.status());
    const TensorShape& expected = *expected_or;
    DFX_OP_REQUIRES(
        ctx, out.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected orig_output shape to be ", expected.DebugString(),
            ", but got ", out.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, expected, &output));
    if (output->NumElements() == 0) return;
    Tensor argmax;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_INT32, expected, &argmax));
    MaxPoolArgmax<T>(*ctx->device(), g, in.data<T>(), argmax.data<int32_t>());
    const int64_t depth = g.depth;
    const int64_t plane = g.in_rows * g.in_cols;
    const int64_t per_batch = g.out_rows * g.out_cols;
    const int32_t* arg = argmax.data<int32_t>();
    const T* src = grad.data<T>();
    T* dst = output->data<T>();
    for (int64_t p = 0; p < output->NumElements() / depth; ++p) {
      const int64_t n = p / per_batch;
      for (int64_t c = 0; c < depth; ++c) {
        const int32_t pos = arg[p * depth + c];
        dst[p * depth + c] =
            pos < 0 ? T(0) : src[(n * plane + pos) * depth + c];
      }
    }
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadPoolAttrs(*ctx, "AvgPoolingGradOp", true, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, sizes.dims() == 1 && sizes.NumElements() == 4,
        absl::InvalidArgumentError(
            "out_backprop must be 1-dimensional and 4 elements"));
    DFX_OP_REQUIRES(
        ctx, grad.dims() == 4,
        absl::InvalidArgumentError("out_backprop must be 4-dimensional"));
    std::vector<int64_t> dims(sizes.span<int32_t>().begin(),
                              sizes.span<int32_t>().end());
    auto shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(*shape, attrs_, false, &g));
    auto expected = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, expected.status());
    DFX_OP_REQUIRES(
        ctx, grad.shape() == *expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected grad shape to be ", expected->DebugString(),
            ", but got ", grad.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    AvgPoolBackward<T>(*ctx->device(), g, grad.data<T>(), output->data<T>());
  }

 private:
  PoolAttrs attrs_;
};

// The max-pooling gradients (TensorFlow has them for uint32 and uint64,
// which its MaxPool lacks).
template <typename T>
void RegisterMaxPoolGrads(KernelRegistry* registry) {
  RegisterKernel<MaxPoolGradOp<T, false>>(
      registry, KernelDefBuilder("MaxPoolGrad").TypeConstraint<T>("T"));
  RegisterKernel<MaxPoolGradOp<T, true>>(
      registry, KernelDefBuilder("MaxPoolGradV2").TypeConstraint<T>("T"));
  RegisterKernel<MaxPoolGradGradOp<T, false>>(
      registry, KernelDefBuilder("MaxPoolGradGrad").TypeConstraint<T>("T"));
  RegisterKernel<MaxPoolGradGradOp<T, true>>(
      registry, KernelDefBuilder("MaxPoolGradGradV2").TypeConstraint<T>("T"));
}

template <typename T>
void RegisterMaxPool(KernelRegistry* registry) {
  RegisterKernel<PoolOp<T, true, false>>(
      registry, KernelDefBuilder("MaxPool").TypeConstraint<T>("T"));
  RegisterKernel<PoolOp<T, true, true>>(
      registry, KernelDefBuilder("MaxPoolV2").TypeConstraint<T>("T"));
  RegisterMaxPoolGrads<T>(registry);
}

template <typename T>
void RegisterAvgPool(KernelRegistry* registry) {
  RegisterKernel<PoolOp<T, false, false>>(
      registry, KernelDefBuilder("AvgPool").TypeConstraint<T>("T"));
  RegisterKernel<AvgPoolGradOp<T>>(
      registry, KernelDefBuilder("AvgPoolGrad").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterPoolingKernels(KernelRegistry* registry) {
  RegisterMaxPool<float>(registry);
  RegisterMaxPool<double>(registry);
  RegisterMaxPool<Eigen::half>(registry);
  RegisterMaxPool<Eigen::bfloat16>(registry);
  RegisterMaxPool<int32_t>(registry);
  RegisterMaxPool<int64_t>(registry);
  RegisterMaxPool<uint8_t>(registry);
  RegisterMaxPool<int8_t>(registry);
  RegisterMaxPool<int16_t>(registry);
  RegisterMaxPool<uint16_t>(registry);
  RegisterMaxPoolGrads<uint32_t>(registry);
  RegisterMaxPoolGrads<uint64_t>(registry);
  RegisterAvgPool<float>(registry);
  RegisterAvgPool<double>(registry);
  RegisterAvgPool<Eigen::half>(registry);
  RegisterAvgPool<Eigen::bfloat16>(registry);
}

}  // namespace dfx::conv_internal

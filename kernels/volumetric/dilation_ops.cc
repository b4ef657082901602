// Dilation2D (grayscale morphological dilation, tf.nn.dilation2d; erosion is
// its negated dual) and its gradients, with TensorFlow's semantics from
// dilation_ops.cc: out[b, y, x, c] = max over the window of
// in[b, y*sr + i*rr - pad_top, x*sc + j*rc - pad_left, c] + filter[i, j, c],
// positions outside the input left out. The gradients route each
// out_backprop value to the first (row-major) maximizing input position or
// filter tap, summed in TensorFlow's loop order so the sums round as there.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/volumetric/volumetric_util.h"

namespace dfx::volumetric_internal {
namespace {

using conv_internal::Padding;
using conv_internal::ParallelForCost;

enum class DilationPass { kForward, kBackpropInput, kBackpropFilter };

struct DilationGeom {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t filter_rows = 0, filter_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1, rate_rows = 1, rate_cols = 1;
  int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
};

template <typename T>
class Dilation2DOp : public OpKernel {
 public:
  Dilation2DOp(OpKernelConstruction* ctx, DilationPass pass)
      : OpKernel(ctx), pass_(pass) {
    ctx->SetStatus(ReadAttrs(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DilationGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakeGeom(input.shape(), filter.shape(), &g));
    auto out_shape =
        TensorShape::Build({g.batch, g.out_rows, g.out_cols, g.depth});
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    if (pass_ != DilationPass::kForward) {
      DFX_OP_REQUIRES(ctx, ctx->input(2).shape() == *out_shape,
                      absl::InvalidArgumentError(
                          "out_backprop has incompatible size."));
    }
    Tensor* output = nullptr;
    switch (pass_) {
      case DilationPass::kForward:
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
        if (output->NumElements() == 0) return;
        Forward(*ctx->device(), g, input.data<T>(), filter.data<T>(),
                output->data<T>());
        return;
      case DilationPass::kBackpropInput:
        DFX_OP_REQUIRES_OK(ctx,
                           ctx->allocate_output(0, input.shape(), &output));
        if (output->NumElements() == 0) return;
        BackpropInput(*ctx->device(), g, input.data<T>(), filter.data<T>(),
                      ctx->input(2).data<T>(), output->data<T>());
        return;
      case DilationPass::kBackpropFilter:
        DFX_OP_REQUIRES_OK(ctx,
                           ctx->allocate_output(0, filter.shape(), &output));
        if (output->NumElements() == 0) return;
        BackpropFilter(g, input.data<T>(), filter.data<T>(),
                       ctx->input(2).data<T>(), output->data<T>());
        return;
    }
  }

 private:
  absl::Status ReadAttrs(const OpKernelConstruction& ctx) {
    std::vector<int64_t> strides, rates;
    DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
    if (strides.size() != 4) {
      return absl::InvalidArgumentError(
          "Sliding window stride field must specify 4 dimensions");
    }
    if (strides[0] != 1 || strides[3] != 1) {
      return absl::UnimplementedError(
          "Current implementation does not yet support strides in the batch "
          "and depth dimensions.");
    }
    DFX_RETURN_IF_ERROR(ctx.GetAttr("rates", &rates));
    if (rates.size() != 4) {
      return absl::InvalidArgumentError(
          "Input stride (atrous rate) field must specify 4 dimensions");
    }
    if (rates[0] != 1 || rates[3] != 1) {
      return absl::UnimplementedError(
          "Current implementation does not yet support rates in the batch "
          "and depth dimensions.");
    }
    stride_rows_ = strides[1];
    stride_cols_ = strides[2];
    rate_rows_ = rates[1];
    rate_cols_ = rates[2];
    return ReadPadding(ctx, &padding_);
  }

  absl::Status MakeGeom(const TensorShape& input, const TensorShape& filter,
                        DilationGeom* g) const {
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 4-dimensional", input.DebugString()));
    }
    if (filter.dims() != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filter must be 3-dimensional: ", filter.DebugString()));
    }
    DFX_RETURN_IF_ERROR(conv_internal::CheckDimsFitInt(input, "input"));
    DFX_RETURN_IF_ERROR(conv_internal::CheckDimsFitInt(filter, "filter"));
    g->batch = input.dim_size(0);
    g->in_rows = input.dim_size(1);
    g->in_cols = input.dim_size(2);
    g->depth = input.dim_size(3);
    if (g->depth != filter.dim_size(2)) {
      return absl::InvalidArgumentError(
          "input and filter must have the same depth");
    }
    g->filter_rows = filter.dim_size(0);
    g->filter_cols = filter.dim_size(1);
    g->stride_rows = stride_rows_;
    g->stride_cols = stride_cols_;
    g->rate_rows = rate_rows_;
    g->rate_cols = rate_cols_;
    int64_t after = 0;
    DFX_RETURN_IF_ERROR(conv_internal::WindowedOutputSize(
        g->in_rows, g->filter_rows, g->rate_rows, g->stride_rows, padding_, 0,
        0, &g->out_rows, &g->pad_top, &after));
    return conv_internal::WindowedOutputSize(
        g->in_cols, g->filter_cols, g->rate_cols, g->stride_cols, padding_, 0,
        0, &g->out_cols, &g->pad_left, &after);
  }

  // The max of input + filter over the window of output (b, y, x, c), and
  // where: the input row and col (*in_r, *in_c, starting clamped into the
  // input as TensorFlow's backprop does) and the filter tap (*f_r, *f_c,
  // starting at 0).
  static T WindowMax(const DilationGeom& g, const T* in, const T* f,
                     int64_t b, int64_t y, int64_t x, int64_t c,
                     int64_t* in_r, int64_t* in_c, int64_t* f_r,
                     int64_t* f_c) {
    const int64_t r0 = y * g.stride_rows - g.pad_top;
    const int64_t c0 = x * g.stride_cols - g.pad_left;
    T best = std::numeric_limits<T>::lowest();
    *in_r = r0 < 0 ? 0 : r0;
    *in_c = c0 < 0 ? 0 : c0;
    *f_r = 0;
    *f_c = 0;
    for (int64_t i = 0; i < g.filter_rows; ++i) {
      const int64_t r = r0 + i * g.rate_rows;
      if (r < 0 || r >= g.in_rows) continue;
      for (int64_t j = 0; j < g.filter_cols; ++j) {
        const int64_t col = c0 + j * g.rate_cols;
        if (col < 0 || col >= g.in_cols) continue;
        const T v = static_cast<T>(
            in[((b * g.in_rows + r) * g.in_cols + col) * g.depth + c] +
            f[(i * g.filter_cols + j) * g.depth + c]);
        if (v > best) {
          best = v;
          *in_r = r;
          *in_c = col;
          *f_r = i;
          *f_c = j;
        }
      }
    }
    return best;
  }

  static void Forward(const Device& device, const DilationGeom& g,
                      const T* in, const T* f, T* out) {
    const int64_t n = g.batch * g.out_rows * g.out_cols;
    ParallelForCost(
        device, n, static_cast<double>(g.filter_rows * g.filter_cols * g.depth),
        [&](int64_t begin, int64_t end) {
          int64_t a, b2, c2, d2;
          for (int64_t u = begin; u < end; ++u) {
            const int64_t b = u / (g.out_rows * g.out_cols);
            const int64_t y = (u / g.out_cols) % g.out_rows;
            const int64_t x = u % g.out_cols;
            for (int64_t c = 0; c < g.depth; ++c) {
              out[u * g.depth + c] =
                  WindowMax(g, in, f, b, y, x, c, &a, &b2, &c2, &d2);
            }
          }
        });
  }

  // Batches write disjoint slices of in_backprop, so they run in parallel;
  // within a batch the sums follow TensorFlow's (y, x, c) order.
  static void BackpropInput(const Device& device, const DilationGeom& g,
                            const T* in, const T* f, const T* dy, T* dx) {
    const int64_t plane = g.in_rows * g.in_cols * g.depth;
    ParallelForCost(
        device, g.batch,
        static_cast<double>(g.out_rows * g.out_cols * g.depth * g.filter_rows *
                            g.filter_cols),
        [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            T* slice = dx + b * plane;
            for (int64_t i = 0; i < plane; ++i) slice[i] = T(0);
            for (int64_t y = 0; y < g.out_rows; ++y) {
              for (int64_t x = 0; x < g.out_cols; ++x) {
                for (int64_t c = 0; c < g.depth; ++c) {
                  int64_t r, col, fr, fc;
                  WindowMax(g, in, f, b, y, x, c, &r, &col, &fr, &fc);
                  T& target = slice[(r * g.in_cols + col) * g.depth + c];
                  target = static_cast<T>(
                      target +
                      dy[((b * g.out_rows + y) * g.out_cols + x) * g.depth +
                         c]);
                }
              }
            }
          }
        });
  }

  // Every batch adds into the one filter gradient: sequential, in
  // TensorFlow's (b, y, x, c) order.
  static void BackpropFilter(const DilationGeom& g, const T* in, const T* f,
                             const T* dy, T* df) {
    const int64_t size = g.filter_rows * g.filter_cols * g.depth;
    for (int64_t i = 0; i < size; ++i) df[i] = T(0);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t y = 0; y < g.out_rows; ++y) {
        for (int64_t x = 0; x < g.out_cols; ++x) {
          for (int64_t c = 0; c < g.depth; ++c) {
            int64_t r, col, fr, fc;
            WindowMax(g, in, f, b, y, x, c, &r, &col, &fr, &fc);
            T& target = df[(fr * g.filter_cols + fc) * g.depth + c];
            target = static_cast<T>(
                target +
                dy[((b * g.out_rows + y) * g.out_cols + x) * g.depth + c]);
          }
        }
      }
    }
  }

  const DilationPass pass_;
  int64_t stride_rows_ = 1, stride_cols_ = 1, rate_rows_ = 1, rate_cols_ = 1;
  Padding padding_ = Padding::kValid;
};

template <typename T, DilationPass kPass>
class Dilation2DPassOp : public Dilation2DOp<T> {
 public:
  explicit Dilation2DPassOp(OpKernelConstruction* ctx)
      : Dilation2DOp<T>(ctx, kPass) {}
};

template <typename T>
void RegisterForType(KernelRegistry* registry) {
  RegisterKernel<Dilation2DPassOp<T, DilationPass::kForward>>(
      registry, KernelDefBuilder("Dilation2D").TypeConstraint<T>("T"));
  RegisterKernel<Dilation2DPassOp<T, DilationPass::kBackpropInput>>(
      registry,
      KernelDefBuilder("Dilation2DBackpropInput").TypeConstraint<T>("T"));
  RegisterKernel<Dilation2DPassOp<T, DilationPass::kBackpropFilter>>(
      registry,
      KernelDefBuilder("Dilation2DBackpropFilter").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterDilationKernels(KernelRegistry* registry) {
  RegisterForType<float>(registry);
  RegisterForType<double>(registry);
  RegisterForType<Eigen::half>(registry);
  RegisterForType<Eigen::bfloat16>(registry);
  RegisterForType<int8_t>(registry);
  RegisterForType<int16_t>(registry);
  RegisterForType<int32_t>(registry);
  RegisterForType<int64_t>(registry);
  RegisterForType<uint8_t>(registry);
  RegisterForType<uint16_t>(registry);
  RegisterForType<uint32_t>(registry);
  RegisterForType<uint64_t>(registry);
}

}  // namespace dfx::volumetric_internal

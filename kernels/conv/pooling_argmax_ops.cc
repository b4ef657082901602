// MaxPoolWithArgmax and MaxPoolGradWithArgmax on NHWC tensors, as
// TensorFlow's CPU kernels compute them. The argmax of an output element is
// the flat index of its window's first maximum in row-major order (a later
// element replaces it only when strictly greater, so a NaN found first
// stays): ((b * height + y) * width + x) * channels + c with
// include_batch_in_index, else (y * width + x) * channels + c. The gradient
// adds each grad element, in order and in T, to the input element its argmax
// names (integers wrap, as TensorFlow's do in practice). As TensorFlow's CPU
// kernels: every real T, MaxPoolWithArgmax for Targmax int64 and int32,
// MaxPoolGradWithArgmax for int64 only; an empty input to MaxPoolWithArgmax
// is InvalidArgument.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_util.h"
#include "kernels/conv/pool_util.h"

namespace dfx::conv_internal {
namespace {

// a + b; integers wrap around (in their unsigned type: no overflow).
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// The attrs both ops share.
struct ArgmaxPoolAttrs {
  PoolAttrs pool;
  bool include_batch_in_index = false;
};

absl::Status ReadArgmaxPoolAttrs(const OpKernelConstruction& ctx,
                                 ArgmaxPoolAttrs* attrs) {
  std::string padding;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("ksize", &attrs->pool.ksize));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->pool.strides));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  DFX_RETURN_IF_ERROR(ParsePadding(padding, &attrs->pool.padding));
  DFX_RETURN_IF_ERROR(
      ctx.GetAttr("include_batch_in_index", &attrs->include_batch_in_index));
  return CheckWindow(attrs->pool.ksize, attrs->pool.strides);
}

template <typename T, typename Targmax>
class MaxPoolWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadArgmaxPoolAttrs(*ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(input.shape(), attrs_.pool,
                                         /*allow_depth=*/false, &g));
    DFX_OP_REQUIRES(ctx, input.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "tensor_in must not be empty: ",
                        input.shape().DebugString())));
    auto shape = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    Tensor* argmax = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *shape, &argmax));
    if (output->NumElements() == 0) return;
    const T* in = input.data<T>();
    T* out = output->data<T>();
    Targmax* arg = argmax->data<Targmax>();
    const bool with_batch = attrs_.include_batch_in_index;
    const int64_t depth = g.depth;
    ParallelForCost(
        *ctx->device(), g.batch * g.out_rows * g.out_cols,
        static_cast<double>(g.window_rows * g.window_cols * depth) + 1,
        [&](int64_t first, int64_t last) {
          for (int64_t p = first; p < last; ++p) {
            const int64_t ow = p % g.out_cols;
            const int64_t oh = (p / g.out_cols) % g.out_rows;
            const int64_t n = p / (g.out_cols * g.out_rows);
            int64_t h0, h1, w0, w1;
            g.RowWindow(oh, &h0, &h1);
            g.ColWindow(ow, &w0, &w1);
            T* best = out + p * depth;
            Targmax* where = arg + p * depth;
            std::fill(where, where + depth, Targmax{-1});
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = w0; w < w1; ++w) {
                const int64_t pixel = (n * g.in_rows + h) * g.in_cols + w;
                const int64_t index_base =
                    (with_batch ? pixel : h * g.in_cols + w) * depth;
                const T* x = in + pixel * depth;
                for (int64_t c = 0; c < depth; ++c) {
                  if (where[c] < 0 || best[c] < x[c]) {
                    best[c] = x[c];
                    where[c] = static_cast<Targmax>(index_base + c);
                  }
                }
              }
            }
          }
        });
  }

 private:
  ArgmaxPoolAttrs attrs_;
};

template <typename T>
class MaxPoolGradWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolGradWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadArgmaxPoolAttrs(*ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, MakePoolGeom(input.shape(), attrs_.pool,
                                         /*allow_depth=*/false, &g));
    auto expected_or = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, expected_or.status());
    const TensorShape& expected = *expected_or;
    DFX_OP_REQUIRES(
        ctx, grad.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected grad shape to be ", expected.DebugString(),
            ", but got ", grad.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, argmax.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected argmax shape to be ", expected.DebugString(),
            ", but got ", argmax.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    T* dx = output->data<T>();
    std::fill(dx, dx + output->NumElements(), T(0));
    if (grad.NumElements() == 0) return;
    const int64_t in_size = g.in_rows * g.in_cols * g.depth;
    const int64_t out_size = g.out_rows * g.out_cols * g.depth;
    const int64_t* arg = argmax.data<int64_t>();
    const T* dy = grad.data<T>();
    const bool with_batch = attrs_.include_batch_in_index;
    // Every index must name an element of its own image, so that images can
    // be summed in parallel. TensorFlow checks the same per shard of images.
    for (int64_t i = 0; i < grad.NumElements(); ++i) {
      const int64_t b = i / out_size;
      const int64_t index = arg[i] + (with_batch ? 0 : b * in_size);
      if (index < b * in_size || index >= (b + 1) * in_size) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Invalid output gradient index: ", arg[i], " at argmax element ",
            i, " (image ", b, "): must be in [",
            with_batch ? b * in_size : 0, ", ",
            with_batch ? (b + 1) * in_size : in_size, ")")));
        return;
      }
    }
    ParallelForCost(*ctx->device(), g.batch,
                    static_cast<double>(out_size) * 2 + 1,
                    [&](int64_t first, int64_t last) {
                      for (int64_t b = first; b < last; ++b) {
                        const int64_t base = with_batch ? 0 : b * in_size;
                        for (int64_t i = b * out_size; i < (b + 1) * out_size;
                             ++i) {
                          T& x = dx[arg[i] + base];
                          x = WrappingAdd(x, dy[i]);
                        }
                      }
                    });
  }

 private:
  ArgmaxPoolAttrs attrs_;
};

template <typename T>
void RegisterArgmaxPool(KernelRegistry* registry) {
  RegisterKernel<MaxPoolWithArgmaxOp<T, int64_t>>(
      registry, KernelDefBuilder("MaxPoolWithArgmax")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<int64_t>("Targmax"));
  RegisterKernel<MaxPoolWithArgmaxOp<T, int32_t>>(
      registry, KernelDefBuilder("MaxPoolWithArgmax")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<int32_t>("Targmax"));
  RegisterKernel<MaxPoolGradWithArgmaxOp<T>>(
      registry, KernelDefBuilder("MaxPoolGradWithArgmax")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<int64_t>("Targmax"));
}

}  // namespace

void RegisterPoolingArgmaxKernels(KernelRegistry* registry) {
  RegisterArgmaxPool<float>(registry);
  RegisterArgmaxPool<double>(registry);
  RegisterArgmaxPool<Eigen::half>(registry);
  RegisterArgmaxPool<Eigen::bfloat16>(registry);
  RegisterArgmaxPool<int8_t>(registry);
  RegisterArgmaxPool<int16_t>(registry);
  RegisterArgmaxPool<int32_t>(registry);
  RegisterArgmaxPool<int64_t>(registry);
  RegisterArgmaxPool<uint8_t>(registry);
  RegisterArgmaxPool<uint16_t>(registry);
  RegisterArgmaxPool<uint32_t>(registry);
  RegisterArgmaxPool<uint64_t>(registry);
}

}  // namespace dfx::conv_internal

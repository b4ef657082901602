// MaxPool3D, AvgPool3D and their gradients (MaxPool3DGrad, AvgPool3DGrad,
// MaxPool3DGradGrad) on the CPU, in NDHWC or NCDHW, with TensorFlow's
// semantics from pooling_ops_3d.cc:
//  - windows hold only the positions inside the input: SAME padding never
//    wins a max and is not counted in an average;
//  - MaxPool3DGrad gives a window's gradient to the first position (in D,
//    H, W order) within 1e-5 of orig_output, summed over overlapping
//    windows; ties do not share it (as TensorFlow's default oneDNN build);
//  - MaxPool3DGradGrad reads the gradient at the first position equal to
//    orig_output, 0 when there is none.
// Units of parallel work are whole output positions, input positions or
// batches, each written by one thread.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/volumetric/volumetric_util.h"

namespace dfx::volumetric_internal {
namespace {

using conv_internal::Padding;
using conv_internal::ParallelForCost;

enum class PoolKind { kMax, kAvg, kMaxGrad, kAvgGrad, kMaxGradGrad };

struct Pool3DAttrs {
  bool channels_first = false;
  int64_t ksize[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  Padding padding = Padding::kValid;
};

absl::Status ReadPool3DAttrs(const OpKernelConstruction& ctx,
                             Pool3DAttrs* attrs) {
  DFX_RETURN_IF_ERROR(ReadFormat3D(ctx, &attrs->channels_first));
  std::vector<int64_t> ksize, strides;
  DFX_RETURN_IF_ERROR(ReadList5(
      ctx, "ksize", "Sliding window ksize field must specify 5 dimensions",
      &ksize));
  DFX_RETURN_IF_ERROR(ReadList5(
      ctx, "strides", "Sliding window stride field must specify 5 dimensions",
      &strides));
  DFX_RETURN_IF_ERROR(ReadPadding(ctx, &attrs->padding));
  const int c = attrs->channels_first ? 1 : 4;
  const int sp = attrs->channels_first ? 2 : 1;
  if (ksize[0] != 1 || strides[0] != 1) {
    return absl::UnimplementedError(
        "Pooling is not yet supported on the batch dimension.");
  }
  if (ksize[c] != 1 || strides[c] != 1) {
    return absl::UnimplementedError(
        "Pooling is not yet supported on the depth dimension.");
  }
  for (int i = 0; i < 5; ++i) {
    if (ksize[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Sliding window ksize must be positive. The specified or inferred "
          "ksize is: ",
          absl::StrJoin(ksize, ",")));
    }
    if (strides[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Sliding window stride must be positive. The specified or inferred "
          "stride is: ",
          absl::StrJoin(strides, ",")));
    }
  }
  for (int i = 0; i < 3; ++i) {
    attrs->ksize[i] = ksize[sp + i];
    attrs->stride[i] = strides[sp + i];
  }
  return absl::OkStatus();
}

// The window of output position o in dim i: [*begin, *end) of the input.
void WindowOf(const Geom3& g, int i, int64_t o, int64_t* begin,
              int64_t* end) {
  const int64_t start = o * g.stride[i] - g.pad[i];
  *begin = std::max<int64_t>(start, 0);
  *end = std::min(start + g.window[i], g.in[i]);
}

template <typename T>
class Pool3DOp : public OpKernel {
 public:
  Pool3DOp(OpKernelConstruction* ctx, PoolKind kind)
      : OpKernel(ctx), kind_(kind) {
    ctx->SetStatus(ReadPool3DAttrs(*ctx, &attrs_));
    if (ctx->status().ok() && kind == PoolKind::kMaxGradGrad &&
        attrs_.channels_first) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Default MaxPooling3dGradGradOp only supportsNDHWC on CPU device "
          "type"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape in_shape;
    if (kind_ == PoolKind::kAvgGrad) {
      const Tensor& sizes = ctx->input(0);
      DFX_OP_REQUIRES(
          ctx, sizes.dims() == 1 && sizes.NumElements() == 5,
          absl::InvalidArgumentError(
              "orig_input_shape must be 1-dimensional and 5 elements"));
      std::vector<int64_t> dims;
      for (int32_t v : sizes.span<int32_t>()) dims.push_back(v);
      auto built = TensorShape::Build(dims);
      DFX_OP_REQUIRES_OK(ctx, built.status());
      in_shape = *built;
    } else {
      in_shape = ctx->input(0).shape();
    }
    DFX_OP_REQUIRES(ctx, in_shape.dims() == 5,
                    absl::InvalidArgumentError(
                        "tensor_in must be 5-dimensional"));
    DFX_OP_REQUIRES_OK(ctx, conv_internal::CheckDimsFitInt(in_shape, "Input"));
    Geom3 g;
    g.channels_first = attrs_.channels_first;
    const int c = attrs_.channels_first ? 1 : 4;
    const int sp = attrs_.channels_first ? 2 : 1;
    g.batch = in_shape.dim_size(0);
    g.in_channels = g.out_channels = in_shape.dim_size(c);
    for (int i = 0; i < 3; ++i) {
      g.in[i] = in_shape.dim_size(sp + i);
      g.window[i] = attrs_.ksize[i];
      g.stride[i] = attrs_.stride[i];
    }
    DFX_OP_REQUIRES_OK(ctx, g.ComputeOutput(attrs_.padding));
    auto out_shape = TensorShape::Build(g.Dims(g.out, g.out_channels));
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());

    switch (kind_) {
      case PoolKind::kMax:
      case PoolKind::kAvg: {
        Tensor* output = nullptr;
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
        if (output->NumElements() == 0) return;
        Forward(*ctx->device(), g, kind_ == PoolKind::kMax,
                ctx->input(0).data<T>(), output->data<T>());
        return;
      }
      case PoolKind::kAvgGrad: {
        const Tensor& grad = ctx->input(1);
        DFX_OP_REQUIRES_OK(ctx, CheckShape("grad", grad.shape(), *out_shape));
        Tensor* output = nullptr;
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &output));
        if (output->NumElements() == 0) return;
        AvgGrad(*ctx->device(), g, grad.data<T>(), output->data<T>());
        return;
      }
      case PoolKind::kMaxGrad: {
        const Tensor& orig_output = ctx->input(1);
        const Tensor& grad = ctx->input(2);
        DFX_OP_REQUIRES_OK(
            ctx, CheckShape("orig_output", orig_output.shape(), *out_shape));
        DFX_OP_REQUIRES_OK(ctx, CheckShape("grad", grad.shape(), *out_shape));
        Tensor* output = nullptr;
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &output));
        if (output->NumElements() == 0) return;
        MaxGrad(*ctx->device(), g, ctx->input(0).data<T>(),
                orig_output.data<T>(), grad.data<T>(), output->data<T>());
        return;
      }
      case PoolKind::kMaxGradGrad: {
        const Tensor& orig_output = ctx->input(1);
        const Tensor& grad = ctx->input(2);
        DFX_OP_REQUIRES_OK(
            ctx, CheckShape("orig_output", orig_output.shape(), *out_shape));
        DFX_OP_REQUIRES_OK(ctx, CheckShape("grad", grad.shape(), in_shape));
        Tensor* output = nullptr;
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
        if (output->NumElements() == 0) return;
        MaxGradGrad(*ctx->device(), g, ctx->input(0).data<T>(),
                    orig_output.data<T>(), grad.data<T>(), output->data<T>());
        return;
      }
    }
  }

 private:
  static absl::Status CheckShape(const char* what, const TensorShape& actual,
                                 const TensorShape& expected) {
    if (actual == expected) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("Expected ", what, " shape to be ",
                     expected.DebugString(), ", but got ",
                     actual.DebugString()));
  }

  // Decomposes a unit index over batch x plane into (n, d, h, w).
  static void Split(int64_t u, const int64_t dims[3], int64_t* n, int64_t* d,
                    int64_t* h, int64_t* w) {
    const int64_t plane = dims[0] * dims[1] * dims[2];
    *n = u / plane;
    int64_t rem = u % plane;
    *d = rem / (dims[1] * dims[2]);
    rem %= dims[1] * dims[2];
    *h = rem / dims[2];
    *w = rem % dims[2];
  }

  static double WindowCost(const Geom3& g) {
    return static_cast<double>(g.window[0] * g.window[1] * g.window[2] *
                               g.in_channels);
  }

  static void Forward(const Device& device, const Geom3& g, bool max,
                      const T* x, T* y) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ch = g.in_channels;
    ParallelForCost(
        device, g.batch * g.OutPlane(), WindowCost(g),
        [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(ch);
          for (int64_t u = begin; u < end; ++u) {
            int64_t n, od, oh, ow;
            Split(u, g.out, &n, &od, &oh, &ow);
            int64_t d0, d1, h0, h1, w0, w1;
            WindowOf(g, 0, od, &d0, &d1);
            WindowOf(g, 1, oh, &h0, &h1);
            WindowOf(g, 2, ow, &w0, &w1);
            std::fill(acc.begin(), acc.end(),
                      max ? std::numeric_limits<Acc>::lowest() : Acc(0));
            for (int64_t d = d0; d < d1; ++d) {
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t base = xo.At(n, d, h, w, 0);
                  for (int64_t c = 0; c < ch; ++c) {
                    const Acc v = static_cast<Acc>(x[base + c * xo.c]);
                    if (max) {
                      if (v > acc[c]) acc[c] = v;
                    } else {
                      acc[c] += v;
                    }
                  }
                }
              }
            }
            const Acc count = static_cast<Acc>((d1 - d0) * (h1 - h0) * (w1 - w0));
            const int64_t out_base = yo.At(n, od, oh, ow, 0);
            for (int64_t c = 0; c < ch; ++c) {
              y[out_base + c * yo.c] =
                  static_cast<T>(max ? acc[c] : acc[c] / count);
            }
          }
        });
  }

  // The output positions whose windows hold input index i of dim `dim`:
  // [*begin, *end).
  static void CoveringOutputs(const Geom3& g, int dim, int64_t i,
                              int64_t* begin, int64_t* end) {
    // o covers i when o*s - p <= i < o*s - p + k.
    const int64_t t = i + g.pad[dim];
    const int64_t hi = t / g.stride[dim];  // largest o with o*s <= t
    const int64_t lo_num = t - g.window[dim] + 1;
    const int64_t lo =
        lo_num <= 0 ? 0 : (lo_num + g.stride[dim] - 1) / g.stride[dim];
    *begin = lo;
    *end = std::min(hi + 1, g.out[dim]);
  }

  // One input position per unit: the sum over the windows covering it of
  // their gradient divided by their (clipped) size.
  static void AvgGrad(const Device& device, const Geom3& g, const T* dy,
                      T* dx) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ch = g.in_channels;
    ParallelForCost(
        device, g.batch * g.InPlane(), WindowCost(g),
        [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(ch);
          for (int64_t u = begin; u < end; ++u) {
            int64_t n, id, ih, iw;
            Split(u, g.in, &n, &id, &ih, &iw);
            int64_t od0, od1, oh0, oh1, ow0, ow1;
            CoveringOutputs(g, 0, id, &od0, &od1);
            CoveringOutputs(g, 1, ih, &oh0, &oh1);
            CoveringOutputs(g, 2, iw, &ow0, &ow1);
            std::fill(acc.begin(), acc.end(), Acc(0));
            for (int64_t od = od0; od < od1; ++od) {
              int64_t d0, d1;
              WindowOf(g, 0, od, &d0, &d1);
              for (int64_t oh = oh0; oh < oh1; ++oh) {
                int64_t h0, h1;
                WindowOf(g, 1, oh, &h0, &h1);
                for (int64_t ow = ow0; ow < ow1; ++ow) {
                  int64_t w0, w1;
                  WindowOf(g, 2, ow, &w0, &w1);
                  const Acc count =
                      static_cast<Acc>((d1 - d0) * (h1 - h0) * (w1 - w0));
                  const int64_t base = yo.At(n, od, oh, ow, 0);
                  for (int64_t c = 0; c < ch; ++c) {
                    acc[c] += static_cast<Acc>(dy[base + c * yo.c]) / count;
                  }
                }
              }
            }
            const int64_t xbase = xo.At(n, id, ih, iw, 0);
            for (int64_t c = 0; c < ch; ++c) {
              dx[xbase + c * xo.c] = static_cast<T>(acc[c]);
            }
          }
        });
  }

  // For each output element, the flat input index of the first position
  // (in D, H, W order) of its window whose value matches `y` (within 1e-5,
  // or exactly when `exact`), or -1 when none does.
  static std::vector<int64_t> FirstMatches(const Device& device,
                                           const Geom3& g, const T* x,
                                           const T* y, bool exact) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ch = g.in_channels;
    std::vector<int64_t> match(g.batch * g.OutPlane() * ch, -1);
    ParallelForCost(
        device, g.batch * g.OutPlane(), WindowCost(g),
        [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            int64_t n, od, oh, ow;
            Split(u, g.out, &n, &od, &oh, &ow);
            int64_t d0, d1, h0, h1, w0, w1;
            WindowOf(g, 0, od, &d0, &d1);
            WindowOf(g, 1, oh, &h0, &h1);
            WindowOf(g, 2, ow, &w0, &w1);
            const int64_t out_base = yo.At(n, od, oh, ow, 0);
            for (int64_t c = 0; c < ch; ++c) {
              const T target = y[out_base + c * yo.c];
              int64_t found = -1;
              for (int64_t d = d0; d < d1 && found < 0; ++d) {
                for (int64_t h = h0; h < h1 && found < 0; ++h) {
                  for (int64_t w = w0; w < w1; ++w) {
                    const int64_t i = xo.At(n, d, h, w, c);
                    const bool hit =
                        exact ? x[i] == target
                              : std::abs(static_cast<Acc>(x[i]) -
                                         static_cast<Acc>(target)) < Acc(1e-5);
                    if (hit) {
                      found = i;
                      break;
                    }
                  }
                }
              }
              match[u * ch + c] = found;
            }
          }
        });
    return match;
  }

  // Each window's gradient goes to the first position matching its max
  // (TensorFlow's oneDNN CPU kernel, which the default build runs: ties do
  // not share it, and a window with no match drops it). Batches write
  // disjoint slices, so they run in parallel; within one the sums follow
  // the output order.
  static void MaxGrad(const Device& device, const Geom3& g, const T* x,
                      const T* y, const T* dy, T* dx) {
    using Acc = AccT<T>;
    const std::vector<int64_t> match = FirstMatches(device, g, x, y, false);
    const Offsets5 yo = g.OutOffsets();
    const int64_t ch = g.in_channels;
    const int64_t in_size = g.InPlane() * ch;
    ParallelForCost(
        device, g.batch, static_cast<double>(g.OutPlane() * ch) * 4,
        [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(in_size);
          for (int64_t n = begin; n < end; ++n) {
            std::fill(acc.begin(), acc.end(), Acc(0));
            for (int64_t p = 0; p < g.OutPlane(); ++p) {
              const int64_t u = n * g.OutPlane() + p;
              int64_t nn, od, oh, ow;
              Split(u, g.out, &nn, &od, &oh, &ow);
              const int64_t out_base = yo.At(n, od, oh, ow, 0);
              for (int64_t c = 0; c < ch; ++c) {
                const int64_t i = match[u * ch + c];
                if (i < 0) continue;
                acc[i - n * in_size] +=
                    static_cast<Acc>(dy[out_base + c * yo.c]);
              }
            }
            T* slice = dx + n * in_size;
            for (int64_t i = 0; i < in_size; ++i) {
              slice[i] = static_cast<T>(acc[i]);
            }
          }
        });
  }

  // Each output element reads the gradient at the first position of its
  // window equal to orig_output, or 0 when none is (TensorFlow's CPU
  // kernel).
  static void MaxGradGrad(const Device& device, const Geom3& g, const T* x,
                          const T* y, const T* ddx, T* out) {
    const std::vector<int64_t> match = FirstMatches(device, g, x, y, true);
    const Offsets5 yo = g.OutOffsets();
    const int64_t ch = g.in_channels;
    for (int64_t u = 0; u < g.batch * g.OutPlane(); ++u) {
      int64_t n, od, oh, ow;
      Split(u, g.out, &n, &od, &oh, &ow);
      const int64_t out_base = yo.At(n, od, oh, ow, 0);
      for (int64_t c = 0; c < ch; ++c) {
        const int64_t i = match[u * ch + c];
        out[out_base + c * yo.c] = i < 0 ? T(0) : ddx[i];
      }
    }
  }

  const PoolKind kind_;
  Pool3DAttrs attrs_;
};

template <typename T, PoolKind kKind>
class Pool3DKindOp : public Pool3DOp<T> {
 public:
  explicit Pool3DKindOp(OpKernelConstruction* ctx) : Pool3DOp<T>(ctx, kKind) {}
};

template <typename T>
void RegisterForType(KernelRegistry* registry) {
  RegisterKernel<Pool3DKindOp<T, PoolKind::kMax>>(
      registry, KernelDefBuilder("MaxPool3D").TypeConstraint<T>("T"));
  RegisterKernel<Pool3DKindOp<T, PoolKind::kAvg>>(
      registry, KernelDefBuilder("AvgPool3D").TypeConstraint<T>("T"));
  RegisterKernel<Pool3DKindOp<T, PoolKind::kMaxGrad>>(
      registry, KernelDefBuilder("MaxPool3DGrad")
                    .TypeConstraint("T", {DataTypeToEnum<T>::value})
                    .TypeConstraint("TInput", {DataTypeToEnum<T>::value}));
  RegisterKernel<Pool3DKindOp<T, PoolKind::kAvgGrad>>(
      registry, KernelDefBuilder("AvgPool3DGrad").TypeConstraint<T>("T"));
  RegisterKernel<Pool3DKindOp<T, PoolKind::kMaxGradGrad>>(
      registry, KernelDefBuilder("MaxPool3DGradGrad").TypeConstraint<T>("T"));
}

}  // namespace

// TensorFlow's CPU kernels of these ops take float and bfloat16 only (half
// and double find no kernel there either).
void RegisterPool3DKernels(KernelRegistry* registry) {
  RegisterForType<float>(registry);
  RegisterForType<Eigen::bfloat16>(registry);
}

}  // namespace dfx::volumetric_internal

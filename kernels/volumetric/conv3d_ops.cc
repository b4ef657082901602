// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on the CPU, in
// NDHWC or NCDHW, with strides and dilations, SAME or VALID padding. The
// checks and messages follow TensorFlow's conv_ops_3d.cc and
// conv_grad_ops_3d.cc (ConvBackpropComputeDimensionsV2); TensorFlow 2.21's
// CPU build (oneDNN) accepts NCDHW and dilations in all three ops, so these
// do too. Each pass is written as a gather, so every output element is summed
// by one thread and the loops parallelize without atomics.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/volumetric/volumetric_util.h"

namespace dfx::volumetric_internal {
namespace {

using conv_internal::Padding;
using conv_internal::ParallelForCost;

enum class Conv3DPass { kForward, kBackpropInput, kBackpropFilter };

// The attrs of the three ops, read and checked once.
struct Conv3DAttrs {
  bool channels_first = false;
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  Padding padding = Padding::kValid;
};

absl::Status ReadConv3DAttrs(const OpKernelConstruction& ctx,
                             Conv3DAttrs* attrs) {
  DFX_RETURN_IF_ERROR(ReadFormat3D(ctx, &attrs->channels_first));
  std::vector<int64_t> strides, dilations;
  DFX_RETURN_IF_ERROR(ReadList5(
      ctx, "strides", "Sliding window strides field must specify 5 dimensions",
      &strides));
  DFX_RETURN_IF_ERROR(ReadList5(
      ctx, "dilations", "Dilation rates field must specify 5 dimensions",
      &dilations));
  const int c = attrs->channels_first ? 1 : 4;
  const int sp = attrs->channels_first ? 2 : 1;
  if (strides[0] != 1 || strides[c] != 1) {
    return absl::UnimplementedError(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (dilations[0] != 1 || dilations[c] != 1) {
    return absl::UnimplementedError(
        "Current implementation does not yet support dilations rates in the "
        "batch and depth dimensions.");
  }
  for (int i = 0; i < 3; ++i) {
    if (strides[sp + i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Stride must be > 0, but got ", strides[sp + i]));
    }
    if (dilations[sp + i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Dilation rate must be >= 1, but got ", dilations[sp + i]));
    }
    attrs->stride[i] = strides[sp + i];
    attrs->dilation[i] = dilations[sp + i];
  }
  return ReadPadding(ctx, &attrs->padding);
}

// Reads a shape given as a 1-D int32 or int64 tensor.
absl::Status ShapeFromTensor(const Tensor& sizes, const char* what,
                             TensorShape* shape) {
  if (sizes.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a vector of {int32,int64}, got shape ",
        sizes.shape().DebugString()));
  }
  std::vector<int64_t> dims;
  if (sizes.dtype() == DT_INT64) {
    for (int64_t v : sizes.span<int64_t>()) dims.push_back(v);
  } else {
    for (int32_t v : sizes.span<int32_t>()) dims.push_back(v);
  }
  auto built = TensorShape::Build(dims);
  DFX_RETURN_IF_ERROR(built.status());
  *shape = *built;
  return absl::OkStatus();
}

template <typename T>
class Conv3DOp : public OpKernel {
 public:
  Conv3DOp(OpKernelConstruction* ctx, Conv3DPass pass)
      : OpKernel(ctx), pass_(pass) {
    ctx->SetStatus(ReadConv3DAttrs(*ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    switch (pass_) {
      case Conv3DPass::kForward:
        ComputeForward(ctx);
        break;
      case Conv3DPass::kBackpropInput:
        ComputeBackpropInput(ctx);
        break;
      case Conv3DPass::kBackpropFilter:
        ComputeBackpropFilter(ctx);
        break;
    }
  }

 private:
  const char* Label() const {
    return pass_ == Conv3DPass::kBackpropInput ? "Conv3DBackpropInputOp"
                                               : "Conv3DBackpropFilterOp";
  }

  // Fills `g` from the activation (input) shape and the filter shape and
  // computes the output geometry.
  absl::Status MakeGeom(const TensorShape& input, const TensorShape& filter,
                        Geom3* g) const {
    if (input.dims() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 5-dimensional", input.DebugString()));
    }
    if (filter.dims() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filter must be 5-dimensional: ", filter.DebugString()));
    }
    DFX_RETURN_IF_ERROR(conv_internal::CheckDimsFitInt(input, "Input"));
    DFX_RETURN_IF_ERROR(conv_internal::CheckDimsFitInt(filter, "Filter"));
    g->channels_first = attrs_.channels_first;
    const int c = attrs_.channels_first ? 1 : 4;
    const int sp = attrs_.channels_first ? 2 : 1;
    g->batch = input.dim_size(0);
    g->in_channels = input.dim_size(c);
    for (int i = 0; i < 3; ++i) {
      g->in[i] = input.dim_size(sp + i);
      g->window[i] = filter.dim_size(i);
      g->stride[i] = attrs_.stride[i];
      g->dilation[i] = attrs_.dilation[i];
    }
    g->out_channels = filter.dim_size(4);
    if (g->in_channels != filter.dim_size(3)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input and filter must have the same depth: ", g->in_channels,
          " vs ", filter.dim_size(3)));
    }
    if (filter.num_elements() == 0) {
      return absl::InvalidArgumentError(
          "filter must not have zero elements (i.e. all dimensions must be "
          "non-zero)");
    }
    return g->ComputeOutput(attrs_.padding);
  }

  // ConvBackpropComputeDimensionsV2's checks of out_backprop.
  absl::Status CheckOutBackprop(const TensorShape& out_backprop,
                                const Geom3& g) const {
    if (out_backprop.dims() != 5) {
      return absl::InvalidArgumentError(
          absl::StrCat(Label(), ": out_backprop must be 5-dimensional"));
    }
    const int c = attrs_.channels_first ? 1 : 4;
    const int sp = attrs_.channels_first ? 2 : 1;
    if (out_backprop.dim_size(0) != g.batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          Label(),
          ": input and out_backprop must have the same batch size. Input "
          "batch: ",
          g.batch, ", outbackprop batch: ", out_backprop.dim_size(0),
          ", batch_dim: 0"));
    }
    if (out_backprop.dim_size(c) != g.out_channels) {
      return absl::InvalidArgumentError(absl::StrCat(
          Label(), ": filter and out_backprop must have the same out_depth"));
    }
    for (int i = 0; i < 3; ++i) {
      const int64_t actual = out_backprop.dim_size(sp + i);
      if (actual != g.out[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            Label(), ": Size of out_backprop doesn't match computed: actual = ",
            actual, ", computed = ", g.out[i], " spatial_dim: ", sp + i,
            " input: ", g.in[i], " filter: ", g.window[i], " output: ",
            actual, " stride: ", g.stride[i], " dilation: ", g.dilation[i]));
      }
    }
    return absl::OkStatus();
  }

  void ComputeForward(OpKernelContext* ctx) {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Geom3 g;
    DFX_OP_REQUIRES_OK(ctx, MakeGeom(input.shape(), filter.shape(), &g));
    auto shape = TensorShape::Build(g.Dims(g.out, g.out_channels));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    Forward(*ctx->device(), g, input.data<T>(), filter.data<T>(),
            output->data<T>());
  }

  void ComputeBackpropInput(OpKernelContext* ctx) {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape input_shape;
    DFX_OP_REQUIRES_OK(
        ctx, ShapeFromTensor(ctx->input(0), "input_sizes", &input_shape));
    Geom3 g;
    DFX_OP_REQUIRES_OK(ctx, MakeGeom(input_shape, filter.shape(), &g));
    DFX_OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop.shape(), g));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (output->NumElements() == 0) return;
    BackpropInput(*ctx->device(), g, filter.data<T>(), out_backprop.data<T>(),
                  output->data<T>());
  }

  void ComputeBackpropFilter(OpKernelContext* ctx) {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    DFX_OP_REQUIRES_OK(
        ctx, ShapeFromTensor(ctx->input(1), "filter_sizes", &filter_shape));
    Geom3 g;
    DFX_OP_REQUIRES_OK(ctx, MakeGeom(input.shape(), filter_shape, &g));
    DFX_OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop.shape(), g));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &output));
    if (output->NumElements() == 0) return;
    BackpropFilter(*ctx->device(), g, input.data<T>(), out_backprop.data<T>(),
                   output->data<T>());
  }

  // One output position per unit: its out_channels sums over the window.
  static void Forward(const Device& device, const Geom3& g, const T* x,
                      const T* f, T* y) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ci = g.in_channels, co = g.out_channels;
    const double cost = static_cast<double>(g.window[0] * g.window[1] *
                                            g.window[2] * ci * co) * 2;
    ParallelForCost(
        device, g.batch * g.OutPlane(), cost, [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(co);
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.OutPlane();
            int64_t rem = u % g.OutPlane();
            const int64_t od = rem / (g.out[1] * g.out[2]);
            rem %= g.out[1] * g.out[2];
            const int64_t oh = rem / g.out[2], ow = rem % g.out[2];
            std::fill(acc.begin(), acc.end(), Acc(0));
            for (int64_t kd = 0; kd < g.window[0]; ++kd) {
              const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
              if (id < 0 || id >= g.in[0]) continue;
              for (int64_t kh = 0; kh < g.window[1]; ++kh) {
                const int64_t ih =
                    oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                if (ih < 0 || ih >= g.in[1]) continue;
                for (int64_t kw = 0; kw < g.window[2]; ++kw) {
                  const int64_t iw =
                      ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                  if (iw < 0 || iw >= g.in[2]) continue;
                  const T* ftap =
                      f + ((kd * g.window[1] + kh) * g.window[2] + kw) * ci * co;
                  const int64_t base = xo.At(n, id, ih, iw, 0);
                  for (int64_t c = 0; c < ci; ++c) {
                    const Acc xv = static_cast<Acc>(x[base + c * xo.c]);
                    const T* frow = ftap + c * co;
                    for (int64_t o = 0; o < co; ++o) {
                      acc[o] += xv * static_cast<Acc>(frow[o]);
                    }
                  }
                }
              }
            }
            const int64_t out_base = yo.At(n, od, oh, ow, 0);
            for (int64_t o = 0; o < co; ++o) {
              y[out_base + o * yo.c] = static_cast<T>(acc[o]);
            }
          }
        });
  }

  // One input position per unit: the sum over the output positions whose
  // window covers it.
  static void BackpropInput(const Device& device, const Geom3& g, const T* f,
                            const T* dy, T* dx) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ci = g.in_channels, co = g.out_channels;
    const double cost = static_cast<double>(g.window[0] * g.window[1] *
                                            g.window[2] * ci * co) * 2;
    // The output index a window tap at `k` reaches from input index `i` in
    // dim `dim`, or -1.
    auto out_index = [&g](int dim, int64_t i, int64_t k) -> int64_t {
      const int64_t t = i + g.pad[dim] - k * g.dilation[dim];
      if (t < 0 || t % g.stride[dim] != 0) return -1;
      const int64_t o = t / g.stride[dim];
      return o < g.out[dim] ? o : -1;
    };
    ParallelForCost(
        device, g.batch * g.InPlane(), cost, [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(ci);
          std::vector<Acc> grad(co);
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.InPlane();
            int64_t rem = u % g.InPlane();
            const int64_t id = rem / (g.in[1] * g.in[2]);
            rem %= g.in[1] * g.in[2];
            const int64_t ih = rem / g.in[2], iw = rem % g.in[2];
            std::fill(acc.begin(), acc.end(), Acc(0));
            for (int64_t kd = 0; kd < g.window[0]; ++kd) {
              const int64_t od = out_index(0, id, kd);
              if (od < 0) continue;
              for (int64_t kh = 0; kh < g.window[1]; ++kh) {
                const int64_t oh = out_index(1, ih, kh);
                if (oh < 0) continue;
                for (int64_t kw = 0; kw < g.window[2]; ++kw) {
                  const int64_t ow = out_index(2, iw, kw);
                  if (ow < 0) continue;
                  const int64_t gbase = yo.At(n, od, oh, ow, 0);
                  for (int64_t o = 0; o < co; ++o) {
                    grad[o] = static_cast<Acc>(dy[gbase + o * yo.c]);
                  }
                  const T* ftap =
                      f + ((kd * g.window[1] + kh) * g.window[2] + kw) * ci * co;
                  for (int64_t c = 0; c < ci; ++c) {
                    const T* frow = ftap + c * co;
                    Acc s = 0;
                    for (int64_t o = 0; o < co; ++o) {
                      s += grad[o] * static_cast<Acc>(frow[o]);
                    }
                    acc[c] += s;
                  }
                }
              }
            }
            const int64_t xbase = xo.At(n, id, ih, iw, 0);
            for (int64_t c = 0; c < ci; ++c) {
              dx[xbase + c * xo.c] = static_cast<T>(acc[c]);
            }
          }
        });
  }

  // One filter tap (kd, kh, kw) per unit: its ci x co block summed over the
  // batch and every output position.
  static void BackpropFilter(const Device& device, const Geom3& g, const T* x,
                             const T* dy, T* df) {
    using Acc = AccT<T>;
    const Offsets5 xo = g.InOffsets(), yo = g.OutOffsets();
    const int64_t ci = g.in_channels, co = g.out_channels;
    const int64_t taps = g.window[0] * g.window[1] * g.window[2];
    const double cost = static_cast<double>(g.batch * g.OutPlane() * ci * co) * 2;
    ParallelForCost(device, taps, cost, [&](int64_t begin, int64_t end) {
      std::vector<Acc> acc(ci * co);
      std::vector<Acc> grad(co);
      for (int64_t tap = begin; tap < end; ++tap) {
        const int64_t kd = tap / (g.window[1] * g.window[2]);
        const int64_t kh = (tap / g.window[2]) % g.window[1];
        const int64_t kw = tap % g.window[2];
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t n = 0; n < g.batch; ++n) {
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              const int64_t ih =
                  oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                const int64_t iw =
                    ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                if (iw < 0 || iw >= g.in[2]) continue;
                const int64_t gbase = yo.At(n, od, oh, ow, 0);
                for (int64_t o = 0; o < co; ++o) {
                  grad[o] = static_cast<Acc>(dy[gbase + o * yo.c]);
                }
                const int64_t xbase = xo.At(n, id, ih, iw, 0);
                for (int64_t c = 0; c < ci; ++c) {
                  const Acc xv = static_cast<Acc>(x[xbase + c * xo.c]);
                  Acc* row = acc.data() + c * co;
                  for (int64_t o = 0; o < co; ++o) row[o] += xv * grad[o];
                }
              }
            }
          }
        }
        T* out = df + tap * ci * co;
        for (int64_t i = 0; i < ci * co; ++i) out[i] = static_cast<T>(acc[i]);
      }
    });
  }

  const Conv3DPass pass_;
  Conv3DAttrs attrs_;
};

template <typename T, Conv3DPass kPass>
class Conv3DPassOp : public Conv3DOp<T> {
 public:
  explicit Conv3DPassOp(OpKernelConstruction* ctx) : Conv3DOp<T>(ctx, kPass) {}
};

template <typename T>
void RegisterForType(KernelRegistry* registry) {
  RegisterKernel<Conv3DPassOp<T, Conv3DPass::kForward>>(
      registry, KernelDefBuilder("Conv3D").TypeConstraint<T>("T"));
  RegisterKernel<Conv3DPassOp<T, Conv3DPass::kBackpropInput>>(
      registry,
      KernelDefBuilder("Conv3DBackpropInputV2").TypeConstraint<T>("T"));
  RegisterKernel<Conv3DPassOp<T, Conv3DPass::kBackpropFilter>>(
      registry,
      KernelDefBuilder("Conv3DBackpropFilterV2").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterConv3DKernels(KernelRegistry* registry) {
  RegisterForType<float>(registry);
  RegisterForType<double>(registry);
  RegisterForType<Eigen::half>(registry);
  RegisterForType<Eigen::bfloat16>(registry);
}

}  // namespace dfx::volumetric_internal

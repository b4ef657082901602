// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on the CPU, in
// NDHWC or NCDHW, with strides and dilations, SAME or VALID padding. The
// checks and messages follow TensorFlow's conv_ops_3d.cc and
// conv_grad_ops_3d.cc (ConvBackpropComputeDimensionsV2); TensorFlow 2.21's
// CPU build (oneDNN) accepts NCDHW and dilations in all three ops, so these
// do too. Each pass is a matrix product over patch matrices (im2col) on
// Eigen, in blocks of output positions over the intra-op pool; every sum has
// a fixed order, so results do not depend on the thread count.
#include "kernels/volumetric/volumetric_util.h"  // first: Eigen threads

#include <algorithm>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

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

// The v1 backprop ops (Conv3DBackpropInput, Conv3DBackpropFilter) have no
// data_format attr: NDHWC.
absl::Status ReadConv3DAttrs(const OpKernelConstruction& ctx, bool v1,
                             Conv3DAttrs* attrs) {
  if (!v1) DFX_RETURN_IF_ERROR(ReadFormat3D(ctx, &attrs->channels_first));
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
      : OpKernel(ctx),
        pass_(pass),
        v1_(ctx->def().op() == "Conv3DBackpropInput" ||
            ctx->def().op() == "Conv3DBackpropFilter") {
    ctx->SetStatus(ReadConv3DAttrs(*ctx, v1_, &attrs_));
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
    // v1 takes the input itself, V2 its shape.
    TensorShape input_shape = ctx->input(0).shape();
    if (!v1_) {
      DFX_OP_REQUIRES_OK(
          ctx, ShapeFromTensor(ctx->input(0), "input_sizes", &input_shape));
    }
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
    TensorShape filter_shape = ctx->input(1).shape();
    if (!v1_) {
      DFX_OP_REQUIRES_OK(
          ctx, ShapeFromTensor(ctx->input(1), "filter_sizes", &filter_shape));
    }
    Geom3 g;
    DFX_OP_REQUIRES_OK(ctx, MakeGeom(input.shape(), filter_shape, &g));
    DFX_OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop.shape(), g));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &output));
    if (output->NumElements() == 0) return;
    BackpropFilter(*ctx->device(), g, input.data<T>(), out_backprop.data<T>(),
                   output->data<T>());
  }

  using Acc = AccT<T>;
  using Matrix =
      Eigen::Matrix<Acc, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using MatrixMap = Eigen::Map<Matrix>;
  using ConstMatrixMap = Eigen::Map<const Matrix>;

  // Output positions per GEMM block: big enough for an efficient product,
  // small enough that a block's patch matrix stays in cache.
  static constexpr int64_t kBlock = 128;

  // The filter as a [taps * in_channels, out_channels] matrix in Acc.
  static Matrix FilterMatrix(const Geom3& g, const T* f) {
    const int64_t k = g.window[0] * g.window[1] * g.window[2] * g.in_channels;
    Matrix m(k, g.out_channels);
    const int64_t n = k * g.out_channels;
    for (int64_t i = 0; i < n; ++i) m.data()[i] = static_cast<Acc>(f[i]);
    return m;
  }

  // Decomposes a global output position u (over batch x out plane).
  static void SplitOut(const Geom3& g, int64_t u, int64_t* n, int64_t* od,
                       int64_t* oh, int64_t* ow) {
    *n = u / g.OutPlane();
    int64_t rem = u % g.OutPlane();
    *od = rem / (g.out[1] * g.out[2]);
    rem %= g.out[1] * g.out[2];
    *oh = rem / g.out[2];
    *ow = rem % g.out[2];
  }

  // im2col: row r of `cols` holds the window of output position begin + r,
  // in (kd, kh, kw, channel) order (the filter's row order); positions in
  // the padding are zero.
  static void Patches(const Geom3& g, const T* x, int64_t begin, int64_t end,
                      Matrix* cols) {
    const Offsets5 xo = g.InOffsets();
    const int64_t ci = g.in_channels;
    cols->resize(end - begin,
                 g.window[0] * g.window[1] * g.window[2] * ci);
    for (int64_t u = begin; u < end; ++u) {
      int64_t n, od, oh, ow;
      SplitOut(g, u, &n, &od, &oh, &ow);
      Acc* row = cols->data() + (u - begin) * cols->cols();
      for (int64_t kd = 0; kd < g.window[0]; ++kd) {
        const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
        for (int64_t kh = 0; kh < g.window[1]; ++kh) {
          const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
          for (int64_t kw = 0; kw < g.window[2]; ++kw, row += ci) {
            const int64_t iw =
                ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] ||
                iw < 0 || iw >= g.in[2]) {
              std::fill(row, row + ci, Acc(0));
              continue;
            }
            const int64_t base = xo.At(n, id, ih, iw, 0);
            for (int64_t c = 0; c < ci; ++c) {
              row[c] = static_cast<Acc>(x[base + c * xo.c]);
            }
          }
        }
      }
    }
  }

  // Rows [begin, end) of out_backprop as a [rows, out_channels] matrix.
  static void GradRows(const Geom3& g, const T* dy, int64_t begin,
                       int64_t end, Matrix* rows) {
    const Offsets5 yo = g.OutOffsets();
    rows->resize(end - begin, g.out_channels);
    for (int64_t u = begin; u < end; ++u) {
      int64_t n, od, oh, ow;
      SplitOut(g, u, &n, &od, &oh, &ow);
      const int64_t base = yo.At(n, od, oh, ow, 0);
      Acc* row = rows->data() + (u - begin) * g.out_channels;
      for (int64_t o = 0; o < g.out_channels; ++o) {
        row[o] = static_cast<Acc>(dy[base + o * yo.c]);
      }
    }
  }

  static double UnitCost(const Geom3& g) {
    return 2.0 * static_cast<double>(g.window[0] * g.window[1] * g.window[2] *
                                     g.in_channels * g.out_channels);
  }

  // Blocks of output positions over the intra-op pool; each block is one
  // patch matrix times the filter matrix.
  static void Forward(const Device& device, const Geom3& g, const T* x,
                      const T* f, T* y) {
    const Matrix filter = FilterMatrix(g, f);
    const Offsets5 yo = g.OutOffsets();
    const int64_t positions = g.batch * g.OutPlane();
    const int64_t blocks = (positions + kBlock - 1) / kBlock;
    ParallelForCost(
        device, blocks, UnitCost(g) * kBlock, [&](int64_t b0, int64_t b1) {
          Matrix cols, out;
          for (int64_t b = b0; b < b1; ++b) {
            const int64_t begin = b * kBlock;
            const int64_t end = std::min(positions, begin + kBlock);
            Patches(g, x, begin, end, &cols);
            out.noalias() = cols * filter;
            for (int64_t u = begin; u < end; ++u) {
              int64_t n, od, oh, ow;
              SplitOut(g, u, &n, &od, &oh, &ow);
              const int64_t base = yo.At(n, od, oh, ow, 0);
              const Acc* row = out.data() + (u - begin) * g.out_channels;
              for (int64_t o = 0; o < g.out_channels; ++o) {
                y[base + o * yo.c] = static_cast<T>(row[o]);
              }
            }
          }
        });
  }

  // Per batch: the patch gradients (out_backprop times the transposed
  // filter) are computed in parallel blocks, then added into the input
  // gradient window by window in one thread, so the sums are deterministic.
  static void BackpropInput(const Device& device, const Geom3& g, const T* f,
                            const T* dy, T* dx) {
    const Matrix filter_t = FilterMatrix(g, f).transpose();
    const Offsets5 xo = g.InOffsets();
    const int64_t ci = g.in_channels;
    const int64_t k = filter_t.cols();
    const int64_t plane = g.OutPlane();
    // Bounds the patch-gradient buffer to ~16 MiB.
    const int64_t chunk = std::max<int64_t>(
        kBlock, (int64_t{4} << 20) / std::max<int64_t>(k, 1) / kBlock * kBlock);
    std::vector<Acc> acc(g.InPlane() * ci);
    Matrix dcols;
    for (int64_t n = 0; n < g.batch; ++n) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t c0 = 0; c0 < plane; c0 += chunk) {
        const int64_t c1 = std::min(plane, c0 + chunk);
        dcols.resize(c1 - c0, k);
        const int64_t blocks = (c1 - c0 + kBlock - 1) / kBlock;
        ParallelForCost(
            device, blocks, UnitCost(g) * kBlock, [&](int64_t b0, int64_t b1) {
              Matrix rows;
              for (int64_t b = b0; b < b1; ++b) {
                const int64_t begin = c0 + b * kBlock;
                const int64_t end = std::min(c1, begin + kBlock);
                GradRows(g, dy, n * plane + begin, n * plane + end, &rows);
                dcols.middleRows(begin - c0, end - begin).noalias() =
                    rows * filter_t;
              }
            });
        // col2im.
        for (int64_t p = c0; p < c1; ++p) {
          int64_t nn, od, oh, ow;
          SplitOut(g, n * plane + p, &nn, &od, &oh, &ow);
          const Acc* row = dcols.data() + (p - c0) * k;
          for (int64_t kd = 0; kd < g.window[0]; ++kd) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
            for (int64_t kh = 0; kh < g.window[1]; ++kh) {
              const int64_t ih =
                  oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
              for (int64_t kw = 0; kw < g.window[2]; ++kw, row += ci) {
                const int64_t iw =
                    ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] ||
                    iw < 0 || iw >= g.in[2]) {
                  continue;
                }
                Acc* target = acc.data() + ((id * g.in[1] + ih) * g.in[2] + iw) * ci;
                for (int64_t c = 0; c < ci; ++c) target[c] += row[c];
              }
            }
          }
        }
      }
      for (int64_t id = 0; id < g.in[0]; ++id)
        for (int64_t ih = 0; ih < g.in[1]; ++ih)
          for (int64_t iw = 0; iw < g.in[2]; ++iw) {
            const Acc* src = acc.data() + ((id * g.in[1] + ih) * g.in[2] + iw) * ci;
            const int64_t base = xo.At(n, id, ih, iw, 0);
            for (int64_t c = 0; c < ci; ++c) {
              dx[base + c * xo.c] = static_cast<T>(src[c]);
            }
          }
    }
  }

  // The filter gradient is patches^T times out_backprop summed over every
  // output position: a fixed number of shards each sums its positions into
  // its own matrix, and the shards are added in order (deterministic).
  static void BackpropFilter(const Device& device, const Geom3& g,
                             const T* x, const T* dy, T* df) {
    const int64_t k = g.window[0] * g.window[1] * g.window[2] * g.in_channels;
    const int64_t positions = g.batch * g.OutPlane();
    const int64_t blocks = (positions + kBlock - 1) / kBlock;
    const int64_t shards = std::max<int64_t>(1, std::min<int64_t>(blocks, 16));
    std::vector<Matrix> partial(shards, Matrix::Zero(k, g.out_channels));
    ParallelForCost(
        device, shards, UnitCost(g) * kBlock * blocks / shards,
        [&](int64_t s0, int64_t s1) {
          Matrix cols, rows;
          for (int64_t s = s0; s < s1; ++s) {
            for (int64_t b = blocks * s / shards; b < blocks * (s + 1) / shards;
                 ++b) {
              const int64_t begin = b * kBlock;
              const int64_t end = std::min(positions, begin + kBlock);
              Patches(g, x, begin, end, &cols);
              GradRows(g, dy, begin, end, &rows);
              partial[s].noalias() += cols.transpose() * rows;
            }
          }
        });
    for (int64_t s = 1; s < shards; ++s) partial[0] += partial[s];
    const int64_t n = k * g.out_channels;
    for (int64_t i = 0; i < n; ++i) df[i] = static_cast<T>(partial[0].data()[i]);
  }

  const Conv3DPass pass_;
  const bool v1_;
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

// The v1 backprop ops (deprecated at GraphDef version 10): TensorFlow 2.21
// serves them for half, float and double.
template <typename T>
void RegisterV1ForType(KernelRegistry* registry) {
  RegisterKernel<Conv3DPassOp<T, Conv3DPass::kBackpropInput>>(
      registry, KernelDefBuilder("Conv3DBackpropInput").TypeConstraint<T>("T"));
  RegisterKernel<Conv3DPassOp<T, Conv3DPass::kBackpropFilter>>(
      registry,
      KernelDefBuilder("Conv3DBackpropFilter").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterConv3DKernels(KernelRegistry* registry) {
  RegisterForType<float>(registry);
  RegisterForType<double>(registry);
  RegisterForType<Eigen::half>(registry);
  RegisterForType<Eigen::bfloat16>(registry);
  RegisterV1ForType<float>(registry);
  RegisterV1ForType<double>(registry);
  RegisterV1ForType<Eigen::half>(registry);
}

}  // namespace dfx::volumetric_internal

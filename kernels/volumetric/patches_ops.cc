// ExtractImagePatches and ExtractVolumePatches: every window of the input
// (with rates, for images) laid out along the last dim in (planes,) rows,
// cols, depth order; window positions in SAME padding read zero. An image is
// handled as a volume of one plane. Pure data movement, so one kernel serves
// every dtype by element size. Checks and messages follow TensorFlow's
// extract_image_patches_op.cc and extract_volume_patches_op.cc.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/volumetric/volumetric_util.h"

namespace dfx::volumetric_internal {
namespace {

using conv_internal::Padding;
using conv_internal::ParallelForCost;

// Reads a list attr of `rank` values that must be 1 in the batch and depth
// dims; returns its spatial values.
absl::Status ReadSpatialList(const OpKernelConstruction& ctx,
                             const std::string& op, const char* attr,
                             int rank, std::vector<int64_t>* spatial) {
  std::vector<int64_t> v;
  DFX_RETURN_IF_ERROR(ctx.GetAttr(attr, &v));
  if (static_cast<int>(v.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " requires the ", attr, " attribute to contain ",
                     rank, " values, but has ", v.size()));
  }
  if (v[0] != 1 || v[rank - 1] != 1) {
    return absl::UnimplementedError(
        absl::StrCat("Only support ", attr, " across space."));
  }
  spatial->assign(v.begin() + 1, v.end() - 1);
  return absl::OkStatus();
}

class ExtractPatchesOp : public OpKernel {
 public:
  ExtractPatchesOp(OpKernelConstruction* ctx, bool volume)
      : OpKernel(ctx), volume_(volume) {
    const int rank = volume ? 5 : 4;
    const std::string& op = type_string();
    ctx->SetStatus(ReadSpatialList(*ctx, op, "ksizes", rank, &ksizes_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ReadSpatialList(*ctx, op, "strides", rank, &strides_));
    if (!ctx->status().ok()) return;
    if (volume) {
      rates_.assign(3, 1);
    } else {
      ctx->SetStatus(ReadSpatialList(*ctx, op, "rates", rank, &rates_));
      if (!ctx->status().ok()) return;
    }
    ctx->SetStatus(ReadPadding(*ctx, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = volume_ ? 5 : 4;
    DFX_OP_REQUIRES(ctx, input.dims() == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be ", rank, "-dimensional",
                        input.shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx,
                       conv_internal::CheckDimsFitInt(input.shape(), "input"));
    const char* names[3] = {"ksizes", "strides", "rates"};
    const std::vector<int64_t>* lists[3] = {&ksizes_, &strides_, &rates_};
    for (int l = 0; l < 3; ++l) {
      for (int64_t v : *lists[l]) {
        DFX_OP_REQUIRES(ctx, v > 0 && v <= INT32_MAX,
                        absl::OutOfRangeError(
                            absl::StrCat(names[l], " is out of range.")));
      }
    }
    // An image is a volume of one plane, with a window of one plane.
    Geom3 g;
    const int first = volume_ ? 0 : 1;
    g.batch = input.dim_size(0);
    g.in_channels = input.dim_size(rank - 1);
    for (int i = 0; i < 3; ++i) {
      if (i < first) continue;
      g.in[i] = input.dim_size(1 + i - first);
      g.window[i] = ksizes_[i - first];
      g.stride[i] = strides_[i - first];
      g.dilation[i] = rates_[i - first];
    }
    if (!volume_) g.in[0] = 1;
    DFX_OP_REQUIRES_OK(ctx, g.ComputeOutput(padding_));
    const int64_t taps = g.window[0] * g.window[1] * g.window[2];
    std::vector<int64_t> dims = {g.batch};
    for (int i = first; i < 3; ++i) dims.push_back(g.out[i]);
    dims.push_back(taps * g.in_channels);
    auto shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;

    const size_t elem = static_cast<size_t>(DataTypeSize(input.dtype()));
    const size_t run = elem * static_cast<size_t>(g.in_channels);
    const char* in = static_cast<const char*>(input.raw_data());
    char* out = static_cast<char*>(output->raw_data());
    const Offsets5 xo = g.InOffsets();
    ParallelForCost(
        *ctx->device(), g.batch * g.OutPlane(),
        static_cast<double>(taps * g.in_channels),
        [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.OutPlane();
            int64_t rem = u % g.OutPlane();
            const int64_t od = rem / (g.out[1] * g.out[2]);
            rem %= g.out[1] * g.out[2];
            const int64_t oh = rem / g.out[2], ow = rem % g.out[2];
            char* dst = out + static_cast<size_t>(u * taps) * run;
            for (int64_t kd = 0; kd < g.window[0]; ++kd) {
              const int64_t d = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
              for (int64_t kh = 0; kh < g.window[1]; ++kh) {
                const int64_t h =
                    oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                for (int64_t kw = 0; kw < g.window[2]; ++kw, dst += run) {
                  const int64_t w =
                      ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                  if (d < 0 || d >= g.in[0] || h < 0 || h >= g.in[1] ||
                      w < 0 || w >= g.in[2]) {
                    // All-zero bytes are zero in every dtype served here.
                    std::memset(dst, 0, run);
                  } else {
                    std::memcpy(dst, in + xo.At(n, d, h, w, 0) * elem, run);
                  }
                }
              }
            }
          }
        });
  }

 private:
  const bool volume_;
  std::vector<int64_t> ksizes_, strides_, rates_;
  Padding padding_ = Padding::kValid;
};

template <bool kVolume>
class ExtractPatchesKindOp : public ExtractPatchesOp {
 public:
  explicit ExtractPatchesKindOp(OpKernelConstruction* ctx)
      : ExtractPatchesOp(ctx, kVolume) {}
};

}  // namespace

void RegisterPatchesKernels(KernelRegistry* registry) {
  const DataTypeVector real = {DT_FLOAT,  DT_DOUBLE, DT_HALF,   DT_BFLOAT16,
                               DT_INT8,   DT_INT16,  DT_INT32,  DT_INT64,
                               DT_UINT8,  DT_UINT16, DT_UINT32, DT_UINT64};
  DataTypeVector image = real;
  // TensorFlow's OpDef admits bool too, but its CPU kernel is not
  // registered for bool ("No OpKernel was registered").
  image.push_back(DT_COMPLEX64);
  image.push_back(DT_COMPLEX128);
  RegisterKernel<ExtractPatchesKindOp<false>>(
      registry,
      KernelDefBuilder("ExtractImagePatches").TypeConstraint("T", image));
  RegisterKernel<ExtractPatchesKindOp<true>>(
      registry,
      KernelDefBuilder("ExtractVolumePatches").TypeConstraint("T", real));
}

}  // namespace dfx::volumetric_internal

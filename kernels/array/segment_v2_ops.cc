// SegmentSumV2, SegmentProdV2, SegmentMaxV2, SegmentMinV2: segment
// reductions into num_segments rows. TensorFlow 2.21 registers these only
// for XLA, so its XLA lowering is the reference: rows combine in index
// order, ids need not be sorted, ids outside [0, num_segments) drop their
// row, and an empty segment holds the reduction's identity (0, 1, the
// lowest or the highest finite value).
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/array/gather_util.h"
#include "kernels/math/misc_kernels.h"

namespace dfx::misc_internal {
namespace {

using gather_internal::Combine;
using gather_internal::Identity;
using SegmentReduce = gather_internal::Reduce;

template <typename T, SegmentReduce R>
class SegmentV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, num_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "num_segments should be a scalar, not shape ",
                        num_t.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, data.dims() >= 1,
                    absl::InvalidArgumentError(
                        "input must be at least rank 1"));
    DFX_OP_REQUIRES(ctx, ids.dims() == 1,
                    absl::InvalidArgumentError(
                        "segment_ids should be a vector."));
    const int64_t n = ids.NumElements();
    DFX_OP_REQUIRES(ctx, n == data.dim_size(0),
                    absl::InvalidArgumentError(
                        "segment_ids should be the same size as dimension 0 "
                        "of input."));
    const int64_t num_segments = IntAt(num_t, 0);
    DFX_OP_REQUIRES(ctx, num_segments >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input num_segments == ", num_segments,
                        " must not be negative.")));
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(num_segments));
    int64_t inner = 1;
    for (int d = 1; d < data.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(data.dim_size(d)));
      inner *= data.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), Identity<T, R>());
    const T* in = data.data<T>();
    // Sequential in index order, as XLA's scatter combines them.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IntAt(ids, i);
      if (id < 0 || id >= num_segments) continue;
      T* dst = o + id * inner;
      const T* src = in + i * inner;
      for (int64_t c = 0; c < inner; ++c) Combine<T, R>(dst[c], src[c]);
    }
  }
};

template <SegmentReduce R, typename T>
void RegisterOne(KernelRegistry* registry, const char* name) {
  RegisterKernel<SegmentV2Op<T, R>>(
      registry, KernelDefBuilder(name)
                    .TypeConstraint<T>("T")
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                    .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}));
}

template <SegmentReduce R, typename... Ts>
void RegisterAll(KernelRegistry* registry, const char* name) {
  (RegisterOne<R, Ts>(registry, name), ...);
}

}  // namespace

void RegisterSegmentV2Kernels(KernelRegistry* registry) {
  using Eigen::bfloat16;
  using Eigen::half;
  RegisterAll<SegmentReduce::kSum, float, double, int32_t, uint8_t, int16_t,
              int8_t, std::complex<float>, int64_t, bfloat16, uint16_t,
              std::complex<double>, half, uint32_t, uint64_t>(registry,
                                                              "SegmentSumV2");
  RegisterAll<SegmentReduce::kProd, float, double, int32_t, uint8_t, int16_t,
              int8_t, std::complex<float>, int64_t, bfloat16, uint16_t,
              std::complex<double>, half, uint32_t, uint64_t>(registry,
                                                              "SegmentProdV2");
  RegisterAll<SegmentReduce::kMax, float, double, int32_t, uint8_t, int16_t,
              int8_t, int64_t, bfloat16, uint16_t, half, uint32_t, uint64_t>(
      registry, "SegmentMaxV2");
  RegisterAll<SegmentReduce::kMin, float, double, int32_t, uint8_t, int16_t,
              int8_t, int64_t, bfloat16, uint16_t, half, uint32_t, uint64_t>(
      registry, "SegmentMinV2");
}

}  // namespace dfx::misc_internal

// Sum, Mean, Prod, Max and Min on a GPU (float, double, float16, bfloat16
// accumulated in float). The axes
// (reduction_indices, host memory) are read on the host; the input's dims
// are simplified as the CPU kernels do (size-1 dims dropped, neighbours
// both kept or both reduced merged). One reduced group between kept ones
// reduces in place ([outer, r, inner]); alternating groups are first
// permuted to [kept..., reduced...] (gpu/kernels/layout_gpu.h).
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/layout_gpu.h"
#include "gpu/kernels/reduce_gpu.h"
#include "graph/types.h"
#include "kernels/nn/reduction_axes.h"

namespace dfx::gpu {
namespace {

class ReduceGpuOp : public OpKernel {
 public:
  ReduceGpuOp(OpKernelConstruction* ctx, ReduceOp op)
      : OpKernel(ctx), op_(op) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    absl::StatusOr<std::vector<bool>> reduced =
        ReductionAxes(ctx->input(1), in.dims());
    DFX_OP_REQUIRES_OK(ctx, reduced.status());
    TensorShape out_shape;
    for (int d = 0; d < in.dims(); ++d) {
      if (!(*reduced)[d]) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(in.dim_size(d)));
      } else if (keep_dims_) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(1));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    // Simplified groups: sizes, and whether each is reduced.
    std::vector<int64_t> sizes;
    std::vector<bool> group_reduced;
    for (int d = 0; d < in.dims(); ++d) {
      if (in.dim_size(d) == 1) continue;
      if (!sizes.empty() && group_reduced.back() == (*reduced)[d]) {
        sizes.back() *= in.dim_size(d);
      } else {
        sizes.push_back(in.dim_size(d));
        group_reduced.push_back((*reduced)[d]);
      }
    }
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const void* data = in.raw_data();
    Tensor permuted;
    int64_t outer = 1, r = 1, inner = 1;
    const int groups = static_cast<int>(sizes.size());
    // [K], [R], [K R], [R K], [K R K] reduce as they are.
    const bool direct =
        groups <= 2 || (groups == 3 && !group_reduced[0]);
    if (direct) {
      int g = 0;
      if (g < groups && !group_reduced[g]) outer = sizes[g++];
      if (g < groups && group_reduced[g]) r = sizes[g++];
      if (g < groups) inner = sizes[g++];
    } else {
      // [kept..., reduced...]: one permute, then rows.
      DFX_OP_REQUIRES(ctx, groups <= kMaxPermuteDims,
                      absl::UnimplementedError(absl::StrCat(
                          "a reduction alternating kept and reduced dims ",
                          groups, " times on a GPU")));
      std::vector<int> perm;
      for (int pass = 0; pass < 2; ++pass) {
        for (int g = 0; g < groups; ++g) {
          if (group_reduced[g] == (pass == 1)) perm.push_back(g);
        }
      }
      for (int g = 0; g < groups; ++g) {
        (group_reduced[g] ? r : outer) *= sizes[g];
      }
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), in.shape(),
                                                 &permuted));
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(LaunchPermute(launch.stream(), in.raw_data(),
                                        permuted.raw_data(),
                                        DataTypeSize(in.dtype()), groups,
                                        sizes.data(), perm.data()),
                          "launching the permutation"));
      data = permuted.raw_data();
    }
    const cudaError_t e = ByFloatType(in.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return LaunchReduce(launch.stream(), op_, static_cast<const T*>(data),
                          static_cast<T*>(out->raw_data()), outer, r, inner);
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the reduction"));
  }

 private:
  const ReduceOp op_;
  bool keep_dims_ = false;
};

}  // namespace

void RegisterGpuReduceKernels(KernelRegistry* registry) {
  const struct {
    const char* name;
    ReduceOp op;
  } kOps[] = {{"Sum", ReduceOp::kSum},
              {"Mean", ReduceOp::kMean},
              {"Prod", ReduceOp::kProd},
              {"Max", ReduceOp::kMax},
              {"Min", ReduceOp::kMin}};
  for (const auto& [name, op] : kOps) {
    RegisterWith<ReduceGpuOp>(registry,
                              KernelDefBuilder(name)
                                  .Device("GPU")
                                  .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE,
                                                        DT_HALF, DT_BFLOAT16})
                                  .HostMemory("reduction_indices"),
                              op);
  }
}

}  // namespace dfx::gpu

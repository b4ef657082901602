// Tile, Slice, StridedSlice and StridedSliceGrad on a GPU, for the dtypes
// that live in device memory (int32 is host memory: the CPU kernels run
// those on the host, kernels/array/device_host_kernels.cc). The multiples,
// begin, end, size, strides and shape arguments are host memory; the
// CPU kernels' planning (kernels/array/index_util.h) checks them, with the
// same errors, and says what the output is: the input itself, a view of a
// run of its rows, or one strided copy, which one CUDA kernel runs.
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/index_gpu.h"
#include "graph/types.h"
#include "kernels/array/index_util.h"

namespace dfx::gpu {
namespace {

using array_internal::IndexPlan;

// A view of a tensor's rows starts at an address that is a multiple of
// this many bytes or is copied: cudaMalloc's alignment, which the
// consumers (cuDNN, vectorized loads) may count on for any tensor.
constexpr int64_t kViewAlignment = 256;

enum class IndexOp { kTile, kSlice, kStridedSlice, kStridedSliceGrad };

class IndexGpuOp : public OpKernel {
 public:
  IndexGpuOp(OpKernelConstruction* ctx, IndexOp op) : OpKernel(ctx), op_(op) {
    if (op == IndexOp::kStridedSlice || op == IndexOp::kStridedSliceGrad) {
      ctx->SetStatus(array_internal::ReadStridedSliceMasks(ctx, &masks_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    IndexPlan plan;
    DFX_OP_REQUIRES_OK(ctx, Plan(*ctx, &plan));
    const Tensor& source =
        ctx->input(op_ == IndexOp::kStridedSliceGrad ? 4 : 0);
    const int64_t elem = DataTypeSize(source.dtype());
    if (plan.kind == IndexPlan::Kind::kRows) {
      const int64_t row_elems = source.dim_size(0) == 0
                                    ? 0
                                    : source.NumElements() / source.dim_size(0);
      const uintptr_t first = reinterpret_cast<uintptr_t>(source.raw_data()) +
                              plan.row_begin * row_elems * elem;
      if (first % kViewAlignment == 0) {
        SetView(ctx, source.Slice(plan.row_begin, plan.row_begin + plan.rows),
                plan.shape);
        return;
      }
      // Unaligned: one contiguous copy of the rows.
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.shape, &out));
      if (out->NumElements() == 0) return;
      GpuLaunch launch(*ctx);
      DFX_OP_REQUIRES_OK(ctx, launch.status());
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(
                   cudaMemcpyAsync(out->raw_data(),
                                   static_cast<const char*>(source.raw_data()) +
                                       plan.row_begin * row_elems * elem,
                                   out->TotalBytes(), cudaMemcpyDeviceToDevice,
                                   launch.stream()),
                   "copying the sliced rows"));
      return;
    }
    if (plan.kind == IndexPlan::Kind::kForward) {
      SetView(ctx, source, plan.shape);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.shape, &out));
    if (out->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    if (plan.zero_first) {
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(),
                                          launch.stream()),
                          "zeroing the gradient"));
    }
    if (source.NumElements() == 0) return;
    const array_internal::StridedCopySpec copy =
        array_internal::SimplifiedStridedCopy(plan.copy);
    const int rank = static_cast<int>(copy.dims.size());
    DFX_OP_REQUIRES(
        ctx, rank <= kMaxIndexCopyDims,
        absl::UnimplementedError(absl::StrCat(type_string(), " walking ", rank,
                                              " dimensions on a GPU (at most ",
                                              kMaxIndexCopyDims, ")")));
    DFX_OP_REQUIRES_OK(
        ctx, CudaStatus(LaunchIndexCopy(
                            launch.stream(), source.raw_data(), out->raw_data(),
                            static_cast<int>(elem), rank, copy.dims.data(),
                            copy.src_strides.data(), copy.dst_strides.data(),
                            copy.src_offset, copy.dst_offset),
                        "launching the kernel"));
  }

 private:
  absl::Status Plan(const OpKernelContext& ctx, IndexPlan* plan) const {
    switch (op_) {
      case IndexOp::kTile:
        return array_internal::PlanTile(ctx.input(0), ctx.input(1), plan);
      case IndexOp::kSlice:
        return array_internal::PlanSlice(ctx.input(0), ctx.input(1),
                                         ctx.input(2), plan);
      case IndexOp::kStridedSlice:
        return array_internal::PlanStridedSlice(ctx.input(0), ctx.input(1),
                                                ctx.input(2), ctx.input(3),
                                                masks_, plan);
      case IndexOp::kStridedSliceGrad:
        return array_internal::PlanStridedSliceGrad(ctx.input(0), ctx.input(1),
                                                    ctx.input(2), ctx.input(3),
                                                    ctx.input(4), masks_, plan);
    }
    return absl::InternalError("unknown index op");
  }

  static void SetView(OpKernelContext* ctx, const Tensor& base,
                      const TensorShape& shape) {
    absl::StatusOr<Tensor> view = base.Reshaped(shape);
    DFX_OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
  }

  const IndexOp op_;
  StridedSliceMasks masks_;
};

}  // namespace

bool MakeIndexCopyDims(int rank, const int64_t* dims,
                       const int64_t* src_strides, const int64_t* dst_strides,
                       int64_t src_offset, int64_t dst_offset, IndexCopyDims* p,
                       int64_t* n) {
  if (rank < 1 || rank > kMaxIndexCopyDims) return false;
  p->rank = rank;
  *n = 1;
  for (int k = 0; k < rank; ++k) {
    p->dims[k] = dims[k];
    p->src_strides[k] = src_strides[k];
    p->dst_strides[k] = dst_strides[k];
    *n *= dims[k];
  }
  p->src_offset = src_offset;
  p->dst_offset = dst_offset;
  return true;
}

void RegisterGpuIndexKernels(KernelRegistry* registry) {
  // As array_gpu.cc: the dtypes kept in device memory.
  const DataTypeVector types = {DT_FLOAT,    DT_DOUBLE, DT_HALF,
                                DT_BFLOAT16, DT_INT64,  DT_BOOL};
  const DataTypeVector index_types = {DT_INT32, DT_INT64};
  RegisterWith<IndexGpuOp>(registry,
                           KernelDefBuilder("Tile")
                               .Device("GPU")
                               .TypeConstraint("T", types)
                               .TypeConstraint("Tmultiples", index_types)
                               .HostMemory("multiples"),
                           IndexOp::kTile);
  RegisterWith<IndexGpuOp>(registry,
                           KernelDefBuilder("Slice")
                               .Device("GPU")
                               .TypeConstraint("T", types)
                               .TypeConstraint("Index", index_types)
                               .HostMemory("begin")
                               .HostMemory("size"),
                           IndexOp::kSlice);
  RegisterWith<IndexGpuOp>(registry,
                           KernelDefBuilder("StridedSlice")
                               .Device("GPU")
                               .TypeConstraint("T", types)
                               .TypeConstraint("Index", index_types)
                               .HostMemory("begin")
                               .HostMemory("end")
                               .HostMemory("strides"),
                           IndexOp::kStridedSlice);
  RegisterWith<IndexGpuOp>(registry,
                           KernelDefBuilder("StridedSliceGrad")
                               .Device("GPU")
                               .TypeConstraint("T", types)
                               .TypeConstraint("Index", index_types)
                               .HostMemory("shape")
                               .HostMemory("begin")
                               .HostMemory("end")
                               .HostMemory("strides"),
                           IndexOp::kStridedSliceGrad);
}

}  // namespace dfx::gpu

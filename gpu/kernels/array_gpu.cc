// Array ops on a GPU, for the dtypes that live in device memory (int32 is
// host memory: kernels/array/device_host_kernels.cc runs those on the
// host): Cast, Fill, ZerosLike, OnesLike, GatherV2, ConcatV2, Pack,
// Transpose and BroadcastTo. Shapes, axes and indices are read and checked
// on the host (host memory), then the copy is enqueued.
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/array_gpu.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/layout_gpu.h"
#include "graph/types.h"
#include "kernels/array/array_util.h"
#include "kernels/broadcast.h"

namespace dfx::gpu {
namespace {

// The dtypes these kernels keep in device memory (int32 stays on the host).
const DataTypeVector kDeviceTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                     DT_BFLOAT16, DT_INT64, DT_BOOL};
const DataTypeVector kIndexTypes = {DT_INT32, DT_INT64};

absl::StatusOr<CastType> CastTypeOf(DataType t) {
  switch (t) {
    case DT_FLOAT: return CastType::kFloat;
    case DT_DOUBLE: return CastType::kDouble;
    case DT_HALF: return CastType::kHalf;
    case DT_BFLOAT16: return CastType::kBfloat16;
    case DT_INT64: return CastType::kInt64;
    case DT_BOOL: return CastType::kBool;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no GPU cast for ", DataTypeString(t)));
  }
}

using array_internal::ReadInts;

absl::Status Launched(cudaError_t e) {
  return CudaStatus(e, "launching the kernel");
}

class CastGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (in.dtype() == output_type(0)) {
      ctx->set_output(0, in);
      return;
    }
    absl::StatusOr<CastType> from = CastTypeOf(in.dtype());
    absl::StatusOr<CastType> to = CastTypeOf(output_type(0));
    DFX_OP_REQUIRES_OK(ctx, from.status());
    DFX_OP_REQUIRES_OK(ctx, to.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(ctx, Launched(LaunchCast(launch.stream(), *from,
                                                in.raw_data(), *to,
                                                out->raw_data(),
                                                in.NumElements())));
  }
};

// Fill(dims, value): dims on the host, value a device scalar.
class FillGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    DFX_OP_REQUIRES(ctx, dims.dims() <= 1 && value.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dims must be a vector and value a scalar, got ",
                        dims.shape().DebugString(), " and ",
                        value.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> sizes = ReadInts(dims);
    DFX_OP_REQUIRES_OK(ctx, sizes.status());
    TensorShape shape;
    for (int64_t d : *sizes) {
      DFX_OP_REQUIRES(ctx, d >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "dims must be non-negative, got ",
                          absl::StrJoin(*sizes, ","))));
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(
        ctx, Launched(LaunchFillFromDevice(
                 launch.stream(), out->raw_data(), out->NumElements(),
                 DataTypeSize(out->dtype()), value.raw_data())));
  }
};

// The bits of 1 in `dtype` (OnesLike).
uint64_t OneBits(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: {
      const float one = 1;
      uint32_t bits;
      std::memcpy(&bits, &one, 4);
      return bits;
    }
    case DT_DOUBLE: {
      const double one = 1;
      uint64_t bits;
      std::memcpy(&bits, &one, 8);
      return bits;
    }
    case DT_HALF: return 0x3c00;
    case DT_BFLOAT16: return 0x3f80;
    default: return 1;  // int64, bool
  }
}

class FillLikeGpuOp : public OpKernel {
 public:
  FillLikeGpuOp(OpKernelConstruction* ctx, bool ones)
      : OpKernel(ctx), ones_(ones) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, ctx->input(0).shape(), &out));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(
        ctx, Launched(LaunchFillValue(
                 launch.stream(), out->raw_data(), out->NumElements(),
                 DataTypeSize(out->dtype()),
                 ones_ ? OneBits(out->dtype()) : 0)));
  }

 private:
  const bool ones_;
};

// GatherV2(params, indices, axis) with batch_dims 0; the indices on the
// host are checked there and copied to the GPU as int64.
class GatherGpuOp : public OpKernel {
 public:
  explicit GatherGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t batch_dims = 0;
    if (FindNodeAttr(ctx->def(), "batch_dims") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims));
    }
    if (batch_dims != 0) {
      ctx->SetStatus(absl::UnimplementedError(
          "GatherV2 with batch_dims on a GPU (it runs on the CPU)"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, axis_t.NumElements() == 1,
                    absl::InvalidArgumentError("axis must be scalar"));
    absl::StatusOr<std::vector<int64_t>> axis_v = ReadInts(axis_t);
    DFX_OP_REQUIRES_OK(ctx, axis_v.status());
    int64_t axis = (*axis_v)[0];
    DFX_OP_REQUIRES(ctx, axis >= -params.dims() && axis < params.dims(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected axis in the range [", -params.dims(), ", ",
                        params.dims(), "), but got ", axis)));
    if (axis < 0) axis += params.dims();
    const int64_t limit = params.dim_size(axis);
    absl::StatusOr<std::vector<int64_t>> read = ReadInts(indices);
    DFX_OP_REQUIRES_OK(ctx, read.status());
    std::vector<int64_t> idx = *std::move(read);
    for (size_t i = 0; i < idx.size(); ++i) {
      DFX_OP_REQUIRES(ctx, idx[i] >= 0 && idx[i] < limit,
                      absl::InvalidArgumentError(absl::StrCat(
                          "indices[", i, "] = ", idx[i], " is not in [0, ",
                          limit, ")")));
    }
    TensorShape out_shape;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(params.dim_size(d)));
      outer *= params.dim_size(d);
    }
    for (int d = 0; d < indices.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(indices.dim_size(d)));
    }
    for (int d = axis + 1; d < params.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(params.dim_size(d)));
      inner *= params.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    absl::StatusOr<Tensor> device_indices = ctx->device()->CopyFromHost(
        Tensor::FromVector<int64_t>(idx));
    DFX_OP_REQUIRES_OK(ctx, device_indices.status());
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(
        ctx, Launched(LaunchGather(
                 launch.stream(), params.raw_data(),
                 device_indices->data<int64_t>(), out->raw_data(),
                 DataTypeSize(params.dtype()), outer, limit,
                 static_cast<int64_t>(idx.size()), inner)));
  }
};

// Copies `pieces` (each [outer, inner_i] row-major) side by side into
// `out` ([outer, sum inner_i]) with 2-D copies on the compute stream.
absl::Status JoinColumns(cudaStream_t stream,
                         const std::vector<const Tensor*>& pieces,
                         int64_t outer, Tensor* out) {
  const size_t esize = DataTypeSize(out->dtype());
  const int64_t total = outer == 0 ? 0 : out->NumElements() / outer;
  int64_t offset = 0;
  for (const Tensor* t : pieces) {
    const int64_t inner = outer == 0 ? 0 : t->NumElements() / outer;
    if (inner > 0) {
      DFX_CUDA_RETURN_IF_ERROR(
          cudaMemcpy2DAsync(static_cast<char*>(out->raw_data()) +
                                offset * esize,
                            total * esize, t->raw_data(), inner * esize,
                            inner * esize, outer, cudaMemcpyDeviceToDevice,
                            stream),
          "copying a piece of the concatenation");
    }
    offset += inner;
  }
  return absl::OkStatus();
}

// ConcatV2(values..., axis) or Pack(values...) along `axis` (Pack: a new
// dim).
class ConcatGpuOp : public OpKernel {
 public:
  ConcatGpuOp(OpKernelConstruction* ctx, bool pack)
      : OpKernel(ctx), pack_(pack) {
    if (pack_) ctx->SetStatus(ctx->GetAttr("axis", &pack_axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = pack_ ? ctx->num_inputs() : ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(0);
    int64_t axis = 0;
    if (pack_) {
      axis = pack_axis_;
      const int out_rank = first.dims() + 1;
      DFX_OP_REQUIRES(ctx, axis >= -out_rank && axis < out_rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "axis = ", axis, " not in [", -out_rank, ", ",
                          out_rank, ")")));
      if (axis < 0) axis += out_rank;
    } else {
      const Tensor& axis_t = ctx->input(n);
      DFX_OP_REQUIRES(ctx, axis_t.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "'axis' must be a scalar, got shape ",
                          axis_t.shape().DebugString())));
      absl::StatusOr<std::vector<int64_t>> axis_v = ReadInts(axis_t);
      DFX_OP_REQUIRES_OK(ctx, axis_v.status());
      axis = (*axis_v)[0];
      DFX_OP_REQUIRES(ctx, first.dims() > 0,
                      absl::InvalidArgumentError(
                          "cannot concatenate scalars (use Pack instead)"));
      DFX_OP_REQUIRES(ctx, axis >= -first.dims() && axis < first.dims(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "'axis' ", axis, " is out of range [",
                          -first.dims(), ", ", first.dims(),
                          ") for inputs of rank ", first.dims())));
      if (axis < 0) axis += first.dims();
    }
    std::vector<const Tensor*> pieces;
    int64_t axis_size = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      bool ok = t.dims() == first.dims();
      for (int d = 0; ok && d < first.dims(); ++d) {
        ok = (!pack_ && d == axis) || t.dim_size(d) == first.dim_size(d);
      }
      DFX_OP_REQUIRES(ctx, ok,
                      absl::InvalidArgumentError(absl::StrCat(
                          "input ", i, " has shape ", t.shape().DebugString(),
                          " but input 0 has shape ",
                          first.shape().DebugString())));
      axis_size += pack_ ? 1 : t.dim_size(axis);
      pieces.push_back(&t);
    }
    TensorShape out_shape;
    int64_t outer = 1;
    for (int d = 0, k = 0; d < first.dims() + (pack_ ? 1 : 0); ++d) {
      if (d == axis) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(axis_size));
        if (!pack_) ++k;
      } else {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(first.dim_size(k++)));
      }
      if (d < axis) outer *= out_shape.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(ctx, JoinColumns(launch.stream(), pieces, outer, out));
  }

 private:
  const bool pack_;
  int64_t pack_axis_ = 0;
};

class TransposeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    absl::StatusOr<std::vector<int64_t>> read = ReadInts(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, read.status());
    const std::vector<int64_t>& perm = *read;
    DFX_OP_REQUIRES(ctx,
                    ctx->input(1).dims() == 1 &&
                        static_cast<int>(perm.size()) == in.dims(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "transpose expects a 'perm' of size ", in.dims(),
                        ", got ", ctx->input(1).shape().DebugString())));
    std::vector<bool> seen(in.dims(), false);
    TensorShape out_shape;
    std::vector<int> p(perm.size());
    std::vector<int64_t> dims(in.dims());
    for (int k = 0; k < in.dims(); ++k) {
      DFX_OP_REQUIRES(ctx, perm[k] >= 0 && perm[k] < in.dims() && !seen[perm[k]],
                      absl::InvalidArgumentError(absl::StrCat(
                          "'perm' [", absl::StrJoin(perm, ","),
                          "] is not a permutation of 0..", in.dims() - 1)));
      seen[perm[k]] = true;
      p[k] = static_cast<int>(perm[k]);
      dims[k] = in.dim_size(k);
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(in.dim_size(perm[k])));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (in.dims() <= 1 || in.NumElements() == 0) {
      if (in.NumElements() > 0) {
        GpuLaunch launch(*ctx);
        DFX_OP_REQUIRES_OK(ctx, launch.status());
        DFX_OP_REQUIRES_OK(
            ctx, CudaStatus(cudaMemcpyAsync(out->raw_data(), in.raw_data(),
                                            in.TotalBytes(),
                                            cudaMemcpyDeviceToDevice,
                                            launch.stream()),
                            "copying"));
      }
      return;
    }
    DFX_OP_REQUIRES(ctx, in.dims() <= kMaxPermuteDims,
                    absl::UnimplementedError(absl::StrCat(
                        "Transpose of rank ", in.dims(), " on a GPU")));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(
        ctx, Launched(LaunchPermute(launch.stream(), in.raw_data(),
                                    out->raw_data(), DataTypeSize(in.dtype()),
                                    in.dims(), dims.data(), p.data())));
  }
};

// BroadcastTo(input, shape): a strided copy with stride 0 along the
// broadcast dims.
class BroadcastToGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    absl::StatusOr<std::vector<int64_t>> sizes = ReadInts(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, sizes.status());
    TensorShape shape;
    for (int64_t d : *sizes) {
      DFX_OP_REQUIRES(ctx, d >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "BroadcastTo shape has a negative dim ", d)));
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    }
    DFX_OP_REQUIRES(ctx, in.dims() <= shape.dims(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Rank of input (", in.dims(),
                        ") must be no greater than rank of output shape (",
                        shape.dims(), ").")));
    const int lead = shape.dims() - in.dims();
    std::vector<int64_t> strides(shape.dims(), 0), out_dims(shape.dims());
    int64_t stride = 1;
    for (int d = shape.dims() - 1; d >= 0; --d) {
      out_dims[d] = shape.dim_size(d);
      if (d < lead) continue;
      const int64_t size = in.dim_size(d - lead);
      DFX_OP_REQUIRES(ctx, size == shape.dim_size(d) || size == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Unable to broadcast tensor of shape ",
                          in.shape().DebugString(), " to tensor of shape ",
                          shape.DebugString())));
      strides[d] = size == 1 ? 0 : stride;
      stride *= size;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    DFX_OP_REQUIRES(ctx, shape.dims() <= kMaxPermuteDims,
                    absl::UnimplementedError(absl::StrCat(
                        "BroadcastTo of rank ", shape.dims(), " on a GPU")));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    DFX_OP_REQUIRES_OK(
        ctx, Launched(LaunchStridedCopy(launch.stream(), in.raw_data(),
                                        out->raw_data(),
                                        DataTypeSize(in.dtype()),
                                        shape.dims(), out_dims.data(),
                                        strides.data())));
  }
};

}  // namespace

void RegisterGpuArrayKernels(KernelRegistry* registry) {
  RegisterKernel<CastGpuOp>(registry, KernelDefBuilder("Cast")
                                          .Device("GPU")
                                          .TypeConstraint("SrcT", kDeviceTypes)
                                          .TypeConstraint("DstT", kDeviceTypes));
  RegisterKernel<FillGpuOp>(registry, KernelDefBuilder("Fill")
                                          .Device("GPU")
                                          .TypeConstraint("T", kDeviceTypes)
                                          .HostMemory("dims"));
  RegisterWith<FillLikeGpuOp>(
      registry,
      KernelDefBuilder("ZerosLike").Device("GPU").TypeConstraint(
          "T", kDeviceTypes),
      false);
  RegisterWith<FillLikeGpuOp>(
      registry,
      KernelDefBuilder("OnesLike").Device("GPU").TypeConstraint(
          "T", kDeviceTypes),
      true);
  RegisterKernel<GatherGpuOp>(registry,
                              KernelDefBuilder("GatherV2")
                                  .Device("GPU")
                                  .TypeConstraint("Tparams", kDeviceTypes)
                                  .TypeConstraint("Tindices", kIndexTypes)
                                  .HostMemory("indices")
                                  .HostMemory("axis"));
  RegisterWith<ConcatGpuOp>(registry,
                            KernelDefBuilder("ConcatV2")
                                .Device("GPU")
                                .TypeConstraint("T", kDeviceTypes)
                                .HostMemory("axis"),
                            false);
  RegisterWith<ConcatGpuOp>(
      registry,
      KernelDefBuilder("Pack").Device("GPU").TypeConstraint("T", kDeviceTypes),
      true);
  RegisterKernel<TransposeGpuOp>(registry,
                                 KernelDefBuilder("Transpose")
                                     .Device("GPU")
                                     .TypeConstraint("T", kDeviceTypes)
                                     .HostMemory("perm"));
  RegisterKernel<BroadcastToGpuOp>(registry,
                                   KernelDefBuilder("BroadcastTo")
                                       .Device("GPU")
                                       .TypeConstraint("T", kDeviceTypes)
                                       .HostMemory("shape"));
}

}  // namespace dfx::gpu

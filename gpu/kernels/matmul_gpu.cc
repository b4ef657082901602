// MatMul on a GPU through cuBLAS, enqueued on the device's compute stream
// (asynchronous: gpu/kernels/gpu_kernel_util.h says why that is safe).
#include <cublas_v2.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu/cuda_status.h"
#include "gpu/gpu_device.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "graph/types.h"
#include "kernels/nn/matmul_shape.h"

namespace dfx::gpu {
namespace {

// -1 until read from DFX_GPU_TF32, then 0 or 1.
std::atomic<int> tf32_enabled{-1};

absl::Status BlasStatus(cublasStatus_t s, absl::string_view what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": cuBLAS error ",
                                     cublasGetStatusName(s), " (",
                                     cublasGetStatusString(s), ")");
  if (s == CUBLAS_STATUS_ALLOC_FAILED) {
    return absl::ResourceExhaustedError(std::move(message));
  }
  return absl::InternalError(std::move(message));
}

using BlasHandle = LockedHandle<cublasHandle_t>;

absl::StatusOr<BlasHandle*> BlasFor(const GpuDevice& device) {
  return BlasHandle::For(device, [&](cublasHandle_t* handle) {
    return BlasStatus(cublasCreate(handle),
                      absl::StrCat(device.name(), ": creating a cuBLAS handle"));
  });
}

class GpuMatMulOp : public OpKernel {
 public:
  explicit GpuMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulDims> d =
        MatMulShape(a.shape(), b.shape(), transpose_a_, transpose_b_);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    for (int64_t dim : {d->m, d->n, d->k, a.dim_size(1), b.dim_size(1)}) {
      DFX_OP_REQUIRES(
          ctx, dim <= INT_MAX,
          absl::UnimplementedError(absl::StrCat(
              "MatMul on a GPU takes dimensions up to ", INT_MAX,
              " (cuBLAS's int); In[0]: ", a.shape().DebugString(),
              ", In[1]: ", b.shape().DebugString())));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({d->m, d->n}), &out));
    if (d->m == 0 || d->n == 0) return;
    GpuStream* stream = (*device)->compute_stream();
    if (d->k == 0) {  // an empty sum: zeros
      ScopedActivateDevice activate((*device)->cuda_ordinal());
      DFX_OP_REQUIRES_OK(ctx, activate.status());
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0,
                                          out->TotalBytes(), stream->get()),
                          "zeroing MatMul's output"));
    } else {
      absl::StatusOr<BlasHandle*> blas = BlasFor(**device);
      DFX_OP_REQUIRES_OK(ctx, blas.status());
      DFX_OP_REQUIRES_OK(ctx, (*blas)->Run([&](cublasHandle_t h) {
        DFX_RETURN_IF_ERROR(BlasStatus(cublasSetStream(h, stream->get()),
                                       "cublasSetStream"));
        return Gemm(h, a, b, *d, out);
      }));
    }
  }

 private:
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS
  // gets B first, each matrix with its row length as leading dimension.
  absl::Status Gemm(cublasHandle_t h, const Tensor& a, const Tensor& b,
                    const MatMulDims& d, Tensor* out) const {
    const cublasOperation_t op_a = transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n),
              k = static_cast<int>(d.k);
    const int lda = static_cast<int>(a.dim_size(1));
    const int ldb = static_cast<int>(b.dim_size(1));
    const std::string what = absl::StrCat(
        "cuBLAS GEMM of ", DataTypeString(a.dtype()), " [", d.m, "x", d.k,
        "]x[", d.k, "x", d.n, "]");
    switch (a.dtype()) {
      case DT_FLOAT: {
        const float one = 1, zero = 0;
        DFX_RETURN_IF_ERROR(BlasStatus(
            cublasSetMathMode(h, TensorFloat32ExecutionEnabled()
                                     ? CUBLAS_TF32_TENSOR_OP_MATH
                                     : CUBLAS_DEFAULT_MATH),
            "cublasSetMathMode"));
        return BlasStatus(
            cublasSgemm(h, op_b, op_a, n, m, k, &one,
                        static_cast<const float*>(b.raw_data()), ldb,
                        static_cast<const float*>(a.raw_data()), lda, &zero,
                        static_cast<float*>(out->raw_data()), n),
            what);
      }
      case DT_DOUBLE: {
        const double one = 1, zero = 0;
        return BlasStatus(
            cublasDgemm(h, op_b, op_a, n, m, k, &one,
                        static_cast<const double*>(b.raw_data()), ldb,
                        static_cast<const double*>(a.raw_data()), lda, &zero,
                        static_cast<double*>(out->raw_data()), n),
            what);
      }
      case DT_HALF:
      case DT_BFLOAT16: {
        // 16-bit inputs and output, float accumulation (as TensorFlow).
        const cudaDataType_t type =
            a.dtype() == DT_HALF ? CUDA_R_16F : CUDA_R_16BF;
        const float one = 1, zero = 0;
        return BlasStatus(
            cublasGemmEx(h, op_b, op_a, n, m, k, &one, b.raw_data(), type,
                         ldb, a.raw_data(), type, lda, &zero, out->raw_data(),
                         type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            what);
      }
      default:
        return absl::InternalError(absl::StrCat(
            "no GPU MatMul for ", DataTypeString(a.dtype())));
    }
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

}  // namespace

void SetTensorFloat32Execution(bool enabled) {
  tf32_enabled.store(enabled ? 1 : 0);
}

bool TensorFloat32ExecutionEnabled() {
  int state = tf32_enabled.load();
  if (state < 0) {
    const char* env = std::getenv("DFX_GPU_TF32");
    const int from_env =
        env != nullptr && (std::string(env) == "1" || std::string(env) == "true")
            ? 1
            : 0;
    // A concurrent Set wins over the environment.
    tf32_enabled.compare_exchange_strong(state, from_env);
    state = tf32_enabled.load();
  }
  return state == 1;
}

void RegisterGpuMatMulKernels(KernelRegistry* registry) {
  RegisterKernel<GpuMatMulOp>(
      registry, KernelDefBuilder("MatMul").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}));
}

}  // namespace dfx::gpu

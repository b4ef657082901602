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
#include "kernels/linalg/batch_matmul_shape.h"
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

// BatchMatMul, V2 and V3 (one dtype): one strided batched GEMM when each
// operand's batch is the output's or a single matrix (stride 0), else one
// GEMM per output matrix, each operand's matrix found by broadcasting.
class GpuBatchMatMulOp : public OpKernel {
 public:
  GpuBatchMatMulOp(OpKernelConstruction* ctx, linalg::Version version)
      : OpKernel(ctx), version_(version) {
    ctx->SetStatus(ctx->GetAttr("adj_x", &adj_x_));
    ctx->SetStatus(ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    linalg::BatchMatMulShapes s;
    DFX_OP_REQUIRES_OK(ctx, linalg::ComputeBatchMatMulShapes(
                                x, y, adj_x_, adj_y_, version_, &s));
    const int64_t x_cols = x.dim_size(x.dims() - 1);
    const int64_t y_cols = y.dim_size(y.dims() - 1);
    for (int64_t dim : {s.m, s.n, s.k, x_cols, y_cols}) {
      DFX_OP_REQUIRES(
          ctx, dim <= INT_MAX,
          absl::UnimplementedError(absl::StrCat(
              "BatchMatMul on a GPU takes dimensions up to ", INT_MAX,
              "; In[0]: ", x.shape().DebugString(), ", In[1]: ",
              y.shape().DebugString())));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.out_shape, &out));
    if (out->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    if (s.k == 0) {
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0,
                                          out->TotalBytes(), launch.stream()),
                          "zeroing BatchMatMul's output"));
      return;
    }
    int64_t batch = 1, x_total = 1, y_total = 1;
    for (size_t i = 0; i < s.out_batch.size(); ++i) {
      batch *= s.out_batch[i];
      x_total *= s.x_batch[i];
      y_total *= s.y_batch[i];
    }
    const int64_t x_stride = x.dim_size(x.dims() - 2) * x_cols;
    const int64_t y_stride = y.dim_size(y.dims() - 2) * y_cols;
    Problem p;
    p.m = static_cast<int>(s.m);
    p.n = static_cast<int>(s.n);
    p.k = static_cast<int>(s.k);
    p.lda = static_cast<int>(x_cols);
    p.ldb = static_cast<int>(y_cols);
    p.esize = DataTypeSize(x.dtype());
    absl::StatusOr<BlasHandle*> blas = BlasFor(*launch.device());
    DFX_OP_REQUIRES_OK(ctx, blas.status());
    DFX_OP_REQUIRES_OK(ctx, (*blas)->Run([&](cublasHandle_t h) {
      DFX_RETURN_IF_ERROR(BlasStatus(cublasSetStream(h, launch.stream()),
                                     "cublasSetStream"));
      if ((x_total == batch || x_total == 1) &&
          (y_total == batch || y_total == 1) && batch <= INT_MAX) {
        p.stride_a = x_total == 1 ? 0 : x_stride;
        p.stride_b = y_total == 1 ? 0 : y_stride;
        return Gemm(h, x, y, x.raw_data(), y.raw_data(), out->raw_data(),
                    static_cast<int>(batch), p);
      }
      // Broadcast batch dims on both sides: each output matrix's operands.
      for (int64_t b = 0; b < batch; ++b) {
        int64_t rest = b, xi = 0, yi = 0, x_mul = 1, y_mul = 1;
        for (int d = static_cast<int>(s.out_batch.size()) - 1; d >= 0; --d) {
          const int64_t idx = rest % s.out_batch[d];
          rest /= s.out_batch[d];
          xi += (s.x_batch[d] == 1 ? 0 : idx) * x_mul;
          yi += (s.y_batch[d] == 1 ? 0 : idx) * y_mul;
          x_mul *= s.x_batch[d];
          y_mul *= s.y_batch[d];
        }
        DFX_RETURN_IF_ERROR(Gemm(
            h, x, y,
            static_cast<const char*>(x.raw_data()) + xi * x_stride * p.esize,
            static_cast<const char*>(y.raw_data()) + yi * y_stride * p.esize,
            static_cast<char*>(out->raw_data()) + b * s.m * s.n * p.esize, 1,
            p));
      }
      return absl::OkStatus();
    }));
  }

 private:
  struct Problem {
    int m = 0, n = 0, k = 0, lda = 0, ldb = 0;
    int64_t stride_a = 0, stride_b = 0;
    size_t esize = 0;
  };

  // `count` products C_i = op(A_i)·op(B_i), row-major, as column-major
  // C_iᵀ = op(B_i)ᵀ·op(A_i)ᵀ (B first, as MatMul).
  absl::Status Gemm(cublasHandle_t h, const Tensor& x, const Tensor& y,
                    const void* a, const void* b, void* c, int count,
                    const Problem& p) const {
    const cublasOperation_t op_a = adj_x_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = adj_y_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int64_t stride_c = int64_t{p.m} * p.n;
    const std::string what = absl::StrCat(
        "cuBLAS batched GEMM of ", DataTypeString(x.dtype()), " ",
        x.shape().DebugString(), " x ", y.shape().DebugString());
    cudaDataType_t type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const void* one = &one_f;
    const void* zero = &zero_f;
    switch (x.dtype()) {
      case DT_FLOAT:
        if (TensorFloat32ExecutionEnabled()) {
          compute = CUBLAS_COMPUTE_32F_FAST_TF32;
        }
        break;
      case DT_DOUBLE:
        type = CUDA_R_64F;
        compute = CUBLAS_COMPUTE_64F;
        one = &one_d;
        zero = &zero_d;
        break;
      case DT_HALF: type = CUDA_R_16F; break;
      case DT_BFLOAT16: type = CUDA_R_16BF; break;
      default:
        return absl::InternalError(absl::StrCat(
            "no GPU BatchMatMul for ", DataTypeString(x.dtype())));
    }
    return BlasStatus(
        cublasGemmStridedBatchedEx(h, op_b, op_a, p.n, p.m, p.k, one, b, type,
                                   p.ldb, p.stride_b, a, type, p.lda,
                                   p.stride_a, zero, c, type, p.n, stride_c,
                                   count, compute, CUBLAS_GEMM_DEFAULT),
        what);
  }

  const linalg::Version version_;
  bool adj_x_ = false;
  bool adj_y_ = false;
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
  const DataTypeVector types = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  RegisterKernel<GpuMatMulOp>(
      registry, KernelDefBuilder("MatMul").Device("GPU").TypeConstraint(
                    "T", types));
  auto batch_matmul = [registry](const KernelDefBuilder& def,
                                 linalg::Version version) {
    RegisterWith<GpuBatchMatMulOp>(registry, def, version);
  };
  batch_matmul(KernelDefBuilder("BatchMatMul").Device("GPU").TypeConstraint(
                   "T", types),
               linalg::Version::kV1);
  batch_matmul(KernelDefBuilder("BatchMatMulV2").Device("GPU").TypeConstraint(
                   "T", types),
               linalg::Version::kV2);
  // V3 with one dtype throughout (mixed operand types run on the CPU).
  for (DataType t : types) {
    batch_matmul(KernelDefBuilder("BatchMatMulV3")
                     .Device("GPU")
                     .TypeConstraint("Ta", {t})
                     .TypeConstraint("Tb", {t})
                     .TypeConstraint("Tout", {t}),
                 linalg::Version::kV2);
  }
}

}  // namespace dfx::gpu

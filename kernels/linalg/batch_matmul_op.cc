// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 on CPU: batch dims checked
// (V1) or broadcast (V2, V3), then one batched GEMM (kernels/linalg/gemm.h).
// V3's mixed operand types are converted to the type the product is
// computed in (float with a bfloat16 operand, int32 for 8-bit integers).
// For complex operands adj_x/adj_y take the adjoint (conjugate transpose),
// as TensorFlow does: the operand is conjugated into scratch and then
// multiplied transposed.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/linalg/batch_matmul_shape.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/linalg_util.h"

namespace dfx::linalg {
namespace {

// The product's compute type for operand types Ta, Tb and output Tout.
template <typename Ta, typename Tb, typename Tout>
using ComputeType =
    std::conditional_t<std::is_same_v<Ta, Tb> && std::is_same_v<Ta, Tout>,
                       Tout,
                       std::conditional_t<std::is_same_v<Tout, int32_t>,
                                          int32_t, float>>;

// Operand `t` as type C: itself, or converted into `scratch`.
template <typename T, typename C>
absl::StatusOr<const C*> AsComputeType(OpKernelContext* ctx, const Tensor& t,
                                       Tensor* scratch) {
  if constexpr (std::is_same_v<T, C>) {
    return t.data<T>();
  } else {
    absl::Status s =
        ctx->allocate_temp(DataTypeToEnum<C>::value, t.shape(), scratch);
    if (!s.ok()) return s;
    ConvertElements(*ctx->device(), t.data<T>(), t.NumElements(),
                    scratch->data<C>());
    return static_cast<const C*>(scratch->data<C>());
  }
}

template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                                   std::is_same_v<T, std::complex<double>>;

// For an adjoint of a complex operand: the conjugate of `data` (the
// operand `t`'s elements) in `scratch`; otherwise `data` itself.
template <typename C>
absl::StatusOr<const C*> ConjugatedIfAdjoint(OpKernelContext* ctx,
                                             const Tensor& t, const C* data,
                                             bool adjoint, Tensor* scratch) {
  if constexpr (kIsComplex<C>) {
    if (adjoint) {
      absl::Status s =
          ctx->allocate_temp(DataTypeToEnum<C>::value, t.shape(), scratch);
      if (!s.ok()) return s;
      C* out = scratch->data<C>();
      const int64_t n = t.NumElements();
      ParallelFor(*ctx->device(), n, Eigen::TensorOpCost(sizeof(C), sizeof(C), 1),
                  [&](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      out[i] = std::conj(data[i]);
                    }
                  });
      return static_cast<const C*>(out);
    }
  }
  return data;
}

template <typename Ta, typename Tb, typename Tout>
class BatchMatMulOp : public OpKernel {
 public:
  BatchMatMulOp(OpKernelConstruction* ctx, Version version)
      : OpKernel(ctx), version_(version) {
    ctx->SetStatus(ctx->GetAttr("adj_x", &adj_x_));
    ctx->SetStatus(ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<Ta, Tb, Tout>;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulShapes s;
    DFX_OP_REQUIRES_OK(
        ctx, ComputeBatchMatMulShapes(x, y, adj_x_, adj_y_, version_, &s));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.out_shape, &out));
    if (out->NumElements() == 0) return;
    Tensor x_scratch, y_scratch, out_scratch;
    auto xc = AsComputeType<Ta, C>(ctx, x, &x_scratch);
    DFX_OP_REQUIRES_OK(ctx, xc.status());
    auto yc = AsComputeType<Tb, C>(ctx, y, &y_scratch);
    DFX_OP_REQUIRES_OK(ctx, yc.status());
    Tensor x_conj, y_conj;
    xc = ConjugatedIfAdjoint<C>(ctx, x, *xc, adj_x_, &x_conj);
    DFX_OP_REQUIRES_OK(ctx, xc.status());
    yc = ConjugatedIfAdjoint<C>(ctx, y, *yc, adj_y_, &y_conj);
    DFX_OP_REQUIRES_OK(ctx, yc.status());
    C* result = nullptr;
    if constexpr (std::is_same_v<C, Tout>) {
      result = out->data<Tout>();
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<C>::value,
                                                 s.out_shape, &out_scratch));
      result = out_scratch.data<C>();
    }
    const std::vector<int64_t> x_index =
        BroadcastBatchIndex(s.out_batch, s.x_batch);
    const std::vector<int64_t> y_index =
        BroadcastBatchIndex(s.out_batch, s.y_batch);
    int64_t batch = 1;
    for (int64_t d : s.out_batch) batch *= d;
    const int xr = x.dims();
    const int yr = y.dims();
    const int64_t x_cols = x.dim_size(xr - 1);
    const int64_t y_cols = y.dim_size(yr - 1);
    const MatrixBatch<const C> a{*xc, x_cols, x.dim_size(xr - 2) * x_cols,
                                 x_index.empty() ? nullptr : &x_index};
    const MatrixBatch<const C> b{*yc, y_cols, y.dim_size(yr - 2) * y_cols,
                                 y_index.empty() ? nullptr : &y_index};
    const MatrixBatch<C> c{result, s.n, s.m * s.n, nullptr};
    BatchedGemm<C>(*ctx->device(), batch, s.m, s.n, s.k, a, adj_x_, b, adj_y_,
                   c);
    if constexpr (!std::is_same_v<C, Tout>) {
      ConvertElements(*ctx->device(), result, out->NumElements(),
                      out->data<Tout>());
    }
  }

 private:
  const Version version_;
  bool adj_x_ = false;
  bool adj_y_ = false;
};

template <typename Ta, typename Tb, typename Tout>
void RegisterOne(KernelRegistry* registry, const char* op, Version version) {
  KernelDefBuilder def(op);
  if (std::string(op) == "BatchMatMulV3") {
    def.TypeConstraint("Ta", {DataTypeToEnum<Ta>::value})
        .TypeConstraint("Tb", {DataTypeToEnum<Tb>::value})
        .TypeConstraint("Tout", {DataTypeToEnum<Tout>::value});
  } else {
    def.TypeConstraint("T", {DataTypeToEnum<Tout>::value});
  }
  registry->Register(def, [version](OpKernelConstruction* ctx) {
    return std::unique_ptr<OpKernel>(
        new BatchMatMulOp<Ta, Tb, Tout>(ctx, version));
  });
}

template <typename T>
void RegisterSameType(KernelRegistry* registry, bool v1, bool v3) {
  if (v1) RegisterOne<T, T, T>(registry, "BatchMatMul", Version::kV1);
  RegisterOne<T, T, T>(registry, "BatchMatMulV2", Version::kV2);
  if (v3) RegisterOne<T, T, T>(registry, "BatchMatMulV3", Version::kV2);
}

}  // namespace

void RegisterBatchMatMulKernels(KernelRegistry* registry) {
  // The type sets of TensorFlow 2.21's CPU kernels (V3 has no half).
  RegisterSameType<float>(registry, true, true);
  RegisterSameType<double>(registry, true, true);
  RegisterSameType<Eigen::half>(registry, true, false);
  RegisterSameType<Eigen::bfloat16>(registry, true, true);
  RegisterSameType<int16_t>(registry, false, true);
  RegisterSameType<int32_t>(registry, true, true);
  RegisterSameType<int64_t>(registry, true, true);
  RegisterSameType<std::complex<float>>(registry, true, true);
  RegisterSameType<std::complex<double>>(registry, true, true);
  using bf16 = Eigen::bfloat16;
  const char* v3 = "BatchMatMulV3";
  RegisterOne<bf16, uint8_t, bf16>(registry, v3, Version::kV2);
  RegisterOne<bf16, int8_t, bf16>(registry, v3, Version::kV2);
  RegisterOne<uint8_t, bf16, bf16>(registry, v3, Version::kV2);
  RegisterOne<int8_t, bf16, bf16>(registry, v3, Version::kV2);
  RegisterOne<uint8_t, uint8_t, int32_t>(registry, v3, Version::kV2);
  RegisterOne<uint8_t, int8_t, int32_t>(registry, v3, Version::kV2);
  RegisterOne<int8_t, uint8_t, int32_t>(registry, v3, Version::kV2);
  RegisterOne<int8_t, int8_t, int32_t>(registry, v3, Version::kV2);
}

}  // namespace dfx::linalg

// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 on CPU: batch dims checked
// (V1) or broadcast (V2, V3), then one batched GEMM (kernels/linalg/gemm.h).
// V3's mixed operand types are converted to the type the product is
// computed in (float with a bfloat16 operand, int32 for 8-bit integers).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/linalg_util.h"

namespace dfx::linalg {
namespace {

enum class Version { kV1, kV2 };

// The shapes of one call: batch dims of the output and of each operand
// (padded with leading 1s to the output's batch rank), and m, n, k.
struct BatchMatMulShapes {
  std::vector<int64_t> out_batch;
  std::vector<int64_t> x_batch;
  std::vector<int64_t> y_batch;
  int64_t m = 0, n = 0, k = 0;
  TensorShape out_shape;
};

absl::Status ComputeShapes(const Tensor& x, const Tensor& y, bool adj_x,
                           bool adj_y, Version version,
                           BatchMatMulShapes* s) {
  if (x.dims() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[0] ndims must be >= 2: ", x.dims()));
  }
  if (y.dims() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[1] ndims must be >= 2: ", y.dims()));
  }
  const int xr = x.dims();
  const int yr = y.dims();
  if (version == Version::kV1) {
    if (xr != yr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] and In[1] has different ndims: ", x.shape().DebugString(),
          " vs. ", y.shape().DebugString()));
    }
    for (int i = 0; i < xr - 2; ++i) {
      if (x.dim_size(i) != y.dim_size(i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "In[0].dim(", i, ") and In[1].dim(", i, ") must be the same: ",
            x.shape().DebugString(), " vs ", y.shape().DebugString()));
      }
    }
  }
  const int rank = std::max(xr, yr) - 2;
  s->out_batch.assign(rank, 1);
  s->x_batch.assign(rank, 1);
  s->y_batch.assign(rank, 1);
  for (int i = 0; i < rank; ++i) {
    const int ix = xr - 2 - rank + i;
    const int iy = yr - 2 - rank + i;
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1;
    const int64_t dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] and In[1] must have compatible batch dimensions: ",
          x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    }
    s->x_batch[i] = dx;
    s->y_batch[i] = dy;
    s->out_batch[i] = dx == 1 ? dy : dx;
  }
  s->m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  s->k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t ky = y.dim_size(adj_y ? yr - 1 : yr - 2);
  s->n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  if (s->k != ky) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
        ", In[1]: ", y.shape().DebugString()));
  }
  std::vector<int64_t> out_dims = s->out_batch;
  out_dims.push_back(s->m);
  out_dims.push_back(s->n);
  auto shape = TensorShape::Build(out_dims);
  if (!shape.ok()) return shape.status();
  s->out_shape = *std::move(shape);
  return absl::OkStatus();
}

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
    DFX_OP_REQUIRES_OK(ctx, ComputeShapes(x, y, adj_x_, adj_y_, version_, &s));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.out_shape, &out));
    if (out->NumElements() == 0) return;
    Tensor x_scratch, y_scratch, out_scratch;
    auto xc = AsComputeType<Ta, C>(ctx, x, &x_scratch);
    DFX_OP_REQUIRES_OK(ctx, xc.status());
    auto yc = AsComputeType<Tb, C>(ctx, y, &y_scratch);
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

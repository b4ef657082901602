// Fill, ZerosLike and OnesLike: outputs with every element set to one value.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace dfx::array_internal {
namespace {

const DataTypeVector& FillTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT, DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_INT8,  DT_INT16,
      DT_INT32, DT_INT64,  DT_UINT8, DT_UINT16,   DT_BOOL,  DT_STRING};
  return *types;
}

// Sets every element of `t` to `value`.
template <typename T>
void SetAll(Tensor* t, const T& value) {
  for (T& x : t->span<T>()) x = value;
}

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, dims_t.dims() == 1,
        NodeError(*this, absl::StrCat("'dims' must be a vector, got shape ",
                                      dims_t.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, value.dims() == 0,
        NodeError(*this, absl::StrCat("'value' must be a scalar, got shape ",
                                      value.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dims = ReadInts(dims_t);
    DFX_OP_REQUIRES(ctx, dims.ok(), NodeError(*this, dims.status().message()));
    absl::StatusOr<TensorShape> shape = TensorShape::Build(*dims);
    DFX_OP_REQUIRES(ctx, shape.ok(),
                    NodeError(*this, absl::StrCat("bad 'dims': ",
                                                  shape.status().message())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (value.dtype() == DT_STRING) {
      SetAll(out, value.scalar<std::string>());
      return;
    }
    VisitNumericType(value.dtype(), [&]<typename T>() {
      SetAll(out, value.scalar<T>());
    });
  }
};

// ZerosLike (kOne false) and OnesLike (kOne true).
template <bool kOne>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.dtype() == DT_STRING) {
      SetAll(out, std::string());
      return;
    }
    VisitNumericType(x.dtype(), [&]<typename T>() {
      SetAll(out, static_cast<T>(kOne ? 1 : 0));
    });
  }
};

}  // namespace

void RegisterFillKernels(KernelRegistry* registry) {
  RegisterKernel<FillOp>(
      registry, KernelDefBuilder("Fill").TypeConstraint("T", FillTypes()));
  RegisterKernel<ConstantLikeOp<false>>(
      registry, KernelDefBuilder("ZerosLike").TypeConstraint("T", FillTypes()));
  RegisterKernel<ConstantLikeOp<true>>(
      registry, KernelDefBuilder("OnesLike")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                          DT_BFLOAT16, DT_INT8, DT_INT16,
                                          DT_INT32, DT_INT64, DT_UINT8,
                                          DT_UINT16, DT_BOOL}));
}

}  // namespace dfx::array_internal

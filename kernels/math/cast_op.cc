// Cast between float, double, half, bfloat16, int8, uint8, int16, uint16,
// int32, int64 and bool, with C++ static_cast rules as TensorFlow: floating
// point to integer truncates toward zero, anything to bool is `!= 0`, bool
// to a number is 0 or 1.
#include <cstring>

#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::ConstFlatMap;
using math_internal::FlatMap;

// Casts elements [first, last) of `in` into `out`.
using CastFn = void (*)(const void* in, void* out, int64_t first,
                        int64_t last);

template <typename Src, typename Dst>
void CastRange(const void* in, void* out, int64_t first, int64_t last) {
  const int64_t n = last - first;
  FlatMap<Dst>(static_cast<Dst*>(out) + first, n) =
      ConstFlatMap<Src>(static_cast<const Src*>(in) + first, n)
          .template cast<Dst>();
}

// Truncate=true to bfloat16: drop the low 16 bits of the float instead of
// rounding to nearest even (NaN stays NaN).
template <typename Src>
void CastRangeTruncBfloat16(const void* in, void* out, int64_t first,
                            int64_t last) {
  const Src* src = static_cast<const Src*>(in);
  Eigen::bfloat16* dst = static_cast<Eigen::bfloat16*>(out);
  for (int64_t i = first; i < last; ++i) {
    const float f = static_cast<float>(src[i]);
    if (std::isnan(f)) {
      dst[i] = Eigen::NumTraits<Eigen::bfloat16>::quiet_NaN();
      continue;
    }
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    dst[i] = Eigen::numext::bit_cast<Eigen::bfloat16>(
        static_cast<uint16_t>(bits >> 16));
  }
}

template <typename... Ts>
struct TypeList {};
using CastTypes =
    TypeList<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
             int16_t, uint16_t, int32_t, int64_t, bool>;

template <typename Src, typename... Ts>
CastFn FindCastTo(DataType dst, TypeList<Ts...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == dst ? (fn = &CastRange<Src, Ts>, true)
                                     : false) ||
   ...);
  return fn;
}

template <typename... Ts>
CastFn FindCast(DataType src, DataType dst, TypeList<Ts...> list) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == src ? (fn = FindCastTo<Ts>(dst, list), true)
                                     : false) ||
   ...);
  return fn;
}

DataTypeVector CastTypeEnums() {
  return {DT_FLOAT, DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_INT8, DT_UINT8,
          DT_INT16, DT_UINT16, DT_INT32, DT_INT64,    DT_BOOL};
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src, dst;
    bool truncate = false;
    ctx->SetStatus(ctx->GetAttr("SrcT", &src));
    ctx->SetStatus(ctx->GetAttr("DstT", &dst));
    ctx->SetStatus(ctx->GetAttr("Truncate", &truncate));
    if (!ctx->status().ok()) return;
    identity_ = src == dst;
    if (identity_) return;
    if (truncate && dst == DT_BFLOAT16 && src == DT_FLOAT) {
      cast_ = &CastRangeTruncBfloat16<float>;
    } else if (truncate && dst == DT_BFLOAT16 && src == DT_DOUBLE) {
      cast_ = &CastRangeTruncBfloat16<double>;
    } else {
      cast_ = FindCast(src, dst, CastTypes());
    }
    if (cast_ == nullptr) {
      ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
          "node '", ctx->def().name(), "' (op Cast): Cast ",
          DataTypeString(src), " to ", DataTypeString(dst),
          " is not supported")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (identity_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const void* in = x.raw_data();
    void* o = out->raw_data();
    const Eigen::TensorOpCost cost(DataTypeSize(x.dtype()),
                                   DataTypeSize(out->dtype()), 1);
    ParallelFor(*ctx->device(), x.NumElements(), cost,
                [&](int64_t first, int64_t last) {
                  cast_(in, o, first, last);
                });
  }

 private:
  bool identity_ = false;
  CastFn cast_ = nullptr;
};

}  // namespace

void RegisterCastKernels(KernelRegistry* registry) {
  RegisterKernel<CastOp>(registry, KernelDefBuilder("Cast")
                                       .TypeConstraint("SrcT", CastTypeEnums())
                                       .TypeConstraint("DstT", CastTypeEnums()));
}

}  // namespace dfx

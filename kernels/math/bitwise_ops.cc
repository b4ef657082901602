// Bit ops on the integer types: BitwiseAnd/Or/Xor and the shifts
// (broadcasting), Invert, PopulationCount; Bitcast (any fixed-size type to
// another, TensorFlow's shape rules) and BroadcastArgs.
#include "kernels/math/cwise_ops.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

template <typename T>
struct BitAndOp {
  T operator()(const T& x, const T& y) const { return x & y; }
};
template <typename T>
struct BitOrOp {
  T operator()(const T& x, const T& y) const { return x | y; }
};
template <typename T>
struct BitXorOp {
  T operator()(const T& x, const T& y) const { return x ^ y; }
};
template <typename T>
struct InvertOp {
  T operator()(const T& x) const { return static_cast<T>(~x); }
};

// TensorFlow clamps the shift to [0, bits - 1] (no undefined behaviour):
// shifting by bits or more gives x << (bits - 1), a negative shift none.
template <typename T>
T ClampShift(T y) {
  constexpr T kMax = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return 0;
  }
  return y > kMax ? kMax : y;
}

template <typename T>
struct LeftShiftOp {
  T operator()(const T& x, const T& y) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) << static_cast<U>(ClampShift(y)));
  }
};

// Arithmetic for signed types.
template <typename T>
struct RightShiftOp {
  T operator()(const T& x, const T& y) const {
    return static_cast<T>(x >> ClampShift(y));
  }
};

template <typename T>
class PopulationCountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* in = x.data<T>();
    uint8_t* o = out->data<uint8_t>();
    ParallelFor(
        *ctx->device(), x.NumElements(), Eigen::TensorOpCost(sizeof(T), 1, 2),
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            o[i] = static_cast<uint8_t>(
                std::popcount(static_cast<std::make_unsigned_t<T>>(in[i])));
          }
        });
  }
};

// Reinterprets the bytes: equal sizes keep the shape, a wider input gains
// a last dim of in/out, a narrower one loses a last dim of out/in.
class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "T", &in_type_));
    ctx->SetStatus(GetNodeAttr(ctx->def(), "type", &out_type_));
    in_size_ = DataTypeSize(in_type_);
    out_size_ = DataTypeSize(out_type_);
    if (in_size_ <= 0 || out_size_ <= 0) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Cannot bitcast from ", DataTypeString(in_type_), " to ",
                       DataTypeString(out_type_))));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const bool ok =
        in_size_ >= out_size_ ||
        (in.dims() > 0 && in.dim_size(in.dims() - 1) == out_size_ / in_size_);
    DFX_OP_REQUIRES(ctx, ok,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Cannot bitcast from ", static_cast<int>(in_type_),
                        " to ", static_cast<int>(out_type_), ": shape ",
                        in.shape().DebugString())));
    TensorShape shape = in.shape();
    if (in_size_ > out_size_) {
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(in_size_ / out_size_));
    } else if (in_size_ < out_size_) {
      shape.RemoveDim(shape.dims() - 1);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (in.NumElements() > 0) {
      std::memcpy(out->raw_data(), in.raw_data(), in.TotalBytes());
    }
  }

 private:
  DataType in_type_ = DT_INVALID;
  DataType out_type_ = DT_INVALID;
  int64_t in_size_ = 0;
  int64_t out_size_ = 0;
};

// The broadcast of two shapes given as vectors.
template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& s0 = ctx->input(0);
    const Tensor& s1 = ctx->input(1);
    const Tensor* in[] = {&s0, &s1};
    for (int i = 0; i < 2; ++i) {
      DFX_OP_REQUIRES(
          ctx, in[i]->dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "In[", i, "] must be a vector.", in[i]->shape().DebugString())));
    }
    const int64_t n0 = s0.NumElements();
    const int64_t n1 = s1.NumElements();
    const int64_t n = std::max(n0, n1);
    std::vector<T> r(n);
    const T* a = s0.data<T>();
    const T* b = s1.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const T da = i < n - n0 ? T(1) : a[i - (n - n0)];
      const T db = i < n - n1 ? T(1) : b[i - (n - n1)];
      if (da != db && da != 1 && db != 1) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Incompatible shapes: [", absl::StrJoin(s0.span<T>(), ","),
            "] vs. [", absl::StrJoin(s1.span<T>(), ","), "]")));
        return;
      }
      r[i] = da == 1 ? db : da;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    std::copy(r.begin(), r.end(), out->data<T>());
  }
};

template <typename... Ts>
void RegisterIntOps(KernelRegistry* r) {
  using math_internal::Binary;
  using math_internal::RegisterForTypes;
  using math_internal::Unary;
  RegisterForTypes<Binary<BitAndOp>::Kernel, Ts...>(r, "BitwiseAnd");
  RegisterForTypes<Binary<BitOrOp>::Kernel, Ts...>(r, "BitwiseOr");
  RegisterForTypes<Binary<BitXorOp>::Kernel, Ts...>(r, "BitwiseXor");
  RegisterForTypes<Binary<LeftShiftOp>::Kernel, Ts...>(r, "LeftShift");
  RegisterForTypes<Binary<RightShiftOp>::Kernel, Ts...>(r, "RightShift");
  RegisterForTypes<Unary<InvertOp>::Kernel, Ts...>(r, "Invert");
  RegisterForTypes<PopulationCountOp, Ts...>(r, "PopulationCount");
}

}  // namespace

void RegisterBitwiseKernels(KernelRegistry* registry) {
  RegisterIntOps<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                 uint64_t>(registry);
  RegisterKernel<BitcastOp>(registry, KernelDefBuilder("Bitcast"));
  RegisterKernel<BroadcastArgsOp<int32_t>>(
      registry, KernelDefBuilder("BroadcastArgs").TypeConstraint<int32_t>("T"));
  RegisterKernel<BroadcastArgsOp<int64_t>>(
      registry, KernelDefBuilder("BroadcastArgs").TypeConstraint<int64_t>("T"));
}

}  // namespace dfx

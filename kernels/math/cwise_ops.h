// Element-wise CPU kernels of the math family: the unary and broadcasting
// binary kernel templates, the functors they apply, and the registration
// functions of each math kernel file. Private to kernels/math/.
#ifndef DFX_KERNELS_MATH_CWISE_OPS_H_
#define DFX_KERNELS_MATH_CWISE_OPS_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/broadcast.h"
#include "runtime/op_kernel.h"

namespace dfx {

void RegisterCwiseBinaryKernels(KernelRegistry* registry);
void RegisterCwiseComparisonKernels(KernelRegistry* registry);
void RegisterCwiseUnaryKernels(KernelRegistry* registry);
void RegisterSelectKernels(KernelRegistry* registry);
void RegisterCastKernels(KernelRegistry* registry);
void RegisterAddNKernels(KernelRegistry* registry);

namespace math_internal {

// `status` with its message prefixed by "node 'name' (op Op): ".
inline absl::Status NodeError(const OpKernel& kernel, const absl::Status& s) {
  return absl::Status(s.code(),
                      absl::StrCat("node '", kernel.name(), "' (op ",
                                   kernel.type_string(), "): ", s.message()));
}
inline absl::Status NodeInvalidArgument(const OpKernel& kernel,
                                        absl::string_view message) {
  return NodeError(kernel, absl::InvalidArgumentError(message));
}

// ---------------------------------------------------------------------------
// Functors (Eigen's protocol: operator() on scalars, packetOp where it
// vectorises, functor_traits below).

// Integer a / b truncated toward zero, as C++ and TensorFlow's Div. The
// kernel rejects b == 0 before calling; MIN / -1 wraps to MIN instead of
// trapping.
template <typename T>
struct TruncDivOp {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) {
        return static_cast<T>(
            std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(a));
      }
    }
    return static_cast<T>(a / b);
  }
};

// a / b rounded toward negative infinity (TensorFlow's FloorDiv): integers
// as Python's //, floating point as floor(a / b).
template <typename T>
struct FloorDivOp {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      const T q = TruncDivOp<T>()(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (b != -1 && q * b != a && ((a < 0) != (b < 0))) {
          return static_cast<T>(q - 1);
        }
      }
      return q;
    } else {
      using std::floor;
      return static_cast<T>(floor(a / b));
    }
  }
};

// (a - b)^2.
template <typename T>
struct SquaredDifferenceOp {
  T operator()(const T& a, const T& b) const {
    const T d = a - b;
    return d * d;
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    const Packet d = Eigen::internal::psub(a, b);
    return Eigen::internal::pmul(d, d);
  }
};

}  // namespace math_internal
}  // namespace dfx

namespace Eigen::internal {
template <typename T>
struct functor_traits<dfx::math_internal::TruncDivOp<T>> {
  enum { Cost = 4 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<dfx::math_internal::FloorDivOp<T>> {
  enum { Cost = 6 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<dfx::math_internal::SquaredDifferenceOp<T>> {
  enum {
    Cost = NumTraits<T>::AddCost + NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasSub && packet_traits<T>::HasMul
  };
};
}  // namespace Eigen::internal

namespace dfx::math_internal {

template <typename T>
using ConstFlatMap = Eigen::TensorMap<
    Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
template <typename T>
using FlatMap =
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;

// out[i] = f(a[i * a_step], b[i * b_step]) for i in [0, n), each step 0 or 1;
// vectorised by Eigen on the calling thread.
template <typename Functor, typename T, typename Tout>
void BinaryRun(const Functor& f, const T* a, int64_t a_step, const T* b,
               int64_t b_step, Tout* out, int64_t n) {
  FlatMap<Tout> o(out, n);
  if (a_step != 0 && b_step != 0) {
    o = ConstFlatMap<T>(a, n).binaryExpr(ConstFlatMap<T>(b, n), f);
  } else if (b_step != 0) {
    ConstFlatMap<T> bm(b, n);
    o = bm.constant(*a).binaryExpr(bm, f);
  } else if (a_step != 0) {
    ConstFlatMap<T> am(a, n);
    o = am.binaryExpr(am.constant(*b), f);
  } else {
    o.setConstant(f(*a, *b));
  }
}

// Evaluates out = f(x, y) with broadcasting. `bcast` is the broadcast of x's
// and y's shapes, or null when they are equal or one is a scalar (a fast path
// that needs no index walk). REQUIRES: out holds the broadcast shape.
template <typename Functor, typename T, typename Tout>
void EvalBinary(const Device& device, const Broadcast* bcast, const Tensor& x,
                const Tensor& y, Tensor* out) {
  const int64_t n = out->NumElements();
  if (n == 0) return;
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  Tout* o = out->data<Tout>();
  const Functor f;
  const Eigen::TensorOpCost cost(
      2 * sizeof(T), sizeof(Tout),
      Eigen::internal::functor_traits<Functor>::Cost);
  if (bcast == nullptr) {
    const int64_t a_step = x.NumElements() == n ? 1 : 0;
    const int64_t b_step = y.NumElements() == n ? 1 : 0;
    ParallelFor(device, n, cost, [&](int64_t first, int64_t last) {
      BinaryRun(f, a + first * a_step, a_step, b + first * b_step, b_step,
                o + first, last - first);
    });
    return;
  }
  ParallelFor(device, n, cost, [&](int64_t first, int64_t last) {
    bcast->ForEachRun(first, last,
                      [&](int64_t off, int64_t len, const int64_t* in_off,
                          const int64_t* step) {
                        BinaryRun(f, a + in_off[0], step[0], b + in_off[1],
                                  step[1], o + off, len);
                      });
  });
}

// A broadcasting binary kernel: z = Functor(x, y), T in, Tout out.
// With kCheckZero, a zero anywhere in y fails the step with InvalidArgument
// "Integer division by zero" (TensorFlow's message) instead of trapping.
// Equal and NotEqual honour incompatible_shape_error: when it is false and
// the shapes do not broadcast, the output is a scalar (false for Equal, true
// for NotEqual).
template <typename Functor, typename T, typename Tout = T,
          bool kCheckZero = false>
class BinaryOpKernel : public OpKernel {
 public:
  explicit BinaryOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (const AttrValue* v =
            FindNodeAttr(ctx->def(), "incompatible_shape_error")) {
      incompatible_shape_error_ = v->b();
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (kCheckZero) {
      const absl::Span<const T> divisors = y.span<T>();
      DFX_OP_REQUIRES(
          ctx,
          std::find(divisors.begin(), divisors.end(), T(0)) == divisors.end(),
          NodeInvalidArgument(*this, "Integer division by zero"));
    }
    Tensor* out = nullptr;
    const bool simple = x.shape() == y.shape() || x.NumElements() == 1 ||
                        y.NumElements() == 1;
    if (simple && x.dims() == y.dims()) {
      // Same shape, or same-rank with one element: output is the bigger.
      const TensorShape& shape =
          x.NumElements() == 1 ? y.shape() : x.shape();
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      EvalBinary<Functor, T, Tout>(*ctx->device(), nullptr, x, y, out);
      return;
    }
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(x.shape(), y.shape());
    if (!bcast.ok()) {
      if (!incompatible_shape_error_) {
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
        out->data<bool>()[0] = type_string() == "NotEqual";
        return;
      }
      ctx->SetStatus(NodeError(*this, bcast.status()));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, bcast->output_shape(), &out));
    if (simple) {
      // A one-element input against a tensor of another rank.
      EvalBinary<Functor, T, Tout>(*ctx->device(), nullptr, x, y, out);
    } else {
      EvalBinary<Functor, T, Tout>(*ctx->device(), &*bcast, x, y, out);
    }
  }

 private:
  bool incompatible_shape_error_ = true;
};

// A unary kernel: y = Functor(x), same shape.
template <typename Functor, typename T>
class UnaryOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* in = x.data<T>();
    T* o = out->data<T>();
    const Functor f;
    const Eigen::TensorOpCost cost(
        sizeof(T), sizeof(T), Eigen::internal::functor_traits<Functor>::Cost);
    ParallelFor(*ctx->device(), x.NumElements(), cost,
                [&](int64_t first, int64_t last) {
                  FlatMap<T>(o + first, last - first) =
                      ConstFlatMap<T>(in + first, last - first).unaryExpr(f);
                });
  }
};

// Registers Kernel<T> for op `name` with type attr "T" for each T in Ts.
template <template <typename> class Kernel, typename... Ts>
void RegisterForTypes(KernelRegistry* registry, const char* name) {
  (RegisterKernel<Kernel<Ts>>(
       registry, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace dfx::math_internal

#endif  // DFX_KERNELS_MATH_CWISE_OPS_H_

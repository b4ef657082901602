// Element-wise CPU kernels of the math family: the unary, broadcasting
// binary and same-size binary kernel templates, how they apply a functor to
// runs of elements, and the registration functions of each math kernel file.
// Private to kernels/math/.
//
// Half and bfloat16 compute in float, as Eigen does for these types one
// element at a time: a run of elements is widened into a float buffer, the
// float functor applied (vectorised), and the result narrowed back. A kernel
// for half therefore names the float functor: UnaryOpKernel<F<float>, half>.
#ifndef DFX_KERNELS_MATH_CWISE_OPS_H_
#define DFX_KERNELS_MATH_CWISE_OPS_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/broadcast.h"
#include "kernels/math/cwise_functors.h"
#include "runtime/op_kernel.h"

namespace dfx {

void RegisterCwiseBinaryKernels(KernelRegistry* registry);
void RegisterCwiseDivModPowKernels(KernelRegistry* registry);
void RegisterCwiseNoNanKernels(KernelRegistry* registry);
void RegisterCwiseComparisonKernels(KernelRegistry* registry);
void RegisterCwiseUnaryKernels(KernelRegistry* registry);
void RegisterCwiseUnaryFloatKernels(KernelRegistry* registry);
void RegisterCwiseGradKernels(KernelRegistry* registry);
void RegisterClipKernels(KernelRegistry* registry);
void RegisterSelectKernels(KernelRegistry* registry);
void RegisterCastKernels(KernelRegistry* registry);
void RegisterAddNKernels(KernelRegistry* registry);

namespace math_internal {

// The type a T is computed in: float for half and bfloat16, T otherwise.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<Eigen::half> {
  using type = float;
};
template <>
struct ComputeTypeOf<Eigen::bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;
template <typename T>
inline constexpr bool kWidened = !std::is_same_v<T, ComputeType<T>>;

template <typename T>
using ConstFlatMap = Eigen::TensorMap<
    Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
template <typename T>
using FlatMap =
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;

// Elements widened per step; three buffers of this many floats live on the
// stack of the thread that runs a range.
inline constexpr int64_t kWidenChunk = 512;

// out[i] = To(in[i]) for i in [0, n).
template <typename From, typename To>
void ConvertRun(const From* in, To* out, int64_t n) {
  FlatMap<To>(out, n) = ConstFlatMap<From>(in, n).template cast<To>();
}

// out[i] = f(a[i * a_step], b[i * b_step]) for i in [0, n), each step 0 or 1,
// with f on ComputeType<T>; vectorised by Eigen on the calling thread.
template <typename Functor, typename T, typename Tout>
void BinaryRun(const Functor& f, const T* a, int64_t a_step, const T* b,
               int64_t b_step, Tout* out, int64_t n) {
  if constexpr (kWidened<T>) {
    using C = ComputeType<T>;
    using Cout = ComputeType<Tout>;
    C abuf[kWidenChunk], bbuf[kWidenChunk];
    Cout obuf[kWidenChunk];
    if (a_step == 0) abuf[0] = static_cast<C>(*a);
    if (b_step == 0) bbuf[0] = static_cast<C>(*b);
    for (int64_t i = 0; i < n; i += kWidenChunk) {
      const int64_t len = std::min(kWidenChunk, n - i);
      if (a_step != 0) ConvertRun(a + i, abuf, len);
      if (b_step != 0) ConvertRun(b + i, bbuf, len);
      if constexpr (kWidened<Tout>) {
        BinaryRun(f, abuf, a_step, bbuf, b_step, obuf, len);
        ConvertRun(obuf, out + i, len);
      } else {
        BinaryRun(f, abuf, a_step, bbuf, b_step, out + i, len);
      }
    }
  } else {
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
}

// out[i] = f(in[i]) for i in [0, n), f on ComputeType<T>.
template <typename Functor, typename T, typename Tout>
void UnaryRun(const Functor& f, const T* in, Tout* out, int64_t n) {
  if constexpr (kWidened<T>) {
    using C = ComputeType<T>;
    using Cout = ComputeType<Tout>;
    C ibuf[kWidenChunk];
    Cout obuf[kWidenChunk];
    for (int64_t i = 0; i < n; i += kWidenChunk) {
      const int64_t len = std::min(kWidenChunk, n - i);
      ConvertRun(in + i, ibuf, len);
      if constexpr (kWidened<Tout>) {
        UnaryRun(f, ibuf, obuf, len);
        ConvertRun(obuf, out + i, len);
      } else {
        UnaryRun(f, ibuf, out + i, len);
      }
    }
  } else {
    FlatMap<Tout>(out, n) = ConstFlatMap<T>(in, n).unaryExpr(f);
  }
}

// The cost of one element of a functor on T, for ParallelFor's blocks.
template <typename Functor, typename T, typename Tout>
Eigen::TensorOpCost ElementCost(int inputs) {
  return Eigen::TensorOpCost(
      inputs * sizeof(T), sizeof(Tout),
      Eigen::internal::functor_traits<Functor>::Cost +
          (kWidened<T> ? 2 * inputs : 0));
}

// Evaluates out = f(x, y) with broadcasting. `bcast` is the broadcast of x's
// and y's shapes, or null when they are equal or one has one element (a
// fast path that needs no index walk). REQUIRES: out holds the broadcast
// shape.
template <typename Functor, typename T, typename Tout>
void EvalBinary(const Device& device, const Broadcast* bcast, const Tensor& x,
                const Tensor& y, Tensor* out) {
  const int64_t n = out->NumElements();
  if (n == 0) return;
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  Tout* o = out->data<Tout>();
  const Functor f;
  const Eigen::TensorOpCost cost = ElementCost<Functor, T, Tout>(2);
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

// What a binary kernel checks of its second input before computing: every
// element must pass, or the step fails with InvalidArgument `kMessage`
// (TensorFlow's words).
struct NoCheck {
  static constexpr bool kActive = false;
  template <typename T>
  static bool Ok(const T&) {
    return true;
  }
  static constexpr const char* kMessage = "";
};
struct NonZeroDivisor {
  static constexpr bool kActive = true;
  template <typename T>
  static bool Ok(const T& y) {
    return y != T(0);
  }
  static constexpr const char* kMessage = "Integer division by zero";
};
struct NonNegativeExponent {
  static constexpr bool kActive = true;
  template <typename T>
  static bool Ok(const T& y) {
    return !(y < T(0));
  }
  static constexpr const char* kMessage =
      "Integers to negative integer powers are not allowed";
};

// A broadcasting binary kernel: z = Functor(x, y), inputs T, output Tout,
// Functor on ComputeType<T>. Check runs over y first (see NoCheck).
// Equal and NotEqual honour incompatible_shape_error: when it is false and
// the shapes do not broadcast, the output is a scalar (false for Equal, true
// for NotEqual).
template <typename Functor, typename T, typename Tout = T,
          typename Check = NoCheck>
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
    Tensor* out = nullptr;
    const bool simple = x.shape() == y.shape() || x.NumElements() == 1 ||
                        y.NumElements() == 1;
    if (simple && x.dims() == y.dims()) {
      // Same shape, or same-rank with one element: output is the bigger.
      const TensorShape& shape =
          x.NumElements() == 1 ? y.shape() : x.shape();
      if (!CheckY(ctx, y, shape.num_elements())) return;
      // Element-wise: the output may take over an input of its shape that
      // nothing else holds (the last use of a chain's intermediate).
      DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                  {0, 1}, 0, shape, &out));
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
      ctx->SetStatus(bcast.status());
      return;
    }
    if (!CheckY(ctx, y, bcast->num_elements())) return;
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
  // False (with the error set) when some element of y fails Check and the
  // output is not empty (an empty output computes nothing, as in
  // TensorFlow).
  static bool CheckY(OpKernelContext* ctx, const Tensor& y,
                     int64_t out_elements) {
    if constexpr (Check::kActive) {
      if (out_elements == 0) return true;
      for (const T& v : y.span<T>()) {
        if (!Check::Ok(v)) {
          ctx->SetStatus(absl::InvalidArgumentError(Check::kMessage));
          return false;
        }
      }
    }
    return true;
  }

  bool incompatible_shape_error_ = true;
};

// A unary kernel: y = Functor(x), same shape, inputs T, output Tout,
// Functor on ComputeType<T>.
template <typename Functor, typename T, typename Tout = T>
class UnaryOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {0}, 0, x.shape(), &out));
    const T* in = x.data<T>();
    Tout* o = out->data<Tout>();
    const Functor f;
    ParallelFor(*ctx->device(), x.NumElements(),
                ElementCost<Functor, T, Tout>(1),
                [&](int64_t first, int64_t last) {
                  UnaryRun(f, in + first, o + first, last - first);
                });
  }
};

// A binary kernel without broadcasting (TensorFlow's SimpleBinaryOp, for the
// gradients of unary functions): z = Functor(x, y) with x's shape; x and y
// must hold as many elements.
template <typename Functor, typename T>
class SameSizeBinaryOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, x.NumElements() == y.NumElements(),
        absl::InvalidArgumentError(absl::StrCat(
            "The two arguments to a cwise op must have same number of "
            "elements, got ",
            x.NumElements(), " and ", y.NumElements())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* a = x.data<T>();
    const T* b = y.data<T>();
    T* o = out->data<T>();
    const Functor f;
    ParallelFor(*ctx->device(), x.NumElements(),
                ElementCost<Functor, T, T>(2),
                [&](int64_t first, int64_t last) {
                  BinaryRun(f, a + first, 1, b + first, 1, o + first,
                            last - first);
                });
  }
};

// Kernel<T> for functor template F: F applied on ComputeType<T>.
template <template <typename> class F>
struct Unary {
  template <typename T>
  using Kernel = UnaryOpKernel<F<ComputeType<T>>, T>;
  // With a bool output (IsNan, ...).
  template <typename T>
  using BoolKernel = UnaryOpKernel<F<ComputeType<T>>, T, bool>;
};
template <template <typename> class F, typename Check = NoCheck>
struct Binary {
  template <typename T>
  using Kernel = BinaryOpKernel<F<ComputeType<T>>, T, T, Check>;
  template <typename T>
  using SameSizeKernel = SameSizeBinaryOpKernel<F<ComputeType<T>>, T>;
};

// Registers Kernel<T> for op `name` with type attr "T" for each T in Ts.
template <template <typename> class Kernel, typename... Ts>
void RegisterForTypes(KernelRegistry* registry, const char* name) {
  (RegisterKernel<Kernel<Ts>>(
       registry, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace math_internal
}  // namespace dfx

#endif  // DFX_KERNELS_MATH_CWISE_OPS_H_

// Unary element-wise kernels of every numeric family: Neg, Abs, Square,
// Sign, Round, Inv, Reciprocal, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid; and
// LogicalNot.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::RegisterForTypes;
using math_internal::Unary;
namespace ei = Eigen::internal;

// Round on integers: the value itself.
template <typename T>
struct IdentityOp {
  T operator()(const T& a) const { return a; }
  template <typename Packet>
  Packet packetOp(const Packet& a) const {
    return a;
  }
};

using Eigen::bfloat16;
using Eigen::half;

}  // namespace
}  // namespace dfx

namespace Eigen::internal {
template <typename T>
struct functor_traits<dfx::IdentityOp<T>> {
  enum { Cost = 0, PacketAccess = true };
};
}  // namespace Eigen::internal

namespace dfx {

void RegisterCwiseUnaryKernels(KernelRegistry* registry) {
  RegisterForTypes<Unary<math_internal::NegOp>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t>(registry,
                                                                "Neg");
  RegisterForTypes<Unary<math_internal::AbsOp>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t>(registry,
                                                                "Abs");
  RegisterForTypes<Unary<math_internal::SquareOp>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t, uint8_t>(
      registry, "Square");
  RegisterForTypes<Unary<math_internal::SignOp>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t>(registry,
                                                                "Sign");
  RegisterForTypes<Unary<math_internal::RoundHalfToEvenOp>::Kernel, float,
                   double, half, bfloat16>(registry, "Round");
  RegisterForTypes<Unary<IdentityOp>::Kernel, int32_t, int64_t>(registry,
                                                                "Round");
  for (const char* name : {"Reciprocal", "Inv"}) {
    RegisterForTypes<Unary<ei::scalar_inverse_op>::Kernel, float, double, half,
                     bfloat16>(registry, name);
  }
  RegisterForTypes<Unary<ei::scalar_exp_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Exp");
  RegisterForTypes<Unary<ei::scalar_log_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Log");
  RegisterForTypes<Unary<math_internal::SqrtOp>::Kernel, float, double, half,
                   bfloat16>(registry, "Sqrt");
  RegisterForTypes<Unary<ei::scalar_rsqrt_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Rsqrt");
  RegisterForTypes<Unary<ei::scalar_tanh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Tanh");
  RegisterForTypes<Unary<ei::scalar_logistic_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Sigmoid");
  RegisterKernel<Unary<math_internal::LogicalNotOp>::Kernel<bool>>(
      registry, KernelDefBuilder("LogicalNot"));
}

}  // namespace dfx

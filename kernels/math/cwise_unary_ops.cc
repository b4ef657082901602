// Unary element-wise kernels: Neg, Abs, Square, Reciprocal, Exp, Log, Sqrt,
// Rsqrt, Tanh, Sigmoid.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::RegisterForTypes;
using math_internal::UnaryOpKernel;
namespace ei = Eigen::internal;

template <template <typename> class F>
struct Unary {
  template <typename T>
  using Kernel = UnaryOpKernel<F<T>, T>;
};

using Eigen::bfloat16;
using Eigen::half;

}  // namespace

void RegisterCwiseUnaryKernels(KernelRegistry* registry) {
  RegisterForTypes<Unary<ei::scalar_opposite_op>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t>(registry,
                                                                "Neg");
  RegisterForTypes<Unary<ei::scalar_abs_op>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t>(registry,
                                                                "Abs");
  RegisterForTypes<Unary<ei::scalar_square_op>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, int8_t, int16_t, uint8_t>(
      registry, "Square");
  RegisterForTypes<Unary<ei::scalar_inverse_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Reciprocal");
  RegisterForTypes<Unary<ei::scalar_exp_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Exp");
  RegisterForTypes<Unary<ei::scalar_log_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Log");
  RegisterForTypes<Unary<ei::scalar_sqrt_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Sqrt");
  RegisterForTypes<Unary<ei::scalar_rsqrt_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Rsqrt");
  RegisterForTypes<Unary<ei::scalar_tanh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Tanh");
  RegisterForTypes<Unary<ei::scalar_logistic_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Sigmoid");
}

}  // namespace dfx

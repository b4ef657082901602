// Broadcasting comparison kernels (bool output): Equal, NotEqual, Less,
// LessEqual, Greater, GreaterEqual.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::BinaryOpKernel;
using math_internal::ComputeType;
using math_internal::RegisterForTypes;
namespace ei = Eigen::internal;

template <Eigen::internal::ComparisonName kCmp>
struct Cmp {
  template <typename T>
  using Kernel = BinaryOpKernel<
      ei::scalar_cmp_op<ComputeType<T>, ComputeType<T>, kCmp>, T, bool>;
};

using Eigen::bfloat16;
using Eigen::half;

}  // namespace

void RegisterCwiseComparisonKernels(KernelRegistry* registry) {
  RegisterForTypes<Cmp<ei::cmp_EQ>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t, bool>(registry,
                                                                     "Equal");
  RegisterForTypes<Cmp<ei::cmp_NEQ>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t, bool>(
      registry, "NotEqual");
  RegisterForTypes<Cmp<ei::cmp_LT>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(registry,
                                                               "Less");
  RegisterForTypes<Cmp<ei::cmp_LE>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(registry,
                                                               "LessEqual");
  RegisterForTypes<Cmp<ei::cmp_GT>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(registry,
                                                               "Greater");
  RegisterForTypes<Cmp<ei::cmp_GE>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(
      registry, "GreaterEqual");
}

}  // namespace dfx

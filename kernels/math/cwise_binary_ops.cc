// Broadcasting arithmetic kernels: Add, AddV2, Sub, Mul, Div, RealDiv,
// FloorDiv, SquaredDifference, Maximum, Minimum.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::BinaryOpKernel;
using math_internal::RegisterForTypes;
namespace ei = Eigen::internal;

template <typename T>
using AddKernel = BinaryOpKernel<ei::scalar_sum_op<T>, T>;
template <typename T>
using SubKernel = BinaryOpKernel<ei::scalar_difference_op<T>, T>;
template <typename T>
using MulKernel = BinaryOpKernel<ei::scalar_product_op<T>, T>;
template <typename T>
using RealDivKernel = BinaryOpKernel<ei::scalar_quotient_op<T>, T>;
template <typename T>
using IntDivKernel =
    BinaryOpKernel<math_internal::TruncDivOp<T>, T, T, /*kCheckZero=*/true>;
template <typename T>
using FloorDivKernel = BinaryOpKernel<math_internal::FloorDivOp<T>, T, T,
                                      /*kCheckZero=*/std::is_integral_v<T>>;
template <typename T>
using SquaredDifferenceKernel =
    BinaryOpKernel<math_internal::SquaredDifferenceOp<T>, T>;
// NaN in either input gives NaN, as TensorFlow's Maximum and Minimum.
template <typename T>
using MaximumKernel =
    BinaryOpKernel<ei::scalar_max_op<T, T, Eigen::PropagateNaN>, T>;
template <typename T>
using MinimumKernel =
    BinaryOpKernel<ei::scalar_min_op<T, T, Eigen::PropagateNaN>, T>;

using Eigen::bfloat16;
using Eigen::half;

}  // namespace

void RegisterCwiseBinaryKernels(KernelRegistry* registry) {
  for (const char* name : {"Add", "AddV2"}) {
    RegisterForTypes<AddKernel, float, double, half, bfloat16, int32_t,
                     int64_t, uint8_t, int8_t, int16_t>(registry, name);
  }
  RegisterForTypes<SubKernel, float, double, half, bfloat16, int32_t, int64_t,
                   uint8_t, int8_t, int16_t>(registry, "Sub");
  RegisterForTypes<MulKernel, float, double, half, bfloat16, int32_t, int64_t,
                   uint8_t, int8_t, int16_t>(registry, "Mul");
  RegisterForTypes<RealDivKernel, float, double, half, bfloat16>(registry,
                                                                 "RealDiv");
  RegisterForTypes<RealDivKernel, float, double, half, bfloat16>(registry,
                                                                 "Div");
  RegisterForTypes<IntDivKernel, int32_t, int64_t, uint8_t, int16_t>(registry,
                                                                     "Div");
  RegisterForTypes<FloorDivKernel, float, double, half, bfloat16, int32_t,
                   int64_t, uint8_t, int16_t>(registry, "FloorDiv");
  RegisterForTypes<SquaredDifferenceKernel, float, double, half, bfloat16,
                   int32_t, int64_t>(registry, "SquaredDifference");
  RegisterForTypes<MaximumKernel, float, double, half, bfloat16, int32_t,
                   int64_t, uint8_t, int16_t>(registry, "Maximum");
  RegisterForTypes<MinimumKernel, float, double, half, bfloat16, int32_t,
                   int64_t, uint8_t, int16_t>(registry, "Minimum");
}

}  // namespace dfx

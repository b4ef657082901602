// Broadcasting arithmetic kernels: Add, AddV2, Sub, Mul, Div, RealDiv,
// FloorDiv, SquaredDifference, Maximum, Minimum.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::Binary;
using math_internal::NonZeroDivisor;
using math_internal::RegisterForTypes;
namespace ei = Eigen::internal;

// NaN in either input gives NaN, as TensorFlow's Maximum and Minimum.
template <typename T>
using MaxOp = ei::scalar_max_op<T, T, Eigen::PropagateNaN>;
template <typename T>
using MinOp = ei::scalar_min_op<T, T, Eigen::PropagateNaN>;

template <typename T>
using IntDivKernel =
    Binary<math_internal::TruncDivOp, NonZeroDivisor>::Kernel<T>;
template <typename T>
using IntFloorDivKernel =
    Binary<math_internal::FloorDivOp, NonZeroDivisor>::Kernel<T>;

using Eigen::bfloat16;
using Eigen::half;

}  // namespace

void RegisterCwiseBinaryKernels(KernelRegistry* registry) {
  for (const char* name : {"Add", "AddV2"}) {
    RegisterForTypes<Binary<math_internal::AddOp>::Kernel, float, double, half,
                     bfloat16, int32_t, int64_t, uint8_t, int8_t, int16_t>(
        registry, name);
  }
  RegisterForTypes<Binary<math_internal::SubOp>::Kernel, float, double,
                   half, bfloat16, int32_t, int64_t, uint8_t, int8_t, int16_t>(
      registry, "Sub");
  RegisterForTypes<Binary<math_internal::MulOp>::Kernel, float, double, half,
                   bfloat16, int32_t, int64_t, uint8_t, int8_t, int16_t>(
      registry, "Mul");
  for (const char* name : {"RealDiv", "Div"}) {
    RegisterForTypes<Binary<ei::scalar_quotient_op>::Kernel, float, double,
                     half, bfloat16>(registry, name);
  }
  RegisterForTypes<IntDivKernel, int32_t, int64_t, uint8_t, int8_t, int16_t>(
      registry, "Div");
  RegisterForTypes<Binary<math_internal::FloorDivOp>::Kernel, float, double,
                   half, bfloat16>(registry, "FloorDiv");
  RegisterForTypes<IntFloorDivKernel, int32_t, int64_t, uint8_t, int8_t,
                   int16_t>(registry, "FloorDiv");
  RegisterForTypes<Binary<math_internal::SquaredDifferenceOp>::Kernel, float,
                   double, half, bfloat16, int32_t, int64_t>(
      registry, "SquaredDifference");
  RegisterForTypes<Binary<MaxOp>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(registry,
                                                               "Maximum");
  RegisterForTypes<Binary<MinOp>::Kernel, float, double, half, bfloat16,
                   int32_t, int64_t, uint8_t, int8_t, int16_t>(registry,
                                                               "Minimum");
}

}  // namespace dfx

// Broadcasting kernels for integer-style division, modulo and power: Pow,
// Atan2, FloorMod, Mod, TruncateDiv, TruncateMod. Integer division or modulo
// by zero and integer powers with a negative exponent fail with TensorFlow's
// InvalidArgument instead of trapping.
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::Binary;
using math_internal::NonNegativeExponent;
using math_internal::NonZeroDivisor;
using math_internal::RegisterForTypes;
namespace ei = Eigen::internal;

template <typename T>
using PowOp = ei::scalar_pow_op<T, T>;

template <template <typename> class F>
struct IntDivision {
  template <typename T>
  using Kernel = typename Binary<F, NonZeroDivisor>::template Kernel<T>;
};
template <typename T>
using IntPowKernel =
    Binary<math_internal::IntPowOp, NonNegativeExponent>::Kernel<T>;

using Eigen::bfloat16;
using Eigen::half;

}  // namespace

void RegisterCwiseDivModPowKernels(KernelRegistry* registry) {
  RegisterForTypes<Binary<PowOp>::Kernel, float, double, half, bfloat16>(
      registry, "Pow");
  RegisterForTypes<IntPowKernel, int8_t, int16_t, int32_t, int64_t>(registry,
                                                                    "Pow");
  RegisterForTypes<Binary<math_internal::Atan2Op>::Kernel, float, double, half,
                   bfloat16>(registry, "Atan2");

  RegisterForTypes<Binary<math_internal::FloorModOp>::Kernel, float, double,
                   half, bfloat16>(registry, "FloorMod");
  RegisterForTypes<IntDivision<math_internal::FloorModOp>::Kernel, int8_t,
                   int16_t, int32_t, int64_t, uint8_t>(registry, "FloorMod");

  for (const char* name : {"Mod", "TruncateMod"}) {
    RegisterForTypes<Binary<math_internal::TruncModOp>::Kernel, float,
                     double>(registry, name);
    RegisterForTypes<IntDivision<math_internal::TruncModOp>::Kernel, int32_t,
                     int64_t>(registry, name);
  }

  RegisterForTypes<Binary<math_internal::TruncDivOp>::Kernel, float, double,
                   half, bfloat16>(registry, "TruncateDiv");
  RegisterForTypes<IntDivision<math_internal::TruncDivOp>::Kernel, uint8_t,
                   int8_t, int16_t, int32_t, int64_t>(registry, "TruncateDiv");
}

}  // namespace dfx

// Unary element-wise kernels of the floating-point types only: Floor, Ceil,
// Rint, Erf, Erfc, Log1p, Expm1, Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
// Cosh, Asinh, Acosh, Atanh, and the classifications IsNan, IsInf, IsFinite
// (bool output). The complex forms are in cwise_complex_ops.cc.
#include "kernels/math/cwise_ops.h"

namespace dfx {

void RegisterCwiseUnaryFloatKernels(KernelRegistry* registry) {
  using Eigen::bfloat16;
  using Eigen::half;
  using math_internal::RegisterForTypes;
  using math_internal::Unary;
  namespace ei = Eigen::internal;
  namespace mi = math_internal;
  RegisterForTypes<Unary<mi::FloorOp>::Kernel, float, double, half,
                   bfloat16>(registry, "Floor");
  RegisterForTypes<Unary<mi::CeilOp>::Kernel, float, double, half,
                   bfloat16>(registry, "Ceil");
  // TensorFlow has Rint kernels for float and double only.
  RegisterForTypes<Unary<mi::RoundHalfToEvenOp>::Kernel, float, double>(
      registry, "Rint");
  RegisterForTypes<Unary<ei::scalar_erf_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Erf");
  RegisterForTypes<Unary<ei::scalar_erfc_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Erfc");
  RegisterForTypes<Unary<ei::scalar_log1p_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Log1p");
  RegisterForTypes<Unary<ei::scalar_expm1_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Expm1");
  RegisterForTypes<Unary<ei::scalar_sin_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Sin");
  RegisterForTypes<Unary<ei::scalar_cos_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Cos");
  RegisterForTypes<Unary<ei::scalar_tan_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Tan");
  RegisterForTypes<Unary<ei::scalar_asin_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Asin");
  RegisterForTypes<Unary<ei::scalar_acos_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Acos");
  RegisterForTypes<Unary<ei::scalar_atan_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Atan");
  RegisterForTypes<Unary<ei::scalar_sinh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Sinh");
  RegisterForTypes<Unary<ei::scalar_cosh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Cosh");
  RegisterForTypes<Unary<ei::scalar_asinh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Asinh");
  RegisterForTypes<Unary<ei::scalar_acosh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Acosh");
  RegisterForTypes<Unary<ei::scalar_atanh_op>::Kernel, float, double, half,
                   bfloat16>(registry, "Atanh");
  RegisterForTypes<Unary<mi::IsNanOp>::BoolKernel, float, double, half,
                   bfloat16>(registry, "IsNan");
  RegisterForTypes<Unary<mi::IsInfOp>::BoolKernel, float, double, half,
                   bfloat16>(registry, "IsInf");
  RegisterForTypes<Unary<mi::IsFiniteOp>::BoolKernel, float, double, half,
                   bfloat16>(registry, "IsFinite");
}

}  // namespace dfx

// The Bessel functions TensorFlow registers as ops (BesselI0, I0e, I1, I1e,
// K0, K0e, K1, K1e, J0, J1, Y0, Y1) with Eigen's implementations, the ones
// TensorFlow's kernels call; half is computed in float and rounded.
#include "kernels/math/cwise_ops.h"  // first: defines EIGEN_USE_THREADS

#include "kernels/math/misc_kernels.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace dfx::misc_internal {

void RegisterBesselKernels(KernelRegistry* registry) {
  using math_internal::RegisterForTypes;
  using math_internal::Unary;
  namespace ei = Eigen::internal;
  using Eigen::half;
  RegisterForTypes<Unary<ei::scalar_bessel_i0_op>::Kernel, half, float,
                   double>(registry, "BesselI0");
  RegisterForTypes<Unary<ei::scalar_bessel_i0e_op>::Kernel, half, float,
                   double>(registry, "BesselI0e");
  RegisterForTypes<Unary<ei::scalar_bessel_i1_op>::Kernel, half, float,
                   double>(registry, "BesselI1");
  RegisterForTypes<Unary<ei::scalar_bessel_i1e_op>::Kernel, half, float,
                   double>(registry, "BesselI1e");
  RegisterForTypes<Unary<ei::scalar_bessel_k0_op>::Kernel, half, float,
                   double>(registry, "BesselK0");
  RegisterForTypes<Unary<ei::scalar_bessel_k0e_op>::Kernel, half, float,
                   double>(registry, "BesselK0e");
  RegisterForTypes<Unary<ei::scalar_bessel_k1_op>::Kernel, half, float,
                   double>(registry, "BesselK1");
  RegisterForTypes<Unary<ei::scalar_bessel_k1e_op>::Kernel, half, float,
                   double>(registry, "BesselK1e");
  RegisterForTypes<Unary<ei::scalar_bessel_j0_op>::Kernel, half, float,
                   double>(registry, "BesselJ0");
  RegisterForTypes<Unary<ei::scalar_bessel_j1_op>::Kernel, half, float,
                   double>(registry, "BesselJ1");
  RegisterForTypes<Unary<ei::scalar_bessel_y0_op>::Kernel, half, float,
                   double>(registry, "BesselY0");
  RegisterForTypes<Unary<ei::scalar_bessel_y1_op>::Kernel, half, float,
                   double>(registry, "BesselY1");
}

}  // namespace dfx::misc_internal

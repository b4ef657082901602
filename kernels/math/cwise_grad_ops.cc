// Gradients of unary functions from the function's output y and the
// gradient dy (no broadcasting): TanhGrad, SigmoidGrad, RsqrtGrad, SqrtGrad,
// ReciprocalGrad, InvGrad.
#include "kernels/math/cwise_ops.h"

namespace dfx {

void RegisterCwiseGradKernels(KernelRegistry* registry) {
  using Eigen::bfloat16;
  using Eigen::half;
  using math_internal::Binary;
  using math_internal::RegisterForTypes;
  namespace mi = math_internal;
  RegisterForTypes<Binary<mi::TanhGradOp>::SameSizeKernel, float, double,
                   half, bfloat16>(registry, "TanhGrad");
  RegisterForTypes<Binary<mi::SigmoidGradOp>::SameSizeKernel, float, double,
                   half, bfloat16>(registry, "SigmoidGrad");
  RegisterForTypes<Binary<mi::RsqrtGradOp>::SameSizeKernel, float, double,
                   half, bfloat16>(registry, "RsqrtGrad");
  RegisterForTypes<Binary<mi::SqrtGradOp>::SameSizeKernel, float, double,
                   half, bfloat16>(registry, "SqrtGrad");
  for (const char* name : {"ReciprocalGrad", "InvGrad"}) {
    RegisterForTypes<Binary<mi::ReciprocalGradOp>::SameSizeKernel, float,
                     double, half, bfloat16>(registry, name);
  }
}

}  // namespace dfx

// Broadcasting kernels whose result is 0 where one operand is 0, whatever
// the other: DivNoNan, MulNoNan, Xdivy, Xlogy, Xlog1py; and the logical
// LogicalAnd and LogicalOr.
#include "kernels/math/cwise_ops.h"

namespace dfx {

void RegisterCwiseNoNanKernels(KernelRegistry* registry) {
  using Eigen::bfloat16;
  using Eigen::half;
  using math_internal::Binary;
  using math_internal::RegisterForTypes;
  namespace mi = math_internal;
  RegisterForTypes<Binary<mi::DivNoNanOp>::Kernel, float, double, half,
                   bfloat16>(registry, "DivNoNan");
  RegisterForTypes<Binary<mi::MulNoNanOp>::Kernel, float, double, half,
                   bfloat16>(registry, "MulNoNan");
  RegisterForTypes<Binary<mi::XdivyOp>::Kernel, float, double, half, bfloat16>(
      registry, "Xdivy");
  RegisterForTypes<Binary<mi::XlogyOp>::Kernel, float, double, half, bfloat16>(
      registry, "Xlogy");
  RegisterForTypes<Binary<mi::Xlog1pyOp>::Kernel, float, double, half,
                   bfloat16>(registry, "Xlog1py");
  // No type attr: registered without constraints.
  RegisterKernel<Binary<mi::LogicalAndOp>::Kernel<bool>>(
      registry, KernelDefBuilder("LogicalAnd"));
  RegisterKernel<Binary<mi::LogicalOrOp>::Kernel<bool>>(
      registry, KernelDefBuilder("LogicalOr"));
}

}  // namespace dfx

// The element-wise math kernels TensorFlow 2.21 registers on CPU for
// uint16, uint32 and uint64 (read from its kernel registry): AddV2, Sub,
// Mul, Div, FloorDiv, TruncateDiv, FloorMod, Maximum, Minimum, Square and
// the six comparisons. Arithmetic wraps modulo 2^bits; division or modulo
// by zero is InvalidArgument. (TensorFlow has no Add, Mod, TruncateMod,
// Neg, Abs, Sign or Pow kernel for these types, so neither has dfx.) Kept
// apart from the signed instantiations so their files stay light to build.
#include "kernels/math/cwise_ops.h"  // first: defines EIGEN_USE_THREADS
#include "kernels/math/cwise_unsigned_ops.h"

namespace dfx {
namespace {

using math_internal::Binary;
using math_internal::BinaryOpKernel;
using math_internal::NonZeroDivisor;
using math_internal::RegisterForTypes;
using math_internal::Unary;
namespace ei = Eigen::internal;

template <template <typename> class F>
struct Division {
  template <typename T>
  using Kernel = typename Binary<F, NonZeroDivisor>::template Kernel<T>;
};

template <ei::ComparisonName kCmp>
struct Cmp {
  template <typename T>
  using Kernel = BinaryOpKernel<ei::scalar_cmp_op<T, T, kCmp>, T, bool>;
};

template <typename T>
using MaxOp = ei::scalar_max_op<T, T, Eigen::PropagateNaN>;
template <typename T>
using MinOp = ei::scalar_min_op<T, T, Eigen::PropagateNaN>;

template <template <typename> class Kernel>
void RegisterUnsigned(KernelRegistry* registry, const char* op) {
  RegisterForTypes<Kernel, uint16_t, uint32_t, uint64_t>(registry, op);
}

}  // namespace

void RegisterCwiseUnsignedKernels(KernelRegistry* registry) {
  RegisterUnsigned<Binary<math_internal::AddOp>::Kernel>(registry, "AddV2");
  RegisterUnsigned<Binary<math_internal::SubOp>::Kernel>(registry, "Sub");
  RegisterUnsigned<Binary<math_internal::MulOp>::Kernel>(registry, "Mul");
  RegisterUnsigned<Division<math_internal::TruncDivOp>::Kernel>(registry,
                                                                "Div");
  RegisterUnsigned<Division<math_internal::TruncDivOp>::Kernel>(
      registry, "TruncateDiv");
  RegisterUnsigned<Division<math_internal::FloorDivOp>::Kernel>(registry,
                                                                "FloorDiv");
  RegisterUnsigned<Division<math_internal::FloorModOp>::Kernel>(registry,
                                                                "FloorMod");
  RegisterUnsigned<Binary<MaxOp>::Kernel>(registry, "Maximum");
  RegisterUnsigned<Binary<MinOp>::Kernel>(registry, "Minimum");
  RegisterUnsigned<Unary<math_internal::SquareOp>::Kernel>(registry, "Square");
  RegisterUnsigned<Cmp<ei::cmp_EQ>::Kernel>(registry, "Equal");
  RegisterUnsigned<Cmp<ei::cmp_NEQ>::Kernel>(registry, "NotEqual");
  RegisterUnsigned<Cmp<ei::cmp_LT>::Kernel>(registry, "Less");
  RegisterUnsigned<Cmp<ei::cmp_LE>::Kernel>(registry, "LessEqual");
  RegisterUnsigned<Cmp<ei::cmp_GT>::Kernel>(registry, "Greater");
  RegisterUnsigned<Cmp<ei::cmp_GE>::Kernel>(registry, "GreaterEqual");
}

}  // namespace dfx

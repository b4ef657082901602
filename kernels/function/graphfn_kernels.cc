// The graphfn family's CPU kernels: SymbolicGradient's, which only fails,
// and the registration of the family's other kernels.
// Graphs never run it: the master lowers every SymbolicGradient into the
// inlined gradient function before placement
// (graph/lower_functional_ops.h), as TensorFlow's function runtime turns it
// into a call. The kernel is registered so that the op is served on the CPU
// as TensorFlow's registry says, and so that a graph that reaches an
// executor unlowered fails with a clear error instead of a missing kernel.
#include "kernels/kernels.h"

namespace dfx {
namespace {

class SymbolicGradientOp : public OpKernel {
 public:
  explicit SymbolicGradientOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InternalError(
        "SymbolicGradient runs only lowered into its gradient function "
        "(LowerFunctionalOps)"));
  }
};

}  // namespace

// CompositeTensorVariant{From,To}Components (graphfn_composite.cc).
void RegisterGraphfnCompositeKernels(KernelRegistry* registry);
// RecordInput (kernels/readers/graphfn_record_input.cc).
void RegisterGraphfnRecordInputKernels(KernelRegistry* registry);

void RegisterGraphfnKernels(KernelRegistry* registry) {
  RegisterGraphfnCompositeKernels(registry);
  RegisterGraphfnRecordInputKernels(registry);
  RegisterKernel<SymbolicGradientOp>(registry,
                                     KernelDefBuilder("SymbolicGradient"));
}

}  // namespace dfx

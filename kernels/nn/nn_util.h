// Helpers shared by the nn kernels (kernels/nn/ only): errors that name the
// node, the choice between inline and thread-pool Eigen evaluation, and the
// per-family registration functions that RegisterNnKernels calls.
#ifndef DFX_KERNELS_NN_NN_UTIL_H_
#define DFX_KERNELS_NN_NN_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"

namespace dfx::nn_internal {

// InvalidArgument "node 'name' (op Op): message".
inline absl::Status NodeInvalidArgument(const OpKernelContext& ctx,
                                        absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("node '", ctx.op_kernel().name(), "' (op ",
                   ctx.op_kernel().type_string(), "): ", message));
}

// Evaluates `out = expr` on the device's intra-op pool when `work` (roughly
// the elements touched) is large enough to pay for the scheduling, inline
// otherwise.
template <typename Out, typename Expr>
void Assign(const OpKernelContext& ctx, int64_t work, Out&& out,
            const Expr& expr) {
  if (work >= kParallelEvalThreshold) {
    out.device(ctx.device()->eigen_cpu_device()) = expr;
  } else {
    out = expr;
  }
}

void RegisterMatMulKernels(KernelRegistry* registry);
void RegisterActivationKernels(KernelRegistry* registry);
void RegisterReductionKernels(KernelRegistry* registry);

}  // namespace dfx::nn_internal

#endif  // DFX_KERNELS_NN_NN_UTIL_H_

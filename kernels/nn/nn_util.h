// Helpers shared by the nn kernels (kernels/nn/ only): errors that name the
// node, the choice between inline and thread-pool Eigen evaluation, the
// accumulation type of 16-bit floats, and the per-family registration
// functions that RegisterNnKernels calls.
#ifndef DFX_KERNELS_NN_NN_UTIL_H_
#define DFX_KERNELS_NN_NN_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <cstdint>
#include <type_traits>
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

// Runs fn(first, last) over disjoint ranges covering [0, n) on the device's
// intra-op pool, for units coarse enough to be worth a task each (blocks of
// rows, not elements): unlike ParallelFor there is no element threshold, and
// Eigen sizes the ranges from `cost_per_unit`. Inline when the device has no
// pool of two or more threads, or when called from one of its threads.
template <typename Fn>
void ParallelForBlocks(const Device& device, int64_t n,
                       const Eigen::TensorOpCost& cost_per_unit, Fn&& fn) {
  if (n <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  if (n == 1 || pool == nullptr || pool->NumThreads() <= 1 ||
      pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n, cost_per_unit, [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

// exp(x) element-wise, exactly 0 where the true result underflows: Eigen
// 3.4's vectorized exp clamps its argument, so exp(-inf) comes out near
// 4e-39 (float) instead of 0, where TensorFlow gives 0. For float and double
// expressions (softmax probabilities of -inf logits, masked attention).
template <typename Expr>
auto FlushedExp(const Expr& x) {
  using S = typename Eigen::internal::traits<Expr>::Scalar;
  static_assert(std::is_same_v<S, float> || std::is_same_v<S, double>);
  // Eigen's clamping bounds: below them exp returns the clamped value.
  const S lowest = std::is_same_v<S, float> ? S(-88.3762626647949)
                                            : S(-709.436139303);
  return (x < x.constant(lowest)).select(x.constant(S(0)), x.exp());
}

// The type sums and transcendental steps of reductions run in: float for
// half and bfloat16 (whose sums lose digits fast), T itself otherwise.
template <typename T>
using AccumType =
    std::conditional_t<std::is_same_v<T, Eigen::half> ||
                           std::is_same_v<T, Eigen::bfloat16>,
                       float, T>;

// TensorFlow's error for a binary element-wise op whose two inputs differ in
// shape: "Inputs to operation g of type ReluGrad must have the same size and
// shape.  Input 0: [2,3] != input 1: [3]". OK when the shapes are equal.
absl::Status CheckSameShape(const OpKernel& kernel, const TensorShape& a,
                            const TensorShape& b);

void RegisterMatMulKernels(KernelRegistry* registry);
void RegisterActivationKernels(KernelRegistry* registry);
// Softmax and LogSoftmax (softmax_ops.cc).
void RegisterSoftmaxKernels(KernelRegistry* registry);
void RegisterReductionKernels(KernelRegistry* registry);
// ReluGrad, Relu6Grad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad,
// LeakyReluGrad and BiasAddGrad (activation_grad_ops.cc).
void RegisterActivationGradKernels(KernelRegistry* registry);
// L2Loss, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits (loss_ops.cc).
void RegisterLossKernels(KernelRegistry* registry);
// LRN and LRNGrad (lrn_op.cc).
void RegisterLrnKernels(KernelRegistry* registry);

}  // namespace dfx::nn_internal

#endif  // DFX_KERNELS_NN_NN_UTIL_H_

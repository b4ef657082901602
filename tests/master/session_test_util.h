// Test registries for session tests: the standard ops and kernels plus
// BlockUntilCancelled, a float op whose kernel finishes only when the step's
// cancellation manager fires (for timeout and Close tests).
#ifndef DFX_TESTS_MASTER_SESSION_TEST_UTIL_H_
#define DFX_TESTS_MASTER_SESSION_TEST_UTIL_H_

#include <atomic>

#include "base/logging.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"

namespace dfx::testing {

// Blocks until the step's cancellation manager fires.
class BlockUntilCancelledOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    DFX_OP_REQUIRES_ASYNC(ctx, cm != nullptr,
                          absl::InternalError("no cancellation manager"),
                          done);
    auto finish = [ctx, done] {
      ctx->SetStatus(absl::CancelledError("blocked kernel cancelled"));
      done();
    };
    started.fetch_add(1);
    if (!cm->RegisterCallback(cm->get_cancellation_token(), finish)) finish();
  }
  static inline std::atomic<int> started{0};
};

struct TestRegistries {
  OpRegistry ops;
  KernelRegistry kernels;
  TestRegistries() {
    DFX_CHECK_OK(RegisterStandardOps(&ops));
    DFX_CHECK_OK(ops.Register(OpDefBuilder("BlockUntilCancelled")
                                  .Input("x: float")
                                  .Output("y: float")));
    RegisterStandardKernels(&kernels);
    RegisterKernel<BlockUntilCancelledOp>(
        &kernels, KernelDefBuilder("BlockUntilCancelled"));
  }
};
inline TestRegistries* Registries() {
  static TestRegistries* r = new TestRegistries;
  return r;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_MASTER_SESSION_TEST_UTIL_H_

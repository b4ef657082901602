// Kernel calls that may wait (queues, staging areas, barriers): Start runs
// one node's kernel without an executor and returns at once, the call
// still waiting or finished; the test sees whether the kernel's done
// callback has run, or waits for it. The kernels that end a wait run the
// waiting callbacks before they return, so most tests need no thread.
#ifndef DFX_TESTS_KERNELS_ASYNC_KERNEL_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_ASYNC_KERNEL_TEST_UTIL_H_

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx::testing {

// One kernel call, possibly still waiting.
struct Call {
  std::unique_ptr<OpKernel> kernel;
  std::vector<Tensor> inputs;
  std::vector<TensorRef> refs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  absl::Notification done;

  bool finished() const { return done.HasBeenNotified(); }
  absl::Status status() const { return ctx->status(); }
  const Tensor& output(int i) const { return (*ctx->mutable_outputs())[i]; }
};

// Starts `node` on `inputs` (input 0 a reference when `ref` is valid) in a
// step cancelled through `cm` (may be null). No Catch assertion: a thread
// other than the test's may call it (Catch's assertions are not
// thread-safe).
inline absl::StatusOr<std::unique_ptr<Call>> TryStart(
    const NodeDef& node_in, std::vector<Tensor> inputs,
    CancellationManager* cm = nullptr, TensorRef ref = {}) {
  auto call = std::make_unique<Call>();
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) {
    return absl::NotFoundError("no op " + node_in.op());
  }
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  auto kernel =
      StandardKernelRegistry()->CreateKernel(node, op->op_def, TestCpuDevice());
  if (!kernel.ok()) return kernel.status();
  call->kernel = *std::move(kernel);
  call->inputs = std::move(inputs);
  if (ref.valid()) {
    call->refs.resize(call->inputs.size());
    call->refs[0] = ref;
    call->params.input_refs = call->refs;
  }
  call->params.step_id = 1;
  call->params.op_kernel = call->kernel.get();
  call->params.device = TestCpuDevice();
  call->params.inputs = call->inputs;
  call->params.cancellation_manager = cm;
  call->ctx = std::make_unique<OpKernelContext>(&call->params);
  Call* raw = call.get();
  if (AsyncOpKernel* async = call->kernel->AsAsync()) {
    async->ComputeAsync(raw->ctx.get(), [raw] { raw->done.Notify(); });
  } else {
    call->kernel->Compute(raw->ctx.get());
    raw->done.Notify();
  }
  return call;
}

// TryStart, from the test's own thread: a failure to start fails the test.
inline std::unique_ptr<Call> Start(const NodeDef& node,
                                   std::vector<Tensor> inputs,
                                   CancellationManager* cm = nullptr,
                                   TensorRef ref = {}) {
  absl::StatusOr<std::unique_ptr<Call>> call =
      TryStart(node, std::move(inputs), cm, ref);
  REQUIRE_OK(call.status());
  return *std::move(call);
}

// Runs a kernel that must finish at once, successfully; its outputs.
inline std::vector<Tensor> RunNow(const NodeDef& node,
                                  std::vector<Tensor> inputs,
                                  TensorRef ref = {}) {
  std::unique_ptr<Call> c = Start(node, std::move(inputs), nullptr, ref);
  REQUIRE(c->finished());
  REQUIRE_OK(c->status());
  return std::vector<Tensor>(c->ctx->mutable_outputs()->begin(),
                             c->ctx->mutable_outputs()->end());
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_ASYNC_KERNEL_TEST_UTIL_H_

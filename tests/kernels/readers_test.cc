// The readers family (graph/ops/readers_ops.cc, kernels/readers/): the
// signatures equal TensorFlow 2.21's, and a read waiting for work on an
// empty queue holds no thread and ends with Cancelled when its step is
// cancelled, or with the work a later enqueue gives it. Waits are observed
// by whether the kernel's done callback has run (the kernels that end a
// wait run it before they return), so no test sleeps or can hang.
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

TEST_CASE("Every readers op has TensorFlow 2.21's signature and CPU types",
          "[readers]") {
  testing::CheckSignaturesWithTensorFlow("readers", 26);
}

// A kernel run on `inputs`; `done` notified when it finishes.
struct Run {
  std::unique_ptr<OpKernel> kernel;
  std::vector<Tensor> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  absl::Notification done;
};

std::unique_ptr<Run> StartRun(NodeDef node, std::vector<Tensor> inputs,
                              CancellationManager* cm) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(op != nullptr);
  AddDefaultAttrs(op->op_def, &node);
  auto run = std::make_unique<Run>();
  auto kernel = StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                                       TestCpuDevice());
  REQUIRE_OK(kernel.status());
  run->kernel = *std::move(kernel);
  run->inputs = std::move(inputs);
  run->params.step_id = 1;
  run->params.op_kernel = run->kernel.get();
  run->params.device = TestCpuDevice();
  run->params.inputs = run->inputs;
  run->params.cancellation_manager = cm;
  run->ctx = std::make_unique<OpKernelContext>(&run->params);
  Run* raw = run.get();
  if (AsyncOpKernel* async = run->kernel->AsAsync()) {
    async->ComputeAsync(raw->ctx.get(), [raw] { raw->done.Notify(); });
  } else {
    run->kernel->Compute(raw->ctx.get());
    raw->done.Notify();
  }
  return run;
}

Tensor Output(const Run& run, int i) {
  return (*run.ctx->mutable_outputs())[i];
}

// A string queue and an IdentityReaderV2, shared under `name`.
std::pair<Tensor, Tensor> QueueAndReader(const std::string& name) {
  TestNodeBuilder qb("q", "FIFOQueueV2", 0);
  qb.Attr("component_types", DataTypeVector{DT_STRING})
      .Attr("shared_name", name.c_str());
  std::unique_ptr<Run> q = StartRun(qb.Build(), {}, nullptr);
  REQUIRE_OK(q->ctx->status());
  TestNodeBuilder rb("r", "IdentityReaderV2", 0);
  rb.Attr("shared_name", name.c_str());
  std::unique_ptr<Run> r = StartRun(rb.Build(), {}, nullptr);
  REQUIRE_OK(r->ctx->status());
  return {Output(*q, 0), Output(*r, 0)};
}

NodeDef Read() { return TestNodeBuilder("read", "ReaderReadV2", 2).Build(); }

TEST_CASE("A read on an empty queue waits and ends Cancelled with its step",
          "[readers]") {
  auto [q, r] = QueueAndReader("reader_cancel");
  CancellationManager cm;
  std::unique_ptr<Run> read = StartRun(Read(), {r, q}, &cm);
  CHECK_FALSE(read->done.HasBeenNotified());
  // A second read of the same reader waits behind the first.
  CancellationManager cm2;
  std::unique_ptr<Run> second = StartRun(Read(), {r, q}, &cm2);
  CHECK_FALSE(second->done.HasBeenNotified());
  cm.StartCancel();
  REQUIRE(read->done.HasBeenNotified());
  CHECK_THAT(read->ctx->status(), StatusIs(StatusCode::kCancelled));
  // The second read now waits on the queue itself; an enqueue feeds it.
  CHECK_FALSE(second->done.HasBeenNotified());
  TestNodeBuilder eb("enq", "QueueEnqueueV2", 2);
  eb.Attr("Tcomponents", DataTypeVector{DT_STRING});
  std::unique_ptr<Run> enq =
      StartRun(eb.Build(), {q, Tensor::Scalar<std::string>("work")}, nullptr);
  REQUIRE_OK(enq->ctx->status());
  REQUIRE(second->done.HasBeenNotified());
  REQUIRE_OK(second->ctx->status());
  CHECK(Output(*second, 0).scalar<std::string>() == "work");
  CHECK(Output(*second, 1).scalar<std::string>() == "work");
}

TEST_CASE("A read in an already cancelled step fails at once", "[readers]") {
  auto [q, r] = QueueAndReader("reader_cancelled_before");
  CancellationManager cm;
  cm.StartCancel();
  std::unique_ptr<Run> read = StartRun(Read(), {r, q}, &cm);
  REQUIRE(read->done.HasBeenNotified());
  CHECK_THAT(read->ctx->status(), StatusIs(StatusCode::kCancelled));
}

TEST_CASE("Reader shape functions follow TensorFlow's", "[readers]") {
  NodeDef v1 = TestNodeBuilder("read", "ReaderRead", 2).Build();
  NodeDef up_to = TestNodeBuilder("read", "ReaderReadUpToV2", 3).Build();
  auto shapes = testing::InferShapes(up_to, {PartialShape::Scalar(),
                                             PartialShape::Scalar(),
                                             PartialShape::Scalar()});
  REQUIRE_OK(shapes.status());
  CHECK((*shapes)[0].dims == std::vector<int64_t>{-1});
  CHECK_FALSE(testing::InferShapes(up_to, {PartialShape::Known({2}),
                                           PartialShape::Scalar(),
                                           PartialShape::Scalar()})
                  .ok());
  CHECK(testing::InferShapes(v1, {PartialShape::Known({2}),
                                  PartialShape::Unknown()})
            .ok());
  CHECK_FALSE(testing::InferShapes(v1, {PartialShape::Known({3}),
                                        PartialShape::Known({2})})
                  .ok());
}

}  // namespace
}  // namespace dfx

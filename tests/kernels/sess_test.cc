// The sess family's ops (tests/golden/gen_sess.py: GetSessionHandle(V2),
// GetSessionTensor, DeleteSessionTensor): TensorFlow 2.21's signatures and
// CPU kernel types, shape functions, and the kernels run against a step's
// session state without a session (what goldens cannot show: the V2
// resource handle, a kernel outside any session, a handle stored twice).
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/resource_handle.h"
#include "runtime/session_state.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every sess op has TensorFlow 2.21's signature and CPU types",
          "[sess]") {
  testing::CheckSignaturesWithTensorFlow("sess", 4);
}

TEST_CASE("Sess shape functions: scalar handles", "[sess]") {
  const NodeDef get = TestNodeBuilder("g", "GetSessionTensor", 1)
                          .Attr("dtype", DT_FLOAT)
                          .Build();
  auto shape = InferShape(get, {PartialShape::Known({})});
  REQUIRE_OK(shape);
  CHECK(!shape->RankKnown());
  CHECK_THAT(InferShape(get, {PartialShape::Known({2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef h =
      TestNodeBuilder("h", "GetSessionHandle", 1).Attr("T", DT_INT32).Build();
  auto hs = InferShape(h, {PartialShape::Known({3, 4})});
  REQUIRE_OK(hs);
  CHECK(hs->DebugString() == PartialShape::Known({}).DebugString());
}

Tensor Str(const std::string& s) {
  Tensor t(DT_STRING, TensorShape());
  t.scalar<std::string>() = s;
  return t;
}

TEST_CASE("Sess kernels outside a session fail as TensorFlow's do", "[sess]") {
  CHECK_THAT(RunKernel(TestNodeBuilder("h", "GetSessionHandle", 1)
                           .Attr("T", DT_FLOAT)
                           .Build(),
                       {Tensor(DT_FLOAT, TensorShape({2}))})
                 .status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "GetSessionHandle called on null session state"));
  CHECK_THAT(RunKernel(TestNodeBuilder("d", "DeleteSessionTensor", 1).Build(),
                       {Str("x;0;d")})
                 .status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "DeleteSessionTensor called on null session state"));
  // The handle's rank is checked first.
  CHECK_THAT(
      RunKernel(TestNodeBuilder("g", "GetSessionTensor", 1)
                    .Attr("dtype", DT_FLOAT)
                    .Build(),
                {Tensor(DT_STRING, TensorShape({2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "handle must be scalar"));
}

// The test device's step-0 session state for the test's duration.
struct StepState {
  StepState() {
    rm = testing::TestCpuDevice()->resource_manager();
    resource = std::make_shared<SessionStepResource>(
        std::make_shared<SessionState>(), std::make_shared<TensorStore>());
    REQUIRE_OK(rm->Create(SessionStepContainer(0), kSessionStepName, resource));
  }
  ~StepState() { rm->Cleanup(SessionStepContainer(0)); }
  ResourceMgr* rm;
  std::shared_ptr<SessionStepResource> resource;
};

TEST_CASE("Sess kernels store, read and delete through the step's state",
          "[sess]") {
  StepState step;
  const std::string device = testing::TestCpuDevice()->name();
  Tensor value(DT_INT64, TensorShape({0, 3}));
  auto h = RunKernel(TestNodeBuilder("keep", "GetSessionHandle", 1)
                         .Attr("T", DT_INT64)
                         .Build(),
                     {value});
  REQUIRE_OK(h);
  const std::string handle = (*h)[0].scalar<std::string>();
  CHECK(handle == "keep;0;" + device);
  // The same node again in one step: TensorFlow's tensor-store error.
  CHECK_THAT(
      RunKernel(TestNodeBuilder("keep", "GetSessionHandle", 1)
                    .Attr("T", DT_INT64)
                    .Build(),
                {value})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Failed to add a tensor with name 'keep' to the tensor store."));

  // V2: a resource handle named by the handle string.
  auto v2 = RunKernel(
      TestNodeBuilder("v2", "GetSessionHandleV2", 1).Attr("T", DT_BOOL).Build(),
      {Tensor(DT_BOOL, TensorShape())});
  REQUIRE_OK(v2);
  const ResourceHandle& rh = (*v2)[0].scalar<ResourceHandle>();
  CHECK(rh.name() == "v2;2;" + device);
  CHECK(rh.device() == device);
  CHECK(rh.maybe_type_name() == "TensorHandle");

  REQUIRE_OK(
      step.resource->store()->SaveTensors({"keep"}, step.resource->state()));
  const NodeDef get = TestNodeBuilder("g", "GetSessionTensor", 1)
                          .Attr("dtype", DT_INT64)
                          .Build();
  auto got = RunKernel(get, {Str(handle)});
  REQUIRE_OK(got);
  CHECK((*got)[0].shape() == TensorShape({0, 3}));
  // A wrong dtype: TensorFlow's executor answers Internal.
  CHECK_THAT(RunKernel(TestNodeBuilder("g", "GetSessionTensor", 1)
                           .Attr("dtype", DT_FLOAT)
                           .Build(),
                       {Str(handle)})
                 .status(),
             StatusIs(absl::StatusCode::kInternal, handle));
  REQUIRE_OK(RunKernel(TestNodeBuilder("d", "DeleteSessionTensor", 1).Build(),
                       {Str(handle)}));
  CHECK_THAT(RunKernel(get, {Str(handle)}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "The tensor with handle '" + handle +
                          "' is not in the session store."));
}

}  // namespace
}  // namespace dfx

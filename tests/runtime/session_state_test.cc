// SessionState and TensorStore (runtime/session_state.h): ids, TensorFlow's
// errors for unknown handles, saving only the named nodes, and the step
// resource kernels look up.
#include "runtime/session_state.h"

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape());
  t.scalar<float>() = v;
  return t;
}

TEST_CASE("TensorStore saves only the named nodes, under TensorFlow's handle") {
  SessionState state;
  CHECK(state.GetNewId() == 0);
  CHECK(state.GetNewId() == 1);
  TensorStore store;
  REQUIRE_OK(store.AddTensor("a", Scalar(1), 7,
                             "/job:w/replica:0/task:3/device:CPU:0"));
  REQUIRE_OK(store.AddTensor("b", Scalar(2), 8,
                             "/job:w/replica:0/task:3/device:CPU:0"));
  CHECK_THAT(store.AddTensor("a", Scalar(3), 9, "d"),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Failed to add a tensor with name 'a' to the tensor "
                      "store."));
  // "a" named twice is saved once; "c" stored nothing.
  REQUIRE_OK(store.SaveTensors({"a", "c", "a"}, &state));
  CHECK(state.size() == 1);
  auto a = state.GetTensor("a;7;/job:w/replica:0/task:3/device:CPU:0");
  REQUIRE_OK(a);
  CHECK(a->scalar<float>() == 1);
  CHECK_THAT(
      state.GetTensor("b;8;/job:w/replica:0/task:3/device:CPU:0").status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The tensor with handle 'b;8;/job:w/replica:0/task:3/"
               "device:CPU:0' is not in the session store."));
}

TEST_CASE("SessionState deletes once and Clear frees everything") {
  SessionState state;
  REQUIRE_OK(state.AddTensor("h;0;d", Scalar(1)));
  CHECK_THAT(state.AddTensor("h;0;d", Scalar(2)),
             StatusIs(absl::StatusCode::kInvalidArgument, "h;0;d"));
  REQUIRE_OK(state.DeleteTensor("h;0;d"));
  CHECK_THAT(state.DeleteTensor("h;0;d"),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Failed to delete a tensor with handle 'h;0;d' in the "
                      "session store."));
  REQUIRE_OK(state.AddTensor("h;1;d", Scalar(1)));
  REQUIRE_OK(state.AddTensor("h;2;d", Scalar(1)));
  state.Clear();
  CHECK(state.size() == 0);
}

TEST_CASE("A step without session state is TensorFlow's FailedPrecondition") {
  ResourceMgr rm;
  CHECK_THAT(LookupSessionStep(rm, 5, "GetSessionTensor").status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "GetSessionTensor called on null session state"));
  auto step = std::make_shared<SessionStepResource>(
      std::make_shared<SessionState>(), std::make_shared<TensorStore>());
  REQUIRE_OK(rm.Create(SessionStepContainer(5), kSessionStepName, step));
  auto found = LookupSessionStep(rm, 5, "GetSessionTensor");
  REQUIRE_OK(found);
  CHECK(found->get() == step.get());
  CHECK_THAT(LookupSessionStep(rm, 6, "GetSessionTensor").status(),
             StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace dfx

// The group leader's tables and the resolver over them
// (runtime/collective_leader.h): groups complete once every member joined,
// in TensorFlow's order; disagreements are InvalidArgument naming the
// group or instance and the task; waits end with cancellation.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "runtime/cancellation.h"
#include "runtime/collective_leader.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;

std::string Dev(int task, int device = 0) {
  return absl::StrCat("/job:worker/replica:0/task:", task, "/device:CPU:",
                      device);
}

CompleteGroupRequest GroupRequest(int key, int size, const std::string& dev) {
  CompleteGroupRequest r;
  r.set_group_key(key);
  r.set_group_size(size);
  r.set_device_type("CPU");
  r.mutable_device_attributes()->set_name(dev);
  r.mutable_device_attributes()->set_device_type("CPU");
  r.mutable_device_attributes()->set_incarnation(42);
  return r;
}

CompleteInstanceRequest InstanceRequest(int group, int size, int instance,
                                        const std::string& dev,
                                        std::vector<int64_t> shape,
                                        DataType dtype = DT_FLOAT) {
  CompleteInstanceRequest r;
  r.set_group_key(group);
  r.set_group_size(size);
  r.set_instance_key(instance);
  r.set_device(dev);
  r.set_data_type(dtype);
  r.set_step_id(5);
  for (int64_t d : shape) r.mutable_shape()->add_dim()->set_size(d);
  return r;
}

// Joins `devices` into group `key` and returns every answer.
std::vector<absl::StatusOr<CompleteGroupResponse>> JoinAll(
    CollectiveLeader* leader, int key, int size,
    const std::vector<std::string>& devices) {
  std::vector<absl::StatusOr<CompleteGroupResponse>> answers(
      devices.size(), absl::UnknownError("no answer"));
  for (size_t i = 0; i < devices.size(); ++i) {
    leader->JoinGroup(GroupRequest(key, size, devices[i]),
                      [&answers, i](absl::StatusOr<CompleteGroupResponse> r) {
                        answers[i] = std::move(r);
                      });
  }
  return answers;
}

TEST_CASE("A group completes when its last member joins, sorted by task",
          "[collective]") {
  CollectiveLeader leader;
  std::optional<absl::StatusOr<CompleteGroupResponse>> first;
  leader.JoinGroup(GroupRequest(1, 3, Dev(10)),
                   [&](absl::StatusOr<CompleteGroupResponse> r) { first = r; });
  CHECK_FALSE(first.has_value());  // waits for the others
  auto rest = JoinAll(&leader, 1, 3, {Dev(2, 1), Dev(2, 0)});
  REQUIRE(first.has_value());
  for (const auto& answer : {*first, rest[0], rest[1]}) {
    REQUIRE_THAT(answer.status(), IsOk());
    std::vector<std::string> names;
    for (const auto& d : answer->device_attributes()) names.push_back(d.name());
    // Task 2 before task 10 (numbers, not strings), then by device.
    CHECK(names == std::vector<std::string>{Dev(2, 0), Dev(2, 1), Dev(10)});
    CHECK(answer->num_tasks() == 2);
    CHECK(answer->group_size() == 3);
  }
  // A member asking again (its next step) is answered at once.
  auto again = JoinAll(&leader, 1, 3, {Dev(2, 1)});
  CHECK_THAT(again[0].status(), IsOk());
}

TEST_CASE("A member disagreeing on group_size or joining a full group fails",
          "[collective]") {
  CollectiveLeader leader;
  auto answers = JoinAll(&leader, 4, 2, {Dev(0), Dev(1)});
  CHECK_THAT(answers[1].status(), IsOk());
  auto bad_size = JoinAll(&leader, 4, 3, {Dev(2)});
  CHECK_THAT(bad_size[0].status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "group_size 3"));
  auto full = JoinAll(&leader, 4, 2, {Dev(2)});
  CHECK_THAT(full[0].status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        "already has its 2 members"));
}

TEST_CASE("An instance completes when every member reported it",
          "[collective]") {
  CollectiveLeader leader;
  JoinAll(&leader, 1, 2, {Dev(0), Dev(1)});
  std::optional<absl::StatusOr<CompleteInstanceResponse>> a, b;
  leader.JoinInstance(InstanceRequest(1, 2, 9, Dev(0), {3}),
                      [&](auto r) { a = r; });
  CHECK_FALSE(a.has_value());
  CHECK(leader.PendingInstances() == 1);
  leader.JoinInstance(InstanceRequest(1, 2, 9, Dev(1), {3}),
                      [&](auto r) { b = r; });
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK_THAT(a->status(), IsOk());
  CHECK_THAT(b->status(), IsOk());
  CHECK(leader.PendingInstances() == 0);
}

TEST_CASE("Members with different shapes fail naming the instance and tasks",
          "[collective]") {
  CollectiveLeader leader;
  JoinAll(&leader, 1, 2, {Dev(0), Dev(1)});
  std::optional<absl::StatusOr<CompleteInstanceResponse>> a, b;
  leader.JoinInstance(InstanceRequest(1, 2, 9, Dev(0), {3}),
                      [&](auto r) { a = r; });
  leader.JoinInstance(InstanceRequest(1, 2, 9, Dev(1), {4}),
                      [&](auto r) { b = r; });
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  for (const auto& r : {*a, *b}) {
    CHECK_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "collective instance 9"));
    CHECK_THAT(r.status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "task /job:worker/replica:0/task:1"));
    CHECK_THAT(r.status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "[4]"));
  }
  // And dtypes.
  std::optional<absl::StatusOr<CompleteInstanceResponse>> c, d;
  leader.JoinInstance(InstanceRequest(1, 2, 10, Dev(0), {3}),
                      [&](auto r) { c = r; });
  leader.JoinInstance(InstanceRequest(1, 2, 10, Dev(1), {3}, DT_DOUBLE),
                      [&](auto r) { d = r; });
  REQUIRE(d.has_value());
  CHECK_THAT(d->status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "dtype double"));
}

TEST_CASE("A broadcast instance names its source's rank", "[collective]") {
  CollectiveLeader leader;
  JoinAll(&leader, 2, 3, {Dev(0), Dev(1), Dev(2)});
  std::vector<absl::StatusOr<CompleteInstanceResponse>> got(
      3, absl::UnknownError("no answer"));
  for (int i = 0; i < 3; ++i) {
    CompleteInstanceRequest r = InstanceRequest(2, 3, 1, Dev(i), {2});
    r.set_type(kBroadcastCollective);
    r.set_is_source(i == 2);
    leader.JoinInstance(r, [&got, i](auto a) { got[i] = a; });
  }
  for (const auto& g : got) {
    REQUIRE_THAT(g.status(), IsOk());
    CHECK(g->source_rank() == 2);
  }
}

TEST_CASE("Cancelling a waiting join ends it with the status", "[collective]") {
  CollectiveLeader leader;
  std::optional<absl::StatusOr<CompleteGroupResponse>> answer;
  const CollectiveLeader::Token token = leader.JoinGroup(
      GroupRequest(3, 2, Dev(0)), [&](auto r) { answer = r; });
  REQUIRE_FALSE(answer.has_value());
  leader.Cancel(token, absl::CancelledError("step cancelled"));
  REQUIRE(answer.has_value());
  CHECK_THAT(answer->status(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("The resolver's wait ends when the step is cancelled",
          "[collective]") {
  CollectiveLeader leader;
  LeaderCollectiveResolver resolver(&leader, nullptr, "this process");
  CancellationManager cm;
  std::optional<absl::Status> status;
  resolver.CompleteGroupAsync(GroupRequest(8, 2, Dev(0)), &cm,
                              [&](auto g) { status = g.status(); });
  REQUIRE_FALSE(status.has_value());
  cm.StartCancel();
  REQUIRE(status.has_value());
  CHECK_THAT(*status, StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("The resolver hands out the group with this device's rank",
          "[collective]") {
  CollectiveLeader leader;
  LeaderCollectiveResolver resolver(&leader, nullptr, "this process");
  std::shared_ptr<const CollectiveGroup> g0, g1;
  resolver.CompleteGroupAsync(GroupRequest(5, 2, Dev(1)), nullptr,
                              [&](auto g) { g1 = *g; });
  resolver.CompleteGroupAsync(GroupRequest(5, 2, Dev(0)), nullptr,
                              [&](auto g) { g0 = *g; });
  REQUIRE(g0 != nullptr);
  REQUIRE(g1 != nullptr);
  CHECK(g0->RankOf(Dev(0)) == 0);
  CHECK(g1->RankOf(Dev(1)) == 1);
  // Cached: a later step gets it without the leader.
  std::shared_ptr<const CollectiveGroup> again;
  resolver.CompleteGroupAsync(GroupRequest(5, 2, Dev(0)), nullptr,
                              [&](auto g) { again = *g; });
  CHECK(again == g0);
}

}  // namespace
}  // namespace dfx

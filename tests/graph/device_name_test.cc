#include "graph/device_name.h"

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

TEST_CASE("Full device names parse and print canonically") {
  auto d = DeviceName::Parse("/job:worker/replica:0/task:1/device:CPU:0");
  REQUIRE_OK(d);
  REQUIRE(d->IsFullySpecified());
  REQUIRE(d->job == "worker");
  REQUIRE(d->task == 1);
  REQUIRE(d->type == "CPU");
  REQUIRE(d->ToString() == "/job:worker/replica:0/task:1/device:CPU:0");
  REQUIRE(d->TaskName() == "/job:worker/replica:0/task:1");
  REQUIRE(d->LocalName() == "/device:CPU:0");
}

TEST_CASE("Partial, wildcard and legacy device specs") {
  auto ps = DeviceName::Parse("/job:ps");
  REQUIRE_OK(ps);
  REQUIRE(ps->has_job);
  REQUIRE_FALSE(ps->has_task);
  REQUIRE(ps->ToString() == "/job:ps");

  auto any_cpu = DeviceName::Parse("/device:CPU:*");
  REQUIRE_OK(any_cpu);
  REQUIRE(any_cpu->has_type);
  REQUIRE_FALSE(any_cpu->has_id);

  auto legacy = DeviceName::Parse("/cpu:0");
  REQUIRE_OK(legacy);
  REQUIRE(legacy->type == "CPU");
  REQUIRE(legacy->id == 0);
  auto legacy_gpu = DeviceName::Parse("/job:w/task:2/gpu:1");
  REQUIRE_OK(legacy_gpu);
  REQUIRE(legacy_gpu->type == "GPU");
  REQUIRE(legacy_gpu->task == 2);

  auto empty = DeviceName::Parse("");
  REQUIRE_OK(empty);
  REQUIRE(empty->ToString().empty());
}

TEST_CASE("Specs match full names and merge") {
  auto full =
      DeviceName::Parse("/job:worker/replica:0/task:1/device:CPU:0").value();
  REQUIRE(full.Matches(DeviceName::Parse("/job:worker").value()));
  REQUIRE(full.Matches(DeviceName::Parse("/device:CPU:*").value()));
  REQUIRE(full.Matches(DeviceName::Parse("").value()));
  REQUIRE_FALSE(full.Matches(DeviceName::Parse("/job:ps").value()));
  REQUIRE_FALSE(full.Matches(DeviceName::Parse("/task:0").value()));

  DeviceName a = DeviceName::Parse("/job:worker").value();
  REQUIRE_OK(a.MergeFrom(DeviceName::Parse("/task:3/device:CPU:1").value()));
  REQUIRE(a.ToString() == "/job:worker/task:3/device:CPU:1");
  REQUIRE_THAT(a.MergeFrom(DeviceName::Parse("/job:ps").value()),
               StatusIs(absl::StatusCode::kInvalidArgument, "/job:ps"));
}

TEST_CASE("Malformed device names are InvalidArgument naming the part") {
  for (const char* bad :
       {"job:worker", "/job:", "/job:1abc", "/replica:x", "/task:-1",
        "/device:CPU:zero", "/tpu:0", "/job:w//task:0", "/device:"}) {
    INFO(bad);
    REQUIRE_THAT(DeviceName::Parse(bad).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "malformed"));
  }
}

}  // namespace
}  // namespace dfx

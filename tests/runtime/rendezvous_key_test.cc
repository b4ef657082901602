#include "runtime/rendezvous.h"

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

TEST_CASE("Rendezvous keys use TensorFlow's format and parse back") {
  const std::string key = Rendezvous::CreateKey(
      "/job:worker/replica:0/task:1/device:CPU:0", 123456789,
      "/job:worker/replica:0/task:0/device:CPU:0", "edge_7_add");
  REQUIRE(key ==
          "/job:worker/replica:0/task:1/device:CPU:0;00000000075bcd15;"
          "/job:worker/replica:0/task:0/device:CPU:0;edge_7_add;0:0");
  auto parsed = Rendezvous::ParsedKey::Parse(key);
  REQUIRE_OK(parsed);
  REQUIRE(parsed->src_incarnation() == 123456789);
  REQUIRE(parsed->edge_name() == "edge_7_add");
  REQUIRE(parsed->src().task == 1);
  REQUIRE(parsed->dst().task == 0);
  Rendezvous::ParsedKey copy = *parsed;
  REQUIRE(copy.edge_name() == "edge_7_add");
  REQUIRE(copy.FullKey() == key);
  REQUIRE(copy.hash() == parsed->hash());
}

TEST_CASE("A key moved to another frame and iteration equals one parsed "
          "from scratch") {
  const std::string src = "/job:worker/replica:0/task:1/device:CPU:0";
  const std::string dst = "/job:worker/replica:0/task:0/device:CPU:0";
  auto top = Rendezvous::ParsedKey::Parse(
      Rendezvous::CreateKey(src, 42, dst, "edge_3_loop/add"));
  REQUIRE_OK(top);
  const FrameAndIter f{0xa05a3ec804718d09ull, 17};
  const Rendezvous::ParsedKey moved = top->WithFrameIter(f);
  auto parsed = Rendezvous::ParsedKey::Parse(
      Rendezvous::CreateKey(src, 42, dst, "edge_3_loop/add", f));
  REQUIRE_OK(parsed);
  CHECK(moved.FullKey() == parsed->FullKey());
  CHECK(moved.hash() == parsed->hash());
  CHECK(moved.frame_iter().frame_id == f.frame_id);
  CHECK(moved.frame_iter().iter_id == 17);
  CHECK(moved.src_device() == src);
  CHECK(moved.dst_device() == dst);
  CHECK(moved.edge_name() == "edge_3_loop/add");
  CHECK(moved.src_incarnation() == 42);
  // The original is untouched.
  CHECK(top->frame_iter().iter_id == 0);
  CHECK(absl::EndsWith(top->FullKey(), ";0:0"));
}

TEST_CASE("Malformed rendezvous keys are rejected with the reason") {
  const std::string dev = "/job:w/replica:0/task:0/device:CPU:0";
  struct Case {
    std::string key;
    std::string why;
  } cases[] = {
      {"a;b;c", "expected 5 parts"},
      {"/job:w;01;" + dev + ";t;0:0", "source device"},
      {dev + ";01;/cpu:0;t;0:0", "destination device"},
      {dev + ";xyz;" + dev + ";t;0:0", "incarnation"},
      {dev + ";11112222333344445;" + dev + ";t;0:0", "incarnation"},
      {dev + ";01;" + dev + ";;0:0", "empty tensor name"},
      {dev + ";01;" + dev + ";t;zero", "frame"},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    REQUIRE_THAT(Rendezvous::ParsedKey::Parse(c.key).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, c.why));
  }
}

}  // namespace
}  // namespace dfx

// dfx inspect --cluster: placement over a cluster's tasks, without servers.
#include <string>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "tests/tools/cli_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::Describe;
using ::dfx::testing::ProcessResult;
using ::dfx::testing::RunDfx;
using ::dfx::testing::TempDir;

const std::string kGraph = DFX_TEST_DATA_DIR "/three_tasks.pbtxt";
const std::string kCluster =
    R"({"worker": ["127.0.0.1:1111", "127.0.0.1:1112"],
        "ps": ["127.0.0.1:1113"]})";

TEST_CASE("dfx inspect --cluster places a graph over the cluster's tasks") {
  ProcessResult r = RunDfx({"inspect", "--graph", kGraph, "--cluster",
                            kCluster, "--feed", "x", "--fetch", "out"});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  CHECK(absl::StrContains(
      r.out, "y -> /job:worker/replica:0/task:1/device:CPU:0"));
  CHECK(absl::StrContains(r.out, "z -> /job:ps/replica:0/task:0/device:CPU:0"));
  // The client's endpoints are on the master's task, worker 0.
  CHECK(absl::StrContains(
      r.out, "_send_out_0 -> /job:worker/replica:0/task:0/device:CPU:0"));
  CHECK(absl::StrContains(r.out, "3 of 3 devices"));

  TempDir dir;
  dir.Write("cluster.json", kCluster);
  ProcessResult from_file =
      RunDfx({"inspect", "--graph", kGraph, "--cluster",
              "@" + dir.File("cluster.json"), "--feed", "x", "--fetch", "out"});
  CHECK(from_file.exit_code == 0);
  CHECK(from_file.out == r.out);
}

TEST_CASE("dfx inspect --cluster rejects bad clusters and flag mixes") {
  ProcessResult both = RunDfx({"inspect", "--graph", kGraph, "--cluster",
                               kCluster, "--local-devices", "2", "--fetch",
                               "out", "--feed", "x"});
  CHECK(both.exit_code == 2);
  CHECK(absl::StrContains(both.err, "not both"));
  ProcessResult bad = RunDfx({"inspect", "--graph", kGraph, "--cluster",
                              "{\"worker\": []}", "--fetch", "out", "--feed",
                              "x"});
  CHECK(bad.exit_code == 1);
  CHECK(absl::StrContains(bad.err, "no tasks"));
  // A device the cluster does not have is named.
  ProcessResult missing = RunDfx(
      {"inspect", "--graph", kGraph, "--cluster",
       "{\"worker\": [\"127.0.0.1:1\", \"127.0.0.1:2\"]}", "--fetch", "out",
       "--feed", "x"});
  CHECK(missing.exit_code == 1);
  CHECK(absl::StrContains(missing.err, "/job:ps"));
}

}  // namespace
}  // namespace dfx

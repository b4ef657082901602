// `dfx cluster up/down`, `dfx run --target grpc://...` and `dfx server`'s
// flags, through the real binary.
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "tests/tools/cli_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::Describe;
using ::dfx::testing::ProcessResult;
using ::dfx::testing::ReadFile;
using ::dfx::testing::RunDfx;
using ::dfx::testing::TempDir;

const std::string kGraph = DFX_TEST_DATA_DIR "/three_tasks.pbtxt";

std::vector<int> Pids(const std::string& dir) {
  std::vector<int> pids;
  for (absl::string_view line :
       absl::StrSplit(ReadFile(dir + "/pids"), '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    int pid = 0;
    REQUIRE(parts.size() == 3);
    REQUIRE(absl::SimpleAtoi(parts[2], &pid));
    pids.push_back(pid);
  }
  return pids;
}

bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && line[paren + 2] != 'Z';
}

TEST_CASE("dfx cluster up runs a three-task graph and down stops it") {
  TempDir tmp;
  const std::string dir = tmp.File("cluster");
  ProcessResult up = RunDfx({"cluster", "up", "--workers", "2", "--ps", "1",
                             "--dir", dir, "--ps-gpus", "none"},
                            std::chrono::seconds(90));
  REQUIRE(up.exit_code == 0);
  const std::string target(absl::StripAsciiWhitespace(up.out));
  INFO(Describe(up));
  REQUIRE(absl::StartsWith(target, "grpc://127.0.0.1:"));
  const std::vector<int> pids = Pids(dir);
  REQUIRE(pids.size() == 3);
  for (int pid : pids) CHECK(Alive(pid));
  // --ps-gpus reaches the ps task's server only.
  for (size_t i = 0; i < pids.size(); ++i) {
    const std::string cmdline =
        ReadFile("/proc/" + std::to_string(pids[i]) + "/cmdline");
    INFO(cmdline);
    const bool none = absl::StrContains(
        cmdline, std::string("--gpus\0none", 11));
    CHECK(none == (i == 2));
  }
  auto cluster = nlohmann::json::parse(ReadFile(dir + "/cluster.json"));
  CHECK(cluster["worker"].size() == 2);
  CHECK(cluster["ps"].size() == 1);
  CHECK("grpc://" + cluster["worker"][0].get<std::string>() == target);

  // A second 'up' in the same folder refuses.
  ProcessResult again = RunDfx({"cluster", "up", "--dir", dir});
  CHECK(again.exit_code == 1);
  CHECK(absl::StrContains(again.err, "already up"));

  ProcessResult run = RunDfx({"run", "--graph", kGraph, "--target", target,
                              "--feed", "x=[[1, -1], [2, 0.5]]", "--fetch",
                              "out", "--json"});
  INFO(Describe(run));
  CHECK(run.exit_code == 0);
  if (run.exit_code == 0) {
    auto result = nlohmann::json::parse(run.out);
    // relu([[1,-1],[2,0.5]] @ [[1,2],[3,4]]) + 1 = [[1,1],[4.5,7]]
    CHECK(result["out"]["values"] ==
          nlohmann::json::parse("[[1.0, 1.0], [4.5, 7.0]]"));
  }
  // --trace: a track per task's device and per transfer stream, and an
  // arrow per _Send -> _Recv (the graph crosses tasks four times).
  const std::string trace = tmp.File("trace.json");
  ProcessResult traced = RunDfx({"run", "--graph", kGraph, "--target", target,
                                 "--feed", "x=[[1, -1], [2, 0.5]]", "--fetch",
                                 "out", "--trace", trace});
  INFO(Describe(traced));
  CHECK(traced.exit_code == 0);
  if (traced.exit_code == 0) {
    const auto json = nlohmann::json::parse(ReadFile(trace));
    std::vector<std::string> processes;
    int flows = 0, finishes = 0;
    for (const auto& e : json["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name") {
        processes.push_back(e["args"]["name"]);
      }
      flows += e["ph"] == "s";
      finishes += e["ph"] == "f";
    }
    INFO(nlohmann::json(processes).dump());
    for (const char* task : {"/job:worker/replica:0/task:0",
                             "/job:worker/replica:0/task:1",
                             "/job:ps/replica:0/task:0"}) {
      CHECK(std::count(processes.begin(), processes.end(),
                       std::string(task) + "/device:CPU:0") == 1);
    }
    CHECK(std::count_if(processes.begin(), processes.end(),
                        [](const std::string& p) {
                          return absl::StartsWith(p, "RecvTensor ");
                        }) == 4);
    CHECK(flows == 4);
    CHECK(finishes == 4);
  }
  // --local-devices is for local runs only.
  ProcessResult bad = RunDfx({"run", "--graph", kGraph, "--target", target,
                              "--local-devices", "2", "--fetch", "w"});
  CHECK(bad.exit_code == 2);
  // So is a --ps-gpus that names no GPUs, before anything starts.
  ProcessResult bad_gpus = RunDfx({"cluster", "up", "--dir",
                                   tmp.File("other"), "--ps-gpus", "0,x"});
  CHECK(bad_gpus.exit_code == 2);
  CHECK(absl::StrContains(bad_gpus.err, "--ps-gpus '0,x'"));

  ProcessResult down = RunDfx({"cluster", "down", "--dir", dir},
                              std::chrono::seconds(60));
  INFO(Describe(down));
  CHECK(down.exit_code == 0);
  for (int pid : pids) CHECK_FALSE(Alive(pid));
  CHECK_FALSE(std::filesystem::exists(dir + "/pids"));
  // Every server logged a clean stop.
  for (const char* log : {"/worker-0.log", "/worker-1.log", "/ps-0.log"}) {
    CHECK(absl::StrContains(ReadFile(dir + log), "stopped"));
  }
  ProcessResult down_again = RunDfx({"cluster", "down", "--dir", dir});
  CHECK(down_again.exit_code == 1);
}

TEST_CASE("dfx run --target names an unreachable cluster") {
  ProcessResult run = RunDfx({"run", "--graph", kGraph, "--target",
                              "grpc://127.0.0.1:1", "--fetch", "w"},
                             std::chrono::seconds(90));
  INFO(Describe(run));
  CHECK(run.exit_code == 1);
  CHECK(absl::StrContains(run.err, "127.0.0.1:1"));
}

TEST_CASE("dfx server rejects bad flags and a bad TF_CONFIG") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"server"}, "TF_CONFIG"},
      {{"server", "--cluster", "{\"worker\": [\"127.0.0.1:1\"]}", "--job",
        "worker"},
       "--task"},
      {{"server", "--cluster", "not json", "--job", "worker", "--task", "0"},
       "JSON"},
      {{"server", "--cluster", "{\"worker\": [\"127.0.0.1:1\"]}", "--job",
        "worker", "--task", "3"},
       "/job:worker/replica:0/task:3"},
      {{"server", "--cluster", "{\"worker\": [\"nohostport\"]}", "--job",
        "worker", "--task", "0"},
       "nohostport"},
      {{"server", "--cluster", "{\"1bad\": [\"127.0.0.1:1\"]}", "--job",
        "1bad", "--task", "0"},
       "1bad"},
      {{"server", "--cluster", "{\"worker\": [\"127.0.0.1:1\"]}", "--job",
        "worker", "--task", "0", "--cpu-devices", "0"},
       "--cpu-devices"},
  };
  for (const Case& c : cases) {
    ProcessResult r = RunDfx(c.args, std::chrono::seconds(30));
    INFO(Describe(r));
    CHECK(r.exit_code == 2);
    CHECK(absl::StrContains(r.err, c.message));
  }
}

}  // namespace
}  // namespace dfx

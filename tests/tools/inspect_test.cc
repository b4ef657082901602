// `dfx inspect` (and `dfx run --local-devices`): flag parsing in-process, and
// end to end by running the built dfx binary on tests/data/cli_devices.pbtxt.
#include "tools/cli/inspect.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"
#include "tools/cli/run.h"

extern char** environ;

namespace dfx::cli {
namespace {

using testing::Describe;
using testing::ProcessResult;
using testing::ReadFile;
using testing::RunDfx;
using testing::TempDir;

using testing::StatusIs;

const std::string kGraph = DFX_TEST_DATA_DIR "/cli_devices.pbtxt";
const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

// ---------------------------------------------------------------------------
// Flag parsing.

TEST_CASE("inspect flags parse in both --flag VALUE and --flag=VALUE forms") {
  auto options = ParseInspectFlags(
      {"--graph", "g.pbtxt", "--local-devices=4", "--feed", "x", "--feed",
       "y:1=[1, 2]", "--fetch", "out", "--fetch=sum:0", "--target", "init",
       "--dot", "g.dot", "--allow-soft-placement"});
  REQUIRE_OK(options);
  REQUIRE(options->graph_path == "g.pbtxt");
  REQUIRE(options->local_devices == 4);
  REQUIRE(options->feeds == std::vector<std::string>{"x", "y:1"});
  REQUIRE(options->fetches == std::vector<std::string>{"out", "sum:0"});
  REQUIRE(options->targets == std::vector<std::string>{"init"});
  REQUIRE(options->dot_path == "g.dot");
  REQUIRE(options->allow_soft_placement);
  REQUIRE(!options->help);

  auto defaults = ParseInspectFlags({"--graph", "g", "--fetch", "out"});
  REQUIRE_OK(defaults);
  REQUIRE(defaults->local_devices == 1);
  REQUIRE(defaults->dot_path.empty());
  REQUIRE(!defaults->allow_soft_placement);

  auto help = ParseInspectFlags({"-h"});
  REQUIRE_OK(help);
  REQUIRE(help->help);
}

TEST_CASE("inspect flag errors name the flag") {
  auto expect = [](std::vector<std::string> args, const std::string& what) {
    INFO(what);
    REQUIRE_THAT(ParseInspectFlags(args).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, what));
  };
  expect({"--fetch", "out"}, "--graph is required");
  expect({"--graph", "g"}, "at least one --fetch or --target");
  expect({"--graph", "g", "--fetch", "out", "--local-devices", "0"},
         "--local-devices '0' is not a positive integer");
  expect({"--graph", "g", "--fetch", "out", "--local-devices", "two"},
         "--local-devices 'two' is not a positive integer");
  expect({"--graph", "g", "--fetch", "out", "--local-devices", "100000"},
         "--local-devices 100000 is more than 1024");
  expect({"--graph", "g", "--fetch", "out", "--dot"}, "--dot needs a value");
  expect({"--graph", "g", "--fetch", "out", "--allow-soft-placement=1"},
         "--allow-soft-placement takes no value");
  expect({"--graph", "g", "--fetch", "out", "--json"},
         "unknown flag '--json'");
  expect({"--graph", "g", "--fetch", "out", "extra"},
         "unexpected argument 'extra'");
}

TEST_CASE("run takes --local-devices and --allow-soft-placement") {
  auto options = ParseRunFlags({"--graph", "g", "--fetch", "out",
                                "--local-devices", "3",
                                "--allow-soft-placement"});
  REQUIRE_OK(options);
  REQUIRE(options->local_devices == 3);
  REQUIRE(options->allow_soft_placement);
  auto defaults = ParseRunFlags({"--graph", "g", "--fetch", "out"});
  REQUIRE_OK(defaults);
  REQUIRE(defaults->local_devices == 0);
  REQUIRE(!defaults->allow_soft_placement);
  REQUIRE_THAT(
      ParseRunFlags({"--graph", "g", "--fetch", "out", "--local-devices=-1"})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "--local-devices '-1' is not a positive integer"));
}

// ---------------------------------------------------------------------------
// End to end.

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

// The printed inspection, read back.
struct Transfer {
  std::string op;    // _Send or _Recv
  std::string node;
  std::string peer;  // a device or "client"
  std::string key;
};
struct Inspection {
  std::vector<std::pair<std::string, std::string>> placement;  // node, device
  std::map<std::string, std::map<std::string, std::string>> ops;  // dev: n->op
  std::map<std::string, std::vector<Transfer>> transfers;  // by device
};

Inspection ParseInspection(const std::string& out) {
  Inspection result;
  std::string device;  // the partition being read; empty in the placement
  bool in_transfers = false;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (line.empty() || absl::StartsWith(line, "placement (")) continue;
    if (absl::ConsumePrefix(&line, "partition ")) {
      device = std::string(line.substr(0, line.find(' ')));
      in_transfers = false;
      continue;
    }
    if (line == "  transfers:") {
      in_transfers = true;
      continue;
    }
    std::vector<std::string> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (device.empty()) {
      REQUIRE(words.size() == 3);
      REQUIRE(words[1] == "->");
      result.placement.emplace_back(words[0], words[2]);
    } else if (!in_transfers) {
      REQUIRE(words.size() == 2);
      result.ops[device][words[0]] = words[1];
    } else {
      // _Send NODE -> PEER key KEY / _Recv NODE <- PEER key KEY
      REQUIRE(words.size() == 6);
      REQUIRE(words[4] == "key");
      REQUIRE(words[2] == (words[0] == "_Send" ? "->" : "<-"));
      result.transfers[device].push_back(
          {words[0], words[1], words[3], words[5]});
    }
  }
  return result;
}

TEST_CASE("dfx inspect shows placement, partitions and matching transfers") {
  TempDir dir;
  const std::string dot = dir.File("step.dot");
  const ProcessResult r =
      RunDfx({"inspect", "--graph", kGraph, "--local-devices", "2", "--feed",
              "x", "--fetch", "out", "--dot", dot});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  const Inspection got = ParseInspection(r.out);

  // Every node of the step with its device, CPU:0 first, by name within a
  // device. The fed x is replaced by the client's _Recv; the fetch of out
  // gets the client's _Send.
  const std::vector<std::pair<std::string, std::string>> placement = {
      {"_recv_x_0", kCpu0}, {"_send_out_0", kCpu0}, {"out", kCpu0},
      {"c", kCpu1},         {"marker", kCpu1},      {"sum", kCpu1}};
  REQUIRE(got.placement == placement);

  REQUIRE(got.ops.size() == 2);
  REQUIRE(got.ops.at(kCpu1).at("sum") == "AddV2");
  REQUIRE(got.ops.at(kCpu1).at("c") == "Const");
  REQUIRE(got.ops.at(kCpu1).at("marker") == "NoOp");
  REQUIRE(got.ops.at(kCpu0).at("out") == "Neg");
  REQUIRE(!got.ops.at(kCpu0).contains("sum"));

  // Each cross-device _Send has one _Recv on its peer with the same key, and
  // the key runs from the sender's device to the receiver's.
  std::map<std::pair<std::string, std::string>, int> pairs;  // (src, dst)
  for (const auto& [device, transfers] : got.transfers) {
    for (const Transfer& send : transfers) {
      if (send.op != "_Send" || send.peer == "client") continue;
      int matches = 0;
      for (const Transfer& recv : got.transfers.at(send.peer)) {
        if (recv.op == "_Recv" && recv.key == send.key) {
          REQUIRE(recv.peer == device);
          ++matches;
        }
      }
      INFO(send.key);
      REQUIRE(matches == 1);
      REQUIRE(absl::StartsWith(send.key, device + ";"));
      REQUIRE(absl::StrContains(send.key, ";" + send.peer + ";"));
      ++pairs[{device, send.peer}];
    }
  }
  // x travels to CPU:1; sum and the control edge from marker come back.
  REQUIRE(pairs.size() == 2);
  REQUIRE(pairs[{kCpu0, kCpu1}] == 1);
  REQUIRE(pairs[{kCpu1, kCpu0}] == 2);
  // The step's own feed and fetch are client transfers on CPU:0.
  int client = 0;
  for (const Transfer& t : got.transfers.at(kCpu0)) {
    if (t.peer == "client") ++client;
  }
  REQUIRE(client == 2);

  const std::string text = ReadFile(dot);
  INFO(text);
  REQUIRE(absl::StartsWith(text, "digraph"));
  REQUIRE(Count(text, "subgraph cluster_") == 2);
  REQUIRE(absl::StrContains(text, "subgraph cluster_0 {\n    label=\"" +
                                      kCpu0 + "\""));
  REQUIRE(absl::StrContains(text, "subgraph cluster_1 {\n    label=\"" +
                                      kCpu1 + "\""));
  REQUIRE(absl::StrContains(text, "\"sum\" [label=\"sum\\nAddV2\""));
  REQUIRE(Count(text, "style=dashed") == 3);
  REQUIRE(Count(text, "style=dotted") >= 1);  // the control input of out
}

TEST_CASE("dfx inspect leaves unused devices out and soft placement moves "
          "nodes") {
  const ProcessResult three =
      RunDfx({"inspect", "--graph", kGraph, "--local-devices", "3", "--feed",
              "x", "--fetch", "out"});
  INFO(Describe(three));
  REQUIRE(three.exit_code == 0);
  REQUIRE(absl::StrContains(three.out, "on 2 of 3 devices"));
  REQUIRE(ParseInspection(three.out).ops.size() == 2);

  // One device: CPU:1 does not exist.
  const ProcessResult one = RunDfx(
      {"inspect", "--graph", kGraph, "--feed", "x", "--fetch", "out"});
  INFO(Describe(one));
  REQUIRE(one.exit_code == 1);
  REQUIRE(one.out.empty());
  REQUIRE(Count(one.err, "\n") == 1);
  REQUIRE(absl::StartsWith(one.err, "dfx inspect: error: placing graph"));
  REQUIRE(absl::StrContains(one.err, "CPU:1"));

  const ProcessResult soft =
      RunDfx({"inspect", "--graph", kGraph, "--feed", "x", "--fetch", "out",
              "--allow-soft-placement"});
  INFO(Describe(soft));
  REQUIRE(soft.exit_code == 0);
  const Inspection got = ParseInspection(soft.out);
  REQUIRE(got.placement.size() == 6);
  for (const auto& [node, device] : got.placement) REQUIRE(device == kCpu0);
  for (const Transfer& t : got.transfers.at(kCpu0)) REQUIRE(t.peer == "client");
}

TEST_CASE("dfx inspect reports every bad input as one error line") {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;  // a substring of the error line
  };
  const std::vector<Case> cases = {
      {{"--graph", dir.File("missing.pbtxt"), "--fetch", "out"}, 1,
       "missing.pbtxt"},
      {{"--graph", kGraph, "--fetch", "nope"}, 1,
       "--fetch 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--fetch", "out:1"}, 1,
       "node 'out' (op Neg) has 1 output"},
      {{"--graph", kGraph, "--feed", "nope", "--fetch", "out"}, 1,
       "--feed 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--feed", "x", "--feed", "x", "--fetch", "out"}, 1,
       "--feed 'x' given more than once"},
      {{"--graph", kGraph, "--target", "nope"}, 1,
       "--target 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--local-devices", "2", "--fetch", "out", "--dot",
        dir.File("no/such/dir/g.dot")},
       1, "--dot: cannot write"},
      {{"--graph", kGraph, "--fetch", "out", "--local-devices", "0"}, 2,
       "--local-devices '0' is not a positive integer"},
      {{"--graph", kGraph, "--fetch", "out", "--local-devices", "x"}, 2,
       "--local-devices 'x'"},
      {{"--fetch", "out"}, 2, "--graph is required"},
      {{"--graph", kGraph}, 2, "at least one --fetch or --target"},
      {{"--graph", kGraph, "--fetch", "out", "--bogus"}, 2,
       "unknown flag '--bogus'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"inspect"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessResult r = RunDfx(args);
    INFO(Describe(r));
    REQUIRE(r.exit_code == c.exit_code);
    REQUIRE(r.out.empty());
    REQUIRE(Count(r.err, "\n") == 1);
    REQUIRE(absl::StartsWith(r.err, "dfx inspect: error: "));
    REQUIRE(absl::StrContains(r.err, c.message));
    if (c.exit_code == 2) {
      REQUIRE(absl::StrContains(r.err, "(see 'dfx inspect --help')"));
    }
  }
}

TEST_CASE("dfx lists inspect, and inspect --help describes its flags") {
  const ProcessResult top = RunDfx({"--help"});
  REQUIRE(top.exit_code == 0);
  REQUIRE(absl::StrContains(top.out, "  inspect "));
  const ProcessResult help = RunDfx({"inspect", "--help"});
  INFO(Describe(help));
  REQUIRE(help.exit_code == 0);
  REQUIRE(absl::StartsWith(help.out, "usage: dfx inspect --graph FILE"));
  REQUIRE(absl::StrContains(help.out, "--local-devices N"));
  REQUIRE(absl::StrContains(help.out, "--dot OUT.dot"));
}

TEST_CASE("dfx run --local-devices runs a graph whose nodes name devices") {
  const ProcessResult r =
      RunDfx({"run", "--graph", kGraph, "--local-devices", "2", "--feed",
              "x=[1, 2.5]", "--fetch", "out", "--fetch", "sum", "--json"});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(r.out);
  // out = -(x + c) with c = [10, 20] from the graph file.
  REQUIRE(out["out"]["values"] == nlohmann::json::array({-11.0, -22.5}));
  REQUIRE(out["sum"]["values"] == nlohmann::json::array({11.0, 22.5}));

  const ProcessResult zero =
      RunDfx({"run", "--graph", kGraph, "--local-devices", "0", "--feed",
              "x=[1, 2]", "--fetch", "out"});
  REQUIRE(zero.exit_code == 2);
  REQUIRE(absl::StartsWith(zero.err, "dfx run: error: --local-devices '0'"));
}

}  // namespace
}  // namespace dfx::cli

// `dfx bench`: flag parsing and the latency summary, the command in-process
// on tests/data/cli_mlp.pbtxt, and the built binary against a 2-task cluster
// this test starts. Nothing here depends on how fast a step is.
#include "tools/cli/bench.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"

namespace dfx::cli {
namespace {

using testing::Describe;
using testing::ProcessResult;
using testing::RunDfx;
using testing::StatusIs;
using testing::TempDir;
using testing::TestCluster;

const std::string kGraph = DFX_TEST_DATA_DIR "/cli_mlp.pbtxt";
const std::string kFeed = "x=[[1, 2, 3], [-1, 0.5, 2], [0, 0, -5]]";

// ---------------------------------------------------------------------------
// Flags.

TEST_CASE("bench flags take run's graph, feed and session flags and its own") {
  auto options = ParseBenchFlags(
      {"--graph", "g.pbtxt", "--feed", "x=[1]", "--fetch", "sm", "--target",
       "init", "--target", "grpc://127.0.0.1:5", "--iters=250", "--warmup",
       "0", "--threads", "3", "--json", "--no-optimize", "--timeout-ms",
       "900"});
  REQUIRE_OK(options);
  CHECK(options->run.graph_path == "g.pbtxt");
  REQUIRE(options->run.feeds.size() == 1);
  CHECK(options->run.feeds[0].first == "x");
  CHECK(options->run.fetches == std::vector<std::string>{"sm"});
  CHECK(options->run.targets == std::vector<std::string>{"init"});
  CHECK(options->run.session_target == "grpc://127.0.0.1:5");
  CHECK(options->iters == 250);
  CHECK(options->warmup == 0);
  CHECK(options->threads == 3);
  CHECK(options->run.json);
  CHECK(options->run.no_optimize);
  CHECK(options->run.timeout_ms == 900);

  auto defaults =
      ParseBenchFlags({"--graph", "g", "--fetch", "sm", "--target", "local"});
  REQUIRE_OK(defaults);
  CHECK(defaults->iters == 100);
  CHECK(defaults->warmup == 5);
  CHECK(defaults->threads == 1);
  CHECK(defaults->run.session_target.empty());
  CHECK(defaults->run.targets.empty());  // "local" is not a node
  CHECK_FALSE(defaults->run.no_optimize);

  auto help = ParseBenchFlags({"--iters", "3", "-h"});
  REQUIRE_OK(help);
  CHECK(help->help);
}

TEST_CASE("bench flag errors name the flag") {
  auto expect = [](std::vector<std::string> args, const std::string& what) {
    INFO(what);
    CHECK_THAT(ParseBenchFlags(args).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, what));
  };
  const std::vector<std::string> ok = {"--graph", "g", "--fetch", "sm"};
  auto with = [&ok](std::vector<std::string> more) {
    std::vector<std::string> args = ok;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  expect({"--fetch", "sm"}, "--graph is required");
  expect({"--graph", "g"}, "at least one --fetch or --target");
  expect(with({"--iters", "0"}), "--iters '0' is not a positive integer");
  expect(with({"--iters", "many"}), "--iters 'many'");
  expect(with({"--iters", "20000000"}), "--iters 20000000 is more than");
  expect(with({"--warmup", "-1"}), "--warmup '-1' is not a non-negative");
  expect(with({"--threads", "0"}), "--threads '0' is not a positive");
  expect(with({"--threads", "100000"}), "--threads 100000 is more than");
  expect(with({"--iters"}), "--iters needs a value");
  // Run's output flags mean nothing to a benchmark.
  expect(with({"--out", "dir"}), "unknown flag '--out'");
  expect(with({"--target", "local", "--target", "grpc://h:1"}),
         "exclude each other");
  expect(with({"--target", "http://h:1"}), "only grpc:// targets");
  expect(with({"--local-devices", "2", "--target", "grpc://h:1"}),
         "--local-devices applies to local runs");
}

TEST_CASE("bench percentiles are nearest-rank") {
  std::vector<double> l;
  for (int i = 100; i >= 1; --i) l.push_back(i);  // unsorted on purpose
  const LatencySummary s = Summarize(l);
  CHECK(s.min == 1);
  CHECK(s.p50 == 50);
  CHECK(s.p90 == 90);
  CHECK(s.p99 == 99);
  CHECK(s.max == 100);
  CHECK(s.mean == Approx(50.5));
  const LatencySummary one = Summarize({7});
  CHECK(one.min == 7);
  CHECK(one.p50 == 7);
  CHECK(one.p99 == 7);
  CHECK(one.max == 7);
  CHECK(Percentile({1, 2, 3}, 50) == 2);
  CHECK(Percentile({1, 2, 3}, 99) == 3);
}

// ---------------------------------------------------------------------------
// In-process.

void CheckJsonShape(const nlohmann::json& j, int64_t iters, int64_t warmup,
                    int threads) {
  INFO(j.dump());
  CHECK(j["iters"] == iters);
  CHECK(j["warmup"] == warmup);
  CHECK(j["threads"] == threads);
  for (const char* key : {"setup_us", "first_step_us", "wall_s",
                          "steps_per_second"}) {
    INFO(key);
    REQUIRE(j[key].is_number());
    CHECK(j[key].get<double>() > 0);
  }
  const auto& l = j["latency_us"];
  REQUIRE(l.size() == 6);
  CHECK(l["min"].get<double>() > 0);
  CHECK(l["min"] <= l["p50"]);
  CHECK(l["p50"] <= l["p90"]);
  CHECK(l["p90"] <= l["p99"]);
  CHECK(l["p99"] <= l["max"]);
  CHECK(l["min"] <= l["mean"]);
  CHECK(l["mean"] <= l["max"]);
}

TEST_CASE("dfx bench in-process prints the latency summary as JSON or text") {
  std::ostringstream out, err;
  const int rc = BenchMain({"--graph", kGraph, "--feed", kFeed, "--fetch",
                            "sm", "--iters", "20", "--warmup", "2", "--json"},
                           out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  CHECK(err.str().empty());
  // One JSON object on one line.
  const std::string printed = out.str();
  REQUIRE(std::count(printed.begin(), printed.end(), '\n') == 1);
  const nlohmann::json j = nlohmann::json::parse(printed);
  CHECK(j["graph"] == kGraph);
  CHECK(j["target"] == "local");
  CHECK(j["nodes"] == 7);  // cli_mlp.pbtxt's nodes
  CHECK(j["optimize"] == true);
  CheckJsonShape(j, 20, 2, 1);

  // Several threads in one session, the optimizer off, as text.
  std::ostringstream text, text_err;
  REQUIRE(BenchMain({"--graph", kGraph, "--feed", kFeed, "--fetch", "sm",
                     "--iters", "30", "--threads", "4", "--no-optimize",
                     "--target", "local"},
                    text, text_err) == 0);
  INFO(text.str());
  std::vector<std::string> lines =
      absl::StrSplit(text.str(), '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 7);
  CHECK(absl::StartsWith(lines[0], "graph      " + kGraph + " (7 nodes)"));
  CHECK(lines[1] == "target     local, optimizer off, 4 threads");
  CHECK(absl::StartsWith(lines[2], "setup      "));
  CHECK(absl::StartsWith(lines[3], "first step "));
  CHECK(lines[4] == "steps      30 timed after 5 warm-up");
  for (const char* field : {"min ", "p50 ", "p90 ", "p99 ", "max ", "mean "}) {
    CHECK(absl::StrContains(lines[5], field));
  }
  CHECK(absl::StartsWith(lines[6], "throughput "));
  CHECK(absl::EndsWith(lines[6], " steps/s"));
}

TEST_CASE("dfx bench --trace writes a Chrome trace of one more step") {
  const TempDir dir;
  const std::string path = dir.File("bench_trace.json");
  std::ostringstream out, err;
  const int rc = BenchMain({"--graph", kGraph, "--feed", kFeed, "--fetch",
                            "sm", "--iters", "3", "--warmup", "0", "--json",
                            "--trace", path},
                           out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  CheckJsonShape(nlohmann::json::parse(out.str()), 3, 0, 1);
  std::ifstream in(path);
  REQUIRE(in.good());
  const nlohmann::json trace = nlohmann::json::parse(in);
  REQUIRE(trace["traceEvents"].is_array());
  // The traced step's nodes are there as complete events, the fetch among
  // them.
  bool saw_fetch = false;
  int complete = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    if (e["name"] == "sm") saw_fetch = true;
  }
  CHECK(complete >= 3);
  CHECK(saw_fetch);
}

TEST_CASE("dfx bench reports bad input and a failing step as one error line") {
  TempDir dir;
  dir.Write("bad_op.pbtxt", "node { name: \"n\" op: \"NoSuchOp\" }");
  // Reading a variable nobody initialized fails every step.
  dir.Write("uninit.pbtxt", R"pb(
    node { name: "v" op: "VarHandleOp"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape {} } } }
    node { name: "read" op: "ReadVariableOp" input: "v"
      attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--graph", dir.File("missing.pbtxt"), "--fetch", "sm"}, 1,
       "missing.pbtxt"},
      {{"--graph", dir.File("bad_op.pbtxt"), "--fetch", "n"}, 1, "NoSuchOp"},
      {{"--graph", kGraph, "--feed", kFeed, "--fetch", "nope"}, 1,
       "--fetch 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--feed", "x=[1, 2]", "--fetch", "sm"}, 1,
       "does not fit placeholder 'x'"},
      {{"--graph", kGraph, "--fetch", "sm"}, 1, "step 1: "},
      {{"--graph", dir.File("uninit.pbtxt"), "--fetch", "read"}, 1,
       "step 1: "},
      {{"--graph", kGraph, "--fetch", "sm", "--iters", "-3"}, 2,
       "--iters '-3' is not a positive integer (see 'dfx bench --help')"},
  };
  for (const Case& c : cases) {
    std::ostringstream out, err;
    const int rc = BenchMain(c.args, out, err);
    const std::string error = err.str();
    INFO(absl::StrJoin(c.args, " ") << "\n" << error);
    CHECK(rc == c.exit_code);
    CHECK(out.str().empty());
    CHECK(absl::StartsWith(error, "dfx bench: error: "));
    CHECK(absl::StrContains(error, c.message));
    CHECK(std::count(error.begin(), error.end(), '\n') == 1);
  }
}

TEST_CASE("dfx bench --help and dfx --help describe the command") {
  const ProcessResult help = RunDfx({"bench", "--help"});
  INFO(Describe(help));
  REQUIRE(help.exit_code == 0);
  CHECK(absl::StartsWith(help.out, "usage: dfx bench --graph FILE"));
  CHECK(absl::StrContains(help.out, "--iters N"));
  const ProcessResult top = RunDfx({"--help"});
  CHECK(absl::StrContains(top.out, "  bench "));
  const ProcessResult bad = RunDfx({"bench", "--graph", kGraph});
  CHECK(bad.exit_code == 2);
  CHECK(absl::StrContains(bad.err, "at least one --fetch or --target"));
}

// ---------------------------------------------------------------------------
// On a cluster.

// A counter on worker 1, incremented by every step that fetches "out" on
// worker 0: the steps a benchmark ran can be counted afterwards (a
// variable on a server outlives the session).
constexpr char kCounterGraph[] = R"pb(
  node { name: "counter" op: "VarHandleOp" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape {} } }
    attr { key: "shared_name" value { s: "bench_test_counter" } } }
  node { name: "zero" op: "Const" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT
                                          tensor_shape {} float_val: 0 } } } }
  node { name: "one" op: "Const" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT
                                          tensor_shape {} float_val: 1 } } } }
  node { name: "init" op: "AssignVariableOp" input: "counter" input: "zero"
    device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "inc" op: "AssignAddVariableOp" input: "counter" input: "one"
    device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "after_inc" op: "ReadVariableOp" input: "counter"
    input: "^inc" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "out" op: "Identity" input: "after_inc"
    device: "/job:worker/task:0"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "read" op: "ReadVariableOp" input: "counter"
    device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

TEST_CASE("dfx bench on a 2-task cluster runs every step it reports") {
  TestCluster cluster({{"worker", 2}});
  TempDir dir;
  dir.Write("counter.pbtxt", kCounterGraph);
  const std::string graph = dir.File("counter.pbtxt");
  auto dfx = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--target", cluster.Target("worker", 0),
                             "--timeout-ms", "60000"});
    args.insert(args.end(), cluster.client_flags().begin(),
                cluster.client_flags().end());
    return RunDfx(args);
  };
  auto counter = [&]() {
    const ProcessResult r =
        dfx({"run", "--graph", graph, "--fetch", "read", "--json"});
    INFO(Describe(r));
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["read"]["values"].get<double>();
  };
  const ProcessResult init = dfx({"run", "--graph", graph, "--target", "init"});
  INFO(Describe(init));
  REQUIRE(init.exit_code == 0);
  REQUIRE(counter() == 0);

  const ProcessResult bench =
      dfx({"bench", "--graph", graph, "--fetch", "out", "--iters", "12",
           "--warmup", "3", "--json"});
  INFO(Describe(bench));
  REQUIRE(bench.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(bench.out);
  CHECK(j["target"] == cluster.Target("worker", 0));
  CHECK(j["nodes"] == 8);
  CheckJsonShape(j, 12, 3, 1);
  // The first step, 3 warm-up steps and 12 timed ones.
  CHECK(counter() == 16);

  // Three client threads share 9 steps; the optimizer off.
  const ProcessResult threads =
      dfx({"bench", "--graph", graph, "--fetch", "out", "--iters", "9",
           "--warmup", "0", "--threads", "3", "--no-optimize", "--json"});
  INFO(Describe(threads));
  REQUIRE(threads.exit_code == 0);
  const nlohmann::json t = nlohmann::json::parse(threads.out);
  CHECK(t["optimize"] == false);
  CheckJsonShape(t, 9, 0, 3);
  CHECK(counter() == 16 + 1 + 9);

  // A step that fails on the cluster (adding a vector to the scalar
  // counter) stops the benchmark, named; it added nothing.
  const ProcessResult bad = dfx({"bench", "--graph", graph, "--fetch", "out",
                                 "--feed", "one=[1, 2]"});
  INFO(Describe(bad));
  CHECK(bad.exit_code == 1);
  CHECK(absl::StartsWith(bad.err, "dfx bench: error: step 1: "));
  CHECK(bad.out.empty());
  CHECK(counter() == 26);
}

}  // namespace
}  // namespace dfx::cli

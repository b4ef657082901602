// `dfx run`: flag parsing in-process, and end to end by running the built
// dfx binary as a subprocess on the graph in tests/data/cli_mlp.pbtxt.
#include "tools/cli/run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"
#include "tools/cli/npy.h"

extern char** environ;

namespace dfx::cli {
namespace {

using testing::Describe;
using testing::ProcessResult;
using testing::ReadFile;
using testing::RunDfx;
using testing::TempDir;

using testing::StatusIs;

// ---------------------------------------------------------------------------
// Flag parsing.

TEST_CASE("run flags parse in both --flag VALUE and --flag=VALUE forms") {
  auto options = ParseRunFlags(
      {"--graph", "g.pbtxt", "--feed", "x=[1, 2]", "--feed=y:1=@a=b.npy",
       "--fetch", "sm", "--fetch=mm:0", "--target", "init", "--json",
       "--out=outdir", "--timeout-ms", "250"});
  REQUIRE_OK(options);
  REQUIRE(options->graph_path == "g.pbtxt");
  REQUIRE(options->feeds.size() == 2);
  REQUIRE(options->feeds[0].first == "x");
  REQUIRE(options->feeds[0].second == "[1, 2]");
  REQUIRE(options->feeds[1].first == "y:1");
  REQUIRE(options->feeds[1].second == "@a=b.npy");
  REQUIRE(options->fetches == std::vector<std::string>{"sm", "mm:0"});
  REQUIRE(options->targets == std::vector<std::string>{"init"});
  REQUIRE(options->json);
  REQUIRE(options->out_dir == "outdir");
  REQUIRE(options->timeout_ms == 250);
  REQUIRE(!options->help);

  auto help = ParseRunFlags({"--bogus", "--help"});
  REQUIRE_THAT(help.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       "unknown flag '--bogus'"));
  auto help2 = ParseRunFlags({"-h"});
  REQUIRE_OK(help2);
  REQUIRE(help2->help);
}

TEST_CASE("run flag errors name the flag") {
  auto expect = [](std::vector<std::string> args, const std::string& what) {
    INFO(what);
    REQUIRE_THAT(ParseRunFlags(args).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, what));
  };
  expect({"--fetch", "sm"}, "--graph is required");
  expect({"--graph", "g"}, "at least one --fetch or --target");
  expect({"--graph"}, "--graph needs a value");
  expect({"--graph", "g", "--fetch"}, "--fetch needs a value");
  expect({"--graph", "g", "--fetch", "sm", "--feed", "x"},
         "--feed 'x' is not NAME=VALUE");
  expect({"--graph", "g", "--fetch", "sm", "--feed", "=1"},
         "--feed '=1' is not NAME=VALUE");
  expect({"--graph", "g", "--fetch", "sm", "--timeout-ms", "soon"},
         "--timeout-ms 'soon'");
  expect({"--graph", "g", "--fetch", "sm", "--timeout-ms", "-5"},
         "not a positive integer");
  expect({"--graph", "g", "--fetch", "sm", "--json=yes"}, "--json takes no");
  expect({"--graph", "g", "--fetch", "sm", "extra"},
         "unexpected argument 'extra'");
  expect({"--graph", "g", "--graph", "h", "--fetch", "sm"},
         "more than once");
  expect({"--graph", "g", "--fetch", "sm", "-x"}, "unexpected argument '-x'");
}

// ---------------------------------------------------------------------------
// End to end.

const std::string kGraph = DFX_TEST_DATA_DIR "/cli_mlp.pbtxt";

// The graph's constants, repeated from cli_mlp.pbtxt.
constexpr float kW[3][4] = {{0.5f, -1.0f, 2.0f, 0.0f},
                            {1.0f, 0.25f, -0.5f, 1.0f},
                            {-1.0f, 1.0f, 0.0f, 2.0f}};
constexpr float kB[4] = {0.1f, -0.2f, 0.3f, 0.0f};

struct Expected {
  std::vector<std::vector<double>> mm, relu, sm;
};

// The layer computed with plain loops in double precision.
Expected Forward(const std::vector<std::vector<float>>& x) {
  Expected e;
  for (const auto& row : x) {
    std::vector<double> mm(4, 0.0), relu(4), sm(4);
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 3; ++k) mm[j] += double{row[k]} * kW[k][j];
    }
    double max = 0, sum = 0;
    for (int j = 0; j < 4; ++j) {
      relu[j] = std::max(0.0, mm[j] + kB[j]);
      max = std::max(max, relu[j]);
    }
    for (int j = 0; j < 4; ++j) sum += std::exp(relu[j] - max);
    for (int j = 0; j < 4; ++j) sm[j] = std::exp(relu[j] - max) / sum;
    e.mm.push_back(mm);
    e.relu.push_back(relu);
    e.sm.push_back(sm);
  }
  return e;
}

void RequireClose(const nlohmann::json& fetched,
                  const std::vector<std::vector<double>>& expected) {
  INFO(fetched.dump());
  REQUIRE(fetched["dtype"] == "float32");
  REQUIRE(fetched["shape"] ==
          nlohmann::json::array({expected.size(), expected[0].size()}));
  const auto& values = fetched["values"];
  REQUIRE(values.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    REQUIRE(values[i].size() == expected[i].size());
    for (size_t j = 0; j < expected[i].size(); ++j) {
      REQUIRE(values[i][j].get<double>() ==
              Approx(expected[i][j]).epsilon(1e-5).margin(1e-6));
    }
  }
}

void RequireClose(const Tensor& t,
                  const std::vector<std::vector<double>>& expected) {
  REQUIRE(t.dtype() == DT_FLOAT);
  REQUIRE(t.shape() == TensorShape({static_cast<int64_t>(expected.size()),
                                    static_cast<int64_t>(expected[0].size())}));
  for (size_t i = 0; i < expected.size(); ++i) {
    for (size_t j = 0; j < expected[i].size(); ++j) {
      REQUIRE(t.data<float>()[i * expected[i].size() + j] ==
              Approx(expected[i][j]).epsilon(1e-5).margin(1e-6));
    }
  }
}

const std::vector<std::vector<float>> kX = {{1, 2, 3}, {-1, 0.5f, 2}, {0, 0, -5}};
const char kXJson[] = "[[1, 2, 3], [-1, 0.5, 2], [0, 0, -5]]";

TEST_CASE("dfx run --json computes the layer from a JSON feed") {
  const ProcessResult r =
      RunDfx({"run", "--graph", kGraph, "--feed", std::string("x=") + kXJson,
              "--fetch", "sm", "--fetch", "layer/mm", "--fetch",
              "layer/relu:0", "--json"});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  const nlohmann::json out = nlohmann::json::parse(r.out);
  REQUIRE(out.size() == 3);
  const Expected e = Forward(kX);
  RequireClose(out["sm"], e.sm);
  RequireClose(out["layer/mm"], e.mm);
  RequireClose(out["layer/relu:0"], e.relu);
  // Each softmax row is a distribution.
  for (const auto& row : out["sm"]["values"]) {
    double sum = 0;
    for (const auto& v : row) sum += v.get<double>();
    REQUIRE(sum == Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("dfx run --trace writes the step's Chrome trace") {
  TempDir dir;
  const std::string trace = dir.File("trace.json");
  const ProcessResult r =
      RunDfx({"run", "--graph", kGraph, "--feed", std::string("x=") + kXJson,
              "--fetch", "sm", "--trace", trace});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  std::ifstream f(trace);
  REQUIRE(f.good());
  const nlohmann::json json = nlohmann::json::parse(f);
  std::set<std::string> ops;
  std::string process;
  for (const auto& e : json["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      process = e["args"]["name"];
    }
    if (e["ph"] == "X") ops.insert(e["args"]["op"].get<std::string>());
  }
  CHECK(process == "/job:localhost/replica:0/task:0/device:CPU:0");
  // The graph optimizer's remapper runs MatMul, BiasAdd and Relu as one
  // _FusedMatMul.
  CHECK(ops.count("_FusedMatMul") == 1);
  CHECK(ops.count("Softmax") == 1);

  const ProcessResult bad = RunDfx({"run", "--graph", kGraph, "--feed",
                                    std::string("x=") + kXJson, "--fetch",
                                    "sm", "--trace", dir.File("no/dir/t.json")});
  CHECK(bad.exit_code == 1);
  CHECK(absl::StrContains(bad.err, "no/dir/t.json"));
}

TEST_CASE("dfx run feeds an .npy file and writes fetches with --out") {
  TempDir dir;
  std::vector<float> flat;
  for (const auto& row : kX) flat.insert(flat.end(), row.begin(), row.end());
  REQUIRE_OK(WriteNpyFile(dir.File("x.npy"),
                          Tensor::FromVector<float>(flat, TensorShape({3, 3}))));
  const std::string out_dir = dir.File("results/step1");
  const ProcessResult r =
      RunDfx({"run", "--graph", kGraph, "--feed", "x=@" + dir.File("x.npy"),
              "--fetch", "sm", "--fetch", "layer/mm:0", "--out", out_dir});
  INFO(Describe(r));
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  // The readable print names each fetch with its dtype and shape.
  REQUIRE(absl::StrContains(r.out, "sm: float32 [3, 4]\n[["));
  REQUIRE(absl::StrContains(r.out, "layer/mm:0: float32 [3, 4]\n[["));
  const Expected e = Forward(kX);
  auto sm = ReadNpyFile(out_dir + "/sm.npy");
  REQUIRE_OK(sm);
  RequireClose(*sm, e.sm);
  auto mm = ReadNpyFile(out_dir + "/layer_mm_0.npy");
  REQUIRE_OK(mm);
  RequireClose(*mm, e.mm);
}

TEST_CASE("dfx and dfx run print usage on --help") {
  const ProcessResult top = RunDfx({"--help"});
  INFO(Describe(top));
  REQUIRE(top.exit_code == 0);
  REQUIRE(absl::StrContains(top.out, "usage: dfx COMMAND"));
  REQUIRE(absl::StrContains(top.out, "run "));
  const ProcessResult run = RunDfx({"run", "--help"});
  INFO(Describe(run));
  REQUIRE(run.exit_code == 0);
  REQUIRE(absl::StrContains(run.out, "usage: dfx run --graph FILE"));
  REQUIRE(absl::StrContains(run.out, "--feed NAME=VALUE"));

  const ProcessResult none = RunDfx({});
  REQUIRE(none.exit_code == 2);
  REQUIRE(absl::StrContains(none.err, "usage: dfx COMMAND"));
  const ProcessResult unknown = RunDfx({"frobnicate"});
  REQUIRE(unknown.exit_code == 2);
  REQUIRE(absl::StartsWith(unknown.err,
                           "dfx: error: unknown command 'frobnicate'"));
}

TEST_CASE("dfx run reports every bad input as one error line") {
  TempDir dir;
  dir.Write("corrupt.pbtxt", "node { name: \"x\" op: ");
  dir.Write("corrupt.pb", std::string("\xff\xff\xff\x07garbage\x00\x01", 13));
  dir.Write("corrupt.npy", "not an npy file at all");
  dir.Write("bad_op.pbtxt", "node { name: \"n\" op: \"NoSuchOp\" }");
  REQUIRE_OK(WriteNpyFile(dir.File("x64.npy"),
                          Tensor::FromVector<double>({1, 2, 3},
                                                     TensorShape({1, 3}))));
  const std::string x = std::string("x=") + kXJson;

  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;  // a substring of the error line
  };
  const std::vector<Case> cases = {
      // Graph files.
      {{"--graph", dir.File("missing.pbtxt"), "--fetch", "sm"}, 1,
       "missing.pbtxt"},
      {{"--graph", dir.File("corrupt.pbtxt"), "--fetch", "x"}, 1,
       "corrupt.pbtxt"},
      {{"--graph", dir.File("corrupt.pb"), "--fetch", "x"}, 1, "corrupt.pb"},
      {{"--graph", dir.File("bad_op.pbtxt"), "--fetch", "n"}, 1, "NoSuchOp"},
      // Unknown nodes.
      {{"--graph", kGraph, "--feed", "nope=[1]", "--fetch", "sm"}, 1,
       "--feed 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--feed", x, "--fetch", "nope"}, 1,
       "--fetch 'nope': the graph has no node named 'nope'"},
      {{"--graph", kGraph, "--feed", x, "--fetch", "sm:1"}, 1,
       "node 'sm' (op Softmax) has 1 output"},
      {{"--graph", kGraph, "--feed", x, "--fetch", "sm:one"}, 1,
       "not a tensor name"},
      {{"--graph", kGraph, "--feed", x, "--target", "nope"}, 1,
       "--target 'nope': the graph has no node named 'nope'"},
      // Feed values.
      {{"--graph", kGraph, "--feed", "x", "--fetch", "sm"}, 2,
       "--feed 'x' is not NAME=VALUE"},
      {{"--graph", kGraph, "--feed", "x=[[1, 2]]", "--fetch", "sm"}, 1,
       "value of shape [1, 2] does not fit placeholder 'x' of shape [?, 3]"},
      {{"--graph", kGraph, "--feed", "x=[1, 2, 3]", "--fetch", "sm"}, 1,
       "does not fit placeholder 'x'"},
      {{"--graph", kGraph, "--feed", "x=[[1, 2, 3], [4, 5]]", "--fetch", "sm"},
       1, "ragged"},
      {{"--graph", kGraph, "--feed", "x=[[1, \"a\", 3]]", "--fetch", "sm"}, 1,
       "--feed 'x' (float32): element [0][1]: expected a number"},
      {{"--graph", kGraph, "--feed", "x=[[1, 2, 3]", "--fetch", "sm"}, 1,
       "not valid JSON"},
      {{"--graph", kGraph, "--feed", "x=@" + dir.File("x64.npy"), "--fetch",
        "sm"},
       1, "holds float64 but 'x' is float32"},
      {{"--graph", kGraph, "--feed", "x=@" + dir.File("nope.npy"), "--fetch",
        "sm"},
       1, "nope.npy"},
      {{"--graph", kGraph, "--feed", "x=@" + dir.File("corrupt.npy"),
        "--fetch", "sm"},
       1, "bad magic"},
      {{"--graph", kGraph, "--feed", x, "--feed", x, "--fetch", "sm"}, 1,
       "more than once"},
      // Flags.
      {{"--graph", kGraph, "--fetch", "sm", "--bogus"}, 2,
       "unknown flag '--bogus'"},
      {{"--graph", kGraph, "--feed", x}, 2, "at least one --fetch or --target"},
      {{"--fetch", "sm"}, 2, "--graph is required"},
      {{"--graph", kGraph, "--fetch", "sm", "--timeout-ms", "x"}, 2,
       "--timeout-ms"},
      {{"--graph", kGraph, "--fetch"}, 2, "--fetch needs a value"},
      // The step itself: the placeholder is not fed.
      {{"--graph", kGraph, "--fetch", "sm"}, 1, "x"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessResult r = RunDfx(args);
    INFO("case: " << c.message << "\n" << Describe(r));
    REQUIRE(!r.timed_out);
    REQUIRE(r.exit_code == c.exit_code);
    REQUIRE(r.out.empty());
    REQUIRE(absl::StartsWith(r.err, "dfx run: error: "));
    REQUIRE(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    REQUIRE(r.err.back() == '\n');
    REQUIRE(absl::StrContains(r.err, c.message));
  }
}

}  // namespace
}  // namespace dfx::cli

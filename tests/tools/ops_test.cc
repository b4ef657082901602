// `dfx ops`: the op listing, and --graph reporting what a graph lacks, both
// in-process and through the built dfx binary.
#include "tools/cli/ops.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "kernels/kernels.h"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"

namespace dfx::cli {
namespace {

using testing::RunDfx;
using testing::StatusIs;
using testing::TempDir;

GraphDef Parse(const std::string& text) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// x: float placeholder; a MatMul of complex64 (no kernel), two nodes of an
// unknown op, and a float MatMul (fine).
const char kLacking[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "c"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_COMPLEX64 } }
  }
  node {
    name: "mm_c"
    op: "MatMul"
    input: "c"
    input: "c"
    attr { key: "T" value { type: DT_COMPLEX64 } }
  }
  node {
    name: "mm"
    op: "MatMul"
    input: "x"
    input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node { name: "z1" op: "Zorblax" input: "x" }
  node { name: "z2" op: "Zorblax" input: "z1" }
)pb";

TEST_CASE("CheckGraphOps reports unregistered ops and nodes without a kernel") {
  const std::vector<OpNeed> needs = CheckGraphOps(
      Parse(kLacking), *OpRegistry::Global(), *StandardKernelRegistry());
  REQUIRE(needs.size() == 3);
  CHECK(needs[0].op == "MatMul");
  CHECK(needs[0].nodes == 2);
  CHECK(needs[0].registered);
  CHECK(needs[0].nodes_without_kernel ==
        std::vector<std::string>{"mm_c (T=complex64)"});
  CHECK(needs[1].op == "Placeholder");
  CHECK(needs[1].ok());
  CHECK(needs[2].op == "Zorblax");
  CHECK(needs[2].nodes == 2);
  CHECK_FALSE(needs[2].registered);
}

TEST_CASE("dfx ops --graph lists what a graph lacks and exits 1") {
  TempDir dir;
  dir.Write("lacking.pbtxt", kLacking);
  const std::string path = dir.File("lacking.pbtxt");
  const auto r = RunDfx({"ops", "--graph", path});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.out, "Zorblax"));
  CHECK(absl::StrContains(r.out, "MISSING: op not registered"));
  CHECK(absl::StrContains(r.out, "no kernel for mm_c (T=complex64)"));
  CHECK(absl::StrContains(r.out, "dfx lacks 2 of 3 op types"));

  const auto j = RunDfx({"ops", "--graph", path, "--json"});
  REQUIRE(j.exit_code == 1);
  const auto json = nlohmann::json::parse(j.out);
  CHECK(json["missing"] == 2);
  CHECK(json["ops"][2]["op"] == "Zorblax");
  CHECK(json["ops"][2]["registered"] == false);
}

TEST_CASE("dfx ops --graph exits 0 for a graph dfx can run") {
  const auto r = RunDfx({"ops", "--graph", DFX_TEST_DATA_DIR "/tf_mlp.pbtxt"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(absl::StrContains(r.out, "dfx has every op and kernel"));
}

TEST_CASE("dfx ops lists ops with their kernels' dtypes") {
  const auto r = RunDfx({"ops", "--filter", "MatMul"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(absl::StrContains(r.out, "MatMul"));
  CHECK(absl::StrContains(r.out, "CPU T: float"));

  const auto j = RunDfx({"ops", "--json"});
  REQUIRE(j.exit_code == 0);
  const auto json = nlohmann::json::parse(j.out);
  bool found_add = false;
  for (const auto& op : json) {
    if (op["op"] == "AddV2") found_add = !op["kernels"].empty();
  }
  CHECK(found_add);
}

TEST_CASE("dfx ops rejects bad flags and missing files") {
  CHECK(RunDfx({"ops", "--bogus"}).exit_code == 2);
  CHECK(RunDfx({"ops", "--graph", "a.pb", "--filter", "x"}).exit_code == 2);
  const auto r = RunDfx({"ops", "--graph", "/nonexistent/g.pb"});
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.err, "dfx ops: error:"));
}

}  // namespace
}  // namespace dfx::cli

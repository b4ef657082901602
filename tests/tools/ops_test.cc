// `dfx ops`: the op listing, and --graph reporting what a graph lacks, both
// in-process and through the built dfx binary.
#include "tools/cli/ops.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
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

// x: float placeholder; a MatMul of uint8 (no kernel), two nodes of an
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
    attr { key: "dtype" value { type: DT_UINT8 } }
  }
  node {
    name: "mm_u"
    op: "MatMul"
    input: "c"
    input: "c"
    attr { key: "T" value { type: DT_UINT8 } }
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
        std::vector<std::string>{"mm_u (T=uint8)"});
  CHECK(needs[1].op == "Placeholder");
  CHECK(needs[1].ok());
  CHECK(needs[2].op == "Zorblax");
  CHECK(needs[2].nodes == 2);
  CHECK_FALSE(needs[2].registered);
}

// A StatelessIf whose branches are library functions: one branch uses an
// op dfx lacks, and a PartitionedCall names a function the library lacks.
constexpr char kFunctional[] = R"pb(
  node {
    name: "p"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_BOOL } }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "cond"
    op: "StatelessIf"
    input: "p"
    input: "x"
    attr { key: "Tcond" value { type: DT_BOOL } }
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "then_branch" value { func { name: "double_it" } } }
    attr { key: "else_branch" value { func { name: "zorb_it" } } }
  }
  node {
    name: "call"
    op: "PartitionedCall"
    input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "not_there" } } }
  }
  library {
    function {
      signature {
        name: "double_it"
        input_arg { name: "a" type: DT_FLOAT }
        output_arg { name: "out" type: DT_FLOAT }
      }
      node_def {
        name: "sum"
        op: "AddV2"
        input: "a"
        input: "a"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "out" value: "sum:z:0" }
    }
    function {
      signature {
        name: "zorb_it"
        input_arg { name: "a" type: DT_FLOAT }
        output_arg { name: "out" type: DT_FLOAT }
      }
      node_def { name: "z" op: "Zorblax" input: "a" }
      ret { key: "out" value: "z:y:0" }
    }
  }
)pb";

TEST_CASE("CheckGraphOps: functional ops are lowered, their functions' "
          "bodies are checked") {
  const std::vector<OpNeed> needs = CheckGraphOps(
      Parse(kFunctional), *OpRegistry::Global(), *StandardKernelRegistry());
  std::map<std::string, OpNeed> by_op;
  for (const OpNeed& need : needs) by_op[need.op] = need;
  REQUIRE(by_op.size() == 5);
  // The If needs no kernel: its branches are in the library.
  CHECK(by_op["StatelessIf"].ok());
  CHECK(by_op["StatelessIf"].lowered);
  // A body's ops are checked like the graph's, named function/node.
  CHECK(by_op["AddV2"].ok());
  CHECK_FALSE(by_op["Zorblax"].registered);
  // A call of a function the library lacks.
  CHECK_FALSE(by_op["PartitionedCall"].ok());
  CHECK(by_op["PartitionedCall"].nodes_without_kernel ==
        std::vector<std::string>{
            "call (calls function 'not_there', which is not in the graph's "
            "library)"});
}

TEST_CASE("CheckGraphOps finds nothing missing in the golden models "
          "TensorFlow exported") {
  const std::filesystem::path models =
      std::filesystem::path(DFX_TEST_DATA_DIR) / ".." / "golden" / "data" /
      "models";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(models)) {
    const std::filesystem::path graph = entry.path() / "graph.pb";
    if (!std::filesystem::exists(graph)) continue;
    absl::StatusOr<GraphDef> def = ReadGraphDefFile(graph.string());
    REQUIRE(def.ok());
    for (const OpNeed& need : CheckGraphOps(*def, *OpRegistry::Global(),
                                            *StandardKernelRegistry())) {
      INFO(graph << ": " << need.op);
      CHECK(need.ok());
    }
    ++checked;
  }
  CHECK(checked >= 9);
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
  CHECK(absl::StrContains(r.out, "no kernel for mm_u (T=uint8)"));
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
  // A GPU kernel's host-memory args, and kernels that run on the host.
  const auto reshape = RunDfx({"ops", "--filter", "Reshape"});
  CHECK(absl::StrContains(reshape.out, "GPU (all types) (host memory: shape)"));
  const auto range = RunDfx({"ops", "--filter", "Range"});
  CHECK(absl::StrContains(range.out, "GPU Tidx: int32, int64 (on the host)"));

  const auto j = RunDfx({"ops", "--json"});
  REQUIRE(j.exit_code == 0);
  const auto json = nlohmann::json::parse(j.out);
  bool found_add = false, found_reshape = false;
  for (const auto& op : json) {
    if (op["op"] == "AddV2") found_add = !op["kernels"].empty();
    if (op["op"] != "Reshape") continue;
    for (const auto& k : op["kernels"]) {
      if (k["device"] == "GPU") {
        found_reshape = k["host_memory"] == nlohmann::json({"shape"}) &&
                        k["on_host"] == false;
      }
    }
  }
  CHECK(found_add);
  CHECK(found_reshape);
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

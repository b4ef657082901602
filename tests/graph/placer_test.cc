#include "graph/placer.h"

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

// Test ops: a source, a binary op, a variable (ref output), an op taking a
// ref, and one that has a kernel only on GPU.
const OpRegistry* TestOps() {
  static OpRegistry* r = [] {
    auto* ops = new OpRegistry;
    DFX_CHECK_OK(ops->Register(OpDefBuilder("Src").Output("y: float")));
    DFX_CHECK_OK(ops->Register(
        OpDefBuilder("Bin").Input("a: float").Input("b: float").Output(
            "y: float")));
    DFX_CHECK_OK(ops->Register(
        OpDefBuilder("Var").Output("ref: Ref(float)").SetIsStateful()));
    DFX_CHECK_OK(ops->Register(OpDefBuilder("Assign")
                                   .Input("ref: Ref(float)")
                                   .Input("value: float")
                                   .Output("y: float")));
    DFX_CHECK_OK(ops->Register(
        OpDefBuilder("GpuOnly").Input("a: float").Output("y: float")));
    DFX_CHECK_OK(ops->Register(OpDefBuilder("Const").Output("y: float")));
    return ops;
  }();
  return r;
}

std::unique_ptr<Graph> Import(const std::string& text) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = ImportGraphDef(def, TestOps());
  REQUIRE_OK(g);
  return std::move(g).value();
}

std::string Dev(int task, const std::string& type = "CPU", int id = 0,
                const std::string& job = "worker") {
  return absl::StrCat("/job:", job, "/replica:0/task:", task, "/device:",
                      type, ":", id);
}

PlacerOptions Cluster() {
  PlacerOptions o;
  o.devices = {{Dev(0), "CPU"},
               {Dev(0, "GPU"), "GPU"},
               {Dev(1), "CPU"},
               {Dev(0, "CPU", 0, "ps"), "CPU"}};
  o.has_kernel = [](const Node& n, const std::string& type) {
    if (n.type_string() == "GpuOnly") return type == "GPU";
    return type == "CPU";
  };
  return o;
}

const std::string& DeviceOf(const Graph& g, const std::string& node) {
  return g.FindNode(node)->assigned_device_name();
}

TEST_CASE("Placer honours full and partial device requests") {
  auto g = Import(R"pb(
    node { name: "a" op: "Src" device: "/job:worker/replica:0/task:1/device:CPU:0" }
    node { name: "b" op: "Src" device: "/job:ps" }
    node { name: "c" op: "Src" }
  )pb");
  REQUIRE_OK(PlaceGraph(Cluster(), g.get()));
  REQUIRE(DeviceOf(*g, "a") == Dev(1));
  REQUIRE(DeviceOf(*g, "b") == Dev(0, "CPU", 0, "ps"));
  REQUIRE(DeviceOf(*g, "c") == Dev(0));  // the default device
}

TEST_CASE("Unconstrained nodes follow their inputs") {
  auto g = Import(R"pb(
    node { name: "a" op: "Src" device: "/job:worker/task:1" }
    node { name: "b" op: "Src" device: "/job:worker/task:1" }
    node { name: "sum" op: "Bin" input: "a" input: "b" }
  )pb");
  REQUIRE_OK(PlaceGraph(Cluster(), g.get()));
  REQUIRE(DeviceOf(*g, "sum") == Dev(1));
}

TEST_CASE("A Const goes with its consumers when they share a device its "
          "request allows, as TensorFlow's generator rule") {
  auto g = Import(R"pb(
    node { name: "x" op: "Src" device: "/job:worker/task:0" }
    node { name: "c" op: "Const" device: "/device:CPU:0" }
    node { name: "ps_op" op: "Bin" input: "x" input: "c"
           device: "/job:ps/task:0" }
    node { name: "shared" op: "Const" }
    node { name: "a" op: "Bin" input: "x" input: "shared"
           device: "/job:worker/task:1" }
    node { name: "b" op: "Bin" input: "x" input: "shared"
           device: "/job:ps/task:0" }
    node { name: "pinned" op: "Const" device: "/job:worker/task:0" }
    node { name: "d" op: "Bin" input: "x" input: "pinned"
           device: "/job:ps/task:0" }
  )pb");
  REQUIRE_OK(PlaceGraph(Cluster(), g.get()));
  CHECK(g->FindNode("c")->assigned_device_name() == Dev(0, "CPU", 0, "ps"));
  // Consumers on two devices: the Const stays on the default device.
  CHECK(g->FindNode("shared")->assigned_device_name() == Dev(0));
  // Its own request keeps it.
  CHECK(g->FindNode("pinned")->assigned_device_name() == Dev(0));
}

TEST_CASE("Colocation groups from _class and from reference edges") {
  auto g = Import(R"pb(
    node { name: "v" op: "Var" device: "/job:ps/task:0" }
    node { name: "x" op: "Src" }
    node { name: "assign" op: "Assign" input: "v" input: "x" }
    node { name: "y" op: "Src"
           attr { key: "_class" value { list { s: "loc:@v" } } } }
  )pb");
  REQUIRE_OK(PlaceGraph(Cluster(), g.get()));
  REQUIRE(DeviceOf(*g, "assign") == Dev(0, "CPU", 0, "ps"));
  REQUIRE(DeviceOf(*g, "y") == Dev(0, "CPU", 0, "ps"));
  REQUIRE(DeviceOf(*g, "x") == Dev(0));
}

TEST_CASE("A consumer of a reference goes where the variable is") {
  // TensorFlow's rule: replica_device_setter puts Assign on the worker and
  // the variable on a ps task; the reference edge wins.
  auto g = Import(R"pb(
    node { name: "v" op: "Var" device: "/job:ps" }
    node { name: "x" op: "Src" }
    node { name: "assign" op: "Assign" input: "v" input: "x"
           device: "/job:worker/task:1" }
  )pb");
  REQUIRE_OK(PlaceGraph(Cluster(), g.get()));
  REQUIRE(DeviceOf(*g, "assign") == DeviceOf(*g, "v"));
}

TEST_CASE("Conflicting colocated requests name both nodes") {
  auto g = Import(R"pb(
    node { name: "v" op: "Src" device: "/job:ps" }
    node { name: "y" op: "Src" device: "/job:worker/task:1"
           attr { key: "_class" value { list { s: "loc:@v" } } } }
  )pb");
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "'y'"));
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "'v'"));
}
TEST_CASE("Colocation with an unknown node is an error") {
  auto g = Import(R"pb(
    node { name: "y" op: "Src"
           attr { key: "_class" value { list { s: "loc:@ghost" } } } }
  )pb");
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "'ghost'"));
}

TEST_CASE("A request no device matches fails unless soft placement") {
  const std::string text = R"pb(
    node { name: "a" op: "Src" device: "/job:worker/task:7" }
  )pb";
  auto g = Import(text);
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "task:7"));
  PlacerOptions soft = Cluster();
  soft.allow_soft_placement = true;
  REQUIRE_OK(PlaceGraph(soft, g.get()));
  REQUIRE(DeviceOf(*g, "a") == Dev(0));
}

TEST_CASE("A device without a kernel moves the node only under soft placement") {
  const std::string text = R"pb(
    node { name: "x" op: "Src" }
    node { name: "g" op: "GpuOnly" input: "x" device: "/job:worker/task:1/device:CPU:0" }
    node { name: "cpu_on_gpu" op: "Src" device: "/job:worker/task:0/device:GPU:0" }
  )pb";
  auto g = Import(text);
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "no kernel"));
  PlacerOptions soft = Cluster();
  soft.allow_soft_placement = true;
  REQUIRE_OK(PlaceGraph(soft, g.get()));
  REQUIRE(DeviceOf(*g, "g") == Dev(0, "GPU"));
  // The CPU-only node asked for task 0's GPU: it stays on task 0.
  REQUIRE(DeviceOf(*g, "cpu_on_gpu") == Dev(0));
}

TEST_CASE("Malformed device requests are rejected naming the node") {
  auto g = Import(R"pb(node { name: "a" op: "Src" device: "/job:" })pb");
  REQUIRE_THAT(PlaceGraph(Cluster(), g.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'a'"));
}

TEST_CASE("Placement is deterministic") {
  const std::string text = R"pb(
    node { name: "a" op: "Src" device: "/job:worker" }
    node { name: "b" op: "Src" }
    node { name: "c" op: "Bin" input: "a" input: "b" }
    node { name: "d" op: "Bin" input: "c" input: "b" device: "/job:ps" }
  )pb";
  auto g1 = Import(text);
  auto g2 = Import(text);
  REQUIRE_OK(PlaceGraph(Cluster(), g1.get()));
  REQUIRE_OK(PlaceGraph(Cluster(), g2.get()));
  for (Node* n : g1->nodes()) {
    REQUIRE(n->assigned_device_name() == DeviceOf(*g2, n->name()));
  }
}

}  // namespace
}  // namespace dfx

#include "graph/partition.h"

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/client_graph.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

const char kDev0[] = "/job:worker/replica:0/task:0/device:CPU:0";
const char kDev1[] = "/job:worker/replica:0/task:1/device:CPU:0";
const char kDev2[] = "/job:worker/replica:0/task:1/device:CPU:1";
const char kDev3[] = "/job:ps/replica:0/task:0/device:CPU:0";

// Incarnations with the high bit set, so the int64 attr is negative.
uint64_t Incarnation(const std::string& device) {
  return 0x8000000000000000ull | std::hash<std::string>()(device);
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

std::unique_ptr<Graph> Import(const GraphDef& def,
                              const OpRegistry* ops = OpRegistry::Global()) {
  auto g = ImportGraphDef(def, ops);
  REQUIRE_OK(g);
  return std::move(g).value();
}

// Places every node of `g` on its `device` field.
void AssignRequested(Graph* g) {
  for (Node* n : g->nodes()) n->set_assigned_device_name(n->requested_device());
}

PartitionOptions Options() {
  PartitionOptions opts;
  opts.get_incarnation = Incarnation;
  return opts;
}

std::string Attr(const NodeDef& n, const std::string& name) {
  std::string s;
  REQUIRE_OK(GetNodeAttr(n, name, &s));
  return s;
}

// The key built from a _Send/_Recv's attrs, independently of the code under
// test.
std::string KeyOf(const NodeDef& n) {
  std::string send, recv, tensor;
  int64_t inc = 0;
  REQUIRE_OK(GetNodeAttr(n, "send_device", &send));
  REQUIRE_OK(GetNodeAttr(n, "recv_device", &recv));
  REQUIRE_OK(GetNodeAttr(n, "tensor_name", &tensor));
  REQUIRE_OK(GetNodeAttr(n, "send_device_incarnation", &inc));
  return absl::StrCat(send, ";",
                      absl::StrFormat("%016x", static_cast<uint64_t>(inc)),
                      ";", recv, ";", tensor, ";0:0");
}

const NodeDef* FindIn(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> Inputs(const NodeDef& n) {
  return {n.input().begin(), n.input().end()};
}

std::vector<const NodeDef*> OfOp(const GraphDef& def, const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : def.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

// Checks every invariant of Partition's output `parts` for `g` partitioned
// by `loc`, recomputing from `g` what the partitions must hold:
// - the partitions are exactly the locations of g's nodes, each imports on
//   its own (internal names allowed) and keeps g's versions;
// - node names are unique over all partitions; every input of every node
//   names a node of its own partition;
// - each original node sits in its location's partition with its device;
// - inserted nodes are only _Send, _Recv and dummy Consts; inserted _Send and
//   _Recv keys (from attrs) match one to one, with matching dtypes, the
//   incarnation of the send device, client_terminated false, each node's
//   device its send/recv device;
// - every edge of g is there: direct inside a partition; across partitions
//   through a _Recv whose _Send reads the same tensor (or, for a control
//   edge, a Const [0] float that waits for the source); no other inputs;
// - one _Send per (tensor or control source, destination partition), and
//   exactly as many as g's cross-partition edges need; nothing dangles.
void CheckPartitions(const Graph& g,
                     const std::map<std::string, GraphDef>& parts,
                     const std::function<std::string(const Node*)>& loc,
                     const OpRegistry* ops = OpRegistry::Global()) {
  std::set<std::string> locs;
  for (const Node* n : g.nodes()) locs.insert(loc(n));
  std::set<std::string> part_names;
  for (const auto& [name, part] : parts) part_names.insert(name);
  REQUIRE(part_names == locs);

  ImportOptions import_options;
  import_options.allow_internal_names = true;
  std::map<std::string, std::pair<std::string, const NodeDef*>> by_name;
  for (const auto& [name, part] : parts) {
    INFO("partition " << name << ":\n" << part.DebugString());
    REQUIRE_OK(ImportGraphDef(part, ops, import_options));
    CHECK(part.versions().producer() == g.versions().producer());
    for (const NodeDef& n : part.node()) {
      INFO("node " << n.name());
      REQUIRE(by_name.emplace(n.name(), std::make_pair(name, &n)).second);
    }
  }
  for (const auto& [name, part] : parts) {
    for (const NodeDef& n : part.node()) {
      for (const std::string& input : n.input()) {
        ParsedInput parsed;
        REQUIRE_OK(ParseNodeInput(input, &parsed));
        auto it = by_name.find(std::string(parsed.node));
        INFO("node " << n.name() << " input " << input);
        REQUIRE(it != by_name.end());
        REQUIRE(it->second.first == name);
      }
    }
  }

  // Inserted _Send / _Recv pairing.
  std::map<std::string, const NodeDef*> send_by_key;
  std::map<std::string, const NodeDef*> recv_by_key;
  std::set<std::string> consumed;  // names some node takes as an input
  for (const auto& [name, part] : parts) {
    for (const NodeDef& n : part.node()) {
      for (const std::string& input : n.input()) {
        ParsedInput parsed;
        REQUIRE_OK(ParseNodeInput(input, &parsed));
        consumed.insert(std::string(parsed.node));
      }
      if (g.FindNode(n.name()) != nullptr) continue;
      INFO("inserted node " << n.DebugString());
      REQUIRE((n.op() == "_Send" || n.op() == "_Recv" || n.op() == "Const"));
      if (n.op() == "Const") {
        CHECK(n.attr().at("dtype").type() == DT_FLOAT);
        const TensorProto& value = n.attr().at("value").tensor();
        CHECK(value.dtype() == DT_FLOAT);
        REQUIRE(value.tensor_shape().dim_size() == 1);
        CHECK(value.tensor_shape().dim(0).size() == 0);
        CHECK(n.input_size() == 1);
        continue;
      }
      CHECK_FALSE(n.attr().at("client_terminated").b());
      const std::string send_device = Attr(n, "send_device");
      CHECK(n.attr().at("send_device_incarnation").i() ==
            static_cast<int64_t>(Incarnation(send_device)));
      CHECK(absl::StartsWith(Attr(n, "tensor_name"), "edge_"));
      const std::string key = KeyOf(n);
      if (n.op() == "_Send") {
        CHECK(n.device() == send_device);
        REQUIRE(send_by_key.emplace(key, &n).second);
      } else {
        CHECK(n.device() == Attr(n, "recv_device"));
        REQUIRE(recv_by_key.emplace(key, &n).second);
      }
    }
  }
  REQUIRE(send_by_key.size() == recv_by_key.size());
  for (const auto& [key, send] : send_by_key) {
    INFO("key " << key);
    REQUIRE(recv_by_key.count(key) == 1);
    const NodeDef* recv = recv_by_key[key];
    CHECK(send->attr().at("T").type() == recv->attr().at("tensor_type").type());
    // The pair joins two different partitions.
    CHECK(by_name[send->name()].first != by_name[recv->name()].first);
    // Nothing dangles: every _Recv and every dummy Const is read.
    CHECK(consumed.count(recv->name()) == 1);
  }
  for (const auto& [name, entry] : by_name) {
    if (g.FindNode(name) == nullptr && entry.second->op() == "Const") {
      CHECK(consumed.count(name) == 1);
    }
  }

  // Resolves an input of a node in partition `part` to the original tensor
  // (node, output) or control source (node, -1) it stands for, and records
  // the (source, output, destination partition) a cross-partition _Send
  // serves.
  std::map<std::tuple<std::string, int, std::string>, std::string>
      send_for_tensor;
  auto resolve = [&](const std::string& part, const std::string& input,
                     bool* via_recv) -> std::pair<std::string, int> {
    ParsedInput parsed;
    REQUIRE_OK(ParseNodeInput(input, &parsed));
    const std::string node(parsed.node);
    *via_recv = false;
    if (g.FindNode(node) != nullptr) return {node, parsed.index};
    const NodeDef* recv = by_name.at(node).second;
    REQUIRE(recv->op() == "_Recv");
    *via_recv = true;
    const NodeDef* send = send_by_key.at(KeyOf(*recv));
    ParsedInput from;
    REQUIRE_OK(ParseNodeInput(send->input(0), &from));
    std::pair<std::string, int> source;
    if (g.FindNode(from.node) != nullptr) {
      REQUIRE(parsed.index == 0);
      source = {std::string(from.node), from.index};
    } else {
      const NodeDef* dummy = by_name.at(std::string(from.node)).second;
      REQUIRE(dummy->op() == "Const");
      ParsedInput waits;
      REQUIRE_OK(ParseNodeInput(dummy->input(0), &waits));
      REQUIRE(waits.IsControl());
      REQUIRE(g.FindNode(waits.node) != nullptr);
      REQUIRE(parsed.IsControl());
      source = {std::string(waits.node), -1};
    }
    auto [it, inserted] = send_for_tensor.emplace(
        std::make_tuple(source.first, source.second, part), send->name());
    // One _Send per (tensor, destination partition).
    CHECK(it->second == send->name());
    (void)inserted;
    const std::string& src_part = by_name.at(source.first).first;
    CHECK(by_name.at(send->name()).first == src_part);
    CHECK(src_part != part);
    return source;
  };

  std::set<std::tuple<std::string, int, std::string>> needed;
  for (const Node* n : g.nodes()) {
    INFO("original node " << n->name());
    auto it = by_name.find(n->name());
    REQUIRE(it != by_name.end());
    const std::string& part = it->second.first;
    const NodeDef& def = *it->second.second;
    REQUIRE(part == loc(n));
    const std::string device = n->assigned_device_name().empty()
                                   ? loc(n)
                                   : n->assigned_device_name();
    CHECK(def.device() == device);
    CHECK(def.op() == n->type_string());

    std::vector<std::string> data_inputs;
    std::set<std::pair<std::string, int>> control_sources;
    for (const std::string& input : def.input()) {
      if (absl::StartsWith(input, "^")) {
        bool via_recv = false;
        auto source = resolve(part, input, &via_recv);
        CHECK(source.second == -1);
        CHECK(control_sources.insert(source).second);
      } else {
        data_inputs.push_back(input);
      }
    }
    REQUIRE(static_cast<int>(data_inputs.size()) == n->num_inputs());
    std::set<std::pair<std::string, int>> want_control;
    for (const Edge* e : n->in_edges()) {
      const std::string src_loc = loc(e->src);
      if (src_loc != part) {
        needed.emplace(e->src->name(), e->src_output, part);
      }
      if (e->IsControlEdge()) {
        want_control.emplace(e->src->name(), -1);
        continue;
      }
      bool via_recv = false;
      auto source = resolve(part, data_inputs[e->dst_input], &via_recv);
      CHECK(source == std::make_pair(e->src->name(), e->src_output));
      // Wired directly exactly when both ends share a partition.
      CHECK(via_recv == (src_loc != part));
    }
    CHECK(control_sources == want_control);
  }
  CHECK(send_for_tensor.size() == needed.size());
  CHECK(send_by_key.size() == needed.size());
}

std::string AssignedDevice(const Node* n) { return n->assigned_device_name(); }

// a (dev0) feeds b and c on dev1 and d on dev0; c also reads b.
const char* kTwoDevices = R"pb(
  node {
    name: "a" op: "Const" device: "/job:worker/replica:0/task:0/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
  node {
    name: "b" op: "Identity" input: "a"
    device: "/job:worker/replica:0/task:1/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "c" op: "AddV2" input: "a" input: "b"
    device: "/job:worker/replica:0/task:1/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "d" op: "Identity" input: "a"
    device: "/job:worker/replica:0/task:0/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  versions { producer: 27 }
)pb";

TEST_CASE("a tensor crossing to another device goes through one _Send/_Recv "
          "pair however many consumers it has") {
  auto g = Import(Parse(kTwoDevices));
  AssignRequested(g.get());
  auto parts = Partition(*g, Options());
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, AssignedDevice);
  REQUIRE(parts->size() == 2);
  const GraphDef& p0 = parts->at(kDev0);
  const GraphDef& p1 = parts->at(kDev1);

  auto sends = OfOp(p0, "_Send");
  auto recvs = OfOp(p1, "_Recv");
  REQUIRE(sends.size() == 1);
  REQUIRE(recvs.size() == 1);
  CHECK(OfOp(p1, "_Send").empty());
  CHECK(OfOp(p0, "_Recv").empty());
  const NodeDef& send = *sends[0];
  const NodeDef& recv = *recvs[0];

  // The first edge out of `a` to dev1 is a -> b.
  int first_edge = -1;
  for (const Edge* e : g->FindNode("b")->in_edges()) first_edge = e->id;
  const std::string tensor_name = absl::StrCat("edge_", first_edge, "_a");
  CHECK(Inputs(send) == std::vector<std::string>{"a"});
  CHECK(send.device() == kDev0);
  CHECK(send.attr().at("T").type() == DT_FLOAT);
  CHECK(Attr(send, "tensor_name") == tensor_name);
  CHECK(Attr(send, "send_device") == kDev0);
  CHECK(Attr(send, "recv_device") == kDev1);
  CHECK(send.attr().at("send_device_incarnation").i() ==
        static_cast<int64_t>(Incarnation(kDev0)));
  CHECK(recv.device() == kDev1);
  CHECK(recv.attr().at("tensor_type").type() == DT_FLOAT);
  CHECK(Attr(recv, "tensor_name") == tensor_name);
  CHECK(Inputs(*FindIn(p1, "b")) == std::vector<std::string>{recv.name()});
  CHECK(Inputs(*FindIn(p1, "c")) ==
        std::vector<std::string>{recv.name(), "b"});
  // Same-partition consumer reads `a` directly.
  CHECK(Inputs(*FindIn(p0, "d")) == std::vector<std::string>{"a"});
  // Default names: "<source>/_<n>".
  CHECK(absl::StartsWith(send.name(), "a/_"));
  CHECK(absl::StartsWith(recv.name(), "a/_"));

  // The key the runtime's _Send/_Recv kernels will use.
  auto key = SendRecvRendezvousKey(send);
  REQUIRE_OK(key);
  CHECK(*key == absl::StrCat(kDev0, ";",
                             absl::StrFormat("%016x", Incarnation(kDev0)), ";",
                             kDev1, ";", tensor_name, ";0:0"));
  CHECK(*SendRecvRendezvousKey(recv) == *key);
}

TEST_CASE("SendRecvRendezvousKey writes TensorFlow's key format") {
  CHECK(SendRecvRendezvousKey(kDev1, 123456789, kDev0, "edge_7_add") ==
        "/job:worker/replica:0/task:1/device:CPU:0;00000000075bcd15;"
        "/job:worker/replica:0/task:0/device:CPU:0;edge_7_add;0:0");
  NodeDef n;
  n.set_name("x");
  n.set_op("Identity");
  CHECK_THAT(SendRecvRendezvousKey(n).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'x'"));
  n.set_op("_Recv");
  CHECK_FALSE(SendRecvRendezvousKey(n).ok());
}

const char* kControl = R"pb(
  node {
    name: "a" op: "Const" device: "/job:worker/replica:0/task:0/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
  node {
    name: "b" op: "Const" input: "^a"
    device: "/job:worker/replica:0/task:1/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } }
  }
  node {
    name: "n" op: "NoOp" input: "^a" input: "^b"
    device: "/job:worker/replica:0/task:1/device:CPU:0"
  }
)pb";

TEST_CASE("a control edge across devices becomes a dummy Const sent to a "
          "_Recv the destination waits for") {
  auto g = Import(Parse(kControl));
  AssignRequested(g.get());
  auto parts = Partition(*g, Options());
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, AssignedDevice);
  const GraphDef& p0 = parts->at(kDev0);
  const GraphDef& p1 = parts->at(kDev1);

  // One dummy per (source, destination partition), shared by b and n.
  auto consts = OfOp(p0, "Const");
  REQUIRE(consts.size() == 2);  // a and its dummy
  const NodeDef* dummy = consts[0]->name() == "a" ? consts[1] : consts[0];
  CHECK(Inputs(*dummy) == std::vector<std::string>{"^a"});
  CHECK(dummy->device() == kDev0);
  CHECK(dummy->attr().at("value").tensor().tensor_shape().dim(0).size() == 0);
  auto sends = OfOp(p0, "_Send");
  REQUIRE(sends.size() == 1);
  CHECK(Inputs(*sends[0]) == std::vector<std::string>{dummy->name()});
  CHECK(sends[0]->attr().at("T").type() == DT_FLOAT);
  auto recvs = OfOp(p1, "_Recv");
  REQUIRE(recvs.size() == 1);
  const std::string wait = absl::StrCat("^", recvs[0]->name());
  CHECK(Inputs(*FindIn(p1, "b")) == std::vector<std::string>{wait});
  CHECK(Inputs(*FindIn(p1, "n")) == std::vector<std::string>{wait, "^b"});
}

TEST_CASE("a reference output is sent by value") {
  static OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterStandardOps(r));
    DFX_CHECK_OK(r->Register(OpDefBuilder("RefSrc").Output("ref: Ref(float)")));
    return r;
  }();
  auto g = Import(Parse(R"pb(
    node { name: "v" op: "RefSrc" device: "/job:worker/replica:0/task:0/device:CPU:0" }
    node {
      name: "r" op: "Identity" input: "v"
      device: "/job:worker/replica:0/task:1/device:CPU:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb"),
                  ops);
  AssignRequested(g.get());
  auto parts = Partition(*g, Options());
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, AssignedDevice, ops);
  auto sends = OfOp(parts->at(kDev0), "_Send");
  REQUIRE(sends.size() == 1);
  CHECK(sends[0]->attr().at("T").type() == DT_FLOAT);
  CHECK(OfOp(parts->at(kDev1), "_Recv")[0]->attr().at("tensor_type").type() ==
        DT_FLOAT);
}

TEST_CASE("one device gives one partition with no _Send or _Recv") {
  GraphDef def = Parse(kTwoDevices);
  for (NodeDef& n : *def.mutable_node()) n.set_device(kDev2);
  auto g = Import(def);
  AssignRequested(g.get());
  PartitionOptions opts;  // no incarnations needed
  auto parts = Partition(*g, opts);
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, AssignedDevice);
  REQUIRE(parts->size() == 1);
  CHECK(parts->at(kDev2).node_size() == 4);
  for (const NodeDef& n : parts->at(kDev2).node()) CHECK(n.device() == kDev2);
}

TEST_CASE("partition errors name the node") {
  auto g = Import(Parse(kTwoDevices));
  AssignRequested(g.get());
  g->FindNode("c")->set_assigned_device_name("");
  CHECK_THAT(Partition(*g, Options()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'c'"));

  AssignRequested(g.get());
  CHECK_THAT(Partition(*g, PartitionOptions{}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "get_incarnation"));

  PartitionOptions opts = Options();
  opts.node_to_loc = [](const Node* n) {
    return n->name() == "d" ? std::string() : n->assigned_device_name();
  };
  CHECK_THAT(Partition(*g, opts).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'd'"));

  opts = Options();
  opts.new_name = [](const std::string&) { return std::string("b"); };
  CHECK_THAT(Partition(*g, opts).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'b'"));
}

TEST_CASE("generated names skip names the graph already holds") {
  GraphDef def = Parse(kTwoDevices);
  // Nodes named like the default generator's first outputs.
  for (const char* name : {"a/_0", "a/_1"}) {
    NodeDef* n = def.add_node();
    n->set_name(name);
    n->set_op("NoOp");
    n->set_device(kDev0);
  }
  auto g = Import(def);
  AssignRequested(g.get());
  auto parts = Partition(*g, Options());
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, AssignedDevice);
  CHECK(OfOp(parts->at(kDev0), "_Send")[0]->name() == "a/_2");
  CHECK(OfOp(parts->at(kDev1), "_Recv")[0]->name() == "a/_3");
}

TEST_CASE("custom locations and names: partition by task") {
  GraphDef def = Parse(kTwoDevices);
  def.mutable_node(2)->set_device(kDev2);  // c on task 1, CPU:1
  auto g = Import(def);
  AssignRequested(g.get());
  PartitionOptions opts = Options();
  opts.node_to_loc = [](const Node* n) {
    return n->assigned_device_name().substr(
        0, n->assigned_device_name().find("/device:"));
  };
  int counter = 0;
  opts.new_name = [&counter](const std::string& prefix) {
    return absl::StrCat(prefix, "/_S", counter++);
  };
  auto parts = Partition(*g, opts);
  REQUIRE_OK(parts);
  CheckPartitions(*g, *parts, opts.node_to_loc);
  REQUIRE(parts->size() == 2);
  const GraphDef& task1 = parts->at("/job:worker/replica:0/task:1");
  // b and c share the task: b -> c is wired directly, a crosses once.
  CHECK(Inputs(*FindIn(task1, "c"))[1] == "b");
  CHECK(FindIn(task1, "c")->device() == kDev2);
  auto recvs = OfOp(task1, "_Recv");
  REQUIRE(recvs.size() == 1);
  CHECK(recvs[0]->name() == "a/_S1");
  CHECK(OfOp(parts->at("/job:worker/replica:0/task:0"), "_Send")[0]->name() ==
        "a/_S0");
}

TEST_CASE("partition output is deterministic") {
  auto g = Import(Parse(kTwoDevices));
  AssignRequested(g.get());
  auto a = Partition(*g, Options());
  auto b = Partition(*g, Options());
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE(a->size() == b->size());
  for (const auto& [name, part] : *a) {
    CHECK(part.DebugString() == b->at(name).DebugString());
  }
}

// A random DAG of Const / Identity / AddV2 / NoOp nodes with random data and
// control edges to earlier nodes, each node on one of `num_devices` devices.
GraphDef RandomDag(std::mt19937* rng, int num_nodes, int num_devices) {
  const std::vector<std::string> devices = {kDev0, kDev1, kDev2, kDev3};
  auto uniform = [rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  GraphDef def;
  std::vector<std::string> producers;  // nodes with a float output
  for (int i = 0; i < num_nodes; ++i) {
    NodeDef* n = def.add_node();
    n->set_name(absl::StrCat("n", i));
    n->set_device(devices[uniform(0, num_devices - 1)]);
    int kind = uniform(0, 3);
    if (producers.empty() && kind != 3) kind = 0;
    switch (kind) {
      case 0: {
        n->set_op("Const");
        (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
        TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
        t->set_dtype(DT_FLOAT);
        t->add_float_val(static_cast<float>(i));
        break;
      }
      case 1:
      case 2:
        n->set_op(kind == 1 ? "Identity" : "AddV2");
        (*n->mutable_attr())["T"].set_type(DT_FLOAT);
        for (int k = 0; k < kind; ++k) {
          n->add_input(producers[uniform(0, producers.size() - 1)]);
        }
        break;
      default:
        n->set_op("NoOp");
    }
    if (i > 0) {
      const int controls = uniform(0, 2);
      std::set<int> from;
      for (int k = 0; k < controls; ++k) from.insert(uniform(0, i - 1));
      for (int f : from) n->add_input(absl::StrCat("^n", f));
    }
    if (n->op() != "NoOp") producers.push_back(n->name());
  }
  return def;
}

TEST_CASE("random DAGs on 1-4 devices partition with every invariant") {
  std::mt19937 rng(20240611);
  int crossing_graphs = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const int num_nodes = std::uniform_int_distribution<int>(5, 40)(rng);
    const int num_devices = std::uniform_int_distribution<int>(1, 4)(rng);
    const GraphDef def = RandomDag(&rng, num_nodes, num_devices);
    INFO("trial " << trial << ":\n" << def.DebugString());
    auto g = Import(def);
    AssignRequested(g.get());
    auto parts = Partition(*g, Options());
    REQUIRE_OK(parts);
    CheckPartitions(*g, *parts, AssignedDevice);
    for (const auto& [name, part] : *parts) {
      if (!OfOp(part, "_Send").empty()) {
        ++crossing_graphs;
        break;
      }
    }
  }
  // The sample exercises the cut, not just single-device graphs.
  CHECK(crossing_graphs >= 25);
}

TEST_CASE("a pruned client graph partitions with its client endpoints") {
  const std::string client = "/job:localhost/replica:0/task:0/device:CPU:0";
  auto g = Import(Parse(kTwoDevices));
  AssignRequested(g.get());
  ClientGraphOptions copts;
  copts.feeds = {"a"};
  copts.fetches = {"c"};
  copts.client_device = client;
  copts.client_device_incarnation = Incarnation(client);
  auto step = RewriteForStep(*g, copts);
  REQUIRE_OK(step);
  auto parts = Partition(**step, Options());
  REQUIRE_OK(parts);
  CheckPartitions(**step, *parts, AssignedDevice);
  // Client partition: the feed _Recv and fetch _Send, plus the cut's pairs.
  REQUIRE(parts->count(client) == 1);
  REQUIRE(parts->count(kDev0) == 0);  // a and d are pruned
  const GraphDef& cp = parts->at(client);
  auto keys = ClientStepRendezvousKeys(copts);
  REQUIRE_OK(keys);
  const NodeDef* feed = FindIn(cp, "_recv_a_0");
  const NodeDef* fetch = FindIn(cp, "_send_c_0");
  REQUIRE(feed != nullptr);
  REQUIRE(fetch != nullptr);
  CHECK(KeyOf(*feed) == keys->feed_keys[0]);
  CHECK(KeyOf(*fetch) == keys->fetch_keys[0]);
  // The fed value goes client -> dev1 once; c's value comes back once.
  CHECK(OfOp(cp, "_Send").size() == 2);
  CHECK(OfOp(cp, "_Recv").size() == 2);
}

}  // namespace
}  // namespace dfx

// The "local" session over several CPU devices: graphs whose nodes carry
// `device` fields are partitioned, run through the step's rendezvous, and
// give exactly the results of one device; errors, deadlines and Close end
// every partition of the step.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "master/local_session.h"
#include "runtime/cancellation.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::BlockUntilCancelledOp;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

constexpr char kTask[] = "/job:localhost/replica:0/task:0";

std::string Dev(int i) { return absl::StrCat(kTask, "/device:CPU:", i); }

std::unique_ptr<LocalSession> NewSession(int num_devices,
                                         SessionOptions options = {}) {
  (*options.config.mutable_device_count())["CPU"] = num_devices;
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  DFX_CHECK_OK(s.status());
  return std::move(s).value();
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// Waits (bounded) for an async call.
template <typename F>
absl::Status WithinMinute(F&& f) {
  auto future = std::async(std::launch::async, std::forward<F>(f));
  REQUIRE(future.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  return future.get();
}

std::vector<float> Values(const Tensor& t) {
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

// ---------------------------------------------------------------------------
// Building graphs node by node.

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

AttrValue FloatTensorAttr(const std::vector<int64_t>& shape,
                          const std::vector<float>& values) {
  AttrValue v;
  TensorProto* t = v.mutable_tensor();
  t->set_dtype(DT_FLOAT);
  for (int64_t d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
  for (float f : values) t->add_float_val(f);
  return v;
}

NodeDef* AddNode(GraphDef* def, const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs,
                 const std::string& device = "") {
  NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  n->set_device(device);
  return n;
}

NodeDef* AddConst(GraphDef* def, const std::string& name,
                  const std::vector<int64_t>& shape,
                  const std::vector<float>& values,
                  const std::string& device = "") {
  NodeDef* n = AddNode(def, name, "Const", {}, device);
  (*n->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  (*n->mutable_attr())["value"] = FloatTensorAttr(shape, values);
  return n;
}

NodeDef* AddFloatOp(GraphDef* def, const std::string& name,
                    const std::string& op,
                    const std::vector<std::string>& inputs,
                    const std::string& device = "") {
  NodeDef* n = AddNode(def, name, op, inputs, device);
  (*n->mutable_attr())["T"] = TypeAttr(DT_FLOAT);
  return n;
}

GraphDef WithoutDevices(GraphDef def) {
  for (NodeDef& n : *def.mutable_node()) n.clear_device();
  return def;
}

// ---------------------------------------------------------------------------

TEST_CASE("a graph spread over 4 devices gives the single-device results") {
  GraphDef def;
  NodeDef* x = AddNode(&def, "x", "Placeholder", {}, Dev(1));
  (*x->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  AddConst(&def, "c", {3}, {1, -2, 3}, "/device:CPU:2");
  AddFloatOp(&def, "y", "Mul", {"x", "c"}, Dev(2));
  AddFloatOp(&def, "z", "AddV2", {"y", "x"}, Dev(3));
  AddFloatOp(&def, "w", "Neg", {"z", "^c"}, Dev(0));
  AddFloatOp(&def, "v", "Maximum", {"w", "c"}, "/device:CPU:1");
  AddFloatOp(&def, "u", "Identity", {"v"});  // unconstrained

  const Tensor feed = Tensor::FromVector<float>({0.5f, 4, -1});
  const std::vector<std::string> fetches = {"u", "w:0", "y", "x"};
  std::vector<Tensor> one_out, four_out;
  auto one = NewSession(1);
  REQUIRE_OK(one->Extend(WithoutDevices(def)));
  REQUIRE_OK(one->Run({{"x", feed}}, fetches, {}, &one_out));
  auto four = NewSession(4);
  REQUIRE_OK(four->Extend(def));
  REQUIRE_OK(four->Run({{"x", feed}}, fetches, {}, &four_out));

  REQUIRE(four_out.size() == 4);
  // y = x*c = [0.5, -8, -3]; z = y+x = [1, -4, -4]; w = -z; v = max(w, c).
  CHECK(Values(four_out[0]) == std::vector<float>{1, 4, 4});
  CHECK(Values(four_out[1]) == std::vector<float>{-1, 4, 4});
  CHECK(Values(four_out[2]) == std::vector<float>{0.5f, -8, -3});
  CHECK(Values(four_out[3]) == std::vector<float>{0.5f, 4, -1});
  for (size_t i = 0; i < fetches.size(); ++i) {
    CHECK(Values(four_out[i]) == Values(one_out[i]));
    CHECK(four_out[i].shape() == one_out[i].shape());
  }
}

TEST_CASE("feeds and fetches travel through the rendezvous without a copy") {
  auto session = NewSession(2);
  GraphDef def;
  NodeDef* x = AddNode(&def, "x", "Placeholder", {}, Dev(1));
  (*x->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  AddFloatOp(&def, "y", "Identity", {"x"}, Dev(1));
  REQUIRE_OK(session->Extend(def));
  const Tensor feed = Tensor::FromVector<float>({1, 2, 3, 4});
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({{"x", feed}}, {"x", "y"}, {}, &out));
  REQUIRE(out.size() == 2);
  CHECK(out[0].SharesBufferWith(feed));
  CHECK(out[1].SharesBufferWith(feed));
}

// ---------------------------------------------------------------------------
// Property: random DAGs give the same results on 4 devices as on 1, and
// both match a direct evaluation.

// A value of shape [], [3] or [2,3]; each shape is a suffix of the larger
// ones, so element k of a broadcast result reads element k % size of each
// operand.
struct Value {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

Value Broadcast(const Value& a, const Value& b, float (*f)(float, float)) {
  Value out;
  out.shape = a.shape.size() >= b.shape.size() ? a.shape : b.shape;
  const size_t n = std::max(a.data.size(), b.data.size());
  for (size_t k = 0; k < n; ++k) {
    out.data.push_back(f(a.data[k % a.data.size()], b.data[k % b.data.size()]));
  }
  return out;
}

TensorShape Shape(const std::vector<int64_t>& dims) {
  auto shape = TensorShape::Build(dims);
  DFX_CHECK_OK(shape.status());
  return *shape;
}

struct RandomCase {
  GraphDef def;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::vector<Value> expected;
};

RandomCase MakeRandomCase(int index, std::mt19937* rng) {
  auto uniform = [rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  const std::vector<std::vector<int64_t>> shapes = {{}, {3}, {2, 3}};
  auto random_value = [&] {
    Value v;
    v.shape = shapes[uniform(0, 2)];
    int64_t n = 1;
    for (int64_t d : v.shape) n *= d;
    for (int64_t k = 0; k < n; ++k) v.data.push_back(0.5f * uniform(-4, 4));
    return v;
  };

  RandomCase c;
  const int num_devices = uniform(1, 4);
  const int num_nodes = uniform(3, 12);
  std::vector<std::string> names;
  std::vector<Value> values;
  std::vector<int> consts;
  std::map<int, Value> fed;
  const std::string prefix = absl::StrCat("g", index, "_");
  for (int i = 0; i < num_nodes; ++i) {
    const std::string name = absl::StrCat(prefix, "n", i);
    std::string device;
    switch (uniform(0, 3)) {
      case 0:
        break;  // unconstrained
      case 1:
        device = absl::StrCat("/device:CPU:", uniform(0, num_devices - 1));
        break;
      default:
        device = Dev(uniform(0, num_devices - 1));
    }
    const int kind = i < 2 ? 0 : uniform(0, 5);
    NodeDef* node;
    Value v;
    std::vector<int> data_inputs;
    if (kind == 0) {
      v = random_value();
      node = AddConst(&c.def, name, v.shape, v.data, device);
      consts.push_back(i);
    } else {
      static const char* kUnary[] = {"Identity", "Neg"};
      static const char* kBinary[] = {"AddV2", "Mul", "Maximum"};
      const bool unary = kind <= 2;
      const std::string op =
          unary ? kUnary[kind - 1] : kBinary[kind - 3];
      data_inputs.push_back(uniform(0, i - 1));
      if (!unary) data_inputs.push_back(uniform(0, i - 1));
      std::vector<std::string> inputs;
      for (int in : data_inputs) {
        inputs.push_back(uniform(0, 1) ? names[in]
                                       : absl::StrCat(names[in], ":0"));
      }
      node = AddFloatOp(&c.def, name, op, inputs, device);
      const Value& a = values[data_inputs[0]];
      if (op == "Identity") {
        v = a;
      } else if (op == "Neg") {
        v = a;
        for (float& f : v.data) f = -f;
      } else {
        const Value& b = values[data_inputs[1]];
        v = Broadcast(a, b,
                      op == "AddV2" ? +[](float x, float y) { return x + y; }
                      : op == "Mul" ? +[](float x, float y) { return x * y; }
                                    : +[](float x, float y) {
                                        return std::max(x, y);
                                      });
      }
    }
    // A random control edge from an earlier node that is not an input.
    if (i > 0 && uniform(0, 2) == 0) {
      const int from = uniform(0, i - 1);
      if (std::find(data_inputs.begin(), data_inputs.end(), from) ==
          data_inputs.end()) {
        node->add_input(absl::StrCat("^", names[from]));
      }
    }
    // A fed Const replaces its value for everything downstream.
    if (kind == 0 && i >= 2 && uniform(0, 1) == 0) {
      Value replacement = v;
      for (float& f : replacement.data) f = 0.25f * uniform(-8, 8);
      c.feeds.emplace_back(
          name, Tensor::FromVector<float>(
                    replacement.data, Shape(replacement.shape)));
      v = replacement;
    }
    names.push_back(name);
    values.push_back(v);
  }
  if (c.feeds.empty() && uniform(0, 1) == 0) {
    // Feed one of the first two constants.
    const int i = uniform(0, 1);
    Value replacement = values[i];
    for (float& f : replacement.data) f = 0.25f * uniform(-8, 8);
    c.feeds.emplace_back(names[i],
                         Tensor::FromVector<float>(
                             replacement.data, Shape(replacement.shape)));
    // Re-evaluate everything downstream: rebuild from the GraphDef order.
    values[i] = replacement;
    for (int j = i + 1; j < num_nodes; ++j) {
      const NodeDef& n = c.def.node(j);
      if (n.op() == "Const") continue;
      std::vector<int> ins;
      for (const std::string& in : n.input()) {
        if (in[0] == '^') continue;
        std::string node_name = in.substr(0, in.find(':'));
        ins.push_back(static_cast<int>(
            std::find(names.begin(), names.end(), node_name) - names.begin()));
      }
      const Value& a = values[ins[0]];
      Value v;
      if (n.op() == "Identity") {
        v = a;
      } else if (n.op() == "Neg") {
        v = a;
        for (float& f : v.data) f = -f;
      } else {
        const Value& b = values[ins[1]];
        v = Broadcast(a, b,
                      n.op() == "AddV2"
                          ? +[](float x, float y) { return x + y; }
                      : n.op() == "Mul" ? +[](float x, float y) { return x * y; }
                                        : +[](float x, float y) {
                                            return std::max(x, y);
                                          });
      }
      values[j] = v;
    }
  }
  std::set<int> picked;
  const int num_fetches = uniform(1, 3);
  for (int k = 0; k < num_fetches; ++k) picked.insert(uniform(0, num_nodes - 1));
  for (int i : picked) {
    c.fetches.push_back(uniform(0, 1) ? names[i] : absl::StrCat(names[i], ":0"));
    c.expected.push_back(values[i]);
  }
  if (uniform(0, 2) == 0) c.targets.push_back(names[uniform(0, num_nodes - 1)]);
  return c;
}

TEST_CASE("property: 30 random DAGs give on 4 devices exactly the results "
          "of 1 device") {
  std::mt19937 rng(20240601);
  auto one = NewSession(1);
  auto four = NewSession(4);
  for (int index = 0; index < 30; ++index) {
    RandomCase c = MakeRandomCase(index, &rng);
    INFO("case " << index << ":\n" << c.def.DebugString());
    REQUIRE_OK(one->Extend(WithoutDevices(c.def)));
    REQUIRE_OK(four->Extend(c.def));
    std::vector<Tensor> one_out, four_out;
    REQUIRE_OK(one->Run(c.feeds, c.fetches, c.targets, &one_out));
    REQUIRE_OK(four->Run(c.feeds, c.fetches, c.targets, &four_out));
    REQUIRE(one_out.size() == c.fetches.size());
    REQUIRE(four_out.size() == c.fetches.size());
    for (size_t k = 0; k < c.fetches.size(); ++k) {
      INFO("fetch " << c.fetches[k]);
      CHECK(four_out[k].shape() == one_out[k].shape());
      CHECK(Values(four_out[k]) == Values(one_out[k]));
      CHECK(four_out[k].shape() == Shape(c.expected[k].shape));
      CHECK(Values(four_out[k]) == c.expected[k].data);
    }
  }
}

// ---------------------------------------------------------------------------

const char* kFailingGraph = R"pb(
  node {
    name: "c"
    op: "Const"
    device: "/device:CPU:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 6 } }
          float_val: [ 1, 2, 3, 4, 5, 6 ]
        }
      }
    }
  }
  node {
    name: "s"
    op: "Placeholder"
    device: "/device:CPU:1"
    attr { key: "dtype" value { type: DT_INT32 } }
  }
  node {
    name: "r"
    op: "Reshape"
    input: "c"
    input: "s"
    device: "/device:CPU:1"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tshape" value { type: DT_INT32 } }
  }
  node {
    name: "out"
    op: "Identity"
    input: "r"
    device: "/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "b"
    op: "Const"
    device: "/device:CPU:2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } }
    }
  }
  node {
    name: "block"
    op: "BlockUntilCancelled"
    input: "b"
    device: "/device:CPU:2"
  }
  node {
    name: "block_out"
    op: "Identity"
    input: "block"
    device: "/device:CPU:3"
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

TEST_CASE("an error in one partition ends the step with that node's error") {
  auto session = NewSession(4);
  REQUIRE_OK(session->Extend(Parse(kFailingGraph)));
  std::vector<Tensor> out;
  // CPU:1 fails, CPU:0 waits for its tensor, CPU:2 blocks until cancelled
  // and CPU:3 waits for CPU:2: the step must still end.
  CHECK_THAT(WithinMinute([&] {
               return session->Run(
                   {{"s", Tensor::FromVector<int32_t>({4})}},
                   {"out", "block_out"}, {}, &out);
             }),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'r' (op Reshape)"));
  // The session is still usable, with a good shape.
  REQUIRE_OK(WithinMinute([&] {
    return session->Run({{"s", Tensor::FromVector<int32_t>({2, 3})}}, {"out"},
                        {}, &out);
  }));
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape() == TensorShape({2, 3}));
  CHECK(Values(out[0]) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // Closing waits for every worker call of the failed step; it returns.
  REQUIRE_OK(WithinMinute([&] {
    session.reset();
    return absl::OkStatus();
  }));
}

TEST_CASE("300 concurrent steps from 8 threads on 4 devices") {
  GraphDef def;
  NodeDef* x = AddNode(&def, "x", "Placeholder", {}, Dev(1));
  (*x->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  AddConst(&def, "c", {3}, {1, 2, 3}, Dev(2));
  AddFloatOp(&def, "y", "Mul", {"x", "c"}, Dev(2));
  AddFloatOp(&def, "z", "AddV2", {"y", "x"}, Dev(3));
  AddFloatOp(&def, "w", "Neg", {"z"}, Dev(0));
  AddFloatOp(&def, "v", "Maximum", {"w", "c"}, Dev(1));
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(4);
  auto session = NewSession(4, options);
  REQUIRE_OK(session->Extend(def));

  constexpr int kThreads = 8;
  constexpr int kSteps = 300;
  std::atomic<int> next{0};
  std::vector<std::future<int>> failures;
  for (int t = 0; t < kThreads; ++t) {
    failures.push_back(std::async(std::launch::async, [&] {
      int bad = 0;
      for (int i = next.fetch_add(1); i < kSteps; i = next.fetch_add(1)) {
        const float a = static_cast<float>(i);
        const float b = static_cast<float>(-i) / 4;
        const float d = 0.5f;
        const Tensor feed = Tensor::FromVector<float>({a, b, d});
        std::vector<Tensor> out;
        // Two signatures share the cache.
        const bool both = i % 2 == 0;
        std::vector<std::string> fetches = {"w"};
        if (both) fetches.push_back("v");
        if (!session->Run({{"x", feed}}, fetches, {}, &out).ok() ||
            out.size() != fetches.size()) {
          ++bad;
          continue;
        }
        // z = x*c + x, w = -z, v = max(w, c).
        const std::vector<float> w = {-(a * 1 + a), -(b * 2 + b),
                                      -(d * 3 + d)};
        if (Values(out[0]) != w) ++bad;
        if (both && Values(out[1]) != std::vector<float>{
                                          std::max(w[0], 1.0f),
                                          std::max(w[1], 2.0f),
                                          std::max(w[2], 3.0f)}) {
          ++bad;
        }
      }
      return bad;
    }));
  }
  for (auto& f : failures) {
    REQUIRE(f.wait_for(std::chrono::seconds(120)) == std::future_status::ready);
    CHECK(f.get() == 0);
  }
}

TEST_CASE("RunMetadata shows the partition graphs with _Send/_Recv pairs") {
  GraphDef def;
  AddConst(&def, "a", {2}, {1, 2}, Dev(0));
  AddFloatOp(&def, "b", "Neg", {"a"}, Dev(1));
  AddFloatOp(&def, "c", "AddV2", {"a", "b"}, Dev(2));
  // Unoptimized: constant folding would leave one partition.
  SessionOptions session_options;
  session_options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  auto session = NewSession(4, session_options);
  REQUIRE_OK(session->Extend(def));
  RunOptions options;
  options.set_output_partition_graphs(true);
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run(options, {}, {"c"}, {}, &out, &metadata));
  CHECK(Values(out[0]) == std::vector<float>{0, 0});

  REQUIRE(metadata.partition_graphs_size() == 3);
  // tensor_name -> (send device, recv device) as the nodes say, and the
  // partition each lives in.
  std::map<std::string, std::string> send_at, recv_at;
  std::set<std::string> devices;
  for (const GraphDef& g : metadata.partition_graphs()) {
    REQUIRE(g.node_size() > 0);
    const std::string device = g.node(0).device();
    devices.insert(device);
    for (const NodeDef& n : g.node()) {
      CHECK(n.device() == device);
      if (n.op() != "_Send" && n.op() != "_Recv") continue;
      if (n.attr().at("client_terminated").b()) continue;
      const std::string& tensor = n.attr().at("tensor_name").s();
      if (n.op() == "_Send") {
        CHECK(n.attr().at("send_device").s() == device);
        send_at[tensor] = device;
      } else {
        CHECK(n.attr().at("recv_device").s() == device);
        recv_at[tensor] = device;
      }
    }
  }
  CHECK(devices == std::set<std::string>{Dev(0), Dev(1), Dev(2)});
  // a: CPU:0 -> CPU:1 and CPU:2; b: CPU:1 -> CPU:2; c: CPU:2 -> CPU:0 (the
  // client's device).
  CHECK(send_at.size() == 4);
  REQUIRE(recv_at.size() == send_at.size());
  for (const auto& [tensor, device] : send_at) {
    REQUIRE(recv_at.count(tensor) == 1);
    CHECK(recv_at[tensor] != device);
  }
  // Every partition's step stats come back, by device.
  std::set<std::string> stat_devices;
  for (const DeviceStepStats& d : metadata.step_stats().dev_stats()) {
    stat_devices.insert(d.device());
  }
  CHECK(stat_devices == devices);

  // Not asked for: none.
  RunMetadata none;
  REQUIRE_OK(session->Run(RunOptions(), {}, {"c"}, {}, &out, &none));
  CHECK(none.partition_graphs_size() == 0);
  CHECK(none.step_stats().dev_stats_size() == 0);
}

const char* kBlockingGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    device: "/device:CPU:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node { name: "block" op: "BlockUntilCancelled" input: "x"
         device: "/device:CPU:3" }
  node {
    name: "y"
    op: "Identity"
    input: "block"
    device: "/device:CPU:2"
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

TEST_CASE("a multi-device step past its deadline returns DeadlineExceeded") {
  auto session = NewSession(4);
  REQUIRE_OK(session->Extend(Parse(kBlockingGraph)));
  RunOptions options;
  options.set_timeout_in_ms(30);
  std::vector<Tensor> out;
  CHECK_THAT(WithinMinute([&] {
               return session->Run(options, {{"x", Tensor::Scalar<float>(1)}},
                                   {"y"}, {}, &out, nullptr);
             }),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
  // The session still runs steps.
  REQUIRE_OK(session->Run({{"x", Tensor::Scalar<float>(2)}}, {"x"}, {}, &out));
  CHECK(out[0].scalar<float>() == 2.0f);
}

TEST_CASE("Close cancels a blocked multi-device step") {
  auto session = NewSession(4);
  REQUIRE_OK(session->Extend(Parse(kBlockingGraph)));
  const int before = BlockUntilCancelledOp::started.load();
  std::vector<Tensor> out;
  auto running = std::async(std::launch::async, [&] {
    return session->Run({{"x", Tensor::Scalar<float>(1)}}, {"y"}, {}, &out);
  });
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (BlockUntilCancelledOp::started.load() == before &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  REQUIRE(BlockUntilCancelledOp::started.load() > before);
  REQUIRE_OK(session->Close());
  REQUIRE(running.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  CHECK_THAT(running.get(), StatusIs(absl::StatusCode::kCancelled));
  CHECK_THAT(session->Run({{"x", Tensor::Scalar<float>(1)}}, {"x"}, {}, &out),
             StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("ListDevices lists the 4 devices") {
  auto session = NewSession(4);
  auto devices = session->ListDevices();
  REQUIRE_OK(devices);
  REQUIRE(devices->size() == 4);
  for (int i = 0; i < 4; ++i) CHECK((*devices)[i].name() == Dev(i));
}

}  // namespace
}  // namespace dfx

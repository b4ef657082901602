// Variables end to end through the "local" session: resource variables
// (VarHandleOp, ReadVariableOp, Assign*VariableOp, ResourceGather/Scatter),
// reference variables (VariableV2, Assign, AssignAdd, Scatter*, reference
// edges read by plain consumers, also across devices), the lifetime of state
// across steps, and stateful kernels shared by every graph of a session.
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "master/local_session.h"
#include "proto/graph.pb.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

// A small GraphDef writer for these tests.
class G {
 public:
  NodeDef* Add(const std::string& name, const std::string& op,
               std::vector<std::string> inputs = {},
               const std::string& device = "") {
    NodeDef* n = def_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (std::string& in : inputs) n->add_input(std::move(in));
    if (!device.empty()) n->set_device(device);
    return n;
  }
  static void Type(NodeDef* n, const std::string& attr, DataType t) {
    (*n->mutable_attr())[attr].set_type(t);
  }
  static void Bool(NodeDef* n, const std::string& attr, bool b) {
    (*n->mutable_attr())[attr].set_b(b);
  }
  static void Str(NodeDef* n, const std::string& attr, const std::string& s) {
    (*n->mutable_attr())[attr].set_s(s);
  }
  static void Shape(NodeDef* n, std::vector<int64_t> dims) {
    auto* shape = (*n->mutable_attr())["shape"].mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_size(d);
  }
  void FloatConst(const std::string& name, std::vector<float> values,
                  const std::string& device = "") {
    NodeDef* n = Add(name, "Const", {}, device);
    Type(n, "dtype", DT_FLOAT);
    Tensor::FromVector<float>(values).AsProtoTensorContent(
        (*n->mutable_attr())["value"].mutable_tensor());
  }
  void IntConst(const std::string& name, std::vector<int32_t> values) {
    NodeDef* n = Add(name, "Const");
    Type(n, "dtype", DT_INT32);
    Tensor::FromVector<int32_t>(values).AsProtoTensorContent(
        (*n->mutable_attr())["value"].mutable_tensor());
  }
  // A resource variable "name" of float [size] with its ops:
  // name/Assign (from name/init), name/Read, name/IsInit.
  void ResourceVar(const std::string& name, std::vector<float> init,
                   const std::string& device = "") {
    NodeDef* v = Add(name, "VarHandleOp", {}, device);
    Type(v, "dtype", DT_FLOAT);
    Shape(v, {static_cast<int64_t>(init.size())});
    Str(v, "shared_name", name);
    FloatConst(name + "/init", std::move(init), device);
    Type(Add(name + "/Assign", "AssignVariableOp", {name, name + "/init"}),
         "dtype", DT_FLOAT);
    Type(Add(name + "/Read", "ReadVariableOp", {name}), "dtype", DT_FLOAT);
    Add(name + "/IsInit", "VarIsInitializedOp", {name});
  }
  // A reference variable with name/Assign, name/read (Identity) and
  // name/IsInit.
  void RefVar(const std::string& name, std::vector<float> init,
              const std::string& device = "",
              const std::string& read_device = "") {
    NodeDef* v = Add(name, "VariableV2", {}, device);
    Type(v, "dtype", DT_FLOAT);
    Shape(v, {static_cast<int64_t>(init.size())});
    FloatConst(name + "/init", std::move(init), device);
    Type(Add(name + "/Assign", "Assign", {name, name + "/init"}, device), "T",
         DT_FLOAT);
    Type(Add(name + "/read", "Identity", {name}, read_device), "T", DT_FLOAT);
    Type(Add(name + "/IsInit", "IsVariableInitialized", {name}, device),
         "dtype", DT_FLOAT);
  }
  const GraphDef& def() const { return def_; }

 private:
  GraphDef def_;
};

std::unique_ptr<Session> Open(const GraphDef& def, int cpus = 1) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = cpus;
  auto s = Session::Create("local", options);
  DFX_CHECK_OK(s.status());
  DFX_CHECK_OK((*s)->Extend(def));
  return *std::move(s);
}

std::vector<float> Fetch(Session* s, const std::string& name) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {name}, {}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto span = out[0].span<float>();
  return std::vector<float>(span.begin(), span.end());
}

bool FetchBool(Session* s, const std::string& name) {
  std::vector<Tensor> out;
  DFX_CHECK_OK(s->Run({}, {name}, {}, &out));
  return out[0].scalar<bool>();
}

void RunTarget(Session* s, const std::string& target) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {}, {target}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
}

TEST_CASE("a resource variable keeps its value across steps") {
  G g;
  g.ResourceVar("v", {1, 2});
  g.FloatConst("ten", {10, 10});
  G::Type(g.Add("v/AddTen", "AssignAddVariableOp", {"v", "ten"}), "dtype",
          DT_FLOAT);
  G::Type(g.Add("v/SubTen", "AssignSubVariableOp", {"v", "ten"}), "dtype",
          DT_FLOAT);
  auto s = Open(g.def());

  CHECK_FALSE(FetchBool(s.get(), "v/IsInit"));
  RunTarget(s.get(), "v/Assign");
  CHECK(FetchBool(s.get(), "v/IsInit"));
  const std::vector<float> before = Fetch(s.get(), "v/Read");
  CHECK(before == std::vector<float>{1, 2});

  // A value fetched earlier is a snapshot: later updates do not touch it.
  std::vector<Tensor> held;
  REQUIRE(s->Run({}, {"v/Read"}, {}, &held).ok());
  RunTarget(s.get(), "v/AddTen");
  RunTarget(s.get(), "v/AddTen");
  CHECK(Fetch(s.get(), "v/Read") == std::vector<float>{21, 22});
  CHECK(held[0].data<float>()[0] == 1);
  RunTarget(s.get(), "v/SubTen");
  CHECK(Fetch(s.get(), "v/Read") == std::vector<float>{11, 12});
}

TEST_CASE("reading an uninitialized resource variable names it") {
  G g;
  g.ResourceVar("weights", {1, 2});
  auto s = Open(g.def());
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"weights/Read"}, {}, &out);
  CHECK_THAT(st, StatusIs(absl::StatusCode::kFailedPrecondition));
  CHECK_THAT(std::string(st.message()),
             Catch::Contains("weights") && Catch::Contains("ReadVariableOp"));
}

TEST_CASE("assigning a resource variable checks dtype and shape") {
  G g;
  g.ResourceVar("v", {1, 2});
  g.FloatConst("three", {1, 2, 3});
  NodeDef* a = g.Add("v/Assign3", "AssignVariableOp", {"v", "three"});
  G::Type(a, "dtype", DT_FLOAT);
  G::Bool(a, "validate_shape", true);
  G::Type(g.Add("v/Reshape3", "AssignVariableOp", {"v", "three"}), "dtype",
          DT_FLOAT);
  g.IntConst("ints", {1, 2});
  G::Type(g.Add("v/AssignInt", "AssignVariableOp", {"v", "ints"}), "dtype",
          DT_INT32);
  auto s = Open(g.def());
  RunTarget(s.get(), "v/Assign");
  std::vector<Tensor> out;
  CHECK_THAT(s->Run({}, {}, {"v/Assign3"}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(s->Run({}, {}, {"v/AssignInt"}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK(Fetch(s.get(), "v/Read") == std::vector<float>{1, 2});
  // validate_shape = false (the default) lets the shape change.
  RunTarget(s.get(), "v/Reshape3");
  CHECK(Fetch(s.get(), "v/Read") == std::vector<float>{1, 2, 3});
}

TEST_CASE("ResourceGather and ResourceScatterAdd work on rows") {
  G g;
  g.ResourceVar("table", {0, 1, 2, 3, 4, 5});
  g.IntConst("idx", {4, 1, 4});
  g.FloatConst("upd", {10, 20, 30});
  NodeDef* gather = g.Add("gather", "ResourceGather", {"table", "idx"});
  G::Type(gather, "dtype", DT_FLOAT);
  G::Type(gather, "Tindices", DT_INT32);
  NodeDef* scatter =
      g.Add("scatter", "ResourceScatterAdd", {"table", "idx", "upd"});
  G::Type(scatter, "dtype", DT_FLOAT);
  G::Type(scatter, "Tindices", DT_INT32);
  g.IntConst("bad", {6});
  NodeDef* bad = g.Add("bad_gather", "ResourceGather", {"table", "bad"});
  G::Type(bad, "dtype", DT_FLOAT);
  G::Type(bad, "Tindices", DT_INT32);
  auto s = Open(g.def());
  RunTarget(s.get(), "table/Assign");
  CHECK(Fetch(s.get(), "gather") == std::vector<float>{4, 1, 4});
  RunTarget(s.get(), "scatter");
  // Duplicate indices add up.
  CHECK(Fetch(s.get(), "table/Read") ==
        std::vector<float>{0, 21, 2, 3, 44, 5});
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"bad_gather"}, {}, &out);
  CHECK_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(std::string(st.message()), Catch::Contains("indices[0] = 6"));
}

TEST_CASE(
    "tfdbg watches of an uninitialized reference variable run, as "
    "TensorFlow's do, and its plain readers still fail") {
  G g;
  g.RefVar("w", {1, 2});
  for (const auto& [name, op] : {std::pair{"w/nans", "DebugNanCount"},
                                 {"w/summary", "DebugNumericSummary"},
                                 {"w/watch", "DebugIdentity"}}) {
    NodeDef* n = g.Add(name, op, {"w"});
    G::Type(n, "T", DT_FLOAT);
    G::Str(n, "tensor_name", "w:0");
  }
  G::Type(g.Add("w/seen", "Identity", {"w/watch"}), "T", DT_FLOAT);
  auto s = Open(g.def());

  // Running the initializer with its variable watched (tfdbg's
  // watch_graph watches every node) works.
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {"w/nans", "w/summary"}, {"w/watch"}, &out).ok());
  CHECK(out[0].data<int64_t>()[0] == 0);
  CHECK(out[1].data<double>()[0] == 0.0);  // not initialized
  CHECK(out[1].data<double>()[12] == static_cast<double>(DT_FLOAT));
  // What the watch passes on is dead: its reader does not run on it.
  out.clear();
  CHECK_FALSE(s->Run({}, {"w/seen"}, {}, &out).ok());
  out.clear();
  CHECK_THAT(
      s->Run({}, {"w/read"}, {}, &out),
      StatusIs(absl::StatusCode::kFailedPrecondition, "uninitialized value w"));

  out.clear();
  REQUIRE(s->Run({}, {"w/Assign"}, {}, &out).ok());
  out.clear();
  REQUIRE(s->Run({}, {"w/summary", "w/seen"}, {}, &out).ok());
  CHECK(out[0].data<double>()[0] == 1.0);  // initialized
  CHECK(out[1].data<float>()[1] == 2);
}

TEST_CASE("a reference variable is assigned, read and updated in place") {
  G g;
  g.RefVar("w", {1, 2});
  g.FloatConst("one", {1, 1});
  G::Type(g.Add("w/AddOne", "AssignAdd", {"w", "one"}), "T", DT_FLOAT);
  G::Type(g.Add("w/SubOne", "AssignSub", {"w", "one"}), "T", DT_FLOAT);
  auto s = Open(g.def());

  CHECK_FALSE(FetchBool(s.get(), "w/IsInit"));
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"w/read"}, {}, &out);
  CHECK_THAT(st, StatusIs(absl::StatusCode::kFailedPrecondition));
  CHECK_THAT(std::string(st.message()),
             Catch::Contains("Attempting to use uninitialized value w"));

  // Fetching the Assign gives the assigned value through its reference.
  out.clear();
  REQUIRE(s->Run({}, {"w/Assign"}, {}, &out).ok());
  CHECK(out[0].data<float>()[1] == 2);
  CHECK(FetchBool(s.get(), "w/IsInit"));
  RunTarget(s.get(), "w/AddOne");
  RunTarget(s.get(), "w/AddOne");
  RunTarget(s.get(), "w/SubOne");
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{2, 3});
  CHECK(Fetch(s.get(), "w") == std::vector<float>{2, 3});
}

TEST_CASE("Assign with validate_shape rejects another shape") {
  G g;
  g.RefVar("w", {1, 2});
  // Fed, so that the shape is only known when the step runs (a constant of
  // the wrong shape is rejected when the graph is built).
  G::Type(g.Add("three", "Placeholder"), "dtype", DT_FLOAT);
  G::Type(g.Add("w/Assign3", "Assign", {"w", "three"}), "T", DT_FLOAT);
  NodeDef* loose = g.Add("w/Loose3", "Assign", {"w", "three"});
  G::Type(loose, "T", DT_FLOAT);
  G::Bool(loose, "validate_shape", false);
  auto s = Open(g.def());
  RunTarget(s.get(), "w/Assign");
  const Tensor three = Tensor::FromVector<float>({1, 2, 3});
  std::vector<Tensor> out;
  absl::Status st = s->Run({{"three", three}}, {}, {"w/Assign3"}, &out);
  CHECK_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(std::string(st.message()),
             Catch::Contains("lhs shape= [2] rhs shape= [3]"));
  REQUIRE(s->Run({{"three", three}}, {}, {"w/Loose3"}, &out).ok());
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{1, 2, 3});
}

TEST_CASE("a reference variable on one device is read on another") {
  G g;
  g.RefVar("w", {5, 6}, "/job:localhost/replica:0/task:0/device:CPU:1",
           "/job:localhost/replica:0/task:0/device:CPU:0");
  g.FloatConst("one", {1, 1}, "/job:localhost/replica:0/task:0/device:CPU:0");
  G::Type(g.Add("w/AddOne", "AssignAdd", {"w", "one"}), "T", DT_FLOAT);
  auto s = Open(g.def(), /*cpus=*/2);
  RunTarget(s.get(), "w/Assign");
  RunTarget(s.get(), "w/AddOne");
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{6, 7});
}

TEST_CASE("ScatterUpdate and ScatterAdd on a reference variable") {
  G g;
  g.RefVar("w", {0, 0, 0, 0});
  g.IntConst("idx", {3, 0});
  g.FloatConst("upd", {7, 8});
  NodeDef* up = g.Add("w/Update", "ScatterUpdate", {"w", "idx", "upd"});
  G::Type(up, "T", DT_FLOAT);
  G::Type(up, "Tindices", DT_INT32);
  NodeDef* add = g.Add("w/Add", "ScatterAdd", {"w", "idx", "upd"});
  G::Type(add, "T", DT_FLOAT);
  G::Type(add, "Tindices", DT_INT32);
  auto s = Open(g.def());
  RunTarget(s.get(), "w/Assign");
  RunTarget(s.get(), "w/Update");
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{8, 0, 0, 7});
  RunTarget(s.get(), "w/Add");
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{16, 0, 0, 14});
}

TEST_CASE("concurrent locked updates lose nothing") {
  G g;
  g.ResourceVar("v", {0});
  g.RefVar("w", {0});
  g.FloatConst("one", {1});
  G::Type(g.Add("v/Inc", "AssignAddVariableOp", {"v", "one"}), "dtype",
          DT_FLOAT);
  NodeDef* inc = g.Add("w/Inc", "AssignAdd", {"w", "one"});
  G::Type(inc, "T", DT_FLOAT);
  G::Bool(inc, "use_locking", true);
  auto s = Open(g.def());
  RunTarget(s.get(), "v/Assign");
  RunTarget(s.get(), "w/Assign");
  constexpr int kThreads = 4;
  constexpr int kSteps = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        std::vector<Tensor> out;
        if (!s->Run({}, {}, {"v/Inc", "w/Inc"}, &out).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(Fetch(s.get(), "v/Read") == std::vector<float>{kThreads * kSteps});
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>{kThreads * kSteps});
}

// Readers of a reference variable alias its buffer and read it while
// updates write it in place (TensorFlow's semantics, kept): each read sees
// whole counts, never going back, and the locked updates lose nothing. In
// the TSan build this is also the check that those in-place writes are
// annotated (base/tsan.h) rather than reported.
TEST_CASE("reference variables are read while updated in place") {
  G g;
  g.RefVar("w", {0, 0, 0, 0});
  g.RefVar("u", {0, 0, 0, 0});
  g.FloatConst("ones", {1, 1, 1, 1});
  g.FloatConst("minus_ones", {-1, -1, -1, -1});
  NodeDef* lr = g.Add("lr", "Const", {});
  G::Type(lr, "dtype", DT_FLOAT);
  TensorProto* lr_value = (*lr->mutable_attr())["value"].mutable_tensor();
  lr_value->set_dtype(DT_FLOAT);
  lr_value->mutable_tensor_shape();
  lr_value->add_float_val(1);
  NodeDef* inc = g.Add("w/Inc", "AssignAdd", {"w", "ones"});
  G::Type(inc, "T", DT_FLOAT);
  G::Bool(inc, "use_locking", true);
  // u -= 1 * -1, through the optimizers' update path.
  NodeDef* apply =
      g.Add("u/Apply", "ApplyGradientDescent", {"u", "lr", "minus_ones"});
  G::Type(apply, "T", DT_FLOAT);
  G::Bool(apply, "use_locking", true);
  auto s = Open(g.def(), /*cpus=*/1);
  RunTarget(s.get(), "w/Assign");
  RunTarget(s.get(), "u/Assign");
  constexpr int kUpdaters = 2;
  constexpr int kSteps = 200;
  constexpr float kTotal = kUpdaters * kSteps;
  std::atomic<int> failures{0};
  std::atomic<int> bad_reads{0};
  std::atomic<bool> updating{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < kUpdaters; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        std::vector<Tensor> out;
        if (!s->Run({}, {}, {"w/Inc", "u/Apply"}, &out).ok()) ++failures;
      }
    });
  }
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      float last = 0;
      while (updating.load()) {
        std::vector<Tensor> out;
        if (!s->Run({}, {"w/read", "u/read"}, {}, &out).ok()) {
          ++failures;
          continue;
        }
        for (const Tensor& v : out) {
          for (float x : v.span<float>()) {
            if (x != std::floor(x) || x < 0 || x > kTotal) ++bad_reads;
          }
        }
        const float w0 = out[0].span<float>()[0];
        if (w0 < last) ++bad_reads;
        last = w0;
      }
    });
  }
  for (auto& t : threads) t.join();
  updating.store(false);
  for (auto& t : readers) t.join();
  CHECK(failures == 0);
  CHECK(bad_reads == 0);
  CHECK(Fetch(s.get(), "w/read") == std::vector<float>(4, kTotal));
  CHECK(Fetch(s.get(), "u/read") == std::vector<float>(4, kTotal));
}

TEST_CASE("DestroyResourceOp deletes a variable") {
  G g;
  g.ResourceVar("v", {3});
  g.Add("v/Destroy", "DestroyResourceOp", {"v"});
  auto s = Open(g.def());
  RunTarget(s.get(), "v/Assign");
  CHECK(FetchBool(s.get(), "v/IsInit"));
  RunTarget(s.get(), "v/Destroy");
  CHECK_FALSE(FetchBool(s.get(), "v/IsInit"));
  // Destroying what is gone is fine by default.
  RunTarget(s.get(), "v/Destroy");
}

TEST_CASE("a stateful random op keeps its stream across fetch signatures") {
  G g;
  g.IntConst("shape", {4});
  NodeDef* r = g.Add("r", "RandomUniform", {"shape"});
  G::Type(r, "dtype", DT_FLOAT);
  G::Type(r, "T", DT_INT32);
  (*r->mutable_attr())["seed"].set_i(7);
  (*r->mutable_attr())["seed2"].set_i(3);
  g.FloatConst("c", {0});

  auto a = Open(g.def());
  const std::vector<float> a1 = Fetch(a.get(), "r");
  const std::vector<float> a2 = Fetch(a.get(), "r");
  CHECK(a1 != a2);

  // Another fetch list builds another executor; the kernel (and its
  // generator) is the session's, so the stream goes on.
  auto b = Open(g.def());
  CHECK(Fetch(b.get(), "r") == a1);
  std::vector<Tensor> out;
  REQUIRE(b->Run({}, {"c", "r"}, {}, &out).ok());
  auto second = out[1].span<float>();
  const std::vector<float> b2(second.begin(), second.end());
  CHECK(b2 != a1);
  CHECK(b2 == a2);
}

TEST_CASE(
    "a stateful op fed from another device keeps its kernel across "
    "fetch signatures") {
  // The shape comes from CPU:1, so r's input is a _Recv whose name
  // depends on the step's graph (the other cross-device edge, c -> x,
  // comes first in the second signature): the kernel must not restart.
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  G g;
  g.FloatConst("c", {5}, cpu1);
  G::Type(g.Add("x", "Identity", {"c"}, cpu0), "T", DT_FLOAT);
  NodeDef* shape = g.Add("shape", "Const", {}, cpu1);
  G::Type(shape, "dtype", DT_INT32);
  Tensor::FromVector<int32_t>({4}).AsProtoTensorContent(
      (*shape->mutable_attr())["value"].mutable_tensor());
  NodeDef* r = g.Add("r", "RandomUniform", {"shape"}, cpu0);
  G::Type(r, "dtype", DT_FLOAT);
  G::Type(r, "T", DT_INT32);
  (*r->mutable_attr())["seed"].set_i(7);
  (*r->mutable_attr())["seed2"].set_i(3);

  auto a = Open(g.def(), 2);
  const std::vector<float> a1 = Fetch(a.get(), "r");
  const std::vector<float> a2 = Fetch(a.get(), "r");
  auto b = Open(g.def(), 2);
  CHECK(Fetch(b.get(), "r") == a1);
  std::vector<Tensor> out;
  REQUIRE(b->Run({}, {"x", "r"}, {}, &out).ok());
  auto second = out[1].span<float>();
  CHECK(std::vector<float>(second.begin(), second.end()) == a2);
}

}  // namespace
}  // namespace dfx

// The debug family's ops (tests/golden/gen_debug.py: tfdbg's Copy and Debug*
// ops): TensorFlow 2.21's signatures and CPU kernel types, the tfdbg v1 dump
// files DebugIdentity, DebugNanCount and DebugNumericSummary write to
// file:// debug URLs (TensorFlow's paths and Event protos), dump paths that
// would leave the dump root, and the URLs dfx does not serve.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/debug/debug_dump.h"
#include "proto/event.pb.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

constexpr char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDevicePath[] =
    "_tfdbg_device_,job_localhost,replica_0,task_0,device_CPU_0";

// Every regular file under `dir`, relative to it.
std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir));
  }
  return out;
}

Event ReadEvent(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  Event event;
  REQUIRE(event.ParseFromString(bytes));
  return event;
}

NodeDef DebugNode(const std::string& op, DataType t,
                  const std::string& tensor_name,
                  const std::vector<std::string>& urls) {
  NodeDef node = TestNodeBuilder("watch", op, 1)
                     .Attr("T", t)
                     .Attr("device_name", kDevice)
                     .Attr("tensor_name", tensor_name.c_str())
                     .Build();
  auto* list = (*node.mutable_attr())["debug_urls"].mutable_list();
  for (const std::string& url : urls) list->add_s(url);
  return node;
}

TEST_CASE("Every debug op has TensorFlow 2.21's signature and CPU types",
          "[debug]") {
  testing::CheckSignaturesWithTensorFlow("debug", 9);
}

TEST_CASE(
    "DebugIdentity writes TensorFlow's tfdbg v1 dump file under the "
    "device's folder and the node's scopes",
    "[debug]") {
  const testing::TempDir tmp;
  const fs::path root = tmp.path();
  const Tensor x = Tensor::FromVector<float>({1.5f, -2.0f, 0.0f});
  const NodeDef node = DebugNode("DebugIdentity", DT_FLOAT, "outer/inner/x:1",
                                 {"file://" + root.string()});
  auto out = RunKernel(node, {x});
  REQUIRE(out.ok());
  CHECK(out->at(0).SharesBufferWith(x));
  std::vector<std::string> files = FilesUnder(root);
  REQUIRE(files.size() == 1);
  const std::string prefix =
      std::string(kDevicePath) + "/outer/inner/x_1_DebugIdentity_";
  REQUIRE(files[0].rfind(prefix, 0) == 0);
  // The rest is the wall time in microseconds, which the Event holds too.
  const std::string micros = files[0].substr(prefix.size());
  const Event event = ReadEvent(root / files[0]);
  CHECK(std::to_string(static_cast<uint64_t>(event.wall_time())) == micros);
  REQUIRE(event.summary().value_size() == 1);
  const Summary::Value& v = event.summary().value(0);
  CHECK(v.node_name() == "outer/inner/x:1:DebugIdentity");
  CHECK(v.tag() == "outer/inner/x");
  CHECK(v.metadata().plugin_data().plugin_name() == "debugger");
  CHECK(v.metadata().plugin_data().content() ==
        "{\"device\":\"/job:localhost/replica:0/task:0/device:CPU:0\","
        "\"outputSlot\":1,\"numChunks\":1,\"chunkIndex\":0}");
  auto dumped = Tensor::FromProto(v.tensor(), nullptr);
  REQUIRE(dumped.ok());
  CHECK(dumped->DebugString() == x.DebugString());
  CHECK(v.tensor().tensor_content().size() == 12);

  // A second run writes a second file.
  REQUIRE(RunKernel(node, {x}).ok());
  CHECK(FilesUnder(root).size() == 2);
}

TEST_CASE(
    "DebugNanCount and DebugNumericSummary dump their outputs, and "
    "mute_if_healthy writes nothing for a healthy tensor",
    "[debug]") {
  const testing::TempDir tmp;
  const fs::path root = tmp.path();
  const std::string url = "file://" + root.string();
  const Tensor with_nan = Tensor::FromVector<double>({1.0, NAN, 2.0, NAN});
  auto nan =
      RunKernel(DebugNode("DebugNanCount", DT_DOUBLE, "n", {url}), {with_nan});
  REQUIRE(nan.ok());
  CHECK(nan->at(0).data<int64_t>()[0] == 2);
  std::vector<std::string> files = FilesUnder(root);
  REQUIRE(files.size() == 1);
  CHECK(files[0].find("/n_0_DebugNanCount_") != std::string::npos);
  auto dumped = Tensor::FromProto(
      ReadEvent(root / files[0]).summary().value(0).tensor(), nullptr);
  REQUIRE(dumped.ok());
  CHECK(dumped->data<int64_t>()[0] == 2);
  fs::remove_all(root);
  fs::create_directories(root);

  NodeDef muted = DebugNode("DebugNumericSummary", DT_DOUBLE, "s:0", {url});
  (*muted.mutable_attr())["mute_if_healthy"].set_b(true);
  auto healthy = RunKernel(muted, {Tensor::FromVector<double>({1.0, 2.0})});
  REQUIRE(healthy.ok());
  CHECK(healthy->at(0).NumElements() == 15);
  CHECK(FilesUnder(root).empty());
  REQUIRE(RunKernel(muted, {with_nan}).ok());
  files = FilesUnder(root);
  REQUIRE(files.size() == 1);
  CHECK(files[0].find("/s_0_DebugNumericSummary_") != std::string::npos);
}

TEST_CASE("A dump file whose path is taken gets TensorFlow's -1, -2 suffix",
          "[debug]") {
  const testing::TempDir tmp;
  const fs::path root = tmp.path();
  debug::DebugWatchKey key{kDevice, "a/b", 0, "DebugIdentity"};
  const Tensor x = Tensor::FromVector<int32_t>({7});
  auto first = debug::DumpTensorToDir(key, x, 123, root.string());
  auto second = debug::DumpTensorToDir(key, x, 123, root.string());
  auto third = debug::DumpTensorToDir(key, x, 123, root.string());
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  REQUIRE(third.ok());
  const std::string stem =
      (root / kDevicePath / "a" / "b_0_DebugIdentity_123").string();
  CHECK(*first == stem);
  CHECK(*second == stem + "-1");
  CHECK(*third == stem + "-2");
}

TEST_CASE("String tensors are dumped in string_val, as TensorFlow does",
          "[debug]") {
  const Tensor s = Tensor::FromVector<std::string>({"ab", "", "xyz"});
  const Event event =
      debug::MakeDebugEvent({kDevice, "s", 0, "DebugIdentity"}, s, 5);
  const TensorProto& t = event.summary().value(0).tensor();
  CHECK(t.dtype() == DT_STRING);
  REQUIRE(t.string_val_size() == 3);
  CHECK(t.string_val(2) == "xyz");
  CHECK(t.tensor_content().empty());
  CHECK(event.wall_time() == 5.0);
}

TEST_CASE(
    "A node name that would leave the dump root is refused, naming the "
    "watch, and nothing is written",
    "[debug]") {
  const testing::TempDir tmp;
  const fs::path root = tmp.path();
  const fs::path sub = root / "dump";
  fs::create_directories(sub);
  for (const char* name :
       {"../evil:0", "a/../../evil", "a//b", "/abs/x", "x/.", "dir/"}) {
    CAPTURE(name);
    auto out = RunKernel(
        DebugNode("DebugIdentity", DT_FLOAT, name, {"file://" + sub.string()}),
        {Tensor::FromVector<float>({1})});
    CHECK_THAT(out.status(), StatusIs(absl::StatusCode::kInternal,
                                      "cannot name a dump file inside"));
    CHECK_THAT(out.status(),
               StatusIs(absl::StatusCode::kInternal, "node watch"));
  }
  CHECK(FilesUnder(root).empty());
  auto empty_root =
      debug::DumpTensorToDir({kDevice, "x", 0, "DebugIdentity"},
                             Tensor::FromVector<float>({1}), 1, "");
  CHECK_THAT(empty_root.status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "no dump root"));
}

TEST_CASE("A server's --data-dir confines the dump root", "[debug]") {
  const testing::TempDir tmp;
  const fs::path data = fs::path(tmp.path()) / "data";
  const fs::path outside = fs::path(tmp.path()) / "outside";
  fs::create_directories(data);
  REQUIRE_OK(SetDataDir(data.string()));
  const Tensor x = Tensor::FromVector<float>({1});
  auto refused = RunKernel(DebugNode("DebugIdentity", DT_FLOAT, "x:0",
                                     {"file://" + outside.string()}),
                           {x});
  auto inside = RunKernel(DebugNode("DebugIdentity", DT_FLOAT, "y:0",
                                    {"file://" + (data / "dump").string()}),
                          {x});
  auto graph = debug::DumpGraphToDir(kDevice, GraphDef(), 1, outside.string());
  REQUIRE_OK(SetDataDir(""));
  CHECK_THAT(refused.status(),
             StatusIs(absl::StatusCode::kInternal,
                      "'x:0:DebugIdentity': path '" + outside.string() +
                          "' is outside the data directory"));
  CHECK_FALSE(fs::exists(outside));
  REQUIRE_OK(inside);
  CHECK(FilesUnder(data / "dump").size() == 1);
  CHECK_THAT(graph, StatusIs(absl::StatusCode::kPermissionDenied, "graph of"));
}

TEST_CASE(
    "gRPC debug URLs are Unimplemented, unknown schemes Unavailable, and "
    "DebugIdentityV2 refuses a dump root",
    "[debug]") {
  const Tensor x = Tensor::FromVector<float>({1});
  CHECK_THAT(
      RunKernel(DebugNode("DebugNanCount", DT_FLOAT, "x:0",
                          {"grpc://localhost:6064"}),
                {x})
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented, "node watch: debug URL grpc"));
  CHECK_THAT(
      RunKernel(
          DebugNode("DebugIdentity", DT_FLOAT, "x:0", {"ftp://somewhere"}), {x})
          .status(),
      StatusIs(absl::StatusCode::kUnavailable,
               "Invalid debug target URL: ftp://somewhere"));

  NodeDef v2 =
      TestNodeBuilder("v2", "DebugIdentityV2", 1).Attr("T", DT_FLOAT).Build();
  auto passed = RunKernel(v2, {x});
  REQUIRE(passed.ok());
  CHECK(passed->at(0).SharesBufferWith(x));
  (*v2.mutable_attr())["debug_urls"].mutable_list()->add_s("file:///tmp/d");
  CHECK_THAT(RunKernel(v2, {x}).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "node v2: DebugIdentityV2 with dump root /tmp/d"));
  (*v2.mutable_attr())["debug_urls"].mutable_list()->set_s(0, "grpc://h:1");
  CHECK_THAT(RunKernel(v2, {x}).status(),
             StatusIs(absl::StatusCode::kInternal,
                      "Unsupported debug URL schema in: grpc://h:1"));
}

TEST_CASE("Copy makes a buffer of its own, and strings are passed on",
          "[debug]") {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3});
  for (const char* op : {"Copy", "CopyHost"}) {
    const NodeDef node =
        TestNodeBuilder("copy", op, 1).Attr("T", DT_FLOAT).Build();
    auto out = RunKernel(node, {x});
    REQUIRE(out.ok());
    CHECK_FALSE(out->at(0).SharesBufferWith(x));
    CHECK(out->at(0).DebugString() == x.DebugString());
  }
  const Tensor s = Tensor::FromVector<std::string>({"a"});
  auto out = RunKernel(
      TestNodeBuilder("copy", "Copy", 1).Attr("T", DT_STRING).Build(), {s});
  REQUIRE(out.ok());
  CHECK(out->at(0).SharesBufferWith(s));
}

}  // namespace
}  // namespace dfx
